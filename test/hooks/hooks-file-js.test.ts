// A hooks file may be a `.js` file in a folder whose package.json says "type": "module" (as an
// application's own code usually is), not only `.mjs`: the config names it, svc loads it at start and
// its hooks run on the writes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { testDialects } from '../helpers/test-databases.ts';
import { hooksModule, startHooksApp, type HooksApp } from './hooks-app.ts';

for (const dialect of testDialects()) {
  describe(`a .js hooks file in a "type": "module" folder (${dialect})`, () => {
    let t: HooksApp;
    before(async () => {
      t = await startHooksApp(
        dialect,
        hooksModule(`{ articles: { beforeCreate({ values }) { values.slug = 'from-js-' + values.title; } } }`),
        { hooksFile: 'svc.hooks.js', files: { 'package.json': JSON.stringify({ type: 'module' }) } },
      );
    });
    after(async () => {
      await t.close();
    });

    it('is loaded at start and its hooks run', async () => {
      assert.equal(t.ctx.config.hooks, './svc.hooks.js');
      const response = await t.request({
        method: 'POST',
        url: '/v1/articles',
        auth: await t.as('user', 'js-user'),
        payload: { title: 'one' },
      });
      assert.equal(response.statusCode, 201, response.body);
      assert.equal(response.json().data.attributes.slug, 'from-js-one');
    });
  });
}
