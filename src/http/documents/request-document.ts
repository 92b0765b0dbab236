// JSON:API request documents on POST, PUT and PATCH of /v1/:resource: `{"data":{"type","id","attributes",
// "relationships"}}` sent as application/vnd.api+json becomes the flat body records take, and the errors
// its write answers point back into the document. docs/records.md explains which bodies count as one.
import type { FastifyRequest } from 'fastify';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import { toOneRelation } from '../../resources/relations.ts';
import type { Resource } from '../../resources/resource.ts';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';
import { UUID_PATTERN } from '../../resources/field-types/uuid-field.ts';
import { isRecord } from '../../tools/is-record.ts';
import { checkJsonApiDocument, DOCUMENT_MEMBERS, type JsonApiDocument } from '../bodies/json-api-document-body.ts';
import { domainErrorAnswer } from '../server/domain-error-answer.ts';

type Members = Record<string, unknown>;

const escapeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A body is a document when it comes as application/vnd.api+json with a top-level `data` member. Flat
 * bodies sent under that type keep working: a flat body cannot hold `data` unless the resource has a
 * field of that name, and then only a body with nothing but document members whose `data` is an object
 * naming a `type` is read as a document (send such a flat body as application/json).
 */
export function isRequestDocument(request: FastifyRequest, resource: Resource, body: unknown): body is Members {
  const contentType = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (contentType !== JSON_API_MEDIA_TYPE || !isRecord(body) || !Object.hasOwn(body, 'data')) return false;
  if (!resource.fields.has('data')) return true;
  return (
    Object.keys(body).every((member) => DOCUMENT_MEMBERS.has(member)) &&
    isRecord(body.data) &&
    Object.hasOwn(body.data, 'type')
  );
}

export interface DocumentTarget {
  resource: Resource;
  /** The URL's id on PUT and PATCH; undefined on POST. */
  urlId: string | undefined;
}

function relationTarget(resource: Resource, name: string): string | undefined {
  const definition = resource.fields.get(name)?.definition;
  return definition?.type === 'relation' ? definition.resource : undefined;
}

/** The relation field a relationship names: by the name answers give it (`author`) or by the field's own (`author_id`). */
function relationFieldOf(resource: Resource, name: string): string | undefined {
  return toOneRelation(resource, name)?.field;
}

/** Checks type and id against the URL; returns the id a create may take from the client. */
function checkIdentity(data: JsonApiDocument['data'], { resource, urlId }: DocumentTarget): string | undefined {
  if (data.type !== resource.name) {
    throw new ApiError('CONFLICT', {
      detail: `data.type is '${data.type}' but this URL takes '${resource.name}'`,
      pointer: '/data/type',
    });
  }
  if (urlId === undefined) {
    if (data.id === undefined) return undefined;
    if (resource.definition.clientIds !== true) {
      throw new ApiError('CLIENT_GENERATED_ID_FORBIDDEN', {
        detail: `${resource.name} records get their id from the server; leave data.id out`,
        pointer: '/data/id',
      });
    }
    if (!UUID_PATTERN.test(data.id)) {
      throw new ApiError('INVALID_RESOURCE_DATA', { detail: 'data.id must be a UUID', pointer: '/data/id' });
    }
    // Ids are stored as text: one spelling per id, the one the server's own ids use.
    return data.id.toLowerCase();
  }
  if (data.id === undefined)
    throw new ApiError('INVALID_RESOURCE_DATA', {
      detail: 'data.id is required and must be the id in the URL',
      pointer: '/data/id',
    });
  if (data.id !== urlId)
    throw new ApiError('CONFLICT', {
      detail: `data.id is '${data.id}' but the URL names '${urlId}'`,
      pointer: '/data/id',
    });
  return undefined;
}

/**
 * Attribute values. A relation field may come here too, as the id reads return in `attributes`
 * (`author_id`), which is how clients that echo a record back (kitsu, jsona) send it.
 */
function attributeValues(data: JsonApiDocument['data'], values: Members, sentAs: Map<string, string>): void {
  for (const [name, value] of Object.entries(data.attributes ?? {})) {
    values[name] = value;
    sentAs.set(name, `/data/attributes/${escapeToken(name)}`);
  }
}

