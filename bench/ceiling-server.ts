// The ceiling: a bare Fastify route answering a document the size and shape of a svc record, with no
// auth, database or permissions. svc's requests/s are reported as a ratio of this one's.
import Fastify from 'fastify';

const DOCUMENT = {
  data: {
    type: 'posts',
    id: '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f',
    attributes: {
      title: 'Post 42',
      body:
        'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et ' +
        'dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip.',
      status: 'published',
      views: 1234,
      published: true,
      published_at: '2026-01-01T00:00:00.000Z',
      tags: ['bench', 't2'],
      author_id: 'other-1',
      created_at: '2026-01-01T00:00:00.000Z',
      updated_at: '2026-01-01T00:00:00.000Z',
    },
    links: { self: '/v1/posts/0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f' },
  },
  links: { self: '/v1/posts/0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f' },
};

const app = Fastify({ logger: false });
app.get('/ceiling', async () => DOCUMENT);
const port = Number(process.argv[2] ?? 0);
await app.listen({ port, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`listening on http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}\n`);
const close = () => void app.close().then(() => process.exit(0));
process.once('SIGTERM', close);
process.once('SIGINT', close);
