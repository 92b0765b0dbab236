// What one webhook POST costs the sending core, alone: svc's own send path (sendWebhook on its undici
// agent, the spec's headers and a signature over a record-sized payload) against a local receiver on
// the other core, 32 in flight, no database and no queue. It is the least a create with a matching
// subscription can add to a create on svc's core, since every event is delivered by its own POST.
//   taskset -c 0 node --import tsx bench/post-cost.ts [posts]
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { buildDeliveryRequest } from '../src/webhooks/delivery/delivery-request.ts';
import { createDeliveryAgent, createSendClock, sendWebhook } from '../src/webhooks/delivery/send-webhook.ts';
import { generateWebhookSecret } from '../src/webhooks/delivery/sign-payload.ts';
import type { StoredSubscription } from '../src/webhooks/subscriptions/webhook-subscription.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

const IN_FLIGHT = 32;

async function runReceiver(): Promise<void> {
  const receiver = await startWebhookReceiver();
  process.stdout.write(`${receiver.url}\n`);
  process.once('SIGTERM', () => void receiver.close().then(() => process.exit(0)));
}

async function measure(posts: number): Promise<void> {
  const child = spawn(
    'taskset',
    ['-c', '1', process.execPath, '--import', 'tsx', fileURLToPath(import.meta.url), '--receiver'],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const [line] = (await once(child.stdout!, 'data')) as [Buffer];
  const url = line.toString().trim();
  const agent = createDeliveryAgent({ connectionsPerTarget: IN_FLIGHT, allowPrivateTargets: true });
  const clock = createSendClock(30_000);
  const subscription = { headers: {}, secret: generateWebhookSecret() } as unknown as StoredSubscription;
  const payload = JSON.stringify({
    id: '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e0f',
    event: {
      type: 'posts.created',
      resource: 'posts',
      resourceId: '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e10',
      createdAt: new Date().toISOString(),
      data: {
        old: null,
        new: {
          id: '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e10',
          title: 'Post 42',
          body: 'Lorem ipsum '.repeat(20),
          views: 0,
          published: true,
        },
        changes: { added: ['title', 'body', 'views', 'published'], updated: [], removed: [] },
      },
    },
    delivery: { id: '0190f5c2-7a1b-7c3d-8e4f-5a6b7c8d9e11', attempt: 1 },
  });
  const send = (i: number) =>
    sendWebhook(
      buildDeliveryRequest(
        {
          id: `d-${i}`,
          webhookId: 'w',
          eventId: `e-${i}`,
          eventType: 'posts.created',
          attemptNumber: 1,
          requestPayload: payload,
          targetUrl: url,
          targetHost: '',
          claimToken: '',
          claimedUntil: 0,
        },
        subscription,
        Date.now(),
      ),
      { clock, allowPrivateTargets: true, agent },
    );
  const run = async (count: number) => {
    let next = 0;
    const lane = async () => {
      while (next < count) {
        const result = await send(next++);
        if (result.kind !== 'response' || result.status !== 204)
          throw new Error(`unexpected result ${JSON.stringify(result)}`);
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  };
  await run(Math.min(posts, 20_000));
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  await run(posts);
  const used = process.cpuUsage(cpu);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const perPost = (used.user + used.system) / posts;
  process.stdout.write(
    `${posts} POSTs in ${seconds.toFixed(2)} s (${Math.round(posts / seconds)}/s): ${perPost.toFixed(1)} µs of this process's CPU per POST ` +
      `(user ${(used.user / posts).toFixed(1)}, system ${(used.system / posts).toFixed(1)}), payload ${payload.length} bytes\n`,
  );
  await agent.destroy();
  child.kill('SIGTERM');
}

if (process.argv.includes('--receiver')) await runReceiver();
else await measure(Number(process.argv[2] ?? 100_000));
