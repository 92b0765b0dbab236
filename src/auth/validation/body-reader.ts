// Reads a flat JSON request body field by field, collecting every problem with its JSON Pointer,
// so a caller learns all that is wrong with a body in one answer (400 INVALID_RESOURCE_DATA).
import { ApiError, pointerTo, type ErrorIssue } from '../../errors/api-error.ts';
import { isRecord } from '../../tools/is-record.ts';

export type JsonObject = Record<string, unknown>;

interface Nullable {
  /** Accept an explicit `null` (returned as null); absent members are returned as undefined. */
  nullable?: boolean;
}

export class BodyReader {
  readonly issues: ErrorIssue[] = [];
  readonly #body: JsonObject;

  private constructor(body: JsonObject) {
    this.#body = body;
  }

  /** A reader over `body`; anything but a JSON object is refused at once. */
  static of(body: unknown): BodyReader {
    if (body === undefined || body === null) return new BodyReader({});
    if (!isRecord(body)) {
      throw new ApiError('INVALID_RESOURCE_DATA', {
        detail: 'The request body must be a JSON object',
        pointer: '/data',
      });
    }
    return new BodyReader(body);
  }

  has(name: string): boolean {
    return Object.hasOwn(this.#body, name) && this.#body[name] !== undefined;
  }

  raw(name: string): unknown {
    return this.has(name) ? this.#body[name] : undefined;
  }

  problem(name: string, detail: string): void {
    this.issues.push({ detail, pointer: pointerTo(name) });
  }

  /** Members the endpoint does not know are refused rather than silently ignored. */
  rejectUnknown(allowed: readonly string[]): void {
    for (const name of Object.keys(this.#body)) {
      if (!allowed.includes(name)) this.problem(name, `Unknown attribute '${name}'`);
    }
  }

  required(name: string): boolean {
    if (this.has(name)) return true;
    this.problem(name, `'${name}' is required`);
    return false;
  }

  string(
    name: string,
    options: Nullable & { minLength?: number; maxLength?: number; trim?: boolean } = {},
  ): string | null | undefined {
    const value = this.#nullable(name, options);
    if (value === undefined || value === null) return value;
    if (typeof value !== 'string') return this.#fail(name, `'${name}' must be a string`);
    const text = options.trim ? value.trim() : value;
    if (options.minLength !== undefined && text.length < options.minLength) {
      return this.#fail(name, `'${name}' must be at least ${options.minLength} characters long`);
    }
    if (options.maxLength !== undefined && text.length > options.maxLength) {
      return this.#fail(name, `'${name}' must be at most ${options.maxLength} characters long`);
    }
    return text;
  }

  integer(name: string, options: Nullable & { minimum?: number; maximum?: number } = {}): number | null | undefined {
    const value = this.#nullable(name, options);
    if (value === undefined || value === null) return value;
    if (typeof value !== 'number' || !Number.isSafeInteger(value))
      return this.#fail(name, `'${name}' must be an integer`);
    if (options.minimum !== undefined && value < options.minimum) {
      return this.#fail(name, `'${name}' must be at least ${options.minimum}`);
    }
    if (options.maximum !== undefined && value > options.maximum) {
      return this.#fail(name, `'${name}' must be at most ${options.maximum}`);
    }
    return value;
  }

  boolean(name: string, options: Nullable = {}): boolean | null | undefined {
    const value = this.#nullable(name, options);
    if (value === undefined || value === null) return value;
    if (typeof value !== 'boolean') return this.#fail(name, `'${name}' must be true or false`);
    return value;
  }

  /** An ISO 8601 date-time with a time zone, returned normalised to UTC with milliseconds. */
  datetime(name: string, options: Nullable = {}): string | null | undefined {
    const value = this.#nullable(name, options);
    if (value === undefined || value === null) return value;
    const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;
    const time = typeof value === 'string' && iso.test(value) ? Date.parse(value) : Number.NaN;
    if (Number.isNaN(time)) return this.#fail(name, `'${name}' must be an ISO 8601 date-time with a time zone`);
    return new Date(time).toISOString();
  }

  object(name: string, options: Nullable & { maxBytes?: number } = {}): JsonObject | null | undefined {
    const value = this.#nullable(name, options);
    if (value === undefined || value === null) return value;
    if (!isRecord(value)) return this.#fail(name, `'${name}' must be a JSON object`);
    if (options.maxBytes !== undefined && Buffer.byteLength(JSON.stringify(value)) > options.maxBytes) {
      return this.#fail(name, `'${name}' must be at most ${options.maxBytes} bytes of JSON`);
    }
    return value;
  }

  throwIfInvalid(): void {
    if (this.issues.length > 0) throw new ApiError('INVALID_RESOURCE_DATA', this.issues);
  }

  #nullable(name: string, options: Nullable): unknown {
    if (!this.has(name)) return undefined;
    const value = this.#body[name];
    if (value === null) return options.nullable ? null : this.#fail(name, `'${name}' must not be null`);
    return value;
  }

  #fail(name: string, detail: string): undefined {
    this.problem(name, detail);
    return undefined;
  }
}
