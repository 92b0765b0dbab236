// UUID version 7 (RFC 9562): 48-bit millisecond timestamp then random bits, so ids sort by creation time.
import { randomFillSync } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/** Random bytes are drawn from a pool refilled 256 ids at a time: one call into OpenSSL per 256 ids. */
const POOL = Buffer.alloc(16 * 256);
let poolOffset = POOL.length;
const bytes = Buffer.alloc(16);
const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex(i: number): string {
  return HEX[bytes[i]!]!;
}

export function uuidv7(now = Date.now()): string {
  if (poolOffset === POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  POOL.copy(bytes, 0, poolOffset, poolOffset + 16);
  poolOffset += 16;
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
  return `${hex(0)}${hex(1)}${hex(2)}${hex(3)}-${hex(4)}${hex(5)}-${hex(6)}${hex(7)}-${hex(8)}${hex(9)}-${hex(10)}${hex(11)}${hex(12)}${hex(13)}${hex(14)}${hex(15)}`;
}

/**
 * The text every UUIDv7 made at or after `ms` sorts above, and every one made before it below: its
 * 48-bit timestamp as the id's first 13 characters. Lets a scan in id order stop at a point in time.
 */
export function uuidv7TimeFloor(ms: number): string {
  const time = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8, 12)}`;
}
