// The console's list query (console/src/lib/filters.ts). The filter operators it offers come from the
// served /openapi.json (each filter parameter's `x-filter`), per field and in the API's words; every one
// of them is a filter the API takes; each round-trips between the console URL and `field__op=value`;
// view-only parameters never reach the API, and paging has a default.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  apiQuery,
  filterOperatorsOf,
  filtersOf,
  isValueless,
  withFilters,
  type FilterOperators,
} from '../../console/src/lib/filters.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';

const COMPARISONS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'nin', 'is_null', 'is_not_null'];

for (const dialect of testDialects()) {
  describe(`console list query (${dialect})`, () => {
    let t: TestApp;
    let operators: FilterOperators;

    before(async () => {
      t = await startTestApp(dialect);
      const openApi = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
      operators = filterOperatorsOf(openApi.paths['/v1/posts'].get.parameters);
    });
    after(() => t.close());

    it("offers each field the operators its type takes, from the API's own description", () => {
      const ops = (field: string) => operators.get(field)?.map(({ op }) => op);
      assert.deepEqual(ops('title'), [...COMPARISONS, 'like', 'ilike']);
      assert.deepEqual(ops('views'), COMPARISONS);
      assert.deepEqual(ops('published'), ['eq', 'neq', 'in', 'nin', 'is_null', 'is_not_null']);
      for (const op of ['eq', 'in', 'is_null'])
        assert.ok(ops('id')?.includes(op), `system fields are filterable too (id__${op})`);
      assert.deepEqual(ops('created_at'), COMPARISONS);
      assert.equal(operators.get('title')?.[0]?.text, 'equals the value');
      assert.deepEqual(
        operators
          .get('title')
          ?.filter((o) => o.valueless)
          .map((o) => o.op),
        ['is_null', 'is_not_null'],
      );
    });

    it('offers only filters the API accepts', async () => {
      for (const [field, fieldOps] of operators) {
        for (const { op, valueless } of fieldOps) {
          const value = valueless
            ? ''
            : field === 'views'
              ? '1'
              : field === 'published'
                ? 'true'
                : field === 'id'
                  ? '00000000-0000-4000-8000-000000000000'
                  : 'a';
          if (!['title', 'views', 'published', 'id'].includes(field)) continue;
          const response = await t.request({ method: 'GET', url: `/v1/posts?${field}__${op}=${value}`, auth: t.admin });
          assert.equal(response.statusCode, 200, `${field}__${op}: ${response.body}`);
        }
      }
    });

    it('writes each operator as field__op=value and reads it back', () => {
      for (const { op, valueless } of operators.get('title')!) {
        const params = withFilters(
          new URLSearchParams('_sort=-title&page[offset]=50&record=abc'),
          [{ field: 'title', op, value: 'a,b' }],
          operators,
        );
        assert.equal(params.get(`title__${op}`), valueless ? '' : 'a,b');
        assert.equal(isValueless(operators, 'title', op), valueless);
        assert.equal(params.get('_sort'), '-title', 'sorting is kept');
        assert.equal(params.get('page[offset]'), null, 'a new filter starts at the first page');
        assert.deepEqual(filtersOf(params, operators), [{ field: 'title', op, value: valueless ? '' : 'a,b' }]);
      }
    });

    it('reads a plain field=value as eq, and field__op as a filter only when the field takes op', () => {
      assert.deepEqual(
        filtersOf(new URLSearchParams('status=draft&views__gt=3&views__like=x&fields=a,b&_limit=5'), operators),
        [
          { field: 'status', op: 'eq', value: 'draft' },
          { field: 'views', op: 'gt', value: '3' },
          { field: 'views__like', op: 'eq', value: 'x' },
        ],
      );
    });
  });
}

describe('console list query, offline', () => {
  it('finds no operators in a document without filter parameters', () => {
    assert.equal(filterOperatorsOf(undefined).size, 0);
    assert.equal(filterOperatorsOf([{ name: 'x', in: 'query', 'x-filter': { field: 1 } }]).size, 0);
  });

  it('sends the API the list parameters only, with a default page size', () => {
    assert.equal(
      apiQuery(new URLSearchParams('status__eq=draft&record=x&new=1&fields=a,b')),
      'status__eq=draft&fields=a,b&page[limit]=25',
    );
    assert.equal(apiQuery(new URLSearchParams('_limit=10&_offset=20')), '_limit=10&_offset=20');
  });
});
