// The application's logic, in svc's write transaction and on svc's own server.
import { defineHooks, ApiError } from 'svc';

const slugify = (text) =>
  text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

export default defineHooks({
  posts: {
    // Derive a value: stored with the post and in its event.
    async beforeCreate({ values }) {
      values.slug ??= slugify(values.title);
    },
    // Refuse a change, with a pointer to the field at fault.
    async beforeUpdate({ values, previous }) {
      const body = values.body !== undefined ? values.body : previous.body;
      if (values.status === 'published' && !body) {
        throw new ApiError(422, 'EMPTY_POST', 'A post needs a body before it is published', {
          pointer: '/data/attributes/body',
        });
      }
    },
  },
  routes(app) {
    app.get(
      '/v1/posts/:id/summary',
      {
        auth: 'key',
        schema: {
          summary: 'How long a post is',
          params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
        },
      },
      async (request) => {
        const post = await request.svc.records('posts').get(request.params.id);
        const words = (post.body ?? '').split(/\s+/).filter(Boolean).length;
        return { data: { type: 'summaries', id: post.id, attributes: { words } } };
      },
    );
  },
});
