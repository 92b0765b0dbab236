// The posts resource of the stream leak report: `user` reads published posts or its own, never
// `rating` or `featured`; `editor` may do everything. Shared by the stream visibility suites.
import type { ResourceDefinition } from '../../src/config/config-types.ts';

export const REPORT_POSTS: ResourceDefinition = {
  enableSoftDelete: true,
  fields: {
    title: { type: 'string', required: true },
    body: { type: 'text' },
    status: { type: 'enum', values: ['draft', 'published'], default: 'draft' },
    author_id: { type: 'string' },
    rating: { type: 'integer' },
    featured: { type: 'boolean' },
  },
  permissions: {
    editor: { read: true, create: true, update: true, delete: true },
    user: {
      read: {
        fields: ['title', 'body', 'status', 'author_id'],
        filter: { _or: [{ status: { eq: 'published' } }, { author_id: { eq: '$userId' } }] },
      },
    },
  },
};
