// Path items of the to-many side of relations: /v1/<target>/{id}/<resource>, the records of <resource>
// whose relation field refers to one <target> record (docs/records.md, "Relationships").
import type { ErrorCode } from '../../errors/error-catalogue.ts';
import type { Resource } from '../../resources/resource.ts';
import { toOneRelations } from '../../resources/relations.ts';
import { errorResponses, KEY_AUTH_CODES, RATE_LIMIT_CODES } from './error-responses.ts';
import { pascalCase, singularize, type ResourceNames } from './openapi-names.ts';
import { JSON_API_MEDIA_TYPE, parameterRef, schemaRef, type OpenApiObject } from './openapi-refs.ts';
import { listParameters } from './query-parameters.ts';
import { ifNoneMatchParameter, notModifiedResponse, withEntityTag } from './conditional-requests.ts';
import { callerSecurity, successHeaders } from './shared-components.ts';
import type { SvcConfig } from '../../config/config-types.ts';

const CODES: readonly ErrorCode[] = [
  'INVALID_QUERY_PARAMS',
  'INVALID_FIELDS',
  'RESOURCE_NOT_FOUND',
  ...KEY_AUTH_CODES,
  'FORBIDDEN',
  'KEY_PERMISSION_DENIED',
  ...RATE_LIMIT_CODES,
  'INTERNAL_ERROR',
  'RESOURCE_FETCH_ERROR',
  'RESOURCE_FIND_ERROR',
  'NOT_ACCEPTABLE',
];

/** `enabled`: the names of the resources the document describes; a relation to any other has no path. */
export function relatedPaths(
  child: Resource,
  names: ResourceNames,
  enabled: ReadonlySet<string>,
  config: SvcConfig,
): Record<string, OpenApiObject> {
  const paths: Record<string, OpenApiObject> = {};
  const targets = [...new Set(toOneRelations(child).map((relation) => relation.target))].filter((target) =>
    enabled.has(target),
  );
  for (const target of targets) {
    const fields = toOneRelations(child)
      .filter((relation) => relation.target === target)
      .map((relation) => relation.field);
    const parameters = listParameters(child);
    const via: OpenApiObject = {
      name: '_via',
      in: 'query',
      description: `The field of ${child.name} that refers to ${target}; required when more than one does.`,
      required: fields.length > 1,
      schema: { type: 'string', enum: fields },
    };
    paths[`/v1/${target}/{id}/${child.name}`] = {
      parameters: [parameterRef('RecordId'), parameterRef('ServiceRole')],
      get: {
        tags: [child.name],
        security: callerSecurity(config),
        operationId: `${names.operationId('list')}Of${singularize(pascalCase(target))}`,
        summary: `List the ${child.name} records of a ${target} record`,
        description:
          `The ${child.name} records whose ${fields.map((f) => `\`${f}\``).join(' or ')} refers to the ${target} record, with the list ` +
          `query language and the caller's read rules on ${child.name}. A ${target} record the caller may not read answers 404, as a missing one.`,
        parameters: [via, ...parameters, ifNoneMatchParameter()],
        responses: {
          '200': withEntityTag({
            description: `A page of ${child.name} records.`,
            headers: successHeaders(),
            content: { [JSON_API_MEDIA_TYPE]: { schema: schemaRef(names.schema('ListDocument')) } },
          }),
          '304': notModifiedResponse(),
          ...errorResponses(CODES),
        },
      },
    };
  }
  return paths;
}
