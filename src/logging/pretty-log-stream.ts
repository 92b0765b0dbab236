// Human-readable log lines on standard output (LOG_FORMAT=pretty, or a terminal). The formatter runs in
// this process, writing synchronously, rather than as a worker-thread transport: a line logged just
// before process.exit (a shutdown, a failed start) is on the terminal, not lost in the worker's queue.
import PinoPretty from 'pino-pretty';

/**
 * `request completed: GET /v1/tasks 201 3.2 ms` for the per-request line (src/http/server/request-logging.ts);
 * otherwise the message, with the `path` some warnings carry (a config path), since `path` is hidden.
 */
function message(log: Record<string, unknown>, messageKey: string): string {
  const text = String(log[messageKey] ?? '');
  if (typeof log.method === 'string' && typeof log.status === 'number') {
    return `${text}: ${log.method} ${String(log.path ?? log.route ?? '')} ${log.status} ${String(log.ms ?? '?')} ms`;
  }
  return typeof log.path === 'string' ? `${text} (${log.path})` : text;
}

export function prettyLogStream(): PinoPretty.PrettyStream {
  return PinoPretty({
    destination: 1,
    sync: true,
    translateTime: 'SYS:HH:MM:ss.l',
    // pid and hostname are the same on every line; a request line's fields are in its message.
    ignore: 'pid,hostname,method,route,path,status,ms',
    messageFormat: message,
    singleLine: true,
  });
}
