// What went wrong, in one line a person can act on: a busy port, a database that cannot be reached,
// or the error's own message. The stack is for LOG_LEVEL=debug only.
import { isRefusedConnection } from '../store/refused-connection.ts';

interface SystemError extends Error {
  code?: string;
  syscall?: string;
  address?: string;
  port?: number;
}

/** Node's network errors that mean the database server is not there (or not as configured). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ECONNRESET']);

export function describeCliFailure(error: unknown, options: { port?: string; host?: string } = {}): string {
  if (!(error instanceof Error)) return String(error);
  const { code } = error as SystemError;
  if (code === 'EADDRINUSE') {
    const { address, port } = error as SystemError;
    return `${address ?? options.host ?? 'the address'}:${port ?? options.port ?? '?'} is already in use; stop what listens there or choose another port with --port or PORT`;
  }
  if (code === 'EACCES' && (error as SystemError).syscall === 'listen') {
    return `not allowed to listen on port ${(error as SystemError).port ?? options.port ?? '?'}; choose a port above 1023 with --port or PORT`;
  }
  if (code !== undefined && (UNREACHABLE.has(code) || isRefusedConnection(error))) {
    return `could not reach the database (${error.message}); check DATABASE_URL or database.url`;
  }
  return error.message;
}
