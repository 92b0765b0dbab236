// auth.jwt: an external identity provider's tokens (signed by oauth2-mock-server's keys, served as a
// real JWKS on 127.0.0.1) on /v1, /me and streams, and every way a forged or stale token is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicKey } from 'node:crypto';
import { SignJWT } from 'jose';
import { OAuth2Server } from 'oauth2-mock-server';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { SseClient } from '../helpers/sse-client.ts';
import type { Payload } from 'oauth2-mock-server';

const AUDIENCE = 'svc-api';

async function startIssuer(): Promise<OAuth2Server> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  return server;
}

function jwtSettings(server: OAuth2Server, extra: Record<string, unknown> = {}) {
  const issuer = server.issuer.url!;
  return {
    issuer,
    audience: AUDIENCE,
    jwksUrl: `${issuer}/jwks`,
    roleClaim: 'svc_role',
    allowedRolesClaim: 'svc_roles',
    ...extra,
  };
}

function tokenFor(server: OAuth2Server, claims: Partial<Payload>, expiresIn = 3600): Promise<string> {
  return server.issuer.buildToken({
    expiresIn,
    scopesOrTransform: (_header, payload) => {
      Object.assign(payload, { aud: AUDIENCE, sub: 'jwt-user-1', svc_role: 'user' }, claims);
    },
  });
}

