// Reads a JSON:API Atomic Operations document (https://jsonapi.org/ext/atomic/) into the operations
// it asks for, checking its shape before anything is written: each operation's members, its `ref`,
// and every `lid` (defined once, by an earlier `add` of the same type, before any use). Records are
// not looked at here; run-operations.ts does the writes.
import { isRecord } from '../../tools/is-record.ts';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';

type Members = Record<string, unknown>;

const isObject = isRecord;

/** The member that holds the operations, and the one that holds their results. */
export const OPERATIONS_MEMBER = 'atomic:operations';
export const RESULTS_MEMBER = 'atomic:results';

/** Longest `lid` taken; a local id names a record within one request, it needs no more. */
export const MAX_LID_LENGTH = 255;

const DOCUMENT_MEMBERS = new Set([OPERATIONS_MEMBER, 'meta', 'jsonapi', 'links']);
const OPERATION_MEMBERS = new Set(['op', 'ref', 'href', 'data', 'meta']);
const REF_MEMBERS = new Set(['type', 'id', 'lid', 'relationship']);

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

function isLid(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_LID_LENGTH;
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

/** The id or lid of a `ref` or resource object: exactly one of them, each a non-empty string. */
function targetOf(object: Members, at: string, problems: Problems, lids: LocalIds, type: string): Target | undefined {
  const hasId = Object.hasOwn(object, 'id');
  const hasLid = Object.hasOwn(object, 'lid');
  if (hasId === hasLid) {
    problems.add(at, 'name the record with either id or lid');
    return undefined;
  }
  if (hasId) {
    if (typeof object.id === 'string' && object.id !== '') return { id: object.id };
    problems.add(`${at}/id`, 'id must be a non-empty string');
    return undefined;
  }
  if (!isLid(object.lid)) {
    problems.add(`${at}/lid`, `lid must be a string of 1 to ${MAX_LID_LENGTH} characters`);
    return undefined;
  }
  const problem = lids.problem(object.lid, type);
  if (problem !== undefined) {
    problems.add(`${at}/lid`, problem);
    return undefined;
  }
  return { lid: object.lid };
}

function unknownMembers(
  object: Members,
  known: ReadonlySet<string>,
  at: string,
  where: string,
  problems: Problems,
): void {
  for (const member of Object.keys(object)) {
    if (!known.has(member)) problems.add(`${at}/${escapeToken(member)}`, `'${member}' is not a member of ${where}`);
  }
}

/** Linkage that names a lid must name one an earlier add defined, for a record of its type. */
function checkLinkageLids(data: Members, at: string, problems: Problems, lids: LocalIds): void {
  const relationships = data.relationships;
  if (!isObject(relationships)) return;
  for (const [name, relationship] of Object.entries(relationships)) {
    if (!isObject(relationship) || !isObject(relationship.data)) continue;
    checkLinkageLid(relationship.data, `${at}/relationships/${escapeToken(name)}/data`, problems, lids);
  }
}

function checkLinkageLid(linkage: Members, at: string, problems: Problems, lids: LocalIds): void {
  if (!Object.hasOwn(linkage, 'lid')) return;
  if (Object.hasOwn(linkage, 'id')) {
    problems.add(at, 'name the related record with either id or lid');
    return;
  }
  if (!isLid(linkage.lid)) {
    problems.add(`${at}/lid`, `lid must be a string of 1 to ${MAX_LID_LENGTH} characters`);
    return;
  }
  if (typeof linkage.type !== 'string') return; // request-document.ts reports the type
  const problem = lids.problem(linkage.lid, linkage.type);
  if (problem !== undefined) problems.add(`${at}/lid`, problem);
}

/**
 * An add's `ref` may only repeat the record `data` creates (some clients, Orbit among them, send one):
 * adding to a to-many relationship is not supported, svc's to-many sides being other records' fields.
 */
function checkAddRef(operation: Members, data: Members, at: string, problems: Problems): boolean {
  const ref = operation.ref;
  if (!isObject(ref)) {
    problems.add(`${at}/ref`, 'ref must be an object');
    return false;
  }
  unknownMembers(ref, REF_MEMBERS, `${at}/ref`, 'a ref', problems);
  if (Object.hasOwn(ref, 'relationship')) {
    problems.add(
      `${at}/ref/relationship`,
      'adding to a relationship is not supported; set the relation field of the related record',
    );
    return false;
  }
  const same = (member: string) =>
    !Object.hasOwn(ref, member) || (Object.hasOwn(data, member) && ref[member] === data[member]);
  if (ref.type !== data.type || !same('id') || !same('lid')) {
    problems.add(`${at}/ref`, "an add's ref must name the record its data creates");
    return false;
  }
  return true;
}

function parseAdd(operation: Members, at: string, problems: Problems, lids: LocalIds): AddOperation | undefined {
  const data = operation.data;
  if (!isObject(data)) {
    problems.add(`${at}/data`, 'an add needs data: the resource object to create');
    return undefined;
  }
  if (typeof data.type !== 'string') {
    problems.add(`${at}/data/type`, 'data.type must be a string naming the resource');
    return undefined;
  }
  if (Object.hasOwn(operation, 'ref') && !checkAddRef(operation, data, at, problems)) return undefined;
  checkLinkageLids(data, `${at}/data`, problems, lids);
  let upsert: string | undefined;
  const meta = operation.meta;
  if (meta !== undefined && isObject(meta) && Object.hasOwn(meta, 'upsert')) {
    if (typeof meta.upsert !== 'string') problems.add(`${at}/meta/upsert`, 'meta.upsert must name a unique field');
    else upsert = meta.upsert;
  }
  let lid: string | undefined;
  if (Object.hasOwn(data, 'lid')) {
    if (!isLid(data.lid)) {
      problems.add(`${at}/data/lid`, `lid must be a string of 1 to ${MAX_LID_LENGTH} characters`);
      return undefined;
    }
    lid = data.lid;
    if (!lids.define(lid, data.type)) {
      problems.add(`${at}/data/lid`, `lid '${lid}' is already defined by an earlier add operation`);
      return undefined;
    }
  }
  return { op: 'add', type: data.type, data, lid, upsert };
}

function parseRef(
  operation: Members,
  at: string,
  problems: Problems,
  lids: LocalIds,
): { type: string; target: Target; relationship: string | undefined } | undefined {
  const ref = operation.ref;
  if (!isObject(ref)) {
    problems.add(`${at}/ref`, 'ref must be an object with type and id or lid');
    return undefined;
  }
  unknownMembers(ref, REF_MEMBERS, `${at}/ref`, 'a ref', problems);
  if (typeof ref.type !== 'string') {
    problems.add(`${at}/ref/type`, 'ref.type must be a string naming the resource');
    return undefined;
  }
  if (Object.hasOwn(ref, 'relationship') && typeof ref.relationship !== 'string') {
    problems.add(`${at}/ref/relationship`, 'ref.relationship must be a string');
    return undefined;
  }
  const target = targetOf(ref, `${at}/ref`, problems, lids, ref.type);
  return target && { type: ref.type, target, relationship: ref.relationship as string | undefined };
}

function sameTarget(a: Target, b: Target): boolean {
  return 'id' in a ? 'id' in b && a.id === b.id : 'lid' in b && a.lid === b.lid;
}

function parseUpdate(operation: Members, at: string, problems: Problems, lids: LocalIds): UpdateOperation | undefined {
  const ref = Object.hasOwn(operation, 'ref') ? parseRef(operation, at, problems, lids) : undefined;
  if (Object.hasOwn(operation, 'ref') && !ref) return undefined;
  if (!Object.hasOwn(operation, 'data')) {
    problems.add(at, 'an update needs data');
    return undefined;
  }
  const data = operation.data;
  if (ref?.relationship !== undefined) {
    if (data !== null && !isObject(data))
      problems.add(`${at}/data`, 'a relationship update takes {"type","id"}, {"type","lid"} or null as data');
    else if (data !== null) checkLinkageLid(data, `${at}/data`, problems, lids);
    return { op: 'update', type: ref.type, target: ref.target, data, relationship: ref.relationship };
  }
  if (!isObject(data)) {
    problems.add(`${at}/data`, 'data must be the resource object to update');
    return undefined;
  }
  if (typeof data.type !== 'string') {
    problems.add(`${at}/data/type`, 'data.type must be a string naming the resource');
    return undefined;
  }
  const target = targetOf(data, `${at}/data`, problems, lids, data.type);
  if (!target) return undefined;
  if (ref && (ref.type !== data.type || !sameTarget(ref.target, target))) {
    problems.add(`${at}/data`, 'data names another record than ref');
    return undefined;
  }
  checkLinkageLids(data, `${at}/data`, problems, lids);
  return { op: 'update', type: data.type, target, data, relationship: undefined };
}

function parseRemove(operation: Members, at: string, problems: Problems, lids: LocalIds): RemoveOperation | undefined {
  if (!Object.hasOwn(operation, 'ref')) {
    problems.add(at, 'a remove needs a ref naming the record');
    return undefined;
  }
  const ref = parseRef(operation, at, problems, lids);
  if (!ref) return undefined;
  if (ref.relationship !== undefined) {
    problems.add(`${at}/ref/relationship`, 'a to-one relationship is cleared with an update whose data is null');
    return undefined;
  }
  if (Object.hasOwn(operation, 'data')) problems.add(`${at}/data`, 'a remove takes no data');
  return { op: 'remove', type: ref.type, target: ref.target };
}

function parseOperation(operation: unknown, index: number, problems: Problems, lids: LocalIds): Operation | undefined {
  const at = operationPointer(index);
  if (!isObject(operation)) {
    problems.add(at, 'an operation must be an object');
    return undefined;
  }
  unknownMembers(operation, OPERATION_MEMBERS, at, 'an operation', problems);
  if (Object.hasOwn(operation, 'href')) {
    problems.add(`${at}/href`, 'href is not supported; name the target with ref');
    return undefined;
  }
  if (Object.hasOwn(operation, 'meta') && !isObject(operation.meta))
    problems.add(`${at}/meta`, 'meta must be an object');
  switch (operation.op) {
    case 'add':
      return parseAdd(operation, at, problems, lids);
    case 'update':
      return parseUpdate(operation, at, problems, lids);
    case 'remove':
      return parseRemove(operation, at, problems, lids);
    default:
      problems.add(`${at}/op`, 'op must be add, update or remove');
      return undefined;
  }
}

/** Checks the whole document; one error lists every problem found (each with its pointer). */
export function parseOperations(body: unknown, maxOperations: number): Operation[] {
  if (!isObject(body) || !Array.isArray(body[OPERATIONS_MEMBER])) {
    throw new ApiError('INVALID_OPERATIONS', {
      detail: `The body must be a document with an ${OPERATIONS_MEMBER} array`,
      pointer: '',
    });
  }
  const list = body[OPERATIONS_MEMBER] as unknown[];
  if (list.length > maxOperations) {
    throw new ApiError('TOO_MANY_OPERATIONS', {
      detail: `A request may hold at most ${maxOperations} operations; this one has ${list.length}`,
      pointer: `/${OPERATIONS_MEMBER}`,
    });
  }
  const problems = new Problems();
  unknownMembers(body, DOCUMENT_MEMBERS, '', 'an Atomic Operations document', problems);
  const lids = new LocalIds();
  const operations: Operation[] = [];
  for (let i = 0; i < list.length; i++) {
    const operation = parseOperation(list[i], i, problems, lids);
    if (operation) operations.push(operation);
  }
  if (problems.issues.length > 0) throw new ApiError('INVALID_OPERATIONS', problems.issues.slice(0, 100));
  return operations;
}
