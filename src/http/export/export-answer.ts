// An export's answer: the records of a list as CSV (with a header row) or NDJSON (one JSON object a
// line), streamed batch by batch so only one batch is in memory however long the list is.
import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { ExportedRecords } from '../../records/record-service.ts';
import type { RecordValues } from '../../model/record-values.ts';
import type { Resource } from '../../resources/resource.ts';
import type { ExportFormat } from './export-format.ts';

// One value as an RFC 4180 CSV field, made safe to open in a spreadsheet.
// A text that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would run as a formula in
// Excel, LibreOffice or Google Sheets (CSV injection): it gets a leading `'`, which they show as text.
const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]/;

/** Numbers and booleans are written as they are (a negative number is not a formula); JSON as its text. */
function csvCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A record line, ended by CRLF as RFC 4180 asks. */
function csvLine(values: readonly unknown[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8; header=present',
  ndjson: 'application/x-ndjson; charset=utf-8',
};

/** The columns of every line: the id, the shown attributes, then the timestamps, as in a JSON:API record. */
export function exportColumns(attributes: readonly string[]): string[] {
  return [
    'id',
    ...attributes.filter((name) => name !== 'created_at' && name !== 'updated_at'),
    'created_at',
    'updated_at',
  ];
}

/**
 * A batch's lines in chunks of about CHUNK_CHARS: a bigger string lands in V8's large-object space, which
 * only a full collection frees, and an export made of them grew RSS by its whole size before one ran.
 */
function* linesOf(
  format: ExportFormat,
  columns: readonly string[],
  records: readonly RecordValues[],
): Generator<string> {
  let text = '';
  for (const record of records) {
    const values = columns.map((column) => (Object.hasOwn(record, column) ? (record[column] ?? null) : null));
    if (format === 'csv') text += csvLine(values);
    else {
      const line: Record<string, unknown> = {};
      for (const [i, column] of columns.entries()) line[column] = values[i];
      text += `${JSON.stringify(line)}\n`;
    }
    if (text.length >= CHUNK_CHARS) {
      yield text;
      text = '';
    }
  }
  if (text !== '') yield text;
}

const CHUNK_CHARS = 16_384;

export function sendExport(
  reply: FastifyReply,
  resource: Resource,
  format: ExportFormat,
  exported: ExportedRecords,
): FastifyReply {
  const columns = exportColumns(exported.attributes);
  async function* text(): AsyncGenerator<string> {
    if (format === 'csv') yield csvLine(columns);
    yield* linesOf(format, columns, exported.first);
    for await (const batch of exported.rest) yield* linesOf(format, columns, batch);
  }
  return reply
    .code(200)
    .type(CONTENT_TYPES[format])
    .header('Content-Disposition', `attachment; filename="${resource.name}.${format === 'csv' ? 'csv' : 'ndjson'}"`)
    .header('Cache-Control', 'no-store')
    .send(Readable.from(text(), { objectMode: false }));
}
