// The collections svc asks for: the minor one of the upload path frees dead Buffers' outside-the-heap
// bytes, the full ones of a start run between its steps; neither leaves a `gc` function in svc's scope.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { constants, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks';
import { collectWhileStarting, collectYoungGarbage } from '../../src/tools/collect-garbage.ts';

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

test('a start runs full collections between its steps and once at its end, and leaves no timer', async () => {
  const full: number[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries())
      if (
        (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ===
        constants.NODE_PERFORMANCE_GC_MAJOR
      )
        full.push(entry.startTime);
  });
  observer.observe({ entryTypes: ['gc'] });
  const steps: number[] = [];
  const answer = await collectWhileStarting(async () => {
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 120));
      steps.push(performance.now());
    }
    return 'started';
  });
  const ended = performance.now();
  // Observers are told on a later turn.
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  assert.equal(answer, 'started');
  assert.ok(full.filter((at) => at < steps[2]!).length >= 2, `full collections while starting: ${full.length}`);
  assert.ok(
    full.some((at) => at >= steps[2]!),
    'one more when the start is done',
  );
  const afterwards = full.length;
  await new Promise((resolve) => setTimeout(resolve, 250));
  assert.ok(ended > steps[2]!);
  assert.equal(full.length, afterwards, 'no collections after the start');
});

test('a start that fails still stops collecting and passes its error on', async () => {
  await assert.rejects(
    collectWhileStarting(async () => {
      throw new Error('no database');
    }),
    /no database/,
  );
});
