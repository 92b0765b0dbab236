// Which file format a list is asked for (docs/records.md, "Export"): `_format=csv|ndjson`, else the
// Accept header when the range it prefers is text/csv or application/x-ndjson; undefined for a JSON:API list.
import { ApiError } from '../../errors/api-error.ts';
import { JSON_API_MEDIA_TYPE } from '../../tools/media-types.ts';

export type ExportFormat = 'csv' | 'ndjson';

export const EXPORT_MEDIA_TYPES: ReadonlyMap<string, ExportFormat> = new Map([
  ['text/csv', 'csv'],
  ['application/x-ndjson', 'ndjson'],
]);

/** The ranges that pick the JSON:API document; a tie with an export type goes to the one listed first. */
const DOCUMENT_RANGES = new Set([JSON_API_MEDIA_TYPE, 'application/json', 'application/*', '*/*']);

/** Longer Accept headers are not looked into for an export (the request-line limits bound them anyway). */
const MAX_ACCEPT_ENTRIES = 32;

export function exportFormatOf(
  formatParameter: string | string[] | undefined,
  accept: string | undefined,
): ExportFormat | undefined {
  if (formatParameter !== undefined) {
    if (formatParameter === 'csv' || formatParameter === 'ndjson') return formatParameter;
    throw new ApiError('INVALID_QUERY_PARAMS', {
      parameter: '_format',
      detail: Array.isArray(formatParameter)
        ? "Parameter '_format' is given more than once"
        : "Parameter '_format' must be csv or ndjson",
    });
  }
  if (accept === undefined || !/csv|ndjson/i.test(accept)) return undefined;
  let best: { format: ExportFormat | undefined; weight: number } | undefined;
  for (const entry of accept.split(',').slice(0, MAX_ACCEPT_ENTRIES)) {
    const [typeText = '', ...parameters] = entry.split(';');
    const type = typeText.trim().toLowerCase();
    const format = EXPORT_MEDIA_TYPES.get(type);
    if (format === undefined && !DOCUMENT_RANGES.has(type)) continue;
    const weightText = parameters.map((p) => p.trim()).find((p) => /^q\s*=/i.test(p));
    const weight = weightText === undefined ? 1 : Number(weightText.slice(weightText.indexOf('=') + 1));
    if (!(weight > 0)) continue;
    if (best === undefined || weight > best.weight) best = { format, weight };
  }
  return best?.format;
}
