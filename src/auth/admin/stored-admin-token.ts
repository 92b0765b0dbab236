// The generated admin token used when none is configured: created at first start and printed once,
// rotated by `svc admin-token --rotate`. Only its hash is kept.
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Store } from '../../store/create-store.ts';
import { hashToken } from '../token-hash.ts';
import { ADMIN_TOKEN_ROW_ID, ADMIN_TOKEN_TABLE, createAdminTokenTable } from './admin-token-table.ts';

export const ADMIN_TOKEN_PREFIX = 'svcadm_';

function generateAdminToken(): string {
  return ADMIN_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

function tokenRow(store: Store, token: string): Record<string, unknown> {
  return {
    id: ADMIN_TOKEN_ROW_ID,
    token_hash: hashToken(token),
    created_at: store.dialect.encode('timestamp', new Date().toISOString()),
  };
}

export async function readStoredAdminTokenHash(store: Store): Promise<string | undefined> {
  const row = await store.db
    .selectFrom(ADMIN_TOKEN_TABLE)
    .select('token_hash')
    .where('id', '=', ADMIN_TOKEN_ROW_ID)
    .executeTakeFirst();
  return row ? String(row.token_hash) : undefined;
}

/** Shows a newly generated admin token to the person starting svc (standard error unless told otherwise). */
export type AdminTokenAnnouncer = (token: string) => void;

/** A block on standard error that is hard to miss among log lines, and says how to keep the token. */
export function announceOnStderr(token: string): void {
  const rule = '='.repeat(72);
  process.stderr.write(
    `\n${rule}\n  svc generated an admin token. It is shown only this once; store it now:\n\n    ${token}\n\n` +
      `  Use it as: Authorization: Bearer <token> on /admin/... and /console.\n` +
      `  To choose your own instead, start with SVC_ADMIN_TOKEN=... (or adminToken in the config);\n` +
      `  to replace this one: svc admin-token --rotate\n${rule}\n\n`,
  );
}

/**
 * Generates the stored token if there is none yet and announces it once; the log only says that it was
 * generated, so the secret never reaches a log store. With several processes starting together only
 * the one whose insert wins announces it.
 */
export async function ensureStoredAdminToken(
  store: Store,
  log: FastifyBaseLogger,
  announce: AdminTokenAnnouncer = announceOnStderr,
): Promise<void> {
  if ((await readStoredAdminTokenHash(store)) !== undefined) return;
  const token = generateAdminToken();
  const result = await store.db
    .insertInto(ADMIN_TOKEN_TABLE)
    .values(tokenRow(store, token))
    .onConflict((oc) => oc.column('id').doNothing())
    .executeTakeFirst();
  if ((result.numInsertedOrUpdatedRows ?? 0n) > 0n) {
    log.warn(
      'No admin token is configured (adminToken / SVC_ADMIN_TOKEN), so one was generated and shown once on standard error',
    );
    announce(token);
  }
}

/** Replaces the stored admin token and returns the new one (the only time it is ever visible). */
export async function rotateAdminToken(store: Store): Promise<string> {
  await createAdminTokenTable(store);
  const token = generateAdminToken();
  const row = tokenRow(store, token);
  await store.db
    .insertInto(ADMIN_TOKEN_TABLE)
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet({ token_hash: row.token_hash, created_at: row.created_at }))
    .execute();
  return token;
}
