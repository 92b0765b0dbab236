// JSON:API resource objects to the client's flat records and back: `{ id, ...attributes }`, relation
// ids as the attributes reads return them.

export interface ResourceObject {
  id: string;
  type: string;
  attributes?: Record<string, unknown>;
}

export function flatten<R>(resource: ResourceObject): R {
  return { id: resource.id, ...(resource.attributes ?? {}) } as R;
}
