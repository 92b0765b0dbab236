// How far V8 lets the old generation grow past what survived the last full collection before it
// collects again. By default that is up to four times the live size; under a write load svc allocates
// fast but keeps little (31-33 MB live after a forced full collection in the bench, while RSS stood at
// 200-208 MB), so most of that growth is garbage waiting. At 50% the bench's peak under create and patch
// went 187-205 -> 169-176 MB with requests/s unchanged; at 30%, alternated with 50% over whole bench
// runs, the whole-run peak fell another 10 MB (SQLite 173 -> 163-164, PostgreSQL 154 -> 145-149) with
// CPU per request within the machine's noise (BENCHMARKS.md, Memory).
import { setFlagsFromString } from 'node:v8';

const FLAG = '--heap-growing-percent';
export const HEAP_GROWING_PERCENT = 30;

/** The V8 flag to set for `execArgv`, or undefined when the operator chose a value of their own. */
export function heapGrowthFlag(execArgv: readonly string[]): string | undefined {
  // NODE_OPTIONS cannot carry this flag, so the command line is the only place an operator sets it.
  // V8 reads - and _ alike in its flag names.
  const chosen = execArgv.some((arg) => arg.split('=')[0]!.replaceAll('_', '-') === FLAG);
  return chosen ? undefined : `${FLAG}=${HEAP_GROWING_PERCENT}`;
}

/** Applies the service's heap growth unless the operator chose one: V8 reads it at each collection. */
export function limitHeapGrowth(): void {
  const flag = heapGrowthFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
