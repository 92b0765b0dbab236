// The shape of a JSON:API Atomic Operations document (https://jsonapi.org/ext/atomic/): one schema per
// operation limit, which refuses a malformed document here and is the OpenAPI document's
// `AtomicOperationsEnvelope`. What needs more than one member or the order of the operations (an add's
// ref naming what its data creates, each lid defined once by an earlier add of its type before use)
// is http/atomic/parse-operations.ts's; the resource object of each write is read as a request document
// when it runs (documents/request-document.ts), so its attributes and relationships are refused there,
// as INVALID_RESOURCE_DATA, as a single write would refuse them.
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { compileBodySchema } from './body-validator.ts';
import { MAX_REPORTED_ISSUES } from './request-body.ts';
import { PROBLEM_KEYWORD, schemaIssues } from './schema-issues.ts';

/** The member that holds the operations, and the one that holds their results. */
export const OPERATIONS_MEMBER = 'atomic:operations';
export const RESULTS_MEMBER = 'atomic:results';

/** Longest `lid` taken; a local id names a record within one request, it needs no more. */
export const MAX_LID_LENGTH = 255;

const lidSchema = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength: MAX_LID_LENGTH,
  [PROBLEM_KEYWORD]: `lid must be a string of 1 to ${MAX_LID_LENGTH} characters`,
});

const idSchema = (): JsonSchema => ({
  type: 'string',
  minLength: 1,
  [PROBLEM_KEYWORD]: 'id must be a non-empty string',
});

/** Refuses the member whenever it is there, in `problem`'s words. */
const refused = (problem: string): JsonSchema => ({ not: {}, [PROBLEM_KEYWORD]: problem });

/** A record named by exactly one of id and lid; on a non-object it says nothing (its type is refused). */
const idOrLidSchema = (): JsonSchema => ({
  anyOf: [{ required: ['id'] }, { required: ['lid'] }],
  dependentSchemas: {
    lid: { not: { required: ['id'] }, [PROBLEM_KEYWORD]: 'name the record with either id or lid' },
  },
  [PROBLEM_KEYWORD]: 'name the record with either id or lid',
});

/** Linkage may name a record by the lid of an earlier add instead of its id. */
const linkageSchema = (): JsonSchema => ({
  properties: { lid: lidSchema() },
  dependentSchemas: {
    lid: { not: { required: ['id'] }, [PROBLEM_KEYWORD]: 'name the related record with either id or lid' },
  },
});

/** The parts of a resource object this document's lids are in; the rest is read when the write runs. */
const resourceObjectLids = (): Record<string, JsonSchema> => ({
  type: { type: 'string', [PROBLEM_KEYWORD]: 'data.type must be a string naming the resource' },
  lid: {
    ...lidSchema(),
    description: 'A local id later operations may use in ref or in relationship linkage ({"type","lid"}).',
  },
  relationships: { additionalProperties: { properties: { data: linkageSchema() } } },
});

const refProperties = (): Record<string, JsonSchema> => ({
  type: { type: 'string', [PROBLEM_KEYWORD]: 'ref.type must be a string naming the resource' },
  id: idSchema(),
  lid: lidSchema(),
  relationship: { type: 'string', [PROBLEM_KEYWORD]: 'ref.relationship must be a string' },
});

const refSchema = (): JsonSchema => ({
  type: 'object',
  description:
    'The record an update or remove targets: its type and its id, or the lid an earlier add gave it. `relationship` names a to-one relationship to set (an update whose data is the new linkage or null).',
  properties: refProperties(),
  additionalProperties: false,
});

/** An update's or remove's ref: a type, and the record by id or lid. */
const targetRefSchema = (): JsonSchema => ({ required: ['type'], allOf: [idOrLidSchema()] });

/** JSON Schema's if/then/else, built here so that no object literal in this file reads as a promise. */
const conditional = (condition: JsonSchema, then: JsonSchema, otherwise?: JsonSchema): JsonSchema => ({
  if: condition,
  then,
  ...(otherwise === undefined ? {} : { else: otherwise }),
});

const whenOp = (op: string, then: JsonSchema): JsonSchema =>
  conditional({ required: ['op'], properties: { op: { const: op } } }, then);

const addSchema = (): JsonSchema => ({
  required: ['data'],
  properties: {
    data: {
      type: 'object',
      required: ['type'],
      properties: resourceObjectLids(),
      description: 'The resource object to create',
    },
    // An add's ref may only repeat the record data creates (some clients, Orbit among them, send one):
    // svc's to-many sides are other records' fields, so there is no relationship to add to.
    ref: {
      properties: {
        relationship: refused(
          'adding to a relationship is not supported; set the relation field of the related record',
        ),
      },
    },
    meta: { properties: { upsert: { type: 'string', [PROBLEM_KEYWORD]: 'meta.upsert must name a unique field' } } },
  },
});

