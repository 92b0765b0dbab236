// `svc start` keeps WebAssembly (undici's response parser) at V8's baseline tier, so that optimizing it
// does not add 20-30 MB of compiler memory to the process's peak (tools/wasm-baseline-tier.ts), unless
// the operator chose the wasm tiers on node's command line.
import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { listeningUrl, writeConfigFile } from '../helpers/svc-process.ts';
import { wasmTierFlag, WASM_BASELINE_FLAG } from '../../src/tools/wasm-baseline-tier.ts';

const SVC = join(import.meta.dirname, '../../bin/svc.js');
const PROBE = join(import.meta.dirname, '../helpers/wasm-compiler-memory.mjs');
// Node.js 24's V8 reads the wasm tier flags only at start: there svc's setting has no effect.
const readAtRuntime = Number(process.versions.node.split('.')[0]) < 24;

describe('wasm tier', () => {
  const stops: (() => void)[] = [];
  after(() => {
    for (const stop of stops) stop();
  });

  it('is the baseline unless the operator chose the tiers, in either spelling', () => {
    assert.equal(wasmTierFlag([]), WASM_BASELINE_FLAG);
    assert.equal(wasmTierFlag(['--max-semi-space-size=4', '--heap-growing-percent=30']), WASM_BASELINE_FLAG);
    for (const chosen of ['--no-liftoff-only', '--liftoff_only', '--wasm-tier-up', '--no-wasm-dynamic-tiering'])
      assert.equal(wasmTierFlag([chosen]), undefined, chosen);
  });

  /** V8's peak compiler memory in MB of a `svc start` that then parses 3,000 answers with undici. */
  async function compilerPeak(nodeFlags: string[]): Promise<number> {
    const report = join(mkdtempSync(join(tmpdir(), 'svc-wasm-')), 'peak');
    const configFile = writeConfigFile({
      database: { url: 'sqlite::memory:' },
      resources: { notes: { fields: { text: { type: 'string' } } } },
    });
    const child = spawn(
      process.execPath,
      [...nodeFlags, '--import', PROBE, SVC, 'start', '--config', configFile, '--port', '0', '--host', '127.0.0.1'],
      {
        env: {
          ...process.env,
          LOG_LEVEL: 'warn',
          SVC_ADMIN_TOKEN: 'svcadm_wasm_tier_test_token',
          WASM_MEMORY_REPORT: report,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    const stop = () => child.kill('SIGKILL');
    stops.push(stop);
    const output: string[] = [];
    child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
    await listeningUrl(child, output, 'svc', stop);
    for (let waited = 0; !existsSync(report) && waited < 60_000; waited += 50) await sleep(50);
    stop();
    assert.ok(existsSync(report), `no report from the probe\n${output.join('')}`);
    return Number(readFileSync(report, 'utf8'));
  }

  it('leaves the parser unoptimized: a fraction of the compiler memory of the optimizing tier', {
    skip: readAtRuntime ? false : 'this Node.js reads the wasm tier flags only at start',
  }, async () => {
    const baseline = await compilerPeak([]);
    const optimized = await compilerPeak(['--no-liftoff-only']);
    assert.ok(optimized >= 20, `the optimizing tier took ${optimized} MB: the probe no longer measures it`);
    console.log(`# compiler memory: baseline ${baseline.toFixed(1)} MB, optimizing ${optimized.toFixed(1)} MB`);
    assert.ok(baseline < optimized / 2, `baseline ${baseline} MB, optimizing ${optimized} MB`);
  });
});
