// A resource as the service uses it: the definition compiled once into fields, types and validators.
import type { FieldDefinition, ResourceDefinition, RolePermissions } from '../config/config-types.ts';
import type { FieldType } from './field-types/index.ts';
import type { StorageKind } from '../store/storage-kind.ts';
import type { SearchLanguage } from '../config/search-languages.ts';

export { SYSTEM_FIELDS } from '../config/config-types.ts';

export interface ResourceField {
  readonly name: string;
  /** Stable id for webhook `fieldIds`: `<resource>.<field>` unless the definition names one. */
  readonly id: string;
  readonly definition: FieldDefinition;
  readonly type: FieldType;
  readonly storage: StorageKind;
  readonly required: boolean;
  readonly nullable: boolean;
  readonly sortable: boolean;
  /** Checks a non-null value; returns problems as messages. */
  validate(value: unknown): string[];
}

export interface ResourceSearch {
  /** The searchable fields, in definition order. */
  readonly fields: readonly string[];
  readonly language: SearchLanguage;
}

export interface Resource {
  readonly name: string;
  readonly table: string;
  readonly enabled: boolean;
  readonly softDelete: boolean;
  readonly definition: ResourceDefinition;
  /** Declared fields in definition order (no system fields). */
  readonly fields: ReadonlyMap<string, ResourceField>;
  readonly fieldNames: readonly string[];
  /** The `file` and `files` fields, in definition order (most resources have none). */
  readonly fileFields: readonly string[];
  /** Fields usable in `_sort`: sortable ones plus the system fields. */
  readonly sortable: ReadonlySet<string>;
  /** Full-text search over the `searchable` fields (docs/search.md); undefined when none is. */
  readonly search: ResourceSearch | undefined;
  /** Role → its rules; a Map so that a role named `constructor` or `__proto__` finds nothing it was not given. */
  readonly permissions: ReadonlyMap<string, RolePermissions>;
  /** Storage kind of any column, system ones included; undefined for unknown names. */
  storageOf(column: string): StorageKind | undefined;
}
