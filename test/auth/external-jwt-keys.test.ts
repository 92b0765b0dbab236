// The identity provider's key set as auth.jwt fetches it: a token signed with a key added after the
// last fetch is accepted (the set is fetched again for an unknown `kid`), and a key set that is too
// large or too slow is a 503 for the caller, never a crash or an unbounded read.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { OAuth2Server } from 'oauth2-mock-server';
import { JwtAuthenticator } from '../../src/auth/jwt/jwt-authenticator.ts';
import { boundedJwks, JWKS_BOUNDS } from '../../src/auth/jwt/bounded-jwks.ts';
import { MemoryRateLimiter } from '../../src/auth/rate-limit/memory-rate-limiter.ts';
import { ApiError } from '../../src/errors/api-error.ts';

const roles = () => new Set(['user']);

function authenticatorFor(jwksUrl: string, issuer: string, bounds = JWKS_BOUNDS): JwtAuthenticator {
  return new JwtAuthenticator({
    jwt: { issuer, audience: 'svc-api', jwksUrl, userIdClaim: 'sub', roleClaim: 'role' },
    rateLimit: { enabled: false, max: 1, timeWindow: 1000 },
    limiter: new MemoryRateLimiter(),
    definedRoles: roles,
    keys: boundedJwks(jwksUrl, bounds),
  });
}

describe('auth.jwt key set', () => {
  let issuer: OAuth2Server;
  before(async () => {
    issuer = new OAuth2Server();
    await issuer.issuer.keys.generate('ES256', { kid: 'first' });
    await issuer.start(0, '127.0.0.1');
  });
  after(() => issuer.stop());

  const token = (kid: string) =>
    issuer.issuer.buildToken({
      kid,
      scopesOrTransform: (_header, payload) => Object.assign(payload, { aud: 'svc-api', sub: 'u1', role: 'user' }),
    });

  it('fetches the key set again when a token names a kid it has not seen (a rotated key)', async () => {
    const authenticator = authenticatorFor(`${issuer.issuer.url}/jwks`, issuer.issuer.url!, {
      ...JWKS_BOUNDS,
      cooldownMs: 0,
    });
    const first = await authenticator.authenticate(await token('first'), {});
    assert.equal(first.principal.kind === 'jwt' && first.principal.subject, 'u1');
    await issuer.issuer.keys.generate('RS256', { kid: 'rotated' });
    const second = await authenticator.authenticate(await token('rotated'), {});
    assert.equal(second.principal.kind, 'jwt');
  });

  it('a key set larger than the bound, or slower than the timeout, is 503 SERVICE_UNAVAILABLE', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const server = http.createServer((request, response) => {
      if (request.url === '/slow') return; // never answers
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ keys: [], padding: 'x'.repeat(64 * 1024) }));
    });
    server.on('connection', (socket) => sockets.add(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const [path, bounds] of [
        ['/large', { ...JWKS_BOUNDS, maxBytes: 16 * 1024 }],
        ['/slow', { ...JWKS_BOUNDS, timeoutMs: 200 }],
      ] as const) {
        const authenticator = authenticatorFor(`http://127.0.0.1:${port}${path}`, issuer.issuer.url!, bounds);
        await assert.rejects(authenticator.authenticate(await token('first'), {}), (error: unknown) => {
          assert.ok(error instanceof ApiError);
          assert.equal(error.code, 'SERVICE_UNAVAILABLE', path);
          return true;
        });
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
