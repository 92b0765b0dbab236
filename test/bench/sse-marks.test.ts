// The SSE driver's scan of what a client read: each post's event counted once, timed or warm-up, and
// nothing counted from text that only looks like a mark.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { scanMarks } from '../../bench/sse-marks.ts';

function scan(text: string): { timed: number[]; warm: number } {
  const found = { timed: [] as number[], warm: 0 };
  scanMarks(text, { timed: (seq) => found.timed.push(seq), warm: () => found.warm++ });
  return found;
}

const message = (title: string, id = '1') =>
  `event: posts.created\nid: ${id}\ndata: {"new":{"id":"p${id}","title":"${title}","status":"published"}}\n\n`;

describe('bench SSE marks', () => {
  it('finds every timed and warm-up post in the messages of one read, in order', () => {
    const text =
      message('sse-7', '1') + message('sse-warm-3', '2') + message('sse-1024', '3') + message('sse-warm-4', '4');
    assert.deepEqual(scan(text), { timed: [7, 1024], warm: 2 });
  });

  it('counts nothing from titles that are not marks or marks cut short', () => {
    const text =
      message('sse-', '1') +
      message('sse-12x', '2') +
      message('sse-wart-1', '3') +
      message('other-5', '4') +
      'data: {"title":"sse-99';
    assert.deepEqual(scan(text), { timed: [], warm: 0 });
  });
});
