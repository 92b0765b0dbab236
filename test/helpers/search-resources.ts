// Resources of the full-text search suites: searchable fields of both types, one a reader cannot read,
// a row filter, a role that reads no searchable field, and a resource with none.
import type { ResourceDefinition } from '../../src/config/config-types.ts';

export const SEARCH_RESOURCES: Record<string, ResourceDefinition> = {
  notes: {
    enableSoftDelete: true,
    fields: {
      title: { type: 'string', searchable: true, sortable: true },
      body: { type: 'text', searchable: true },
      secret: { type: 'text', searchable: true },
      status: { type: 'enum', values: ['draft', 'published'], default: 'published' },
      views: { type: 'integer', default: 0, sortable: true },
      owner: { type: 'string' },
    },
    permissions: {
      editor: { read: true, create: true, update: true, delete: true },
      // Readers see published notes and their own, without `secret`.
      user: {
        read: {
          fields: ['title', 'body', 'status', 'views', 'owner'],
          filter: { _or: [{ status: { eq: 'published' } }, { owner: { eq: '$userId' } }] },
        },
      },
      // Reads no searchable field at all.
      counter: { read: { fields: ['views'] } },
    },
  },
  tags: {
    fields: { name: { type: 'string' } },
    permissions: { editor: { read: true, create: true } },
  },
};
