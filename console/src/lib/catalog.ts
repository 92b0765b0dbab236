// What the console knows of each resource, put together from what today's API publishes:
// /openapi.json (names, sortable fields, create schema, soft delete), /v1/:r/schema (the fields the
// caller may read) and, for the admin, /admin/resources when the server has it (unique, permissions).
import { call, ApiFailure } from './api.ts';
import { filterOperatorsOf, type FilterOperators } from './filters.ts';

export type JsonSchema = Record<string, any>; // JSON Schema nodes are open-ended by nature

export interface FieldInfo {
  name: string;
  /** A short type label: string, integer, enum, relation, … */
  type: string;
  required: boolean;
  unique: boolean | null;
  sortable: boolean;
  relation: string | null;
  enumValues: string[] | null;
  schema: JsonSchema;
}

export type Permissions = Map<string, Map<string, string>>;

export interface ResourceInfo {
  name: string;
  /** Fields the signed-in caller may read (system fields excluded); empty when reading is not allowed. */
  fields: FieldInfo[];
  readable: boolean;
  /** The resource's `description` from the config, shown as help on its pages. */
  description: string | null;
  readProblem: string | null;
  softDelete: boolean;
  sortable: Set<string>;
  /** Whether the list takes `_search`: the resource has searchable fields (its list parameters say so). */
  searchable: boolean;
  /** Per field (system fields too), the filter operators the list takes, from /openapi.json. */
  filters: FilterOperators;
  /** Flat create body schema from the OpenAPI document. */
  createSchema: JsonSchema | null;
  patchSchema: JsonSchema | null;
  /** role → action → summary; null when /admin/resources is not available. */
  permissions: Permissions | null;
  /** What the signed-in caller may write: the fields of a create and of an update (null: not allowed), and delete. */
  writable: Writable;
}

export interface Writable {
  create: string[] | null;
  update: string[] | null;
  delete: boolean;
}

/**
 * Per resource, what a user's key may write, from `GET /me`'s `access` (its role and the key's scopes).
 * Null when the server does not say: every field is then offered and the API's answer decides.
 */
async function loadAccess(): Promise<Record<string, Record<string, string[]>> | null> {
  try {
    const access = (await call('/me')).data?.attributes?.access;
    return access && typeof access === 'object' ? access : null;
  } catch {
    return null;
  }
}

function writableOf(
  name: string,
  isAdmin: boolean,
  access: Record<string, Record<string, string[]>> | null,
  fieldsOf: (schema: JsonSchema | null) => string[],
  create: JsonSchema | null,
  patch: JsonSchema | null,
): Writable {
  // The admin token reads and deletes only (spec): no form is offered.
  if (isAdmin) return { create: null, update: null, delete: true };
  if (access === null)
    return { create: create ? fieldsOf(create) : null, update: patch ? fieldsOf(patch) : null, delete: true };
  const actions = access[name] ?? {};
  return { create: actions.create ?? null, update: actions.update ?? null, delete: actions.delete !== undefined };
}

export const SYSTEM_FIELDS = ['id', 'created_at', 'updated_at'];

function typeLabel(schema: JsonSchema): string {
  if (schema['x-relation']) return 'relation';
  if (schema['x-file'] === true) return schema.items === undefined ? 'file' : 'files';
  if (Array.isArray(schema.enum)) return 'enum';
  const types = Array.isArray(schema.type) ? schema.type.filter((t: string) => t !== 'null') : [schema.type];
  const base = types[0];
  if (base === undefined) return 'json';
  if (base === 'string') {
    const format = schema.format as string | undefined;
    if (format === 'date-time') return 'datetime';
    if (format === 'date') return 'date';
    if (format === 'uuid') return 'uuid';
    if (format === 'email') return 'email';
    if (format === 'uri') return 'url';
    return schema.maxLength === undefined ? 'text' : 'string';
  }
  return String(base);
}

function summarize(grant: unknown): string {
  if (grant === true) return 'all';
  if (grant === false || grant === undefined || grant === null) return '—';
  if (typeof grant === 'object') {
    const g = grant as Record<string, unknown>;
    const parts: string[] = [];
    if (Array.isArray(g.fields)) parts.push(`fields: ${g.fields.join(', ')}`);
    if (g.filter !== undefined) parts.push('row filter');
    if (g.preset !== undefined) parts.push('preset');
    return parts.length > 0 ? parts.join('; ') : 'all';
  }
  return String(grant);
}

interface AdminResource {
  unique: Set<string>;
  softDelete: boolean | null;
  permissions: Permissions | null;
}

/**
 * Reads /admin/resources (admin token only). A server of another version may lack it or shape it
 * otherwise, hence `any` below with every member checked before use, and an empty map on failure.
 */
