// The relations of a resource as JSON:API names them: each relation field is a to-one relationship
// (`author_id` → `author`), and each relation field of another resource that points here is a to-many
// one reached from the target (`/v1/authors/:id/posts`). docs/records.md, "Relationships".
import type { Resource } from './resource.ts';

export interface ToOneRelation {
  /** The relationship's name: the field's name without a trailing `_id`, unless that is another field's name. */
  readonly name: string;
  /** The relation field holding the related record's id. */
  readonly field: string;
  /** The name of the resource the field refers to. */
  readonly target: string;
}

const TO_ONE = new WeakMap<Resource, readonly ToOneRelation[]>();

/** The resource's relation fields as to-one relationships, in definition order. */
export function toOneRelations(resource: Resource): readonly ToOneRelation[] {
  const known = TO_ONE.get(resource);
  if (known) return known;
  const relations: ToOneRelation[] = [];
  for (const field of resource.fields.values()) {
    if (field.definition.type !== 'relation' || field.definition.resource === undefined) continue;
    const stripped = field.name.endsWith('_id') ? field.name.slice(0, -3) : '';
    const name = stripped !== '' && !resource.fields.has(stripped) ? stripped : field.name;
    relations.push({ name, field: field.name, target: field.definition.resource });
  }
  TO_ONE.set(resource, relations);
  return relations;
}

/** The to-one relationship named `name` (or by its field's name), if the resource has one. */
export function toOneRelation(resource: Resource, name: string): ToOneRelation | undefined {
  return (
    toOneRelations(resource).find((relation) => relation.name === name) ??
    toOneRelations(resource).find((relation) => relation.field === name)
  );
}

/** The relation fields of `child` that refer to `target`: the to-many relationships from `target` to `child`. */
export function fieldsReferring(child: Resource, target: Resource): readonly ToOneRelation[] {
  return toOneRelations(child).filter((relation) => relation.target === target.name);
}

/** A to-many relationship: the records of `child` whose relation field refers to the record it is read from. */
export interface ToManyRelation {
  /** The child resource's name: a to-many side is included by it (`?include=comments`). */
  readonly name: string;
  readonly child: Resource;
  /** The child's relation field that refers to the parent. */
  readonly field: string;
}

/**
 * The to-many relationship named `name` of `parent`: the resource `name` when exactly one of its
 * fields refers to `parent`. With several (`author_id`, `editor_id`) the side is not includable, since
 * the name would not say which; its path takes `_via` instead.
 */
export function toManyRelation(
  parent: Resource,
  name: string,
  findResource: (name: string) => Resource | undefined,
): ToManyRelation | undefined {
  const child = findResource(name);
  if (!child) return undefined;
  const referring = fieldsReferring(child, parent);
  return referring.length === 1 ? { name, child, field: referring[0]!.field } : undefined;
}
