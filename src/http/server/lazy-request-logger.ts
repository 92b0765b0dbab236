// Each request's logger, bound to its request id, made on the request's first log line rather than
// up front. A pino child serializes and redacts its bindings when it is made (~2% of a get-one in
// profiles), and at LOG_LEVEL=warn under load almost no request ever logs.
import type { FastifyBaseLogger, LogLevel } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

interface LevelAwareLogger extends FastifyBaseLogger {
  isLevelEnabled(level: string): boolean;
}

function isLevelAware(logger: FastifyBaseLogger): logger is LevelAwareLogger {
  return typeof (logger as Partial<LevelAwareLogger>).isLevelEnabled === 'function';
}

type LogMethod = Exclude<LogLevel, 'silent'> | 'silent';

export class LazyRequestLogger implements FastifyBaseLogger {
  readonly #parent: LevelAwareLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #made: FastifyBaseLogger | undefined;

  constructor(parent: LevelAwareLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** The child exactly as Fastify's default factory makes it. */
  #make(): FastifyBaseLogger {
    this.#made ??= this.#parent.child(this.#bindings, this.#options);
    return this.#made;
  }

  /** Only a line that its level lets through makes the child. */
  #line(level: LogMethod, args: unknown[]): void {
    const real = this.#made ?? (this.isLevelEnabled(level) ? this.#make() : undefined);
    if (real) (real[level] as (...line: unknown[]) => void).apply(real, args);
  }

  isLevelEnabled(level: string): boolean {
    const current = this.#made ?? this.#parent;
    return isLevelAware(current) ? current.isLevelEnabled(level) : true;
  }

  get level(): FastifyBaseLogger['level'] {
    return (this.#made ?? this.#parent).level;
  }

  set level(level: FastifyBaseLogger['level']) {
    this.#make().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#make().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    this.#line('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#line('error', args);
  }

  warn(...args: unknown[]): void {
    this.#line('warn', args);
  }

  info(...args: unknown[]): void {
    this.#line('info', args);
  }

  debug(...args: unknown[]): void {
    this.#line('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#line('trace', args);
  }

  silent(...args: unknown[]): void {
    this.#line('silent', args);
  }
}

/**
 * Fastify's `childLoggerFactory`. A route with its own log level or serializers gets its child at once,
 * as does a logger that cannot say which levels are on.
 */
export function lazyChildLogger(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  if (!isLevelAware(logger) || options.level !== undefined || options.serializers !== undefined)
    return logger.child(bindings, options);
  return new LazyRequestLogger(logger, bindings, options);
}