function relationshipValues(
  data: JsonApiDocument['data'],
  resource: Resource,
  values: Members,
  sentAs: Map<string, string>,
  issues: ErrorIssue[],
): void {
  for (const [name, { data: linkage }] of Object.entries(data.relationships ?? {})) {
    const at = `/data/relationships/${escapeToken(name)}`;
    const field = relationFieldOf(resource, name);
    const target = field === undefined ? undefined : relationTarget(resource, field);
    if (field === undefined || target === undefined) {
      issues.push({ detail: `${resource.name} has no relationship '${name}'`, pointer: at });
      continue;
    }
    if (linkage !== null && linkage.type !== target) {
      throw new ApiError('CONFLICT', {
        detail: `'${name}' refers to ${target}, not ${linkage.type}`,
        pointer: `${at}/data/type`,
      });
    }
    const id = linkage === null ? null : linkage.id;
    // The same relation as an attribute and as a relationship: one value, or the sender must choose.
    if (Object.hasOwn(values, field) && values[field] !== id) {
      issues.push({
        detail: `data.relationships.${name} and data.attributes.${field} name different records; send one of them`,
        pointer: `${at}/data`,
      });
      continue;
    }
    values[field] = id;
    sentAs.set(field, at);
  }
}

export interface DocumentBody {
  /** The flat body the document stands for. */
  values: Members;
  /** The id a create takes from `data.id`, where the resource allows client ids. */
  clientId: string | undefined;
  /** Where in the document each field was sent (its attribute or its relationship), for the pointers of its errors. */
  sentAs: ReadonlyMap<string, string>;
}

/** The flat body a document stands for; a malformed document or a type/id mismatch is refused here. */
export function flatBodyOf(document: Members, target: DocumentTarget): DocumentBody {
  checkJsonApiDocument(document);
  const { data } = document;
  const clientId = checkIdentity(data, target);
  const values: Members = {};
  const sentAs = new Map<string, string>();
  const issues: ErrorIssue[] = [];
  attributeValues(data, values, sentAs);
  relationshipValues(data, target.resource, values, sentAs, issues);
  if (issues.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', issues);
  return { values, clientId, sentAs };
}

/** The issue as the document's sender reads it, or undefined when it needs no change. */
function documentIssue(
  issue: ErrorIssue,
  code: ErrorCode,
  resource: Resource,
  clientId: string | undefined,
  sentAs: ReadonlyMap<string, string>,
): ErrorIssue | undefined {
  // A taken primary key: SQLite names the column (`<table>.id`), PostgreSQL's `<table>_pkey` names none,
  // while every other unique index is named after its field (store/driver-failure.ts).
  if (
    clientId !== undefined &&
    code === 'CONFLICT' &&
    (issue.pointer === undefined || issue.pointer === '/data/attributes/id')
  ) {
    return { ...issue, detail: `${resource.name} already has a record with id '${clientId}'`, pointer: '/data/id' };
  }
  // Field names need no JSON Pointer escaping (config NAME_PATTERN): the last token is the name itself.
  const name = issue.pointer?.match(/^\/data\/attributes\/([^/]+)$/)?.[1];
  if (name === undefined || relationTarget(resource, name) === undefined) return undefined;
  const pointer = sentAs.get(name) ?? `/data/relationships/${escapeToken(toOneRelation(resource, name)?.name ?? name)}`;
  return pointer === issue.pointer ? undefined : { ...issue, pointer };
}

/** Errors about a relation field point where the document gave it (relationship or attribute); a taken id at data.id. */
export function documentError(
  thrown: unknown,
  resource: Resource,
  clientId: string | undefined,
  sentAs: ReadonlyMap<string, string> = new Map(),
): unknown {
  const error = domainErrorAnswer(thrown);
  if (!(error instanceof ApiError)) return error;
  let moved = false;
  const issues = error.issues.map((issue) => {
    const changed = documentIssue(issue, error.code, resource, clientId, sentAs);
    if (changed === undefined) return issue;
    moved = true;
    return changed;
  });
  // withIssues keeps a hook's refusal its own status and code.
  return moved ? error.withIssues(issues) : error;
}

/**
 * Runs a write with the body the request stands for: the flat body itself, or the one its document
 * translates to, with the write's errors pointing into the document.
 */
export async function writeWithBody<T>(
  request: FastifyRequest,
  target: DocumentTarget,
  write: (body: unknown, clientId: string | undefined) => Promise<T>,
): Promise<T> {
  const body = request.body;
  if (!isRequestDocument(request, target.resource, body)) {
    if (!isRecord(body)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'The body must be a JSON object of field values',
        pointer: '/data',
      });
    }
    return write(body, undefined);
  }
  const { values, clientId, sentAs } = flatBodyOf(body, target);
  try {
    return await write(values, clientId);
  } catch (error) {
    throw documentError(error, target.resource, clientId, sentAs);
  }
}
