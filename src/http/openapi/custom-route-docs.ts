// The OpenAPI operations of the custom routes that declare a schema (docs/hooks.md): built from the
// route's Fastify schema (params, querystring, body, response), added to /openapi.json and /docs.
import { ADMIN_SCHEME } from './admin-resource-paths.ts';
import { BEARER_SCHEME } from './shared-components.ts';
import type { RouteAuth } from '../../hooks/hook-types.ts';
import { isRecord } from '../../tools/is-record.ts';

type OpenApiObject = Record<string, unknown>;

export interface CustomRouteDoc {
  method: string;
  /** Fastify's form: `/v1/posts/:id/summary`. */
  url: string;
  auth: RouteAuth;
  schema: Record<string, unknown>;
}

const SECURITY: Readonly<Record<RouteAuth, OpenApiObject[]>> = {
  key: [{ [BEARER_SCHEME]: [] }],
  admin: [{ [ADMIN_SCHEME]: [] }],
  any: [{ [BEARER_SCHEME]: [] }, { [ADMIN_SCHEME]: [] }],
  public: [],
};

export class CustomRouteDocs {
  readonly #routes: CustomRouteDoc[] = [];

  add(route: CustomRouteDoc): void {
    this.#routes.push(route);
  }

  get size(): number {
    return this.#routes.length;
  }

  /** Their path items, to merge into the document's `paths`. */
  paths(): Record<string, OpenApiObject> {
    const paths: Record<string, OpenApiObject> = {};
    for (const route of this.#routes) {
      const path = route.url.replace(/:([A-Za-z_]\w*)(\([^)]*\))?/g, '{$1}');
      const item = (paths[path] ??= {});
      item[route.method.toLowerCase()] = operationOf(route);
    }
    return paths;
  }
}

function operationOf(route: CustomRouteDoc): OpenApiObject {
  const { schema } = route;
  const operation: OpenApiObject = {
    operationId: `custom_${route.method.toLowerCase()}_${route.url.replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`,
    tags: Array.isArray(schema.tags) ? schema.tags : ['Custom'],
    security: SECURITY[route.auth],
    responses: responsesOf(schema.response),
  };
  if (typeof schema.summary === 'string') operation.summary = schema.summary;
  if (typeof schema.description === 'string') operation.description = schema.description;
  const parameters = [...parametersOf(schema.params, 'path'), ...parametersOf(schema.querystring, 'query')];
  // Every path template variable must be declared, even when the schema leaves it out.
  for (const match of route.url.matchAll(/:([A-Za-z_]\w*)/g)) {
    const name = match[1]!;
    if (!parameters.some((parameter) => parameter.in === 'path' && parameter.name === name))
      parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
  if (parameters.length > 0) operation.parameters = parameters;
  if (isRecord(schema.body))
    operation.requestBody = { required: true, content: { 'application/json': { schema: schema.body } } };
  return operation;
}

function parametersOf(
  schema: unknown,
  where: 'path' | 'query',
): { name: string; in: string; required: boolean; schema: unknown }[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  const required = Array.isArray(schema.required) ? schema.required : [];
  return Object.keys(schema.properties).map((name) => ({
    name,
    in: where,
    required: where === 'path' || required.includes(name),
    schema: (schema.properties as Record<string, unknown>)[name],
  }));
}

function responsesOf(response: unknown): OpenApiObject {
  if (!isRecord(response)) return { default: { description: 'The route’s answer' } };
  const responses: OpenApiObject = {};
  for (const code of Object.keys(response)) {
    const schema = response[code];
    responses[code] = {
      description: isRecord(schema) && typeof schema.description === 'string' ? schema.description : `${code} answer`,
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}
