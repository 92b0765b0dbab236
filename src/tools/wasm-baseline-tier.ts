// svc's one WebAssembly module is undici's HTTP response parser (llhttp), which reads the answers to
// webhook deliveries. V8 compiles wasm with its baseline compiler (Liftoff) and re-compiles the hot
// functions with its optimizing one (TurboFan). Optimizing llhttp's parser holds 28-33 MB of compiler
// memory for a moment: on Node.js 20 the single largest rise of svc's peak memory in the bench, at
// the first webhook deliveries. Webhook answers are a few bytes; parsing them with the baseline code
// cost the same CPU in a loop of 30,000 requests (62-69 µs per request, client and server together,
// either way). So svc keeps wasm at the baseline tier unless the operator chose a wasm tier flag.
// `svc start` sets it before its modules load; Node.js 24 reads it only from the command line
// (docs/operations.md).
import { setFlagsFromString } from 'node:v8';

export const WASM_BASELINE_FLAG = '--liftoff-only';
/** Flags with which an operator decides the wasm tiers for themselves; - and _ are alike to V8. */
const OPERATOR_CHOICE = /^--(?:no-)?(?:liftoff|wasm-tier|wasm-dynamic-tiering)/;

/** The V8 flag to set for `execArgv`, or undefined when the operator chose the wasm tiers. */
export function wasmTierFlag(execArgv: readonly string[]): string | undefined {
  const chosen = execArgv.some((arg) => OPERATOR_CHOICE.test(arg.replaceAll('_', '-')));
  return chosen ? undefined : WASM_BASELINE_FLAG;
}

/** Sets the baseline tier; V8 applies it to the wasm compiled after the call. */
export function keepWasmAtBaselineTier(): void {
  const flag = wasmTierFlag(process.execArgv);
  if (flag) setFlagsFromString(flag);
}
