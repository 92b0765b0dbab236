// The envelope of a JSON:API request document (POST, PUT and PATCH of /v1/:resource, and each write of
// an Atomic Operations document): one schema that refuses a malformed document here and is the
// OpenAPI document's `JsonApiRequestDocument`, which each resource's request documents build on. What
// depends on the resource or the URL (the type it takes, its id, client ids, which relationships it
// has, its fields' values) is checked by documents/request-document.ts and records/.
import { ApiError } from '../../errors/api-error.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { compileBodySchema } from './body-validator.ts';
import { MAX_REPORTED_ISSUES } from './request-body.ts';
import { PROBLEM_KEYWORD, schemaIssues } from './schema-issues.ts';

/** The OpenAPI component the envelope is. */
export const JSON_API_DOCUMENT_NAME = 'JsonApiRequestDocument';

/** `{"type","id"}` or null: the record a to-one relationship names. */
const LINKAGE: JsonSchema = {
  type: ['object', 'null'],
  required: ['type', 'id'],
  properties: { type: { type: 'string' }, id: { type: 'string' } },
};

const RELATIONSHIP: JsonSchema = {
  type: 'object',
  required: ['data'],
  properties: { data: LINKAGE },
  [PROBLEM_KEYWORD]: 'A relationship must be an object with a data member',
};

/** A member JSON:API defines there, taken and not used (a node of its own each time: the OpenAPI document is a plain tree). */
const ignored = (): JsonSchema => ({ description: 'Taken and ignored' });

const RESOURCE_OBJECT: JsonSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', description: 'The resource, the one the URL names' },
    id: { type: 'string' },
    lid: ignored(),
    attributes: { type: 'object', description: 'Field values, as the flat body has them' },
    relationships: {
      type: 'object',
      description: 'Relation fields as to-one relationships',
      additionalProperties: RELATIONSHIP,
    },
    links: ignored(),
    meta: ignored(),
  },
  // A field put beside `attributes` would otherwise go unnoticed.
  additionalProperties: false,
};

export const JSON_API_DOCUMENT_SCHEMA: JsonSchema = {
  type: 'object',
  description: 'A JSON:API request document: one resource object in `data`.',
  required: ['data'],
  properties: { data: RESOURCE_OBJECT, meta: ignored(), jsonapi: ignored(), links: ignored() },
  additionalProperties: false,
};

/** The top-level members a request document may hold. */
export const DOCUMENT_MEMBERS: ReadonlySet<string> = new Set(
  Object.keys(JSON_API_DOCUMENT_SCHEMA.properties as Record<string, unknown>),
);

type Members = Record<string, unknown>;

/** A document the envelope took: what request-document.ts reads further. */
export interface JsonApiDocument {
  data: {
    type: string;
    id?: string;
    attributes?: Members;
    relationships?: Record<string, { data: { type: string; id: string } | null }>;
  };
}

const validate = compileBodySchema(JSON_API_DOCUMENT_SCHEMA, {});

/** Throws a 400 INVALID_RESOURCE_DATA naming every problem of the envelope. */
export function checkJsonApiDocument(document: unknown): asserts document is JsonApiDocument {
  if (validate(document)) return;
  const issues = schemaIssues(validate.errors ?? [], '', 'member').map(({ member: _, ...issue }) => issue);
  throw new ApiError('INVALID_RESOURCE_DATA', issues.slice(0, MAX_REPORTED_ISSUES));
}
