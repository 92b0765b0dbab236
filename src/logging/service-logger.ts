// The service's one logger, made before the components that log to it and shared with Fastify (which
// logs each request through a child of it). No options: a logger that writes nothing.
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

/** pino's settings, plus where the lines go (standard output by default); `false` writes nothing. */
export type ServiceLoggerOptions = boolean | (LoggerOptions & { stream?: DestinationStream });

export function createServiceLogger(options: ServiceLoggerOptions | undefined): Logger {
  if (!options) return pino({ enabled: false });
  if (options === true) return pino();
  const { stream, ...settings } = options;
  return stream === undefined ? pino(settings) : pino(settings, stream);
}
