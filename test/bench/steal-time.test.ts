// The bench's per-second record of time the hypervisor took from each core (/proc/stat's steal column).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stealMeter, stolenMsByCore } from '../../bench/steal-time.ts';

const stat = (steal0: number, steal1: number) =>
  `cpu  144548 0 52036 507531 5251 0 17521 ${steal0 + steal1} 0 0\ncpu0 95107 0 25375 233406 937 0 10974 ${steal0} 0 0\ncpu1 49440 0 26661 274125 4314 0 6546 ${steal1} 0 0\nintr 1 2 3\n`;

describe('bench steal time', () => {
  it("reads each core's stolen time in ms (ticks of 10 ms), not the all-cores line", () => {
    assert.deepEqual(stolenMsByCore(stat(258, 375)), [2580, 3750]);
  });

  it('meters what was stolen from each core since the last reading', () => {
    const readings = [stat(10, 20), stat(12, 20), stat(12, 25)];
    const meter = stealMeter(() => readings.shift()!);
    assert.deepEqual(meter(), [20, 0]);
    assert.deepEqual(meter(), [0, 50]);
  });

  it('reports nothing where /proc/stat cannot be read', () => {
    const meter = stealMeter(() => {
      throw new Error('ENOENT');
    });
    assert.deepEqual(meter(), []);
  });
});
