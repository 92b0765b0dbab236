// Child process of event-fanout.test.ts: another svc process on the same database that writes posts.
// Env: FANOUT_DATABASE_URL, FANOUT_COUNT, optional FANOUT_REDIS_URL. Prints {"ids":[...]} when done.
import { buildApp } from '../../src/server.ts';
import { testConfig } from '../helpers/test-config.ts';
import { POSTS_RESOURCE } from '../helpers/stream-test-app.ts';
import { issueTestKey } from '../helpers/stream-test-keys.ts';

const url = process.env.FANOUT_DATABASE_URL;
if (!url) throw new Error('FANOUT_DATABASE_URL is not set');
const count = Number(process.env.FANOUT_COUNT ?? '3');
const redisUrl = process.env.FANOUT_REDIS_URL;
const config = testConfig(url, {
  resources: { posts: POSTS_RESOURCE },
  ...(redisUrl ? { redis: { url: redisUrl } } : {}),
});
const { app, ctx } = await buildApp({ config });
try {
  const editor = await issueTestKey(app, ctx, 'editor', `fanout-writer-${process.pid}`);
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const response = await app.inject({
      method: 'POST',
      url: '/v1/posts',
      headers: { authorization: editor.authorization },
      payload: { title: `from the other process ${i}` },
    });
    if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
    ids.push((response.json() as { data: { id: string } }).data.id);
  }
  process.stdout.write(`${JSON.stringify({ ids })}\n`);
} finally {
  await app.close();
}
