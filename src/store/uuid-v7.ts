// UUID version 7 (RFC 9562): 48-bit millisecond timestamp then random bits, so ids sort by creation time.
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

export function uuidv7(now = Date.now()): string {
  const bytes = randomBytes(16);
  // Within one millisecond a 12-bit counter in rand_a keeps ids from this process strictly increasing.
  if (now <= lastMs) {
    sequence = (sequence + 1) & 0xfff;
    if (sequence === 0) lastMs += 1;
    now = lastMs;
  } else {
    lastMs = now;
    sequence = bytes[6]! & 0x07; // start low so the counter rarely wraps
  }
  bytes[0] = Math.floor(now / 2 ** 40) & 0xff;
  bytes[1] = Math.floor(now / 2 ** 32) & 0xff;
  bytes[2] = (now >>> 24) & 0xff;
  bytes[3] = (now >>> 16) & 0xff;
  bytes[4] = (now >>> 8) & 0xff;
  bytes[5] = now & 0xff;
  bytes[6] = 0x70 | ((sequence >>> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
