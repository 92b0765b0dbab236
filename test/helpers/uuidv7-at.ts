// A UUIDv7 made at a given time, for records back-dated in tests. svc's own uuidv7() never goes back
// in time (it keeps its ids increasing), and retention relies on a record's id being no later than its
// created_at, as the ids svc makes are.
import { randomBytes } from 'node:crypto';
import { uuidv7TimeFloor } from '../../src/store/uuid-v7.ts';

let counter = 0;

/** Ids made in one millisecond increase in the order they are made (up to 4,096 of them). */
export function uuidv7At(ms: number): string {
  counter = (counter + 1) & 0xfff;
  const random = randomBytes(8).toString('hex');
  return `${uuidv7TimeFloor(ms)}-7${counter.toString(16).padStart(3, '0')}-${(0x8 | (parseInt(random[0]!, 16) & 0x3)).toString(16)}${random.slice(1, 4)}-${random.slice(4, 16)}`;
}