const updateSchema = (): JsonSchema => ({
  properties: { ref: targetRefSchema() },
  allOf: [
    { required: ['data'], [PROBLEM_KEYWORD]: 'an update needs data' },
    conditional(
      { required: ['ref'], properties: { ref: { required: ['relationship'] } } },
      {
        properties: {
          data: {
            type: ['object', 'null'],
            ...linkageSchema(),
            [PROBLEM_KEYWORD]: 'a relationship update takes {"type","id"}, {"type","lid"} or null as data',
          },
        },
      },
      {
        properties: {
          data: {
            type: 'object',
            required: ['type'],
            properties: { ...resourceObjectLids(), id: idSchema() },
            allOf: [idOrLidSchema()],
            description: 'The resource object to update',
          },
        },
      },
    ),
  ],
});

const removeSchema = (): JsonSchema => ({
  allOf: [{ required: ['ref'], [PROBLEM_KEYWORD]: 'a remove needs a ref naming the record' }],
  properties: {
    ref: {
      ...targetRefSchema(),
      properties: { relationship: refused('a to-one relationship is cleared with an update whose data is null') },
    },
    data: refused('a remove takes no data'),
  },
});

const operationSchema = (): JsonSchema => ({
  type: 'object',
  required: ['op'],
  properties: {
    op: { type: 'string', enum: ['add', 'update', 'remove'], [PROBLEM_KEYWORD]: 'op must be add, update or remove' },
    ref: refSchema(),
    href: refused('href is not supported; name the target with ref'),
    data: { description: 'The resource object of an add or update; the new linkage or null for a relationship' },
    meta: {
      type: 'object',
      properties: {
        upsert: {
          description:
            'On an add: a unique field; the record holding the same value is updated instead of a new one created.',
        },
      },
    },
  },
  additionalProperties: false,
  allOf: [whenOp('add', addSchema()), whenOp('update', updateSchema()), whenOp('remove', removeSchema())],
});

/** The document's schema when a request may hold at most `maxOperations` operations. */
export function atomicOperationsSchema(maxOperations: number): JsonSchema {
  return {
    description: 'Operations run in order, all of them or none.',
    properties: {
      // Its type is the document's own problem (below).
      [OPERATIONS_MEMBER]: { maxItems: maxOperations, items: operationSchema() },
      meta: { description: 'Taken and ignored' },
      jsonapi: { description: 'Taken and ignored' },
      links: { description: 'Taken and ignored' },
    },
    additionalProperties: false,
    // The document as a whole, when there is no list to read operations from.
    allOf: [
      {
        anyOf: [
          {
            type: 'object',
            required: [OPERATIONS_MEMBER],
            properties: { [OPERATIONS_MEMBER]: { type: 'array', items: {} } },
          },
        ],
        [PROBLEM_KEYWORD]: `The body must be a document with an ${OPERATIONS_MEMBER} array`,
      },
    ],
  };
}

type Members = Record<string, unknown>;

/** A record named by its id, or by the lid an earlier add gave it. */
interface RefMembers {
  type: string;
  id?: string;
  lid?: string;
  relationship?: string;
}

/** An operation the schema took. */
export type OperationMembers =
  | { op: 'add'; ref?: Partial<RefMembers>; data: Members & { type: string; lid?: string }; meta?: { upsert?: string } }
  | { op: 'update'; ref?: RefMembers; data: Members | null }
  | { op: 'remove'; ref: RefMembers };

export interface AtomicOperationsDocument {
  [OPERATIONS_MEMBER]: OperationMembers[];
}

/** The OpenAPI component this schema is; the document's own (http/openapi/) adds the resources it names. */
export const ATOMIC_OPERATIONS_ENVELOPE_NAME = 'AtomicOperationsEnvelope';

/** The body of POST /v1/operations, read against the schema of its limit. */
export class AtomicOperationsBody {
  readonly name = ATOMIC_OPERATIONS_ENVELOPE_NAME;
  readonly schema: JsonSchema;
  readonly #maxOperations: number;
  readonly #validate;

  constructor(maxOperations: number) {
    this.#maxOperations = maxOperations;
    this.schema = atomicOperationsSchema(maxOperations);
    this.#validate = compileBodySchema(this.schema, {});
  }

  /** The document, its shape checked; throws 413 TOO_MANY_OPERATIONS or 400 INVALID_OPERATIONS. */
  read(body: unknown): AtomicOperationsDocument {
    if (this.#validate(body)) return body as AtomicOperationsDocument;
    const errors = this.#validate.errors ?? [];
    // Too many is answered alone: the sender must split the batch whatever else is wrong in it.
    if (errors.some((error) => error.keyword === 'maxItems' && error.instancePath === `/${OPERATIONS_MEMBER}`)) {
      const count = ((body as Members)[OPERATIONS_MEMBER] as unknown[]).length;
      throw new ApiError('TOO_MANY_OPERATIONS', {
        detail: `A request may hold at most ${this.#maxOperations} operations; this one has ${count}`,
        pointer: `/${OPERATIONS_MEMBER}`,
      });
    }
    const issues: ErrorIssue[] = schemaIssues(errors, '', 'member').map(({ member: _, ...issue }) => issue);
    throw new ApiError('INVALID_OPERATIONS', issues.slice(0, MAX_REPORTED_ISSUES));
  }
}