async function loadAdminResources(): Promise<Map<string, AdminResource>> {
  const out = new Map<string, AdminResource>();
  let document: any;
  try {
    document = await call('/admin/resources');
  } catch {
    return out;
  }
  const items: any[] = Array.isArray(document?.data) ? document.data : [];
  for (const item of items) {
    const attributes = item?.attributes ?? {};
    const name = typeof attributes.name === 'string' ? attributes.name : item?.id;
    if (typeof name !== 'string') continue;
    const unique = new Set<string>();
    const fields = attributes.fields;
    const entries: [string, any][] = Array.isArray(fields)
      ? fields.map((f: any) => [String(f?.name), f])
      : fields && typeof fields === 'object'
        ? Object.entries(fields)
        : [];
    for (const [fieldName, field] of entries) if (field?.unique === true) unique.add(fieldName);
    let permissions: Permissions | null = null;
    if (attributes.permissions && typeof attributes.permissions === 'object') {
      permissions = new Map();
      for (const [role, actions] of Object.entries(attributes.permissions as Record<string, any>)) {
        const row = new Map<string, string>();
        for (const action of ['read', 'create', 'update', 'delete']) row.set(action, summarize(actions?.[action]));
        permissions.set(role, row);
      }
    }
    const soft = attributes.softDelete ?? attributes.enableSoftDelete;
    out.set(name, { unique, softDelete: typeof soft === 'boolean' ? soft : null, permissions });
  }
  return out;
}

export async function loadCatalog(isAdmin: boolean): Promise<ResourceInfo[]> {
  // The OpenAPI document is walked as untyped JSON (`any`), each step guarded with `?.`.
  const openApi: any = await call('/openapi.json', { accept: 'application/json', session: null });
  const [admin, access] = await Promise.all([
    isAdmin ? loadAdminResources() : Promise.resolve(new Map<string, AdminResource>()),
    isAdmin ? Promise.resolve(null) : loadAccess(),
  ]);
  const fieldsOf = (schema: JsonSchema | null): string[] => Object.keys(schema?.properties ?? {});
  // A resource is listed (GET) under a tag of its own name; svc's own paths beside them are not resources
  // (POST /v1/operations has no GET, GET /v1/stream is tagged `streams`).
  const names = Object.entries(openApi.paths ?? {})
    .filter(([, item]: [string, any]) => item?.get !== undefined)
    .map(([path, item]: [string, any]) => {
      const name = /^\/v1\/([^/{}]+)$/.exec(path)?.[1];
      return name !== undefined && Array.isArray(item.get.tags) && item.get.tags.includes(name) ? name : undefined;
    })
    .filter((name): name is string => name !== undefined);
  const schemaOf = (ref: unknown): JsonSchema | null => {
    if (typeof ref !== 'string') return null;
    const name = ref.split('/').pop()!;
    return openApi.components?.schemas?.[name] ?? null;
  };
  return Promise.all(
    names.map(async (name): Promise<ResourceInfo> => {
      const list = openApi.paths[`/v1/${name}`];
      const one = openApi.paths[`/v1/${name}/{id}`];
      const sortParam = (list?.get?.parameters ?? []).find((p: any) => p?.name === '_sort');
      const sortable = new Set<string>(
        (sortParam?.schema?.items?.enum ?? []).filter((k: string) => !k.startsWith('-')),
      );
      const createRef =
        list?.post?.requestBody?.content?.['application/vnd.api+json']?.schema?.$ref ??
        list?.post?.requestBody?.content?.['application/json']?.schema?.$ref;
      const patchRef =
        one?.patch?.requestBody?.content?.['application/vnd.api+json']?.schema?.$ref ??
        one?.patch?.requestBody?.content?.['application/json']?.schema?.$ref;
      const extra = admin.get(name);
      const softDelete = extra?.softDelete ?? String(one?.delete?.description ?? '').includes('Soft delete');
      let fields: FieldInfo[] = [];
      let readable = true;
      let readProblem: string | null = null;
      let description: string | null = null;
      try {
        const schema: JsonSchema = await call(`/v1/${name}/schema`, {
          accept: 'application/schema+json, application/json',
        });
        const required = new Set<string>(schema.required ?? []);
        description = typeof schema.description === 'string' && schema.description !== '' ? schema.description : null;
        fields = Object.entries(schema.properties ?? {})
          .filter(([field]) => !SYSTEM_FIELDS.includes(field))
          .map(([field, fieldSchema]) => {
            const s = fieldSchema as JsonSchema;
            const enumValues = Array.isArray(s.enum) ? s.enum.filter((v: unknown) => v !== null).map(String) : null;
            return {
              name: field,
              type: typeLabel(s),
              required: required.has(field),
              unique: extra ? extra.unique.has(field) : null,
              sortable: sortable.has(field),
              relation: s['x-relation']?.resource ?? null,
              enumValues,
              schema: s,
            };
          });
      } catch (error) {
        readable = false;
        readProblem = error instanceof ApiFailure ? error.message : String(error);
      }
      return {
        name,
        fields,
        readable,
        description,
        readProblem,
        softDelete,
        sortable,
        searchable: (list?.get?.parameters ?? []).some((p: any) => p?.name === '_search'),
        filters: filterOperatorsOf(list?.get?.parameters),
        createSchema: schemaOf(createRef),
        patchSchema: schemaOf(patchRef),
        permissions: extra?.permissions ?? null,
        writable: writableOf(name, isAdmin, access, fieldsOf, schemaOf(createRef), schemaOf(patchRef)),
      };
    }),
  );
}
