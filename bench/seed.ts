// Seeds the benchmark database through svc's own components: the schema and auth tables as `svc start`
// applies them, a user with the bench role and a real API key issued the way POST /token issues it,
// and posts written in bulk (the API would take minutes for a million rows).
import { sql } from 'kysely';
import type { SvcConfig } from '../src/config/config-types.ts';
import { buildApp } from '../src/server.ts';
import { createStore, type Store } from '../src/store/create-store.ts';
import { ResourceRegistry } from '../src/resources/resource-registry.ts';
import type { Resource } from '../src/resources/resource.ts';
import { encodeValues } from '../src/records/record-codec.ts';
import { uuidv7 } from '../src/store/uuid-v7.ts';
import { BENCH_ROLE } from './bench-config.ts';

export interface SeededData {
  userId: string;
  /** `Bearer <key>` of the bench user. */
  authorization: string;
  /** Posts the bench user can read (published, or its own). */
  readableIds: string[];
  /** Posts the bench user may update (its own). */
  ownIds: string[];
}

const BODY =
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et ' +
  'dolore magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco laboris nisi ut aliquip.';
const BATCH = 500;
const KEY_SCOPES = { posts: { read: ['*'], create: ['*'], update: ['*'] } };

/** Post number `i`: half published, a third written by the bench user, views spread over 0..99999. */
function postValues(i: number, userId: string, now: string): Record<string, unknown> {
  return {
    id: uuidv7(),
    title: `Post ${i}`,
    body: BODY,
    status: i % 2 === 0 ? 'published' : 'draft',
    views: (i * 7919) % 100_000,
    rating: (i % 50) / 10,
    published: i % 2 === 0,
    published_at: i % 2 === 0 ? now : null,
    tags: ['bench', `t${i % 10}`],
    author_id: i % 3 === 0 ? userId : `other-${i % 7}`,
    created_at: now,
    updated_at: now,
  };
}

export async function insertPosts(
  store: Store,
  resource: Resource,
  from: number,
  to: number,
  userId: string,
  seen?: SeededData,
): Promise<void> {
  const now = new Date().toISOString();
  for (let start = from; start < to; start += BATCH * 20) {
    await store.db.transaction().execute(async (trx) => {
      for (let batchStart = start; batchStart < Math.min(start + BATCH * 20, to); batchStart += BATCH) {
        const rows: Record<string, unknown>[] = [];
        for (let i = batchStart; i < Math.min(batchStart + BATCH, to); i++) {
          const values = postValues(i, userId, now);
          if (seen) {
            const own = values.author_id === userId;
            if (own) seen.ownIds.push(values.id as string);
            if (own || values.published === true) seen.readableIds.push(values.id as string);
          }
          rows.push(encodeValues(resource, store.dialect, values));
        }
        await trx.insertInto(resource.table).values(rows).execute();
      }
    });
  }
}

export async function seed(config: SvcConfig, rows: number): Promise<SeededData> {
  const { app, ctx } = await buildApp({ config, startWorkers: false });
  try {
    const email = 'bench@example.com';
    const password = 'bench-password-123';
    const user = await ctx.auth.users.create({ email, password, role: BENCH_ROLE, verified: true, name: 'bench' });
    const issued = await ctx.auth.issueKey(
      {
        email,
        password,
        otp: null,
        permissions: KEY_SCOPES,
        name: 'bench',
        metadata: null,
        expiresIn: null,
        rateLimitMax: null,
        rateLimitTimeWindow: null,
        refillInterval: null,
        refillAmount: null,
        remaining: null,
        console: false,
      },
      '127.0.0.1',
    );
    const seeded: SeededData = { userId: user.id, authorization: `Bearer ${issued.key}`, readableIds: [], ownIds: [] };
    await insertPosts(ctx.store, ctx.registry.require('posts'), 0, rows, user.id, seeded);
    await analyzeIfPostgres(ctx.store);
    return seeded;
  } finally {
    await app.close();
  }
}

/** Adds posts `from`..`to` (the growth measurement). */
export async function growPosts(config: SvcConfig, from: number, to: number, userId: string): Promise<void> {
  const store = createStore(config.database.url);
  try {
    await insertPosts(store, new ResourceRegistry(config).require('posts'), from, to, userId);
    await analyzeIfPostgres(store);
  } finally {
    await store.close();
  }
}

/** PostgreSQL's autovacuum would analyze the new rows at some point mid-run; do it now, deterministically. */
async function analyzeIfPostgres(store: Store): Promise<void> {
  if (store.dialect.name === 'postgres') await sql`analyze`.execute(store.db);
}