function base64url(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

for (const dialect of testDialects()) {
  describe(`external JWTs (auth.jwt) (${dialect})`, () => {
    let issuer: OAuth2Server;
    let t: TestApp;
    let baseUrl: string;

    before(async () => {
      issuer = await startIssuer();
      t = await startTestApp(dialect, { auth: { ...testAuth(), jwt: jwtSettings(issuer) } as never });
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      const address = t.app.server.address();
      if (address === null || typeof address === 'string') throw new Error('not listening');
      baseUrl = `http://127.0.0.1:${address.port}`;
      const editor = await t.as('editor');
      for (const [title, status, author] of [
        ['Mine, draft', 'draft', 'jwt-user-1'],
        ['Other, draft', 'draft', 'someone-else'],
        ['Public', 'published', 'someone-else'],
      ]) {
        const created = await t.request({
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: { title, status, author_id: author },
        });
        assert.equal(created.statusCode, 201, created.body);
      }
    });
    after(async () => {
      await t.close();
      await issuer.stop();
    });

    it('a valid token acts with its role, and row filters on $userId read its subject', async () => {
      const token = await tokenFor(issuer, {});
      const response = await t.request({ method: 'GET', url: '/v1/posts?_sort=title', auth: `Bearer ${token}` });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(
        response.json().data.map((post: { attributes: { title: string } }) => post.attributes.title),
        ['Mine, draft', 'Public'],
      );
      // The role's field list applies: `user` does not read `published`.
      assert.equal('published' in response.json().data[0].attributes, false);
      assert.ok(response.headers['ratelimit-limit'], 'the per-subject window is announced');
      // Writes preset $userId to the subject too.
      const created = await t.request({
        method: 'POST',
        url: '/v1/posts',
        auth: `Bearer ${token}`,
        payload: { title: 'Written with a JWT' },
      });
      assert.equal(created.statusCode, 201, created.body);
      assert.equal(created.json().data.attributes.author_id, 'jwt-user-1');
    });

    it('GET /me describes the token holder', async () => {
      const token = await tokenFor(issuer, {}, 600);
      const response = await t.request({ method: 'GET', url: '/me', auth: `Bearer ${token}` });
      assert.equal(response.statusCode, 200, response.body);
      const me = response.json().data.attributes;
      assert.equal(me.kind, 'jwt');
      assert.equal(me.userId, 'jwt-user-1');
      assert.equal(me.role, 'user');
      assert.ok(Math.abs(Date.parse(me.expiresAt) - (Date.now() + 600_000)) < 60_000);
      assert.deepEqual(me.access.categories, { read: ['name', 'description'] });
      const revoke = await t.request({ method: 'DELETE', url: '/me/key', auth: `Bearer ${token}` });
      assert.equal(revoke.statusCode, 403);
    });

    it('X-Service-Role switches only to a role listed in the allowed-roles claim', async () => {
      const token = await tokenFor(issuer, { svc_roles: ['editor'] });
      const switched = await t.request({
        method: 'GET',
        url: '/v1/comments',
        auth: `Bearer ${token}`,
        headers: { 'x-service-role': 'editor' },
      });
      assert.equal(switched.statusCode, 200, switched.body);
      const plain = await tokenFor(issuer, {});
      const refused = await t.request({
        method: 'GET',
        url: '/v1/comments',
        auth: `Bearer ${plain}`,
        headers: { 'x-service-role': 'editor' },
      });
      assert.equal(refused.statusCode, 403);
      assert.equal(refused.json().errors[0].code, 'FORBIDDEN');
    });

    it('a role claim that names no defined role is 403; no role claim is 403', async () => {
      for (const claims of [{ svc_role: 'superuser' }, { svc_role: undefined }, { svc_role: ['user'] }]) {
        const token = await tokenFor(issuer, claims);
        const response = await t.request({ method: 'GET', url: '/v1/posts', auth: `Bearer ${token}` });
        assert.equal(response.statusCode, 403, JSON.stringify(claims));
        assert.equal(response.json().errors[0].code, 'FORBIDDEN');
      }
    });

    const refusedWith = async (token: string, detail: RegExp): Promise<void> => {
      const response = await t.request({ method: 'GET', url: '/v1/posts', auth: `Bearer ${token}` });
      assert.equal(response.statusCode, 401, response.body);
      const error = response.json().errors[0];
      assert.equal(error.code, 'INVALID_TOKEN');
      assert.match(error.detail, detail);
      assert.match(String(response.headers['www-authenticate']), /invalid_token/);
      assert.doesNotMatch(response.body, /\n\s+at /, 'no stack trace');
    };

    it('refuses a tampered token (payload changed after signing)', async () => {
      const [header, , signature] = (await tokenFor(issuer, {})).split('.');
      const forged = base64url({
        iss: issuer.issuer.url,
        aud: AUDIENCE,
        sub: 'jwt-user-1',
        svc_role: 'editor',
        exp: Math.floor(Date.now() / 1000) + 3600,
      });
      await refusedWith(`${header}.${forged}.${signature}`, /signature/);
    });

    it('refuses an expired token, one not valid yet, and one without an expiry', async () => {
      await refusedWith(await tokenFor(issuer, {}, -60), /expired/);
      await refusedWith(await tokenFor(issuer, { nbf: Math.floor(Date.now() / 1000) + 600 }), /not valid yet/);
      await refusedWith(await tokenFor(issuer, { exp: undefined }), /'exp'/);
    });

    it('refuses a wrong audience and a wrong issuer', async () => {
      await refusedWith(await tokenFor(issuer, { aud: 'another-api' }), /audience/);
      await refusedWith(await tokenFor(issuer, { iss: 'https://evil.example' }), /issuer/);
    });

    it("refuses alg none, and HS256 signed with the provider's public key as the secret", async () => {
      const claims = {
        iss: issuer.issuer.url,
        aud: AUDIENCE,
        sub: 'jwt-user-1',
        svc_role: 'editor',
        exp: Math.floor(Date.now() / 1000) + 3600,
      };
      await refusedWith(`${base64url({ alg: 'none', typ: 'JWT' })}.${base64url(claims)}.`, /algorithm|not a valid/);
      const [jwk] = issuer.issuer.keys.toJSON();
      const pem = createPublicKey({ key: jwk as never, format: 'jwk' }).export({ type: 'spki', format: 'pem' });
      const hs256 = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256', kid: jwk!.kid })
        .sign(Buffer.from(pem));
      await refusedWith(hs256, /algorithm/);
    });

    it('a JWT-shaped token is never looked up as an API key, and the admin API refuses a valid token', async () => {
      const token = await tokenFor(issuer, {});
      const admin = await t.request({ method: 'GET', url: '/admin/users', auth: `Bearer ${token}` });
      assert.equal(admin.statusCode, 403);
      const garbage = await t.request({ method: 'GET', url: '/v1/posts', auth: 'Bearer aaa.bbb.ccc' });
      assert.equal(garbage.statusCode, 401);
      assert.equal(garbage.json().errors[0].code, 'INVALID_TOKEN');
    });

    it('/openapi.json describes the JWT bearer scheme on /v1 and /me', async () => {
      const doc = (await t.request({ method: 'GET', url: '/openapi.json' })).json();
      assert.equal(doc.components.securitySchemes.jwt.bearerFormat, 'JWT');
      assert.deepEqual(doc.paths['/v1/posts'].get.security, [{ bearer: [] }, { jwt: [] }]);
      assert.ok(doc.paths['/me'].get.security.some((entry: object) => 'jwt' in entry));
    });

    it('a stream opened with a JWT ends when the token expires', async () => {
      const token = await tokenFor(issuer, {}, 2);
      const client = await SseClient.connect(`${baseUrl}/v1/posts/stream`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(client.status, 200);
      await client.ended;
      assert.ok(Date.now() / 1000 >= JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()).exp - 1);
    });
  });

  describe(`external JWTs: the per-subject limit (${dialect})`, () => {
    let issuer: OAuth2Server;
    let t: TestApp;
    before(async () => {
      issuer = await startIssuer();
      t = await startTestApp(dialect, {
        auth: { ...testAuth(), jwt: jwtSettings(issuer) } as never,
        apiKeys: { rateLimit: { enabled: true, max: 3, timeWindow: 60_000 } },
      });
    });
    after(async () => {
      await t.close();
      await issuer.stop();
    });

    it("counts a subject's requests in one window under the keys' default limit, whatever token it uses", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i += 1) {
        const response = await t.request({
          method: 'GET',
          url: '/v1/categories',
          auth: `Bearer ${await tokenFor(issuer, { jti: String(i) })}`,
        });
        statuses.push(response.statusCode);
        if (response.statusCode === 429) assert.equal(response.json().errors[0].code, 'RATE_LIMITED');
      }
      assert.deepEqual(statuses, [200, 200, 200, 429]);
      const other = await t.request({
        method: 'GET',
        url: '/v1/categories',
        auth: `Bearer ${await tokenFor(issuer, { sub: 'jwt-user-2' })}`,
      });
      assert.equal(other.statusCode, 200, 'another subject has its own window');
    });
  });
}

function testAuth() {
  return {
    basePath: '/auth',
    requireEmailVerification: false,
    defaultRole: 'user',
    social: {},
    email: { from: 'svc <no-reply@localhost>' },
    trustedOrigins: ['http://localhost:5173'],
  };
}
