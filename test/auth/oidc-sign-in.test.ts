// auth.oidc end to end against a real OpenID Connect server (oauth2-mock-server on 127.0.0.1): the
// sign-in request, the provider's authorize redirect, the callback that exchanges the code, and the
// session it leaves, and the API key POST /token issues for that session. And GET /auth/methods, which
// tells a sign-in page which buttons to show.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { socialProviderList } from '@better-auth/core/social-providers';
import { OAuth2Server } from 'oauth2-mock-server';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { testDialects } from '../helpers/test-databases.ts';
import { SOCIAL_PROVIDER_NAMES } from '../../src/config/social-provider-names.ts';

const BASE_URL = 'http://localhost:3999';

function baseAuth() {
  return {
    basePath: '/auth',
    requireEmailVerification: false,
    defaultRole: 'user',
    email: { from: 'svc <no-reply@localhost>' },
    trustedOrigins: ['http://localhost:5173'],
    baseUrl: BASE_URL,
  };
}

/** `name=value` pairs of a response's Set-Cookie headers, merged into a jar. */
function absorbCookies(jar: Map<string, string>, setCookie: string | string[] | undefined): void {
  for (const line of [setCookie ?? []].flat()) {
    const [pair] = line.split(';');
    const at = pair!.indexOf('=');
    const name = pair!.slice(0, at).trim();
    const value = pair!.slice(at + 1);
    if (value === '' || /max-age=0/i.test(line)) jar.delete(name);
    else jar.set(name, value);
  }
}

