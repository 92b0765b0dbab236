// The bench starts svc with the Node flags of `npm start`, read from package.json.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startScriptNodeFlags } from '../../bench/start-flags.ts';

const pkg = (start: string) => JSON.stringify({ scripts: { start } });

describe('startScriptNodeFlags', () => {
  it("reads the flags of this project's own start script", () => {
    assert.deepEqual(startScriptNodeFlags(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')), [
      '--max-semi-space-size=4',
    ]);
  });

  it('reads none, one or several flags', () => {
    assert.deepEqual(startScriptNodeFlags(pkg('node bin/svc.js start')), []);
    assert.deepEqual(startScriptNodeFlags(pkg('node --expose-gc --max-semi-space-size=4 bin/svc.js start')), [
      '--expose-gc',
      '--max-semi-space-size=4',
    ]);
  });

  it('refuses a start script of another shape, rather than measure svc started some other way', () => {
    assert.throws(() => startScriptNodeFlags(pkg('tsx src/cli.ts start')), /not "node \[--flags\] bin\/svc.js start"/);
    assert.throws(() => startScriptNodeFlags(JSON.stringify({})), /start script/);
  });
});
