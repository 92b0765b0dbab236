// The bench's split of svc's CPU time into user and kernel time, read from /proc/<pid>/stat.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kernelShare, parseStatTicks, processCpuTicks } from '../../bench/cpu-time.ts';

// A real line's shape (Linux proc(5)): pid (comm) state ppid … utime stime …, here utime 1234, stime 567.
const statLine = (comm: string) =>
  `4242 (${comm}) S 1 4242 4242 0 -1 4194560 9001 0 12 0 1234 567 0 0 20 0 11 0 777 1234567 8910 18446744073709551615 1 1 0 0 0 0 0 16781312 134234626 0 0 0 17 0 0 0 0 0 0\n`;

describe('parseStatTicks', () => {
  it('reads utime and stime', () => {
    assert.deepEqual(parseStatTicks(statLine('node')), { user: 1234, kernel: 567 });
  });

  it('counts fields from the last parenthesis: a command name may hold spaces and parentheses', () => {
    assert.deepEqual(parseStatTicks(statLine('svc (main) 2')), { user: 1234, kernel: 567 });
  });

  it('refuses text that is not a stat line rather than report a share made of NaN', () => {
    assert.throws(() => parseStatTicks('4242 (node) S 1'), /not a \/proc\/<pid>\/stat line/);
  });
});

describe('kernelShare', () => {
  it("is the kernel's part of the time between two readings", () => {
    assert.equal(kernelShare({ user: 100, kernel: 50 }, { user: 160, kernel: 70 }), 20 / 80);
  });

  it('is null without a reading or without time spent', () => {
    assert.equal(kernelShare(null, { user: 1, kernel: 1 }), null);
    assert.equal(kernelShare({ user: 1, kernel: 1 }, null), null);
    assert.equal(kernelShare({ user: 5, kernel: 5 }, { user: 5, kernel: 5 }), null);
  });
});

describe('processCpuTicks', () => {
  it("reads a live process's ticks, which grow with its work in user space and in the kernel", () => {
    const before = processCpuTicks(process.pid);
    assert.ok(before);
    const dir = mkdtempSync(join(tmpdir(), 'svc-cpu-time-'));
    try {
      // Several clock ticks (10 ms each): hashing in user space, then writes the kernel carries out.
      const started = Date.now();
      let digest = Buffer.alloc(32);
      while (Date.now() - started < 60) digest = createHash('sha256').update(digest).digest();
      for (let i = 0; i < 2000; i++) writeFileSync(join(dir, 'f'), digest);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const after = processCpuTicks(process.pid);
    assert.ok(after);
    assert.ok(after.user + after.kernel > before.user + before.kernel, 'no CPU time was counted');
    const share = kernelShare(before, after);
    assert.ok(share !== null && share >= 0 && share <= 1);
  });

  it('is null for a process that does not exist', () => {
    assert.equal(processCpuTicks(2 ** 30), null);
  });
});
