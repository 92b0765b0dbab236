// Runs parsed Atomic Operations (parse-operations.ts) as one batch of the record service: each one
// through the same write path as its single request, in order, in one transaction. A `lid` becomes
// the id its add gave the record; an error names its operation in `source.pointer`.
import { isRecord } from '../../tools/is-record.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ResourceRegistry } from '../../resources/resource-registry.ts';
import { isUpsertField, type RequestMeta, type WriteBatch } from '../../records/record-service.ts';
import type { ReadResult } from '../../records/record-results.ts';
import { domainErrorAnswer } from '../server/domain-error-answer.ts';
import { isOwnFailure, markOwnFailure } from '../../store/own-failure.ts';
import { documentError, flatBodyOf } from '../documents/request-document.ts';
import { resourceObject, type ResourceObject } from '../documents/resource-document.ts';
import { operationPointer, type Operation, type Target } from './parse-operations.ts';

type Members = Record<string, unknown>;

const isObject = isRecord;

/** One result per operation: `{data}` for an add or update, `{}` for a remove. */
export type OperationResult = { data: ResourceObject } | Record<string, never>;

/** Ids the batch's adds gave their lids; a Map, so no lid is special. */
type LocalIds = Map<string, string>;

/** Pointers the write path made (into `/data/…`) and errors without one now start at the operation. */
function atOperation(thrown: unknown, index: number): unknown {
  // A database refusal (a remove's reference still held, say) is answered here, where the pointer is known.
  const error = domainErrorAnswer(thrown);
  if (!(error instanceof ApiError)) return error;
  const at = operationPointer(index);
  const issues = error.issues.map((issue) => {
    if (issue.parameter !== undefined) return issue;
    return { ...issue, pointer: issue.pointer === undefined || issue.pointer === '' ? at : `${at}${issue.pointer}` };
  });
  const moved = error.withIssues(issues);
  // A hook's refusal stays its write's own failure (own-failure.ts): a group commit does not run the batch again for it.
  return isOwnFailure(error) ? markOwnFailure(moved) : moved;
}

/** `moved`, still marked as its write's own failure when `error` was (a hook refused the operation). */
function keepOwnFailure(error: unknown, moved: unknown): unknown {
  return isOwnFailure(error) && typeof moved === 'object' && moved !== null ? markOwnFailure(moved) : moved;
}

function idOf(target: Target, lids: LocalIds): string {
  // parse-operations.ts let only lids defined by an earlier add through, and that add has run.
  return 'id' in target ? target.id : lids.get(target.lid)!;
}

/** The resource object with each linkage's lid turned into the id it stands for. */
function withLinkageIds(data: Members, lids: LocalIds): Members {
  const relationships = data.relationships;
  if (!isObject(relationships)) return data;
  const resolved: Members = {};
  for (const [name, relationship] of Object.entries(relationships)) {
    resolved[name] =
      isObject(relationship) && isObject(relationship.data)
        ? { ...relationship, data: linkageWithId(relationship.data, lids) }
        : relationship;
  }
  return { ...data, relationships: resolved };
}

function linkageWithId(linkage: Members, lids: LocalIds): Members {
  if (!Object.hasOwn(linkage, 'lid') || typeof linkage.lid !== 'string') return linkage;
  const { lid, ...rest } = linkage;
  return { ...rest, id: lids.get(lid) };
}

function resultOf(resource: Resource, result: ReadResult): OperationResult {
  return { data: resourceObject(resource, result.record, result.attributes) };
}

async function add(
  batch: WriteBatch,
  registry: ResourceRegistry,
  meta: RequestMeta,
  operation: Operation & { op: 'add' },
  lids: LocalIds,
): Promise<OperationResult> {
  const resource = requireAt(registry, operation.type, '/data/type');
  if (operation.upsert !== undefined && !isUpsertField(resource, operation.upsert)) {
    throw new ApiError('INVALID_OPERATIONS', {
      detail: `meta.upsert must name a unique field of ${resource.name}; '${operation.upsert}' is not one`,
      pointer: '/meta/upsert',
    });
  }
  const { values, clientId, sentAs } = flatBodyOf(
    { data: withLinkageIds(operation.data, lids) },
    { resource, urlId: undefined },
  );
  let result: ReadResult;
  try {
    result =
      operation.upsert === undefined
        ? await batch.create(resource, meta, values, clientId)
        : await batch.upsert(resource, meta, values, operation.upsert, clientId);
  } catch (error) {
    throw keepOwnFailure(error, documentError(error, resource, clientId, sentAs));
  }
  if (operation.lid !== undefined) lids.set(operation.lid, String(result.record.id));
  return resultOf(resource, result);
}

async function update(
  batch: WriteBatch,
  registry: ResourceRegistry,
  meta: RequestMeta,
  operation: Operation & { op: 'update' },
  lids: LocalIds,
): Promise<OperationResult> {
  const resource = requireAt(
    registry,
    operation.type,
    operation.relationship === undefined ? '/data/type' : '/ref/type',
  );
  const id = idOf(operation.target, lids);
  const data: Members =
    operation.relationship === undefined
      ? { ...(operation.data as Members), id }
      : { type: resource.name, id, relationships: { [operation.relationship]: { data: operation.data } } };
  delete data.lid;
  const { values, sentAs } = flatBodyOf({ data: withLinkageIds(data, lids) }, { resource, urlId: id });
  try {
    return resultOf(resource, await batch.update(resource, meta, id, values, 'patch'));
  } catch (error) {
    throw keepOwnFailure(error, documentError(error, resource, undefined, sentAs));
  }
}

async function remove(
  batch: WriteBatch,
  registry: ResourceRegistry,
  meta: RequestMeta,
  operation: Operation & { op: 'remove' },
  lids: LocalIds,
): Promise<OperationResult> {
  const resource = requireAt(registry, operation.type, '/ref/type');
  await batch.remove(resource, meta, idOf(operation.target, lids));
  return {};
}

/** The resource an operation names, or its 404 pointing at where the name was. */
function requireAt(registry: ResourceRegistry, type: string, pointer: string): Resource {
  try {
    return registry.require(type);
  } catch (error) {
    if (error instanceof ApiError) throw new ApiError(error.code, { detail: error.issues[0]!.detail, pointer });
    throw error;
  }
}

/** Runs every operation in order with `batch`; the results in the same order. */
export async function runOperations(
  batch: WriteBatch,
  registry: ResourceRegistry,
  meta: RequestMeta,
  operations: readonly Operation[],
): Promise<OperationResult[]> {
  const lids: LocalIds = new Map();
  const results: OperationResult[] = [];
  for (let i = 0; i < operations.length; i++) {
    const operation = operations[i]!;
    try {
      if (operation.op === 'add') results.push(await add(batch, registry, meta, operation, lids));
      else if (operation.op === 'update') results.push(await update(batch, registry, meta, operation, lids));
      else results.push(await remove(batch, registry, meta, operation, lids));
    } catch (error) {
      throw atOperation(error, i);
    }
  }
  return results;
}
