// Regressions for the hardening probe: text no database stores (U+0000, lone surrogates) in any body,
// query string or path id is a 4xx on every dialect, with or without credentials (NUL was a 500 on
// PostgreSQL in admin bodies and queries, /token and admin path ids, and `/token` took a password + NUL).
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { startTestApp, type TestApp } from '../helpers/test-app.ts';
import { checkAnswer, FUZZ_OVERRIDES, send } from './fuzz-harness.ts';
import type { ErrorCode } from '../../src/errors/error-catalogue.ts';

interface ErrorObject {
  code: string;
  detail: string;
  source?: { pointer?: string; parameter?: string };
}

const PASSWORD = 'correct horse battery';
const JSON_TYPE = { 'content-type': 'application/json' };
const WEBHOOK = { name: 'hook', url: 'https://hooks.example.com/in', eventPattern: 'posts.*' };

/** `"…\u0000…"` as the JSON text a client sends: the escape, not the character, is on the wire. */
const nul = (before = '', after = '') => `${before}\\u0000${after}`;

for (const dialect of testDialects()) {
  describe(`unstorable text on ${dialect}`, () => {
    let t: TestApp;
    let editor: string;
    let email: string;
    let webhookId: string;
    let userId: string;
    before(async () => {
      t = await startTestApp(dialect, FUZZ_OVERRIDES);
      editor = await t.as('editor');
      email = `probe-${Date.now()}@example.com`;
      const signedUp = await t.request({
        method: 'POST',
        url: '/auth/sign-up/email',
        payload: { name: 'Probe', email, password: PASSWORD },
      });
      assert.equal(signedUp.statusCode, 200, signedUp.body);
      userId = (signedUp.json() as { user: { id: string } }).user.id;
      const hook = await t.request({ method: 'POST', url: '/admin/webhooks', auth: t.admin, payload: WEBHOOK });
      assert.equal(hook.statusCode, 201, hook.body);
      webhookId = (hook.json() as { data: { id: string } }).data.id;
    });
    after(() => t.close());

    /** Sends, checks the answer is a JSON:API error document with `code`, and returns its error objects. */
    const refused = async (options: Parameters<typeof send>[1], code: ErrorCode): Promise<ErrorObject[]> => {
      const response = await send(t, options);
      checkAnswer(response, {
        errors: [code],
        hidden: [],
        label: `${options.method} ${String(options.url)} ${String(options.payload ?? '')}`,
      });
      return (response.json() as { errors: ErrorObject[] }).errors;
    };
    const pointersOf = (errors: ErrorObject[]) => errors.map((e) => e.source?.pointer);

    it('refuses NUL and lone surrogates in every admin body with the pointer of the string (webhook name was a 500)', async () => {
      const cases: [string, string, string, string][] = [
        [
          'POST',
          '/admin/webhooks',
          `{"name":"${nul('a')}","url":"https://hooks.example.com/in","eventPattern":"posts.*"}`,
          '/data/attributes/name',
        ],
        [
          'POST',
          '/admin/webhooks',
          `{"name":"n","url":"https://hooks.example.com/${nul()}","eventPattern":"posts.*"}`,
          '/data/attributes/url',
        ],
        [
          'POST',
          '/admin/webhooks',
          `{"name":"n","url":"https://hooks.example.com/in","eventPattern":"posts.*","fieldIds":["posts.title","posts.body","${nul()}"]}`,
          '/data/attributes/fieldIds/2',
        ],
        [
          'POST',
          '/admin/webhooks',
          `{"name":"n","url":"https://hooks.example.com/in","eventPattern":"posts.*","headers":{"x-a":"\\ud800"}}`,
          '/data/attributes/headers/x-a',
        ],
        ['PATCH', `/admin/webhooks/${'WEBHOOK'}`, `{"name":"\\udc00"}`, '/data/attributes/name'],
        ['PATCH', `/admin/users/${'USER'}`, `{"primaryRole":"${nul('editor')}"}`, '/data/attributes/primaryRole'],
        ['PATCH', `/admin/users/${'USER'}`, `{"allowedRoles":["user","${nul()}"]}`, '/data/attributes/allowedRoles/1'],
        [
          'PATCH',
          '/admin/keys/00000000-0000-7000-8000-000000000000',
          `{"permissions":{"posts":{"read":["${nul()}"]}}}`,
          '/data/attributes/permissions/posts/read/0',
        ],
        // A member name: the pointer names the member.
        [
          'PATCH',
          '/admin/keys/00000000-0000-7000-8000-000000000000',
          `{"permissions":{"po${nul()}sts":{"read":["title"]}}}`,
          '/data/attributes/permissions/po\u0000sts',
        ],
      ];
      for (const [method, rawUrl, payload, pointer] of cases) {
        const url = rawUrl.replace('WEBHOOK', webhookId).replace('USER', userId);
        const errors = await refused(
          { method: method as 'POST', url, auth: t.admin, payload, headers: JSON_TYPE },
          'INVALID_RESOURCE_DATA',
        );
        assert.deepEqual(pointersOf(errors), [pointer], payload);
      }
    });

    it('refuses NUL in /token without credentials, and no longer issues a key for the right password followed by NUL', async () => {
      const unknown = await refused(
        { method: 'POST', url: '/token', payload: `{"email":"${nul('nobody')}","password":"x"}`, headers: JSON_TYPE },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(unknown), ['/data/attributes/email']);
      const suffixed = await refused(
        {
          method: 'POST',
          url: '/token',
          payload: `{"email":"${email}","password":"${nul(PASSWORD)}"}`,
          headers: JSON_TYPE,
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(suffixed), ['/data/attributes/password']);
      const named = await refused(
        {
          method: 'POST',
          url: '/token',
          payload: `{"email":"${email}","password":"${PASSWORD}","metadata":{"k":["\\ud800"]}}`,
          headers: JSON_TYPE,
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(named), ['/data/attributes/metadata/k/0']);
      // The same credentials without the character still work.
      const issued = await send(t, { method: 'POST', url: '/token', payload: { email, password: PASSWORD } });
      assert.equal(issued.statusCode, 201, issued.body);
    });

    it('refuses NUL in sign-up and sign-in bodies under /auth, JSON and form alike', async () => {
      const signUp = await refused(
        {
          method: 'POST',
          url: '/auth/sign-up/email',
          payload: `{"name":"${nul('x')}","email":"other@example.com","password":"${PASSWORD}"}`,
          headers: JSON_TYPE,
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(signUp), ['/data/attributes/name']);
      const signIn = await refused(
        {
          method: 'POST',
          url: '/auth/sign-in/email',
          payload: `{"email":"${email}","password":"${nul(PASSWORD)}"}`,
          headers: JSON_TYPE,
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(signIn), ['/data/attributes/password']);
      const form = await refused(
        {
          method: 'POST',
          url: '/auth/sign-in/email',
          payload: `email=${encodeURIComponent(email)}&password=x%00`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(form), ['/data/attributes/password']);
    });

    it('refuses NUL in record bodies before any other check, with the pointer of each string', async () => {
      const errors = await refused(
        {
          method: 'POST',
          url: '/v1/posts',
          auth: editor,
          payload: `{"title":"${nul()}","tags":{"a":[1,{"b":"\\udfff"}]},"nope":1}`,
          headers: JSON_TYPE,
        },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(errors), ['/data/attributes/title', '/data/attributes/tags/a/1/b']);
      // A body that is not an object: the pointer starts at /data.
      const array = await refused(
        { method: 'POST', url: '/v1/posts', auth: editor, payload: `["ok","${nul()}"]`, headers: JSON_TYPE },
        'INVALID_RESOURCE_DATA',
      );
      assert.deepEqual(pointersOf(array), ['/data/1']);
    });

    it('refuses NUL in any query parameter name or value with 400 INVALID_QUERY_PARAMS (admin filters were a 500)', async () => {
      const cases: [string, string][] = [
        ['/admin/users?email=%00', 'email'],
        ['/admin/keys?userId=%00', 'userId'],
        ['/admin/webhooks?_limit=1%00', '_limit'],
        [`/admin/webhooks/${'WEBHOOK'}/deliveries?eventId=%00`, 'eventId'],
        ['/v1/posts?title=a%00', 'title'],
        ['/v1/posts?ti%00tle=a', 'ti\u0000tle'],
        ['/v1/posts/stream?events=created%00', 'events'],
      ];
      for (const [rawUrl, parameter] of cases) {
        const url = rawUrl.replace('WEBHOOK', webhookId);
        const auth = url.startsWith('/admin') ? t.admin : editor;
        const errors = await refused({ method: 'GET', url, auth }, 'INVALID_QUERY_PARAMS');
        assert.equal(errors[0]!.source?.parameter, parameter, url);
        assert.match(errors[0]!.detail, /NUL/);
      }
      // Under /auth, where the identity component would read it.
      await refused({ method: 'GET', url: '/auth/verify-email?token=%00' }, 'INVALID_QUERY_PARAMS');
      // No route: 404 whatever the query holds.
      await refused({ method: 'GET', url: '/nowhere?x=%00' }, 'ROUTE_NOT_FOUND');
    });

    it('answers 404 for NUL in a path id of /v1 and /admin routes (admin ids were a 500)', async () => {
      const cases: ['GET' | 'PATCH' | 'DELETE', string, string?][] = [
        ['GET', '/admin/users/%00'],
        ['DELETE', '/admin/users/a%00'],
        ['PATCH', '/admin/users/%00', '{"primaryRole":"user"}'],
        ['DELETE', '/admin/keys/%00'],
        ['GET', '/admin/keys/%00'],
        ['PATCH', '/admin/keys/%00', '{"enabled":false}'],
        ['GET', '/admin/webhooks/%00'],
        ['GET', `/admin/webhooks/${'WEBHOOK'}/deliveries/%00`],
        ['DELETE', '/admin/webhooks/%00'],
      ];
      for (const [method, rawUrl, payload] of cases) {
        const url = rawUrl.replace('WEBHOOK', webhookId);
        await refused(
          { method, url, auth: t.admin, ...(payload ? { payload, headers: JSON_TYPE } : {}) },
          'RESOURCE_NOT_FOUND',
        );
      }
      for (const [method, url] of [
        ['GET', '/v1/posts/%00'],
        ['DELETE', '/v1/posts/x%00'],
        ['GET', '/v1/po%00sts'],
      ] as const) {
        await refused({ method, url, auth: editor }, 'RESOURCE_NOT_FOUND');
      }
      await refused(
        { method: 'PATCH', url: '/v1/posts/%00', auth: editor, payload: '{"title":"x"}', headers: JSON_TYPE },
        'RESOURCE_NOT_FOUND',
      );
    });

    it('asks for credentials first: without them, NUL anywhere is still 401 on /v1 and /admin', async () => {
      await refused({ method: 'GET', url: '/admin/users?email=%00' }, 'UNAUTHORIZED');
      await refused({ method: 'GET', url: '/admin/users/%00' }, 'UNAUTHORIZED');
      await refused(
        { method: 'POST', url: '/admin/webhooks', payload: `{"name":"${nul()}"}`, headers: JSON_TYPE },
        'UNAUTHORIZED',
      );
      await refused({ method: 'GET', url: '/v1/posts?title=%00' }, 'UNAUTHORIZED');
      await refused(
        { method: 'POST', url: '/v1/posts', payload: `{"title":"${nul()}"}`, headers: JSON_TYPE },
        'UNAUTHORIZED',
      );
    });

    it('still stores a surrogate pair (one well-formed character) and escaped backslashes as sent', async () => {
      const response = await send(t, {
        method: 'POST',
        url: '/v1/posts',
        auth: editor,
        payload: '{"title":"\\ud83d\\ude00 \\\\u0000 \\\\ud800"}',
        headers: JSON_TYPE,
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(
        (response.json() as { data: { attributes: { title: string } } }).data.attributes.title,
        '😀 \\u0000 \\ud800',
      );
    });
  });
}
