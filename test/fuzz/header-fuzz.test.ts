// Random header values (Authorization, X-Service-Role, Content-Type, X-Request-Id, traceparent) on
// every kind of /v1 request: only a well-formed credential gets past 401, only an allowed role past 403,
// X-Request-Id is echoed only when it is safe, and every answer is a JSON:API document.
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { testDialects } from '../helpers/test-databases.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';
import {
  acceptHeader,
  contentType,
  everyJsonApiAcceptModified,
  headerSafe,
  headerValue,
  hostileString,
} from './hostile-arbitraries.ts';
import { fuzz, Prober, report, startFuzzApp, type FuzzApp } from './fuzz-harness.ts';

const RUNS = 700;

const HEADER_ERRORS: readonly ErrorCode[] = [
  'UNAUTHORIZED',
  'INVALID_API_KEY',
  'FORBIDDEN',
  'ADMIN_TOKEN_NOT_ALLOWED',
  'RESOURCE_NOT_FOUND',
  'INVALID_JSON',
  'UNSUPPORTED_MEDIA_TYPE',
  'INVALID_RESOURCE_DATA',
  'INVALID_FIELDS',
  'NOT_ACCEPTABLE',
];

/** RFC 6750: the scheme in any case, one or more spaces, the token. */
const BEARER = /^bearer +(\S+) *$/i;
const SAFE_REQUEST_ID = /^[\w.:-]{1,128}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

type Who = 'editor' | 'user' | 'admin' | 'nobody';

