// svc bounds V8's heap growth between full collections, unless the operator set it on the command line.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { heapGrowthFlag, HEAP_GROWING_PERCENT } from '../../src/tools/heap-growth.ts';

describe('heap growth', () => {
  it('is set for the service unless the operator chose a value, in either spelling', () => {
    assert.equal(heapGrowthFlag([]), `--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
    assert.equal(
      heapGrowthFlag(['--max-semi-space-size=8', '--import', 'tsx']),
      `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
    );
    assert.equal(heapGrowthFlag(['--heap-growing-percent=30']), undefined);
    assert.equal(heapGrowthFlag(['--heap_growing_percent=30']), undefined);
    assert.equal(heapGrowthFlag(['--heap-growing-percent', '30']), undefined);
  });

  it('is a flag this Node.js accepts', () => {
    const child = spawnSync(process.execPath, [heapGrowthFlag([])!, '-e', 'process.exit(0)'], { encoding: 'utf8' });
    assert.equal(child.status, 0, child.stderr);
    assert.equal(child.stderr, '', 'no warning about an unknown flag');
  });
});
