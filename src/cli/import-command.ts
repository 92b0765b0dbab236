// `svc import FILE --resource R`: loads NDJSON or CSV rows into a running svc through POST
// /v1/operations, in batches, so every row goes the way any create goes (validation, the key's
// permissions, events, webhooks). A batch is all or nothing: a row it refuses is taken out, written to
// the report with its errors, and the batch is sent again without it. Each batch carries an
// Idempotency-Key made from its body, so a batch whose answer was lost is not stored twice on a rerun.
// docs/atomic.md, "Importing files", describes the report and how to resume.
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { createHash } from 'node:crypto';
import { createInterface } from 'node:readline';
import { extname } from 'node:path';
import { parse as parseCsv } from 'csv-parse';
import type { CliValues } from './cli-values.ts';
import { isRecord } from '../tools/is-record.ts';

const ATOMIC = 'application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"';
const DEFAULT_URL = 'http://127.0.0.1:3000';
const DEFAULT_BATCH = 100;
/** Retries of one batch the rate limit refused, each after its Retry-After. */
const RATE_LIMIT_RETRIES = 5;

type Row = Record<string, unknown>;

interface NumberedRow {
  /** The row's number among the file's data rows, from 1. */
  line: number;
  row: Row;
}

interface RowError {
  code: string;
  detail: string;
  pointer?: string;
}

interface ErrorObject {
  code?: string;
  detail?: string;
  source?: { pointer?: string };
}

export interface ImportOptions {
  file: string;
  resource: string;
  url: string;
  key: string;
  batch: number;
  format: 'ndjson' | 'csv';
  report: string;
  skip: number;
  /** Where progress goes (standard error). */
  progress: (line: string) => void;
}

export interface ImportSummary {
  read: number;
  imported: number;
  refused: number;
}

const isObject = isRecord;

/** A report line (`{line, row, errors}`) stands for its row: a fixed report can be imported as it is. */
function rowOf(value: unknown, line: number): Row {
  if (!isObject(value)) throw new Error(`line ${line} is not a JSON object`);
  if (isObject(value.row) && Array.isArray(value.errors) && typeof value.line === 'number') return value.row;
  return value;
}

async function* ndjsonRows(file: string): AsyncGenerator<NumberedRow> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    if (text.trim() === '') continue;
    line++;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new Error(`data row ${line} is not valid JSON`);
    }
    yield { line, row: rowOf(parsed, line) };
  }
}

/** Field types as the resource's JSON Schema gives them, to turn CSV text into values. */
type FieldTypes = Map<string, string[]>;

async function fieldTypes(options: ImportOptions): Promise<FieldTypes> {
  const response = await fetch(`${options.url}/v1/${encodeURIComponent(options.resource)}/schema`, {
    headers: { authorization: `Bearer ${options.key}` },
  });
  if (!response.ok)
    throw new Error(
      `GET /v1/${options.resource}/schema answered ${response.status}: ${(await response.text()).slice(0, 300)}`,
    );
  const schema = (await response.json()) as { properties?: Record<string, { type?: string | string[] }> };
  const types: FieldTypes = new Map();
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    types.set(name, property.type === undefined ? [] : Array.isArray(property.type) ? property.type : [property.type]);
  }
  return types;
}

