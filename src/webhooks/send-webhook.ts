// One HTTP POST to a receiver: no redirects followed, one timeout over the whole exchange (lookup,
// connect, request, response body), a bounded response body kept, private targets refused.
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, PrivateTargetError } from './guarded-lookup.ts';
import { privateHostProblem } from './private-address.ts';

/** Response bodies are stored up to this many bytes (64 KiB); the rest is not read. */
export const RESPONSE_BODY_LIMIT_BYTES = 64 * 1024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface SendOptions {
  timeoutMs: number;
  allowPrivateTargets: boolean;
  agents: { http: http.Agent; https: https.Agent };
  /** Aborts the exchange (service shutdown); the result is then `aborted`. */
  signal?: AbortSignal;
}

export type SendResult =
  | { kind: 'response'; status: number; headers: Record<string, string>; body: string }
  /** The exchange failed before a complete response; `retryable` is false for refused targets. */
  | { kind: 'error'; retryable: boolean; message: string }
  | { kind: 'aborted' };

/** A send that ran to its end, with a response or an error to judge. */
export type CompletedSend = Exclude<SendResult, { kind: 'aborted' }>;

export function sendWebhook(request: WebhookRequest, options: SendOptions): Promise<SendResult> {
  const url = new URL(request.url);
  if (!options.allowPrivateTargets) {
    const problem = privateHostProblem(url.hostname);
    if (problem) return Promise.resolve({ kind: 'error', retryable: false, message: `${problem}; private targets are not allowed` });
  }
  const secure = url.protocol === 'https:';
  const transport = secure ? https : http;

  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve(result);
    };

    const req = transport.request({
      protocol: url.protocol,
      // URL keeps IPv6 literals in brackets; the socket wants the bare address.
      hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: 'POST',
      headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
      agent: secure ? options.agents.https : options.agents.http,
      ...(options.allowPrivateTargets ? {} : { lookup: guardedLookup }),
    });

    const timer = setTimeout(() => {
      finish({ kind: 'error', retryable: true, message: `Timed out after ${options.timeoutMs} ms without a complete response` });
      req.destroy();
    }, options.timeoutMs);
    const onAbort = () => {
      finish({ kind: 'aborted' });
      req.destroy();
    };
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });

    req.on('error', (error: NodeJS.ErrnoException) => finish(errorResult(error)));
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      let kept = 0;
      const done = () =>
        finish({ kind: 'response', status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') });
      res.on('data', (chunk: Buffer) => {
        const room = RESPONSE_BODY_LIMIT_BYTES - kept;
        chunks.push(room >= chunk.length ? chunk : chunk.subarray(0, room));
        kept += Math.min(room, chunk.length);
        if (kept >= RESPONSE_BODY_LIMIT_BYTES) {
          // Enough is kept; the status already decided the outcome, so stop reading (the socket is not reused).
          done();
          res.destroy();
        }
      });
      res.on('end', done);
      res.on('error', (error: NodeJS.ErrnoException) => finish(errorResult(error)));
      res.on('close', () => {
        if (!res.complete) finish({ kind: 'error', retryable: true, message: 'The connection closed before the response body was complete' });
      });
    });
    req.end(request.body);
  });
}

function errorResult(error: NodeJS.ErrnoException): SendResult {
  if (error instanceof PrivateTargetError) return { kind: 'error', retryable: false, message: error.message };
  if (error.code === 'ECONNRESET' || error.message === 'socket hang up') {
    return { kind: 'error', retryable: true, message: `The connection closed before a complete response (${error.message})` };
  }
  return { kind: 'error', retryable: true, message: `Connection failed: ${error.message}` };
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