function cookieHeader(jar: Map<string, string>): string {
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

for (const dialect of testDialects()) {
  describe(`sign-in with an OIDC provider (auth.oidc) (${dialect})`, () => {
    let provider: OAuth2Server;
    let t: TestApp;
    /** The provider sign-in's cookies, once the sign-in test has run. */
    const signedIn = new Map<string, string>();
    before(async () => {
      provider = new OAuth2Server();
      await provider.issuer.keys.generate('RS256');
      await provider.start(0, '127.0.0.1');
      const claims = { sub: 'kc-user-42', email: 'ada@example.org', email_verified: true, name: 'Ada Lovelace' };
      provider.service.on('beforeTokenSigning', (token: { payload: Record<string, unknown> }) => {
        Object.assign(token.payload, claims, { aud: 'svc-client' });
      });
      provider.service.on('beforeUserinfo', (response: { body: unknown }) => {
        response.body = claims;
      });
      t = await startTestApp(dialect, {
        auth: {
          ...baseAuth(),
          social: { github: { clientId: 'gh-id', clientSecret: 'gh-secret' }, google: { clientId: 'only-an-id' } },
          oidc: [
            {
              id: 'keycloak',
              name: 'Company SSO',
              issuer: provider.issuer.url!,
              clientId: 'svc-client',
              clientSecret: 'svc-secret',
            },
          ],
        } as never,
      });
    });
    after(async () => {
      await t.close();
      await provider.stop();
    });

    it('GET /auth/methods names the providers that are on, without credentials', async () => {
      const response = await t.request({ method: 'GET', url: '/auth/methods' });
      assert.equal(response.statusCode, 200, response.body);
      assert.deepEqual(response.json(), {
        emailAndPassword: true,
        magicLink: false,
        emailOtp: false,
        twoFactor: false,
        social: ['github'],
        oidc: [{ id: 'keycloak', name: 'Company SSO' }],
      });
      assert.doesNotMatch(response.body, /secret/);
    });

    it('signs a user in through the provider, to a session better-auth recognises', async () => {
      const jar = new Map<string, string>();
      const start = await t.request({
        method: 'POST',
        url: '/auth/sign-in/social',
        payload: { provider: 'keycloak', callbackURL: '/console/' },
      });
      assert.equal(start.statusCode, 200, start.body);
      absorbCookies(jar, start.headers['set-cookie']);
      const authorizeUrl = new URL(start.json().url as string);
      assert.equal(authorizeUrl.origin, new URL(provider.issuer.url!).origin, 'the user is sent to the provider');
      assert.equal(authorizeUrl.searchParams.get('client_id'), 'svc-client');
      assert.ok(authorizeUrl.searchParams.get('code_challenge'), 'PKCE is used');

      // The provider (a real HTTP server) signs the user in and sends them back with a code.
      const authorized = await fetch(authorizeUrl, { redirect: 'manual' });
      assert.equal(authorized.status, 302);
      const callback = new URL(authorized.headers.get('location')!);
      assert.equal(`${callback.origin}${callback.pathname}`, `${BASE_URL}/auth/callback/keycloak`);

      const back = await t.request({
        method: 'GET',
        url: `${callback.pathname}${callback.search}`,
        headers: { cookie: cookieHeader(jar) },
      });
      assert.equal(back.statusCode, 302, back.body);
      assert.equal(back.headers.location, '/console/');
      absorbCookies(jar, back.headers['set-cookie']);
      assert.ok(jar.has('svc.session_token'), `a session cookie is set (${[...jar.keys()].join(', ')})`);

      const session = await t.request({
        method: 'GET',
        url: '/auth/get-session',
        headers: { cookie: cookieHeader(jar) },
      });
      assert.equal(session.statusCode, 200, session.body);
      assert.equal(session.json().user.email, 'ada@example.org');
      assert.equal(session.json().user.primaryRole, 'user', 'a new user gets the default role');
      const user = await t.request({
        method: 'GET',
        url: `/admin/users/${session.json().user.id as string}`,
        auth: t.admin,
      });
      assert.equal(user.statusCode, 200, user.body);
      for (const [name, value] of jar) signedIn.set(name, value);
    });

    it('the provider session gets an API key from POST /token, by its bearer token or its cookie', async () => {
      assert.ok(signedIn.has('svc.session_token'), 'the sign-in test left a session');
      const session = await t.request({
        method: 'GET',
        url: '/auth/get-session',
        headers: { cookie: cookieHeader(signedIn) },
      });
      const sessionToken = session.json().session.token as string;
      const byBearer = await t.request({
        method: 'POST',
        url: '/token',
        headers: { authorization: `Bearer ${sessionToken}` },
        payload: { name: 'sso laptop', expiresIn: 3600 },
      });
      assert.equal(byBearer.statusCode, 201, byBearer.body);
      const me = await t.request({
        method: 'GET',
        url: '/me',
        headers: { authorization: `Bearer ${byBearer.json().key as string}` },
      });
      assert.equal(me.statusCode, 200, me.body);
      assert.equal(me.json().data.attributes.userId, session.json().user.id);
      assert.equal(me.json().data.attributes.role, 'user');

      const byCookie = await t.request({
        method: 'POST',
        url: '/token',
        headers: { cookie: cookieHeader(signedIn), origin: BASE_URL },
        payload: {},
      });
      assert.equal(byCookie.statusCode, 201, byCookie.body);
      const cookieless = await t.request({
        method: 'POST',
        url: '/token',
        headers: { cookie: cookieHeader(signedIn) },
        payload: {},
      });
      assert.equal(cookieless.statusCode, 403, 'a cookie without a trusted Origin gets no key');

      const out = await t.request({
        method: 'POST',
        url: '/auth/sign-out',
        headers: { authorization: `Bearer ${sessionToken}`, origin: BASE_URL },
        payload: {},
      });
      assert.equal(out.statusCode, 200, out.body);
      const afterOut = await t.request({
        method: 'POST',
        url: '/token',
        headers: { authorization: `Bearer ${sessionToken}` },
        payload: {},
      });
      assert.equal(afterOut.statusCode, 401, afterOut.body);
      assert.equal(afterOut.json().errors[0].code, 'UNAUTHORIZED');
    });

    it('a social provider with both credentials is on; one without its secret is off', async () => {
      const github = await t.request({
        method: 'POST',
        url: '/auth/sign-in/social',
        payload: { provider: 'github', callbackURL: '/' },
      });
      assert.equal(github.statusCode, 200, github.body);
      assert.equal(new URL(github.json().url as string).host, 'github.com');
      assert.equal(new URL(github.json().url as string).searchParams.get('client_id'), 'gh-id');
      const google = await t.request({
        method: 'POST',
        url: '/auth/sign-in/social',
        payload: { provider: 'google', callbackURL: '/' },
      });
      assert.equal(google.statusCode, 404, google.body);
    });

    it('refuses a callback with a forged state', async () => {
      const back = await t.request({ method: 'GET', url: '/auth/callback/keycloak?code=abc&state=forged' });
      assert.ok(back.statusCode === 302 || back.statusCode === 400, back.body);
      assert.equal(back.headers['set-cookie']?.toString().includes('session_token=') ?? false, false);
    });

    it('an unknown provider id is refused, not a 500', async () => {
      const response = await t.request({
        method: 'POST',
        url: '/auth/sign-in/social',
        payload: { provider: 'nope', callbackURL: '/' },
      });
      assert.ok(response.statusCode >= 400 && response.statusCode < 500, response.body);
    });
  });
}

for (const dialect of testDialects()) {
  describe(`GET /auth/methods with auth.emailAndPassword.enabled false (${dialect})`, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(dialect, { auth: { ...baseAuth(), emailAndPassword: { enabled: false } } as never });
    });
    after(() => t.close());

    it('says email and password is off, as sign-in by password answers', async () => {
      const methods = await t.request({ method: 'GET', url: '/auth/methods' });
      assert.equal(methods.statusCode, 200, methods.body);
      assert.equal(methods.json().emailAndPassword, false);
      const signIn = await t.request({
        method: 'POST',
        url: '/auth/sign-in/email',
        payload: { email: 'ada@example.org', password: 'correct horse battery' },
      });
      assert.equal(signIn.statusCode, 403, signIn.body);
      assert.equal(signIn.json().errors[0].code, 'EMAIL_PASSWORD_DISABLED');
    });
  });
}

describe('auth.social', () => {
  it('offers exactly the social providers better-auth ships', () => {
    assert.deepEqual([...SOCIAL_PROVIDER_NAMES].sort(), [...socialProviderList].sort());
  });
});
