// Component-schema names and operationIds for each resource, unique across the whole document.
// Resource names are free-form snake_case, so two of them (or one and a fixed component such as
// `ErrorDocument`) can spell the same PascalCase name; the allocator detects that and disambiguates.
import type { Resource } from '../../resources/resource.ts';

export const RESOURCE_SCHEMA_SUFFIXES = [
  'Attributes',
  'Resource',
  'Document',
  'ListDocument',
  'CreateBody',
  'ReplaceBody',
  'PatchBody',
  'CreateRequestDocument',
  'ReplaceRequestDocument',
  'PatchRequestDocument',
] as const;
export type ResourceSchemaSuffix = (typeof RESOURCE_SCHEMA_SUFFIXES)[number];

export type ResourceOperation =
  | 'list'
  | 'create'
  | 'get'
  | 'replace'
  | 'update'
  | 'delete'
  | 'schema'
  | 'stream'
  | 'aggregate'
  | 'history';

export interface ResourceNames {
  /** Key under `components.schemas`, e.g. `PostsAttributes`. */
  schema(suffix: ResourceSchemaSuffix): string;
  operationId(operation: ResourceOperation): string;
}

/** `blog_posts` → `BlogPosts`. */
export function pascalCase(name: string): string {
  return name
    .split('_')
    .filter((part) => part !== '')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

/** A modest English singular (`Categories` → `Category`, `Boxes` → `Box`); only used for readable ids. */
export function singularize(word: string): string {
  // `movies`, `cookies` keep their `ie`; most other consonant + `ies` words come from `y`.
  if (/[^aeiouvk]ies$/i.test(word)) return `${word.slice(0, -3)}y`;
  if (/(x|ch|sh|ss)es$/i.test(word)) return word.slice(0, -2);
  if (/(ss|us|is)$/i.test(word) || !/s$/i.test(word) || word.length < 2) return word;
  return word.slice(0, -1);
}

function operationIds(plural: string, singular: string): Record<ResourceOperation, string> {
  return {
    list: `list${plural}`,
    create: `create${singular}`,
    get: `get${singular}`,
    replace: `replace${singular}`,
    update: `update${singular}`,
    delete: `delete${singular}`,
    schema: `get${singular}Schema`,
    stream: `stream${plural}`,
    aggregate: `aggregate${plural}`,
    history: `get${singular}History`,
  };
}

/**
 * Names for every resource, in the order given. `reservedSchemas` and `reservedOperations` are the
 * fixed components and operations of the document, which resource names must not shadow.
 */
export function allocateOpenApiNames(
  resources: readonly Resource[],
  reservedSchemas: Iterable<string>,
  reservedOperations: Iterable<string>,
): Map<string, ResourceNames> {
  const takenSchemas = new Set(reservedSchemas);
  const takenOperations = new Set(reservedOperations);
  const result = new Map<string, ResourceNames>();
  for (const resource of resources) {
    const plural = pascalCase(resource.name);
    const singular = singularize(plural);
    // Preferred spelling first; then unsingularized (`posts` after `post` took `getPost`); then numbered
    // (`post` after `posts`, or `error`, whose `ErrorDocument` is the shared error schema).
    const candidates: [string, string][] = [
      [plural, singular],
      [plural, plural],
    ];
    for (let attempt = 0; ; attempt += 1) {
      const [base, one] = candidates[attempt] ?? [`${plural}${attempt}`, `${plural}${attempt}`];
      const schemas = RESOURCE_SCHEMA_SUFFIXES.map((suffix) => `${base}${suffix}`);
      const operations = operationIds(base, one);
      const operationNames = Object.values(operations);
      if (schemas.some((s) => takenSchemas.has(s)) || operationNames.some((o) => takenOperations.has(o))) continue;
      for (const s of schemas) takenSchemas.add(s);
      for (const o of operationNames) takenOperations.add(o);
      result.set(resource.name, {
        schema: (suffix) => `${base}${suffix}`,
        operationId: (operation) => operations[operation],
      });
      break;
    }
  }
  return result;
}
