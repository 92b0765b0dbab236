// Turns a resource definition into a Resource: field types resolved, validators compiled once.
import type { ResourceDefinition } from '../config/config-types.ts';
import { DEFAULT_SEARCH_LANGUAGE } from '../config/search-languages.ts';
import { FIELD_TYPES } from './field-types/index.ts';
import { HTTP_URL_MESSAGE, HTTP_URL_PATTERN } from './field-types/url-field.ts';
import { compileValueSchema } from './field-types/value-validator.ts';
import { isFileType } from './field-types/file-field.ts';
import { isVouched } from './field-types/file-metadata.ts';
import { SYSTEM_FIELDS, type Resource, type ResourceField } from './resource.ts';
import type { StorageKind } from '../store/storage-kind.ts';

// A Map, not an object literal: a field named `constructor` must not find Object's members.
const SYSTEM_STORAGE: ReadonlyMap<string, StorageKind> = new Map([
  ['id', 'text'],
  ['created_at', 'timestamp'],
  ['updated_at', 'timestamp'],
  ['deleted_at', 'timestamp'],
]);

export function compileResource(name: string, definition: ResourceDefinition): Resource {
  const fields = new Map<string, ResourceField>();
  for (const [fieldName, fieldDef] of Object.entries(definition.fields)) {
    const type = FIELD_TYPES[fieldDef.type];
    const check = compileValueSchema(type.valueSchema(fieldDef));
    const fileField = isFileType(fieldDef);
    fields.set(fieldName, {
      name: fieldName,
      id: fieldDef.id ?? `${name}.${fieldName}`,
      definition: fieldDef,
      type,
      storage: type.storage,
      required: fieldDef.required === true,
      nullable: fieldDef.nullable ?? fieldDef.required !== true,
      sortable: fieldDef.sortable === true,
      validate(value) {
        if (fileField && !fileValueVouched(value))
          return ["must be uploaded: send the file as multipart/form-data, or PUT it to the field's URL"];
        if (check(value)) return [];
        const errors = check.errors ?? [];
        const notUri = errors.some((e) => e.keyword === 'format');
        return errors.flatMap((e) => {
          // The url scheme rule is a pattern only to keep the JSON Schema standard: say it in words, and
          // once (a value that is no URI at all already says so).
          if (e.keyword === 'pattern' && e.params.pattern === HTTP_URL_PATTERN) return notUri ? [] : [HTTP_URL_MESSAGE];
          return [e.message ? `must ${e.message.replace(/^must /, '')}` : 'is invalid'];
        });
      },
    });
  }
  const sortable = new Set<string>(SYSTEM_FIELDS);
  for (const field of fields.values()) if (field.sortable) sortable.add(field.name);
  const searchable = [...fields.values()].filter((f) => f.definition.searchable === true).map((f) => f.name);
  return {
    name,
    table: name,
    enabled: definition.enabled !== false,
    softDelete: definition.enableSoftDelete === true,
    definition,
    fields,
    fieldNames: [...fields.keys()],
    fileFields: [...fields.values()].filter((field) => isFileType(field.definition)).map((field) => field.name),
    sortable,
    search:
      searchable.length === 0
        ? undefined
        : { fields: searchable, language: definition.searchLanguage ?? DEFAULT_SEARCH_LANGUAGE },
    permissions: new Map(Object.entries(definition.permissions ?? {})),
    storageOf: (column) => SYSTEM_STORAGE.get(column) ?? fields.get(column)?.storage,
  };
}

/** Every file in the value was made by an upload or is the record's own (file-metadata.ts). */
function fileValueVouched(value: unknown): boolean {
  return Array.isArray(value) ? value.every(isVouched) : isVouched(value);
}
