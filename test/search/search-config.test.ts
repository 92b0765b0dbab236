// `searchable` and `searchLanguage` in the config: only string and text fields can be searchable, and
// the language is one of the list both databases can follow; svc check names the place.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testConfig } from '../helpers/test-config.ts';
import type { ResourceDefinition } from '../../src/config/config-types.ts';

const withNotes = (notes: unknown) =>
  testConfig('sqlite:/tmp/unused-search-config.db', { resources: { notes: notes as ResourceDefinition } });

describe('search settings in the config', () => {
  it('takes searchable string and text fields and a language', () => {
    const config = withNotes({
      searchLanguage: 'english',
      fields: { title: { type: 'string', searchable: true }, body: { type: 'text', searchable: true } },
    });
    assert.equal(config.resources.notes!.searchLanguage, 'english');
  });

  it('refuses searchable on another type, naming the field', () => {
    for (const type of ['integer', 'enum', 'json', 'email']) {
      const field = type === 'enum' ? { type, values: ['a'], searchable: true } : { type, searchable: true };
      assert.throws(
        () => withNotes({ fields: { code: field } }),
        (error: Error) => /notes.*code.*searchable.*only string and text fields can be searchable/s.test(error.message),
        type,
      );
    }
  });

  it('refuses the names the full-text index reserves', () => {
    for (const name of ['rank', 'rowid'])
      assert.throws(
        () => withNotes({ fields: { [name]: { type: 'string', searchable: true } } }),
        /cannot be searchable \(the full-text index reserves the name\)/,
      );
    assert.doesNotThrow(() => withNotes({ fields: { rank: { type: 'string' } } }), 'unsearchable, the name is free');
  });

  it('refuses a language outside the list', () => {
    assert.throws(
      () => withNotes({ searchLanguage: 'klingon', fields: { title: { type: 'string', searchable: true } } }),
      /searchLanguage/,
    );
  });
});
