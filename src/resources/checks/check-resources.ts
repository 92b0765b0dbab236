// Rules over `resources` that JSON Schema cannot say: names, each field, field ids unique across
// the config, permissions naming real fields.
import { checkField } from './check-field.ts';
import { checkPermissions, type FieldDefinitions } from './check-permissions.ts';
import type { FieldDefinition } from '../../config/config-types.ts';
import { checkResourceName } from './check-name.ts';
import { joinPath, type ConfigProblem } from '../../config/config-problem.ts';
import { isRecord } from '../../tools/is-record.ts';
import type { DefinitionChecks } from '../../config/definition-checks.ts';

export function checkResources(resources: unknown): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  if (!isRecord(resources)) return problems;
  const resourceNames = Object.keys(resources);
  const fieldIds = new Map<string, string>();

  for (const [name, definition] of Object.entries(resources)) {
    const path = joinPath('resources', name);
    const nameProblem = checkResourceName(name);
    if (nameProblem) problems.push({ path, message: nameProblem });
    if (!isRecord(definition)) continue;
    const fields = isRecord(definition.fields) ? definition.fields : {};
    const fieldNames = Object.keys(fields);

    for (const [fieldName, field] of Object.entries(fields)) {
      const fieldPath = joinPath(path, 'fields', fieldName);
      problems.push(...checkField(fieldPath, fieldName, field, resourceNames));
      const explicitId = isRecord(field) && typeof field.id === 'string' ? field.id : undefined;
      const id = explicitId ?? `${name}.${fieldName}`;
      const owner = fieldIds.get(id);
      if (owner !== undefined) {
        problems.push({
          path: explicitId ? joinPath(fieldPath, 'id') : fieldPath,
          message: `field id "${id}" is already used by ${owner}`,
        });
      } else {
        fieldIds.set(id, fieldPath);
      }
    }
    const definitions: FieldDefinitions = new Map(
      Object.entries(fields).map(([fieldName, field]) => [
        fieldName,
        isRecord(field) ? (field as Partial<FieldDefinition>) : {},
      ]),
    );
    problems.push(
      ...checkPermissions(joinPath(path, 'permissions'), name, definition.permissions, fieldNames, definitions),
    );
  }
  return problems;
}

/** Fills `onDelete: restrict` on relations that leave it out (a default only for one field type). */
export function applyRelationDefaults(resources: unknown): void {
  if (!isRecord(resources)) return;
  for (const definition of Object.values(resources)) {
    if (!isRecord(definition) || !isRecord(definition.fields)) continue;
    for (const field of Object.values(definition.fields)) {
      if (isRecord(field) && field.type === 'relation' && field.onDelete === undefined) field.onDelete = 'restrict';
    }
  }
}

/** The resource-definition rules the config validator is handed. */
export const RESOURCE_DEFINITION_CHECKS: DefinitionChecks = { prepare: applyRelationDefaults, check: checkResources };
