// What a slow before-hook costs the other writes. The bench's hooks file makes posts.beforeCreate wait
// SLOW_HOOK_MS for a post titled "slow …" (bench-config.ts), inside the write's transaction. Creates
// from one keep-alive client are timed alone, then while a second client keeps such slow creates going:
// on SQLite, where one writer holds the database, each of them waits for the slow write's transaction;
// on PostgreSQL only writes to the same rows would. `npm run bench` runs it on each database.

/** How long the bench hook waits for a post titled "slow …". */
export const SLOW_HOOK_MS = 20;

export interface SlowHookCost {
  creates: number;
  aloneMedianMs: number;
  aloneP99Ms: number;
  besideMedianMs: number;
  besideP99Ms: number;
  slowCreates: number;
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

async function create(url: string, authorization: string, title: string): Promise<void> {
  const response = await fetch(`${url}/v1/posts`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ title, body: 'x', views: 1, published: true }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`expected 201, got ${response.status}: ${text.slice(0, 300)}`);
}

/** Milliseconds each of `count` creates took, one after another. */
async function timedCreates(url: string, authorization: string, count: number, run: string): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await create(url, authorization, `fast ${run} ${i}`);
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

export async function measureSlowHookCost(url: string, authorization: string, creates = 200): Promise<SlowHookCost> {
  await timedCreates(url, authorization, 20, 'warm');
  const alone = await timedCreates(url, authorization, creates, 'alone');
  let slowCreates = 0;
  let running = true;
  // Bounded by the timed creates below: it stops when they are done.
  const slowLoop = (async () => {
    while (running) {
      await create(url, authorization, `slow ${slowCreates}`);
      slowCreates += 1;
    }
  })();
  const beside = await timedCreates(url, authorization, creates, 'beside');
  running = false;
  await slowLoop;
  return {
    creates,
    aloneMedianMs: quantile(alone, 0.5),
    aloneP99Ms: quantile(alone, 0.99),
    besideMedianMs: quantile(beside, 0.5),
    besideP99Ms: quantile(beside, 0.99),
    slowCreates,
  };
}

export function formatSlowHookCost(database: string, cost: SlowHookCost): string {
  const ms = (n: number) => n.toFixed(1);
  return (
    `- ${database}: a create while another create's before-hook waits ${SLOW_HOOK_MS} ms in its transaction: ` +
    `median ${ms(cost.besideMedianMs)} / p99 ${ms(cost.besideP99Ms)} ms, alone ${ms(cost.aloneMedianMs)} / ` +
    `${ms(cost.aloneP99Ms)} ms (${cost.creates} creates from one client, ${cost.slowCreates} slow ones beside them)`
  );
}
