// `key = any(array(batch))` for a limited subquery that locks its rows (FOR UPDATE SKIP LOCKED), where
// `key in (batch)` would do on paper. PostgreSQL runs the array form once, as an InitPlan. The `in`
// form it may plan as a semi-join, and when the outer scan meets a row a concurrent transaction
// changed, it re-checks that row by running the subquery again (EvalPlanQual), which can lock and
// return other rows: under the bench's load one webhook claim with a limit of 128 took 814 attempts,
// all for one slow target, and held the worker's global cap away from every other target.
import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';

export function keyInLockedBatch(key: string, batch: Expression<unknown>): RawBuilder<SqlBool> {
  return sql<SqlBool>`${sql.ref(key)} = any(array(${batch}))`;
}
