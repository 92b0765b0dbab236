// The minor collection the upload path asks for frees dead Buffers' outside-the-heap bytes,
// and leaves the service's own global scope without a `gc` function.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { collectYoungGarbage } from '../../src/tools/young-garbage.ts';

test('a minor collection frees dead buffers, without exposing gc to the service', async () => {
  collectYoungGarbage();
  const before = process.memoryUsage().arrayBuffers;
  for (let i = 0; i < 320; i++) Buffer.allocUnsafeSlow(64 * 1024).fill(i);
  const piled = process.memoryUsage().arrayBuffers - before;
  collectYoungGarbage();
  // V8 may sweep the freed backing stores on a background task just after the collection.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const left = process.memoryUsage().arrayBuffers - before;
  assert.ok(piled > 10 * 1024 * 1024, `20 MB of dead buffers were still counted before (${piled})`);
  assert.ok(left < piled / 4, `the collection freed them (${piled} -> ${left})`);
  assert.equal((globalThis as { gc?: unknown }).gc, undefined);
});
