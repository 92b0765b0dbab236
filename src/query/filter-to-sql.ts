// Compiles a FilterNode into a SQL boolean expression for one resource's table, through the store dialect.
import { sql, type RawBuilder, type SqlBool } from 'kysely';
import type { Resource } from '../resources/resource.ts';
import type { StoreDialect } from '../store/store-dialect.ts';
import type { FilterNode } from '../model/filter-node.ts';

const COMPARATORS = { eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** Field types with a handful of values: an equality on one matches a large share of rows. */
const FEW_VALUES: ReadonlySet<string> = new Set(['boolean', 'enum']);

export function filterToSql(
  node: FilterNode,
  resource: Resource,
  dialect: StoreDialect,
  tableAlias?: string,
): RawBuilder<SqlBool> {
  const column = (field: string) => sql.ref(tableAlias ? `${tableAlias}.${field}` : field);
  const compile = (n: FilterNode): RawBuilder<SqlBool> => {
    switch (n.kind) {
      case 'constant':
        return n.value ? sql<SqlBool>`1 = 1` : sql<SqlBool>`1 = 0`;
      case 'and':
        return n.nodes.length === 0
          ? sql<SqlBool>`1 = 1`
          : sql<SqlBool>`(${sql.join(n.nodes.map(compile), sql` and `)})`;
      case 'or':
        return n.nodes.length === 0
          ? sql<SqlBool>`1 = 0`
          : sql<SqlBool>`(${sql.join(n.nodes.map(compile), sql` or `)})`;
      case 'not':
        // NULL-safe negation: a condition that is unknown for a row (null column) counts as false, so its
        // negation is true, matching the in-memory predicate.
        return sql<SqlBool>`not coalesce(${compile(n.node)}, ${sql.lit(false)})`;
      case 'condition': {
        const kind = resource.storageOf(n.field);
        if (!kind) throw new Error(`unknown filter field ${n.field}`);
        const col = column(n.field);
        const encode = (v: unknown) => dialect.encode(kind, v);
        switch (n.op) {
          case 'eq':
          case 'neq':
          case 'gt':
          case 'gte':
          case 'lt':
          case 'lte':
            if (n.value === null)
              return n.op === 'eq'
                ? sql<SqlBool>`${col} is null`
                : n.op === 'neq'
                  ? sql<SqlBool>`${col} is not null`
                  : sql<SqlBool>`1 = 0`;
            if (n.op === 'eq' && FEW_VALUES.has(resource.fields.get(n.field)?.definition.type ?? '')) {
              return dialect.common(sql<SqlBool>`${col} = ${encode(n.value)}`);
            }
            return sql<SqlBool>`${col} ${sql.raw(COMPARATORS[n.op])} ${encode(n.value)}`;
          case 'in':
          case 'nin': {
            const values = (n.value as unknown[]).map(encode);
            if (values.length === 0) return n.op === 'in' ? sql<SqlBool>`1 = 0` : sql<SqlBool>`${col} is not null`;
            return sql<SqlBool>`${col} ${sql.raw(n.op === 'in' ? 'in' : 'not in')} (${sql.join(values)})`;
          }
          case 'is_null':
            return sql<SqlBool>`${col} is null`;
          case 'is_not_null':
            return sql<SqlBool>`${col} is not null`;
          case 'like':
          case 'ilike':
            return dialect.like(col, String(n.value), n.op === 'ilike');
          case 'regex':
            return dialect.regex(col, String(n.value));
          case 'contains':
            return dialect.contains(col, kind, n.value);
        }
      }
    }
  };
  return compile(node);
}
