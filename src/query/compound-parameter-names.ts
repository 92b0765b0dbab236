// The query parameters of a JSON:API compound document (docs/records.md, "Relationships"): they shape
// the document, never the rows, so the list parser leaves them to parse-compound-query.ts.

export const FIELDSET_PARAMETER = /^fields\[([^\]]*)\]$/;

/** Whether a query parameter belongs to the compound document rather than to the list's filters. */
export function isCompoundParameter(name: string): boolean {
  return name === 'include' || FIELDSET_PARAMETER.test(name);
}
