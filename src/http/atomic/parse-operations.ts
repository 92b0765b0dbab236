// Reads a JSON:API Atomic Operations document (https://jsonapi.org/ext/atomic/) into the operations
// it asks for, before anything is written. Its shape is the schema's (bodies/atomic-operations-body.ts);
// here is what a schema cannot say: an add's ref names the record its data creates, an update's ref and
// data name the same record, and every `lid` is defined once, by an earlier `add` of the same type,
// before any use. Records are not looked at here; run-operations.ts does the writes.
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import { isRecord } from '../../tools/is-record.ts';
import { MAX_REPORTED_ISSUES } from '../bodies/request-body.ts';
import {
  OPERATIONS_MEMBER,
  type AtomicOperationsBody,
  type OperationMembers,
} from '../bodies/atomic-operations-body.ts';

type Members = Record<string, unknown>;

/** A record named by its id, or by the `lid` an earlier `add` gave it. */
export type Target = { id: string } | { lid: string };

export interface AddOperation {
  op: 'add';
  type: string;
  /** The resource object, as sent. */
  data: Members;
  lid: string | undefined;
  /** `meta.upsert`: the unique field to create-or-update by. */
  upsert: string | undefined;
}

export interface UpdateOperation {
  op: 'update';
  type: string;
  target: Target;
  /** The resource object; for a relationship update, the new linkage (`null` or `{type, id|lid}`). */
  data: unknown;
  relationship: string | undefined;
}

export interface RemoveOperation {
  op: 'remove';
  type: string;
  target: Target;
}

export type Operation = AddOperation | UpdateOperation | RemoveOperation;

/** `/atomic:operations/<index>`, the start of every pointer into an operation. */
export const operationPointer = (index: number): string => `/${OPERATIONS_MEMBER}/${index}`;

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

class Problems {
  readonly issues: ErrorIssue[] = [];
  add(pointer: string, detail: string): void {
    this.issues.push({ detail, pointer });
  }
}

/** Local ids as they are defined, in order: a Map, so no name (`__proto__`, `constructor`) is special. */
class LocalIds {
  readonly #types = new Map<string, string>();

  define(lid: string, type: string): boolean {
    if (this.#types.has(lid)) return false;
    this.#types.set(lid, type);
    return true;
  }

  /** Why `lid` cannot be used for a `type` record here, or undefined when it can. */
  problem(lid: string, type: string): string | undefined {
    const defined = this.#types.get(lid);
    if (defined === undefined) return `lid '${lid}' is not defined by an earlier add operation`;
    if (defined !== type) return `lid '${lid}' names a ${defined} record, not ${type}`;
    return undefined;
  }
}

/** The id or lid of a `ref` or resource object (the schema took exactly one of them). */
function targetOf(
  object: { id?: string; lid?: string },
  at: string,
  problems: Problems,
  lids: LocalIds,
  type: string,
): Target | undefined {
  if (object.id !== undefined) return { id: object.id };
  const lid = object.lid!;
  const problem = lids.problem(lid, type);
  if (problem !== undefined) {
    problems.add(`${at}/lid`, problem);
    return undefined;
  }
  return { lid };
}

/** Linkage that names a lid must name one an earlier add defined, for a record of its type. */
function checkLinkageLids(data: Members, at: string, problems: Problems, lids: LocalIds): void {
  const relationships = data.relationships;
  if (!isRecord(relationships)) return;
  for (const [name, relationship] of Object.entries(relationships)) {
    if (!isRecord(relationship) || !isRecord(relationship.data)) continue;
    checkLinkageLid(relationship.data, `${at}/relationships/${escapeToken(name)}/data`, problems, lids);
  }
}

/** The write reads linkage as a request document, which reports its other problems. */
function checkLinkageLid(linkage: Members, at: string, problems: Problems, lids: LocalIds): void {
  if (typeof linkage.lid !== 'string' || typeof linkage.type !== 'string') return;
  const problem = lids.problem(linkage.lid, linkage.type);
  if (problem !== undefined) problems.add(`${at}/lid`, problem);
}

function parseAdd(
  operation: OperationMembers & { op: 'add' },
  at: string,
  problems: Problems,
  lids: LocalIds,
): AddOperation | undefined {
  const { data, ref } = operation;
  if (ref !== undefined) {
    const same = (member: 'id' | 'lid') => ref[member] === undefined || ref[member] === data[member];
    if (ref.type !== data.type || !same('id') || !same('lid')) {
      problems.add(`${at}/ref`, "an add's ref must name the record its data creates");
      return undefined;
    }
  }
  checkLinkageLids(data, `${at}/data`, problems, lids);
  const lid = data.lid;
  if (lid !== undefined && !lids.define(lid, data.type)) {
    problems.add(`${at}/data/lid`, `lid '${lid}' is already defined by an earlier add operation`);
    return undefined;
  }
  return { op: 'add', type: data.type, data, lid, upsert: operation.meta?.upsert };
}

function sameTarget(a: Target, b: Target): boolean {
  return 'id' in a ? 'id' in b && a.id === b.id : 'lid' in b && a.lid === b.lid;
}

function parseUpdate(
  operation: OperationMembers & { op: 'update' },
  at: string,
  problems: Problems,
  lids: LocalIds,
): UpdateOperation | undefined {
  const { ref, data } = operation;
  const refTarget = ref && targetOf(ref, `${at}/ref`, problems, lids, ref.type);
  if (ref && !refTarget) return undefined;
  if (ref?.relationship !== undefined) {
    if (data !== null) checkLinkageLid(data, `${at}/data`, problems, lids);
    return { op: 'update', type: ref.type, target: refTarget!, data, relationship: ref.relationship };
  }
  // Without a relationship, the schema took data as a resource object.
  const object = data as Members & { type: string; id?: string; lid?: string };
  const target = targetOf(object, `${at}/data`, problems, lids, object.type);
  if (!target) return undefined;
  if (ref && (ref.type !== object.type || !sameTarget(refTarget!, target))) {
    problems.add(`${at}/data`, 'data names another record than ref');
    return undefined;
  }
  checkLinkageLids(object, `${at}/data`, problems, lids);
  return { op: 'update', type: object.type, target, data, relationship: undefined };
}

function parseRemove(
  operation: OperationMembers & { op: 'remove' },
  at: string,
  problems: Problems,
  lids: LocalIds,
): RemoveOperation | undefined {
  const { ref } = operation;
  const target = targetOf(ref, `${at}/ref`, problems, lids, ref.type);
  return target && { op: 'remove', type: ref.type, target };
}

function parseOperation(
  operation: OperationMembers,
  index: number,
  problems: Problems,
  lids: LocalIds,
): Operation | undefined {
  const at = operationPointer(index);
  switch (operation.op) {
    case 'add':
      return parseAdd(operation, at, problems, lids);
    case 'update':
      return parseUpdate(operation, at, problems, lids);
    case 'remove':
      return parseRemove(operation, at, problems, lids);
  }
}

/** Checks the whole document; one error lists every problem found (each with its pointer). */
export function parseOperations(body: unknown, reader: AtomicOperationsBody): Operation[] {
  const list = reader.read(body)[OPERATIONS_MEMBER];
  const problems = new Problems();
  const lids = new LocalIds();
  const operations: Operation[] = [];
  for (let i = 0; i < list.length; i++) {
    const operation = parseOperation(list[i]!, i, problems, lids);
    if (operation) operations.push(operation);
  }
  if (problems.issues.length > 0)
    throw new ApiError('INVALID_OPERATIONS', problems.issues.slice(0, MAX_REPORTED_ISSUES));
  return operations;
}
