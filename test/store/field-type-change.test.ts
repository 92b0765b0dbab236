// Which field type changes keep every stored value's meaning (applied at start) and which do not
// (refused without --allow-destructive). Pure rules: no database involved.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FieldDefinition } from '../../src/config/config-types.ts';
import { fieldTypeChange } from '../../src/store/field-type-change.ts';

const kind = (before: FieldDefinition, after: FieldDefinition) => fieldTypeChange(before, after).kind;

describe('field type changes', () => {
  it('keeps values for widening changes', () => {
    assert.equal(kind({ type: 'integer' }, { type: 'number' }), 'widen');
    for (const type of ['string', 'email', 'url', 'uuid', 'enum'] as const)
      assert.equal(kind({ type }, { type: 'text' }), 'widen', type);
  });

  it('treats changes of meaning as destructive, whatever the column type', () => {
    for (const [before, after] of [
      ['integer', 'boolean'],
      ['boolean', 'integer'],
      ['number', 'integer'],
      ['text', 'string'],
      ['string', 'integer'],
      ['datetime', 'date'],
      ['json', 'text'],
    ] as const) {
      assert.equal(kind({ type: before }, { type: after }), 'reinterpret', `${before} → ${after}`);
    }
    assert.equal(kind({ type: 'relation', resource: 'a' }, { type: 'relation', resource: 'b' }), 'reinterpret');
  });

  it('sees no type change in attributes that only validate', () => {
    assert.equal(kind({ type: 'string', maxLength: 10 }, { type: 'string', maxLength: 200, unique: true }), 'none');
    assert.equal(
      kind(
        { type: 'relation', resource: 'a', onDelete: 'restrict' },
        { type: 'relation', resource: 'a', onDelete: 'cascade' },
      ),
      'none',
    );
  });
});
