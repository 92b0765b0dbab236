// The console build fetches Scalar's bundle with `npm pack`; a stalled registry connection once hung CI
// for 15 minutes. The fetch is bounded in time, tried once more, and then fails with an error saying so.
// Real child processes stand in for npm: one that never answers, one that fails once, one that fails always.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');
type RunFetching = (
  command: string,
  args: string[],
  cwd: string,
  options?: { timeoutMs?: number; attempts?: number },
) => string;
const { runFetching } = (await import(join(ROOT, 'scripts/build-console.mjs'))) as { runFetching: RunFetching };

/** A node program that appends a line to `log` on each start, then does `then`. */
function child(log: string, then: string): string[] {
  return ['-e', `require('node:fs').appendFileSync(${JSON.stringify(log)}, 'started\\n'); ${then}`];
}

function starts(log: string): number {
  try {
    return readFileSync(log, 'utf8').split('\n').filter(Boolean).length;
  } catch {
    return 0;
  }
}

describe('the console build fetching Scalar', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-fetch-'));
  process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

  it('stops a fetch that never answers, tries once more, then fails with a clear error', () => {
    const log = join(dir, 'stall.log');
    assert.throws(
      () => runFetching(process.execPath, child(log, 'setInterval(() => {}, 1000);'), dir, { timeoutMs: 300 }),
      (error: Error) => {
        assert.match(error.message, /attempt 1 gave no answer within 0\.3 s and was stopped; attempt 2 gave no answer/);
        assert.match(error.message, /npm registry/);
        return true;
      },
    );
    // Not counted by starts(): a child may be stopped before it could write its line on a busy machine.
    // The message names both attempts, which is what ran.
  });

  it('answers from the second attempt when the first fails', () => {
    const log = join(dir, 'flaky.log');
    const out = runFetching(
      process.execPath,
      child(
        log,
        `if (require('node:fs').readFileSync(${JSON.stringify(log)}, 'utf8').split('\\n').length > 2) console.log('packed'); else process.exit(3);`,
      ),
      dir,
    );
    assert.equal(out.trim(), 'packed');
    assert.equal(starts(log), 2);
  });

  it('reports each failure of a fetch that always fails, and does not try a third time', () => {
    const log = join(dir, 'broken.log');
    assert.throws(
      () => runFetching(process.execPath, child(log, "console.error('E404 not found'); process.exit(1);"), dir),
      /attempt 1 failed: E404 not found; attempt 2 failed: E404 not found/,
    );
    assert.equal(starts(log), 2);
  });
});
