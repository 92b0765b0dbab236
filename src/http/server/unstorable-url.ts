// Refuses a URL whose path or query carries text no database stores (U+0000): a path id with it names
// nothing (404), a query parameter with it is malformed (400). A preParsing hook: after authentication,
// before the body is read.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, type ErrorIssue } from '../../errors/api-error.ts';
import { MAX_UNSTORABLE_ISSUES, unstorableProblem } from './unstorable-text.ts';

/**
 * Only `%00` (or a raw NUL, which an in-process caller can send) decodes to U+0000; a percent-encoded
 * lone surrogate is not valid UTF-8, and the router and the query parser leave such bytes undecoded.
 * A URL without either is not looked at further: this is the cost every request pays.
 */
function mayHoldNul(url: string): boolean {
  return url.includes('%00') || url.includes('\u0000');
}

function pathProblem(request: FastifyRequest): ApiError | undefined {
  const params = (request.params ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(params)) {
    if (typeof value !== 'string' || !unstorableProblem(value)) continue;
    // A wildcard (the identity component's paths) names a route; a named parameter names a resource or record.
    const code = name === '*' ? 'ROUTE_NOT_FOUND' : 'RESOURCE_NOT_FOUND';
    return new ApiError(
      code,
      `Nothing exists at ${request.method} ${request.url.split('?')[0]}: no name or id contains the NUL character (U+0000)`,
    );
  }
  return undefined;
}

function queryIssues(request: FastifyRequest): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const query = (request.query ?? {}) as Record<string, unknown>;
  for (const [name, value] of Object.entries(query)) {
    const values = Array.isArray(value) ? value : [value];
    const problem =
      unstorableProblem(name) ??
      values.map((v) => (typeof v === 'string' ? unstorableProblem(v) : undefined)).find(Boolean);
    if (problem) issues.push({ parameter: name, detail: `Query parameter ${problem}` });
    if (issues.length >= MAX_UNSTORABLE_ISSUES) break;
  }
  return issues;
}

export function installUnstorableUrlCheck(app: FastifyInstance): void {
  app.addHook('preParsing', (request: FastifyRequest, _reply: FastifyReply, payload, done) => {
    // The not-found route answers 404 anyway, whatever the URL holds.
    if (!mayHoldNul(request.url) || request.routeOptions.url === undefined) return done(null, payload);
    const inPath = pathProblem(request);
    if (inPath) return done(inPath);
    const issues = queryIssues(request);
    if (issues.length > 0) return done(new ApiError('INVALID_QUERY_PARAMS', issues));
    done(null, payload);
  });
}
