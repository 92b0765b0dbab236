// A request body as one JSON Schema: the same object validates the body (here) and is the body's schema
// in the OpenAPI document (http/openapi/), so what is accepted and what is described cannot drift.
// What a schema cannot say (a URL's address, a rate limit within the default, a role the config
// defines) the route's `check` adds, for the members the schema accepted, so a caller still learns
// every problem of a body in one answer.
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { JsonSchema } from '../../resources/field-types/index.ts';
import { isRecord } from '../../tools/is-record.ts';
import { compileBodySchema } from './body-validator.ts';
import { schemaIssues } from './schema-issues.ts';

/** At most this many problems are named in one answer. */
export const MAX_REPORTED_ISSUES = 100;

/** Where a flat body's members are pointed at, as the JSON:API resource object they stand for. */
export const FLAT_BODY_POINTER = '/data/attributes';

export interface RequestBodyOptions {
  /** The schema's name among the OpenAPI document's components. */
  name: string;
  schema: JsonSchema;
  /** Components the schema refers to (`#/components/schemas/<name>`), as the OpenAPI document holds them. */
  components?: Readonly<Record<string, JsonSchema>>;
  /** A request without a body (or with `null`) reads as `{}`; otherwise it is refused like any non-object. */
  absentIsEmpty?: boolean;
  /** Members whose problems answer with their own code (key permissions: INVALID_PERMISSIONS). */
  memberCodes?: ReadonlyMap<string, ErrorCode>;
}

/**
 * Further problems of the members the schema accepted. Their pointers are into the body as the domain
 * knows it (`/metadata`); where that sits in the request's document is for this file to say.
 */
export type BodyCheck<T> = (accepted: Partial<T>) => ErrorIssue[];

export class RequestBody<T extends object> {
  readonly name: string;
  readonly schema: JsonSchema;
  readonly components: Readonly<Record<string, JsonSchema>>;
  readonly #options: RequestBodyOptions;
  readonly #validate: ValidateFunction;

  constructor(options: RequestBodyOptions) {
    this.name = options.name;
    this.schema = options.schema;
    this.components = options.components ?? {};
    this.#options = options;
    this.#validate = compileBodySchema(options.schema, this.components);
  }

  /** The body, checked; throws a 400 naming every problem (data problems first, as their own answer). */
  read(body: unknown, check?: BodyCheck<T>): T {
    const given = body === undefined || body === null ? (this.#options.absentIsEmpty ? {} : body) : body;
    if (!isRecord(given)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'The request body must be a JSON object',
        pointer: '/data',
      });
    }
    const issues: (ErrorIssue & { member: string })[] = this.#validate(given)
      ? []
      : schemaIssues(this.#validate.errors ?? [], FLAT_BODY_POINTER);
    if (check) {
      const failed = new Set(issues.map((issue) => issue.member));
      const accepted = Object.fromEntries(Object.entries(given).filter(([member]) => !failed.has(member)));
      // The check names the member (`field`, or a place inside it); its pointer is made here.
      for (const { field, ...issue } of check(accepted as Partial<T>)) {
        const at = issue.pointer ?? (field === undefined ? '' : `/${field}`);
        issues.push({ ...issue, pointer: `${FLAT_BODY_POINTER}${at}`, member: '' });
      }
    }
    if (issues.length > 0) this.#refuse(issues);
    return given as T;
  }

  #refuse(issues: readonly (ErrorIssue & { member: string })[]): never {
    const byCode = new Map<ErrorCode, ErrorIssue[]>([['INVALID_RESOURCE_DATA', []]]);
    for (const { member, code: own, ...issue } of issues) {
      const code = own ?? this.#options.memberCodes?.get(member) ?? 'INVALID_RESOURCE_DATA';
      let group = byCode.get(code);
      if (group === undefined) byCode.set(code, (group = []));
      group.push(issue);
    }
    // A body of a hundred thousand unknown members is answered with the first of them, not all.
    const first = [...byCode].find(([, group]) => group.length > 0)!;
    throw new ApiError(first[0], first[1].slice(0, MAX_REPORTED_ISSUES));
  }
}
