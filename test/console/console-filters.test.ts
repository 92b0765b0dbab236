// The console's list query (console/src/lib/filters.ts): every filter operator round-trips between the
// console URL and `field__op=value`, view-only parameters never reach the API, and paging has a default.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { OPERATORS, apiQuery, filtersOf, withFilters } from '../../console/src/lib/filters.ts';

describe('console list query', () => {
  it('offers exactly the twelve filter operators of the API', () => {
    assert.deepEqual(
      OPERATORS.map(([op]) => op),
      ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is_null', 'is_not_null', 'like', 'ilike'],
    );
  });

  it('writes each operator as field__op=value and reads it back', () => {
    for (const [op] of OPERATORS) {
      const valueless = op === 'is_null' || op === 'is_not_null';
      const params = withFilters(new URLSearchParams('_sort=-title&page[offset]=50&record=abc'), [{ field: 'title', op, value: 'a,b' }]);
      assert.equal(params.get(`title__${op}`), valueless ? '' : 'a,b');
      assert.equal(params.get('_sort'), '-title', 'sorting is kept');
      assert.equal(params.get('page[offset]'), null, 'a new filter starts at the first page');
      assert.deepEqual(filtersOf(params), [{ field: 'title', op, value: valueless ? '' : 'a,b' }]);
    }
  });

  it('reads a plain field=value as eq and a field whose name contains __ by its last operator', () => {
    assert.deepEqual(filtersOf(new URLSearchParams('status=draft&my__field__gt=3&fields=a,b&_limit=5')), [
      { field: 'status', op: 'eq', value: 'draft' },
      { field: 'my__field', op: 'gt', value: '3' },
    ]);
  });

  it('sends the API the list parameters only, with a default page size', () => {
    assert.equal(apiQuery(new URLSearchParams('status__eq=draft&record=x&new=1&fields=a,b')), 'status__eq=draft&fields=a,b&page[limit]=25');
    assert.equal(apiQuery(new URLSearchParams('_limit=10&_offset=20')), '_limit=10&_offset=20');
  });
});
