// Finding users by part of their email address or name (GET /admin/users?search=), so an operator need
// not know an exact address. The term is matched literally: `%`, `_` and `\` in it are escaped, so a
// search for `a_b` finds only `a_b`, never `axb`, and `%` cannot turn it into "every user".
import { sql } from 'kysely';
import type { Store } from '../../store/create-store.ts';
import { IDENTITY_TABLES } from './identity-tables.ts';

/** Longer terms are refused (400): a term longer than any address or name cannot match, and costs a scan. */
export const USER_SEARCH_MAX_LENGTH = 100;

/** `term` as a LIKE pattern matching it anywhere, its wildcards and escape character taken literally. */
export function containsPattern(term: string): string {
  return `%${term.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}

export interface UserSearchPage {
  ids: string[];
  total: number;
}

/** Ids of the users whose email or name contains `term` (case-insensitive), oldest first, one page of them. */
export async function searchUserIds(
  store: Store,
  term: string,
  page: { limit: number; offset: number },
): Promise<UserSearchPage> {
  const pattern = containsPattern(term);
  const matching = () =>
    store.db
      .selectFrom(IDENTITY_TABLES.user)
      .where((eb) =>
        eb.or([
          store.dialect.like(sql.ref('email'), pattern, true),
          store.dialect.like(sql.ref('name'), pattern, true),
        ]),
      );
  const [rows, counted] = await Promise.all([
    matching()
      .select(sql.ref<string>('id').as('id'))
      .orderBy(sql.ref('createdAt'))
      .orderBy(sql.ref('id'))
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    matching()
      .select((eb) => eb.fn.countAll<number | string | bigint>().as('total'))
      .executeTakeFirst(),
  ]);
  return { ids: rows.map((row) => String(row.id)), total: Number(counted?.total ?? 0) };
}
