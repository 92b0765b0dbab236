// A resource definition as the admin API shows it (`GET /admin/resources`): fields with their type and
// attributes as in effect (defaults filled), permissions per role with every action spelled out, and
// when and from which file the definitions were applied. Built from own properties only: role names and
// filter keys are free-form, so a name such as `__proto__` must come out as data, never as a prototype.
import { ACTIONS, type ActionRule, type FieldDefinition, type RolePermissions } from '../../config/config-types.ts';
import type { AppliedRecord } from '../../cluster/definitions-store.ts';
import { DEFAULT_STRING_MAX_LENGTH } from '../../resources/field-types/string-field.ts';
import type { Resource, ResourceField } from '../../resources/resource.ts';

export const RESOURCES_PATH = '/admin/resources';

export interface DefinitionObject {
  type: 'resources';
  id: string;
  attributes: Record<string, unknown>;
  links: { self: string };
}

/** A deep copy of a JSON value through own enumerable properties, objects made by Object.fromEntries. */
export function ownJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(ownJson);
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, ownJson(v)]));
  return value;
}

const OPTIONAL_KEYWORDS = [
  'default',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'description',
] as const satisfies readonly (keyof FieldDefinition)[];

function fieldAttributes(field: ResourceField): Record<string, unknown> {
  const definition = field.definition;
  const entries: [string, unknown][] = [
    ['type', definition.type],
    ['id', field.id],
    ['required', field.required],
    ['nullable', field.nullable],
    ['unique', definition.unique === true],
    ['sortable', field.sortable],
  ];
  for (const keyword of OPTIONAL_KEYWORDS) {
    if (Object.hasOwn(definition, keyword) && definition[keyword] !== undefined)
      entries.push([keyword, ownJson(definition[keyword])]);
  }
  if (definition.type === 'string' && definition.maxLength === undefined)
    entries.push(['maxLength', DEFAULT_STRING_MAX_LENGTH]);
  if (definition.type === 'enum') entries.push(['values', [...(definition.values ?? [])]]);
  if (definition.type === 'relation') {
    // The table spec defaults onDelete to restrict (table-spec.ts), so the answer says so too.
    entries.push(['resource', definition.resource ?? null], ['onDelete', definition.onDelete ?? 'restrict']);
  }
  return Object.fromEntries(entries);
}

/** Every action the role has, `true` spelled out as all fields with no conditions. */
function roleRules(rules: RolePermissions): Record<string, unknown> {
  const entries: [string, unknown][] = [];
  for (const action of ACTIONS) {
    if (!Object.hasOwn(rules, action)) continue;
    const rule = rules[action];
    if (rule === undefined) continue;
    const given: ActionRule = rule === true ? {} : rule;
    const out: [string, unknown][] = [['fields', given.fields === undefined ? '*' : ownJson(given.fields)]];
    for (const part of ['filter', 'check', 'preset'] as const) {
      if (Object.hasOwn(given, part) && given[part] !== undefined) out.push([part, ownJson(given[part])]);
    }
    entries.push([action, Object.fromEntries(out)]);
  }
  return Object.fromEntries(entries);
}

export function definitionObject(resource: Resource, applied: AppliedRecord | null): DefinitionObject {
  const fields = [...resource.fields.values()].map((field): [string, unknown] => [field.name, fieldAttributes(field)]);
  const permissions = [...resource.permissions].map(([role, rules]): [string, unknown] => [role, roleRules(rules)]);
  return {
    type: 'resources',
    id: resource.name,
    attributes: {
      description: resource.definition.description ?? null,
      enabled: resource.enabled,
      softDelete: resource.softDelete,
      fields: Object.fromEntries(fields),
      permissions: Object.fromEntries(permissions),
      ...appliedAttributes(applied),
    },
    links: { self: `${RESOURCES_PATH}/${encodeURIComponent(resource.name)}` },
  };
}

/** The record every node shares of the definitions in force; nulls when none was kept. */
export function appliedAttributes(applied: AppliedRecord | null): {
  definitionsVersion: number | null;
  appliedAt: string | null;
  appliedFrom: string | null;
} {
  return {
    definitionsVersion: applied?.version ?? null,
    appliedAt: applied?.appliedAt ?? null,
    appliedFrom: applied?.source ?? null,
  };
}
