// The shape `npx svc types` prints for a deployment's resources, and the untyped fallback. Everything
// the client types (filters, sort keys, bodies, records) is derived from one entry per resource.

/** One resource as the client sees it: what a read returns, what a create takes, what may be sorted. */
export interface ResourceSchema {
  /** Every field a read may return (nullable fields include null). */
  fields: object;
  /** A create's body: required fields without a default are required here. */
  create: object;
  /** The fields declared `sortable` (id, created_at and updated_at always are). */
  sortable: string;
}

/** Every resource of a deployment, by name. */
export type SvcSchema = { [resource: string]: ResourceSchema };

/** The schema used when none is given: any resource, any field. */
export type UntypedSchema = {
  [resource: string]: { fields: Record<string, unknown>; create: Record<string, unknown>; sortable: string };
};

/** The fields every record carries besides its own. */
export interface SystemFields {
  id: string;
  created_at: string;
  updated_at: string;
}

/** A record as the client returns it: flat, its id and timestamps beside its attributes. */
export type SvcRecord<F extends object> = SystemFields & Partial<F>;
