// The JSON:API parameters of a compound document: `include` (relationship paths, a tree) and sparse
// fieldsets per type, `fields[<type>]`, checked against the resources and the caller's readable fields.
// Every problem names its parameter (docs/records.md, "Relationships").
import { ApiError, type ErrorIssue } from '../errors/api-error.ts';
import { SERVER_LIMIT_DEFAULTS } from '../config/config-schema.ts';
import type { SvcConfig } from '../config/config-types.ts';
import type { Resource } from '../resources/resource.ts';
import { toManyRelation, toOneRelation, type ToManyRelation, type ToOneRelation } from '../resources/relations.ts';
import type { RawQuery } from './parse-list-query.ts';
import { FIELDSET_PARAMETER, isCompoundParameter } from './compound-parameter-names.ts';

/** One relationship path step of `include`; its children are the paths that continue from it. */
export type IncludeNode = ToOneStep | ToManyStep;

interface IncludeStep {
  /** The dotted path up to this step, as the caller wrote it: it names the step in errors. */
  readonly path: string;
  /** The resource the step arrives at. */
  readonly target: Resource;
  readonly children: IncludeNode[];
}

/** From a record to the one its relation field refers to. */
export interface ToOneStep extends IncludeStep {
  readonly kind: 'to-one';
  readonly relation: ToOneRelation;
}

/** From a record to the records of another resource whose relation field refers to it. */
export interface ToManyStep extends IncludeStep {
  readonly kind: 'to-many';
  readonly relation: ToManyRelation;
}

export interface CompoundQuery {
  /** The include tree from the primary resource; empty when nothing is included. */
  readonly include: IncludeNode[];
  /** Attribute names per type from `fields[<type>]` (relationship names turned into their fields). */
  readonly fieldsets: ReadonlyMap<string, string[]>;
}

export interface IncludeBounds {
  /** Most relationship steps in one include path. */
  maxDepth: number;
  /** Most records in `included`. */
  maxRecords: number;
}

export const DEFAULT_INCLUDE_BOUNDS: IncludeBounds = {
  maxDepth: SERVER_LIMIT_DEFAULTS.includeMaxDepth,
  maxRecords: SERVER_LIMIT_DEFAULTS.includeMaxRecords,
};

export function includeBounds(
  server: Pick<SvcConfig['server'], 'includeMaxDepth' | 'includeMaxRecords'>,
): IncludeBounds {
  return {
    maxDepth: server.includeMaxDepth ?? DEFAULT_INCLUDE_BOUNDS.maxDepth,
    maxRecords: server.includeMaxRecords ?? DEFAULT_INCLUDE_BOUNDS.maxRecords,
  };
}

export { isCompoundParameter };

export const NO_COMPOUND: CompoundQuery = { include: [], fieldsets: new Map() };

/**
 * `readableOf` gives the fields the caller may read of a resource, or null when it may read none of
 * its records: a fieldset for such a type is refused like one for an unknown type.
 */
export function parseCompoundQuery(
  raw: RawQuery,
  resource: Resource,
  findResource: (name: string) => Resource | undefined,
  readableOf: (resource: Resource) => ReadonlySet<string> | null,
  bounds: IncludeBounds,
): CompoundQuery {
  const issues: ErrorIssue[] = [];
  const fail = (
    parameter: string,
    detail: string,
    code: 'INVALID_QUERY_PARAMS' | 'INVALID_FIELDS' = 'INVALID_QUERY_PARAMS',
  ) => issues.push({ parameter, detail, code });
  const fieldsets = new Map<string, string[]>();
  for (const [name, value] of Object.entries(raw)) {
    const type = FIELDSET_PARAMETER.exec(name)?.[1];
    if (type === undefined || value === undefined) continue;
    if (Array.isArray(value)) {
      fail(name, `Parameter '${name}' is given more than once`);
      continue;
    }
    const typed = findResource(type);
    const readable = typed ? readableOf(typed) : null;
    if (!typed || !readable) {
      fail(name, `Unknown type '${type}'`);
      continue;
    }
    const fields: string[] = [];
    for (const part of value === '' ? [] : value.split(',').map((f) => f.trim())) {
      const field = typed.fields.has(part) ? part : toOneRelation(typed, part)?.field;
      if (field === undefined) fail(name, `Unknown field '${part}' of ${type}`);
      else if (!readable.has(field)) fail(name, `Field '${part}' of ${type} is not readable`, 'INVALID_FIELDS');
      else if (!fields.includes(field)) fields.push(field);
    }
    fieldsets.set(type, fields);
  }

  const include: IncludeNode[] = [];
  const includeText = raw.include;
  if (Array.isArray(includeText)) fail('include', "Parameter 'include' is given more than once");
  else if (includeText !== undefined && includeText !== '') {
    for (const path of includeText.split(',').map((p) => p.trim())) {
      const steps = path.split('.');
      if (steps.length > bounds.maxDepth) {
        fail('include', `Include path '${path}' is deeper than ${bounds.maxDepth} relationships`);
        continue;
      }
      let level = include;
      let from = resource;
      for (let i = 0; i < steps.length; i++) {
        const step = steps[i]!;
        const stepPath = steps.slice(0, i + 1).join('.');
        const toOne = toOneRelation(from, step);
        const toOneTarget = toOne && findResource(toOne.target);
        const toMany = toOne ? undefined : toManyRelation(from, step, findResource);
        let node = level.find((n) => n.path === stepPath);
        if (!node && toOne && toOneTarget)
          node = { kind: 'to-one', path: stepPath, relation: toOne, target: toOneTarget, children: [] };
        else if (!node && toMany)
          node = { kind: 'to-many', path: stepPath, relation: toMany, target: toMany.child, children: [] };
        else if (!node) {
          fail('include', `Unknown relationship '${step}' of ${from.name} in include path '${path}'`);
          break;
        }
        if (!level.includes(node)) level.push(node);
        level = node.children;
        from = node.target;
      }
    }
  }
  if (issues.length > 0) throw new ApiError(issues[0]!.code ?? 'INVALID_QUERY_PARAMS', issues);
  return { include, fieldsets };
}