/** CSV cells are text: numbers, booleans and JSON become values by the field's type; an empty cell is left out. */
function csvValue(text: string, types: readonly string[]): unknown {
  if (types.includes('integer') || types.includes('number')) {
    const number = Number(text);
    return text.trim() !== '' && Number.isFinite(number) ? number : text;
  }
  if (types.includes('boolean')) return text === 'true' ? true : text === 'false' ? false : text;
  // A json field's schema names no type (any JSON value): an object or array cell is read as JSON.
  const anyJson = types.length === 0 && /^\s*[[{]/.test(text);
  if (anyJson || types.includes('object') || types.includes('array')) {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  }
  return text;
}

async function* csvRows(options: ImportOptions): AsyncGenerator<NumberedRow> {
  const types = await fieldTypes(options);
  const parser = createReadStream(options.file).pipe(
    parseCsv({ columns: true, bom: true, skip_empty_lines: true, trim: false }),
  );
  let line = 0;
  for await (const record of parser as AsyncIterable<Record<string, string>>) {
    line++;
    const row: Row = {};
    for (const [name, text] of Object.entries(record)) {
      if (text === '') continue;
      row[name] = csvValue(text, types.get(name) ?? []);
    }
    yield { line, row };
  }
}

/** The operation an error names, from its pointer `/atomic:operations/<n>…`. */
function operationIndex(error: ErrorObject): number | undefined {
  const match = /^\/atomic:operations\/(\d+)(\/.*)?$/.exec(error.source?.pointer ?? '');
  return match ? Number(match[1]) : undefined;
}

function rowError(error: ErrorObject): RowError {
  const pointer = error.source?.pointer?.replace(/^\/atomic:operations\/\d+/, '');
  return { code: error.code ?? 'UNKNOWN', detail: error.detail ?? '', ...(pointer ? { pointer } : {}) };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class Importer {
  readonly #options: ImportOptions;
  readonly #report: WriteStream;
  readonly summary: ImportSummary = { read: 0, imported: 0, refused: 0 };
  /** The last data row whose batch has been stored (or refused): where a rerun resumes. */
  #done = 0;

  constructor(options: ImportOptions, report: WriteStream) {
    this.#options = options;
    this.#report = report;
    this.#done = options.skip;
  }

  async send(rows: NumberedRow[]): Promise<void> {
    let left = rows;
    let rateLimited = 0;
    while (left.length > 0) {
      const body = JSON.stringify({
        'atomic:operations': left.map(({ row }) => ({
          op: 'add',
          data: { type: this.#options.resource, attributes: row },
        })),
      });
      const key = `svc-import-${createHash('sha256').update(this.#options.resource).update('\0').update(body).digest('base64url')}`;
      const response = await fetch(`${this.#options.url}/v1/operations`, {
        method: 'POST',
        headers: { authorization: `Bearer ${this.#options.key}`, 'content-type': ATOMIC, 'idempotency-key': key },
        body,
      });
      if (response.ok) {
        await response.arrayBuffer();
        this.summary.imported += left.length;
        break;
      }
      const text = await response.text();
      if (response.status === 429 && rateLimited++ < RATE_LIMIT_RETRIES) {
        await sleep(Math.max(1, Number(response.headers.get('retry-after')) || 1) * 1000);
        continue;
      }
      let errors: ErrorObject[] = [];
      try {
        errors = (JSON.parse(text) as { errors?: ErrorObject[] }).errors ?? [];
      } catch {
        // Not an error document: answered below as a failure of the whole import.
      }
      const index = errors.map(operationIndex).find((found) => found !== undefined);
      if (index === undefined || index >= left.length) {
        throw new Error(
          `POST /v1/operations answered ${response.status}: ${text.slice(0, 300)}; nothing of data rows ${left[0]!.line}-${left.at(-1)!.line} was stored, resume with --skip ${this.#done}`,
        );
      }
      const refused = left[index]!;
      const own = errors.filter((error) => operationIndex(error) === index).map(rowError);
      this.#report.write(`${JSON.stringify({ line: refused.line, row: refused.row, errors: own })}\n`);
      this.summary.refused++;
      left = left.filter((_, i) => i !== index);
    }
    this.#done = rows.at(-1)!.line;
    this.#options.progress(
      `svc import: ${this.summary.read} rows read, ${this.summary.imported} imported, ${this.summary.refused} refused; done through data row ${this.#done}`,
    );
  }
}

export async function runImport(options: ImportOptions): Promise<ImportSummary> {
  const report = createWriteStream(options.report, { flags: 'a' });
  const importer = new Importer(options, report);
  try {
    const rows = options.format === 'csv' ? csvRows(options) : ndjsonRows(options.file);
    let batch: NumberedRow[] = [];
    for await (const numbered of rows) {
      if (numbered.line <= options.skip) continue;
      importer.summary.read++;
      batch.push(numbered);
      if (batch.length >= options.batch) {
        await importer.send(batch);
        batch = [];
      }
    }
    if (batch.length > 0) await importer.send(batch);
  } finally {
    await new Promise<void>((resolve) => report.end(resolve));
  }
  return importer.summary;
}

function positiveInteger(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 0) throw new Error(`--${name} must be a whole number, got '${text}'`);
  return value;
}

/** `svc import`: 0 when every row was imported, 1 when some were refused (see the report) or it failed. */
export async function runImportCommand(values: CliValues, file: string | undefined): Promise<number> {
  if (file === undefined) throw new Error('name the file to import: svc import FILE --resource R');
  if (values.resource === undefined) throw new Error('--resource R is required');
  const key = values.key ?? process.env.SVC_API_KEY;
  if (key === undefined || key === '') throw new Error('an API key is required: set SVC_API_KEY (or --key)');
  const format = values.format ?? (extname(file).toLowerCase() === '.csv' ? 'csv' : 'ndjson');
  if (format !== 'csv' && format !== 'ndjson') throw new Error(`--format must be csv or ndjson, got '${format}'`);
  const batch = positiveInteger(values.batch, 'batch', DEFAULT_BATCH);
  if (batch < 1) throw new Error('--batch must be at least 1');
  const options: ImportOptions = {
    file,
    resource: values.resource,
    url: (values.url ?? process.env.SVC_URL ?? DEFAULT_URL).replace(/\/+$/, ''),
    key,
    batch,
    format,
    report: values.report ?? `${file}.refused.ndjson`,
    skip: positiveInteger(values.skip, 'skip', 0),
    progress: (line) => process.stderr.write(`${line}\n`),
  };
  const summary = await runImport(options);
  process.stdout.write(
    `imported ${summary.imported} of ${summary.read} rows into ${options.resource}${summary.refused > 0 ? `; ${summary.refused} refused, listed in ${options.report}` : ''}\n`,
  );
  return summary.refused > 0 ? 1 : 0;
}
