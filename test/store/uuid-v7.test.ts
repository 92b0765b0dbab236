// UUIDv7 ids sort by the time they were made, and the time floor splits them at a millisecond: what
// retention relies on to read only the records made before its cutoff.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { uuidv7, uuidv7TimeFloor } from '../../src/store/uuid-v7.ts';

describe('UUIDv7 ids and their time floor', () => {
  it('makes ids that increase, in the RFC 9562 layout', () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7());
    for (const id of ids) assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  });

  it('puts every id made at or after a millisecond above its floor, and every earlier one below', () => {
    const at = Date.now() + 10 * 60_000;
    const id = uuidv7(at);
    assert.ok(uuidv7TimeFloor(at) < id);
    assert.ok(id < uuidv7TimeFloor(at + 1));
    assert.ok(uuidv7TimeFloor(at - 1) < uuidv7TimeFloor(at));
    assert.equal(uuidv7TimeFloor(0x0123456789ab), '01234567-89ab');
    assert.equal(uuidv7TimeFloor(0), '00000000-0000');
  });
});
