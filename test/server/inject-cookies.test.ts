// Fastify's inject (light-my-request) writes its `cookies` option with the `cookie` package, which
// package.json's `overrides` hold at 1.x (2.x declares Node >= 22 and made every install on Node 20
// warn). This checks that 1.x still does the job: the cookies arrive, encoded, as one Cookie header.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Fastify from 'fastify';

test("inject's cookies option arrives as an encoded Cookie header", async () => {
  const app = Fastify();
  app.get('/', async (request) => request.headers.cookie ?? '(none)');
  try {
    const response = await app.inject({
      url: '/',
      headers: { cookie: 'first=1' },
      cookies: { session: 'a b', theme: 'dark' },
    });
    assert.equal(response.body, 'first=1; session=a%20b; theme=dark');
  } finally {
    await app.close();
  }
});
