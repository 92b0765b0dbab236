// Both dialects send timestamps as toISOString text (SQLite stores it so). Text already in that form
// is kept without parsing it again; anything else is normalised through Date exactly as before.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.ts';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.ts';

for (const dialect of [sqliteDialect, postgresDialect]) {
  describe(`${dialect.name} timestamp encoding`, () => {
    const encode = (value: unknown) => dialect.encode('timestamp', value);

    it('keeps text already in the stored form', () => {
      for (const text of ['2026-11-25T19:58:00.123Z', '0000-01-01T00:00:00.000Z', '9999-12-28T23:59:59.999Z'])
        assert.equal(encode(text), text);
    });

    it('normalises other forms through Date', () => {
      assert.equal(encode('2026-11-25T21:58:00.123+02:00'), '2026-11-25T19:58:00.123Z');
      assert.equal(encode('2026-11-25T19:58:00Z'), '2026-11-25T19:58:00.000Z');
      assert.equal(encode(new Date(Date.UTC(2026, 0, 2))), '2026-01-02T00:00:00.000Z');
    });

    it('rolls an impossible day over as Date always has', () => {
      assert.equal(encode('2026-02-30T00:00:00.000Z'), '2026-03-02T00:00:00.000Z');
      assert.equal(encode('2026-02-29T00:00:00.000Z'), '2026-03-01T00:00:00.000Z');
      assert.equal(encode('2100-02-29T00:00:00.000Z'), '2100-03-01T00:00:00.000Z');
      assert.equal(encode('2026-04-31T00:00:00.000Z'), '2026-05-01T00:00:00.000Z');
      assert.equal(encode('2024-02-29T00:00:00.000Z'), '2024-02-29T00:00:00.000Z');
    });

    it('keeps the last days of a month without parsing them (every write on those days pays it)', () => {
      const kept = [
        '2026-11-29T01:02:03.004Z',
        '2026-11-30T23:59:59.999Z',
        '2026-12-31T00:00:00.000Z',
        '2024-02-29T12:00:00.000Z',
        '2000-02-29T12:00:00.000Z',
      ];
      const original = Date.prototype.toISOString;
      let parsed = 0;
      Date.prototype.toISOString = function (this: Date) {
        parsed++;
        return original.call(this);
      };
      try {
        for (const text of kept) assert.equal(encode(text), text);
      } finally {
        Date.prototype.toISOString = original;
      }
      assert.equal(parsed, 0);
    });

    it('agrees with Date for every canonical-looking text it keeps', () => {
      const pad = (n: number, width = 2) => String(n).padStart(width, '0');
      let seed = 7;
      const next = (below: number) => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed % below;
      };
      for (let i = 0; i < 20_000; i++) {
        const text = `${pad(next(10000), 4)}-${pad(1 + next(12))}-${pad(1 + next(31))}T${pad(next(24))}:${pad(next(60))}:${pad(next(60))}.${pad(next(1000), 3)}Z`;
        assert.equal(encode(text), new Date(text).toISOString(), text);
      }
    });
  });
}