for (const dialect of testDialects()) {
  describe(`hostile headers on ${dialect}`, () => {
    let app: FuzzApp;
    let probe: Prober;
    let tokens: Map<string, Who>;
    before(async () => {
      app = await startFuzzApp(dialect);
      probe = new Prober(app);
      tokens = new Map<string, Who>([
        [BEARER.exec(app.editor)![1]!, 'editor'],
        [BEARER.exec(app.user)![1]!, 'user'],
        [BEARER.exec(app.t.admin)![1]!, 'admin'],
      ]);
    });
    after(() => app.t.close());

    /** Whose credential a header carries, by the Bearer rule alone: anything else must be a 401. */
    const holder = (authorization: string | undefined): Who => {
      const token = authorization === undefined ? undefined : BEARER.exec(authorization)?.[1];
      return (token !== undefined && tokens.get(token)) || 'nobody';
    };

    it('lets only a well-formed credential and an allowed role through, whatever the headers say', async (t) => {
      // Real credentials, mangled ones, and junk.
      const authorization = fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .constantFrom('editor', 'user', 'admin')
            .map((who) => (who === 'admin' ? app.t.admin : app[who as 'editor' | 'user'])),
        },
        {
          weight: 4,
          arbitrary: fc
            .tuple(
              fc.constantFrom('editor', 'user'),
              fc.constantFrom(
                'lower',
                'spaces',
                'suffix',
                'prefix',
                'truncated',
                'doubled',
                'basic',
                'tab',
                'no-scheme',
                'upper-token',
              ),
            )
            .map(([who, mangle]) => {
              const header = app[who as 'editor' | 'user'];
              const token = BEARER.exec(header)![1]!;
              switch (mangle) {
                case 'lower':
                  return `bearer ${token}`;
                case 'spaces':
                  return `Bearer    ${token}  `;
                case 'suffix':
                  return `${header}x`;
                case 'prefix':
                  return `Bearer x${token}`;
                case 'truncated':
                  return header.slice(0, -1);
                case 'doubled':
                  return `${header} ${token}`;
                case 'basic':
                  return `Basic ${token}`;
                case 'tab':
                  return `Bearer\t${token}`;
                case 'no-scheme':
                  return token;
                default:
                  return `Bearer ${token.toUpperCase()}`;
              }
            }),
        },
        { weight: 2, arbitrary: headerValue },
        { weight: 2, arbitrary: hostileString.map((s) => headerSafe(`Bearer ${s}`)) },
        { weight: 1, arbitrary: fc.constant(undefined) },
      );
      const role = fc.option(
        fc.oneof(fc.constantFrom('editor', 'user', ' user ', 'USER', 'keeper', 'admin', ''), headerValue),
        { freq: 2, nil: undefined },
      );
      const requestId = fc.option(
        fc.oneof(
          headerValue,
          fc.constantFrom('abc-123', 'a'.repeat(128), 'a'.repeat(129), 'x\ty', 'id with space', 'ok.id:1_2-3'),
        ),
        { freq: 2, nil: undefined },
      );
      const traceparent = fc.option(
        fc.oneof(
          headerValue,
          fc.constantFrom(
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-0',
            'ff-'.repeat(30),
          ),
        ),
        { freq: 2, nil: undefined },
      );
      const endpoint = fc.constantFrom('list', 'read', 'schema', 'create', 'replace', 'patch', 'delete');
      const cases = await fuzz(
        RUNS,
        [endpoint, authorization, role, requestId, traceparent, contentType, acceptHeader],
        async (kind, auth, asRole, id, trace, type, accept) => {
          const headers: Record<string, string> = {};
          if (accept !== undefined) headers.accept = accept;
          if (auth !== undefined) headers.authorization = auth;
          if (asRole !== undefined) headers['x-service-role'] = asRole;
          if (id !== undefined) headers['x-request-id'] = id;
          if (trace !== undefined) headers.traceparent = trace;
          const writes = kind === 'create' || kind === 'replace' || kind === 'patch';
          if (writes && type !== undefined) headers['content-type'] = type;
          const request =
            kind === 'list'
              ? { method: 'GET' as const, url: '/v1/posts' }
              : kind === 'read'
                ? { method: 'GET' as const, url: `/v1/posts/${app.ids.publishedPost}` }
                : kind === 'schema'
                  ? { method: 'GET' as const, url: '/v1/posts/schema' }
                  : kind === 'create'
                    ? { method: 'POST' as const, url: '/v1/posts', payload: '{"title":"From a header test"}' }
                    : kind === 'replace'
                      ? {
                          method: 'PUT' as const,
                          url: `/v1/posts/${app.ids.userPost}`,
                          payload: '{"title":"Mine","body":"replaced"}',
                        }
                      : kind === 'patch'
                        ? {
                            method: 'PATCH' as const,
                            url: `/v1/posts/${app.ids.userPost}`,
                            payload: '{"body":"patched"}',
                          }
                        : { method: 'DELETE' as const, url: '/v1/posts/00000000-0000-7000-8000-000000000000' };
          const who = holder(auth);
          const { response } = await probe.expect(
            { ...request, headers },
            {
              ok: [200, 201],
              errors: HEADER_ERRORS,
              hidden: app.hiddenFrom[who === 'user' || who === 'nobody' ? 'user' : 'editor'],
            },
          );
          const status = response.statusCode;
          if (who === 'nobody')
            assert.equal(
              status,
              401,
              `a request without a valid credential got past authentication: ${JSON.stringify(headers).slice(0, 300)}`,
            );
          else
            assert.notEqual(
              status,
              401,
              `a valid credential was refused: ${JSON.stringify(headers).slice(0, 300)} → ${response.body}`,
            );
          // A key user acting as a role other than its own (none has allowedRoles here) is refused.
          const asked = asRole?.trim();
          if (who === 'editor' || who === 'user') {
            if (asked !== undefined && asked !== '' && asked !== who)
              assert.equal(status, 403, `acted as '${asked}': ${response.body}`);
          }
          // JSON:API 1.0: every JSON:API entry of Accept modified is 406; it never gets a document (the schema is not JSON:API).
          const modified = everyJsonApiAcceptModified(accept);
          if (status === 406) assert.ok(modified && kind !== 'schema', `406 for Accept ${String(accept)}`);
          if (status < 300 && kind !== 'schema') assert.ok(!modified, `answered ${status} to Accept ${String(accept)}`);
          const echoed = response.headers['x-request-id'];
          if (id !== undefined && SAFE_REQUEST_ID.test(id)) assert.equal(echoed, id);
          else assert.match(String(echoed), UUID, 'an unsafe X-Request-Id is replaced, not echoed');
        },
      );
      report(t, `headers on ${dialect}`, cases, probe);
    });
  });
}
