// `svc types` prints a declaration that types svc/client: a program using it compiles under strict
// tsc (searches included), and a filter on a misspelled field, a wrong value type or a create without a required field do not.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stringify } from 'yaml';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('svc types', () => {
  it('prints the resources as SvcTypes, which make createClient<SvcTypes>() check queries and bodies', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-types-'));
    try {
      const config = {
        database: { url: `sqlite:${join(dir, 'data.db')}` },
        resources: {
          posts: {
            fields: {
              title: { type: 'string', required: true },
              views: { type: 'integer', sortable: true },
              status: { type: 'enum', values: ['draft', 'published'], default: 'draft', required: true },
              featured: { type: 'boolean' },
            },
          },
        },
      };
      writeFileSync(join(dir, 'svc.config.yaml'), stringify(config));
      const declaration = execFileSync(
        process.execPath,
        [join(root, 'bin/svc.js'), 'types', '--config', join(dir, 'svc.config.yaml')],
        { encoding: 'utf8' },
      );
      assert.match(declaration, /title: string;/);
      assert.match(declaration, /views: number \| null;/);
      assert.match(declaration, /status\?: "draft" \| "published";/);
      writeFileSync(join(dir, 'svc-types.d.ts'), declaration);
      writeFileSync(
        join(dir, 'program.ts'),
        `import { createClient } from '${join(root, 'src/client/index.ts')}';
import type { SvcTypes } from './svc-types.js';
const client = createClient<SvcTypes>({ baseUrl: 'http://127.0.0.1:3000' });
export async function run(): Promise<number> {
  const page = await client.records('posts').list({ filter: { views__gte: 10, status__in: ['draft'], title__like: 'a%' }, sort: ['-views', 'id'], fields: ['title'] });
  const created = await client.records('posts').create({ title: 'Hello' });
  const views: number | null | undefined = page.data[0]?.views;
  const live = client.live('posts', { filter: { status: 'published' }, sort: ['views'] });
  const found = await client.records('posts').list({ search: '"first post" draft*', sort: ['-_rank', 'id'] });
  const liveFound = client.live('posts', { search: 'first', filter: { status: 'draft' } });
  // @ts-expect-error: a search is words, not a list
  await client.records('posts').list({ search: ['first'] });
  live.close();
  liveFound.close();
  // @ts-expect-error: a filter on a field the resource does not have
  await client.records('posts').list({ filter: { viewz__gte: 10 } });
  // @ts-expect-error: a string where the field is a number
  await client.records('posts').list({ filter: { views__gte: 'ten' } });
  // @ts-expect-error: sorting by a field that is not sortable
  await client.records('posts').list({ sort: ['title'] });
  // @ts-expect-error: a create without its required title
  await client.records('posts').create({ views: 1 });
  return created.id.length + (views ?? 0) + found.total;
}
`,
      );
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            strict: true,
            noEmit: true,
            target: 'ES2022',
            module: 'NodeNext',
            moduleResolution: 'NodeNext',
            allowImportingTsExtensions: true,
            skipLibCheck: true,
            lib: ['ES2022', 'DOM'],
            types: [],
          },
          files: ['program.ts'],
        }),
      );
      const tsc = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir], {
        encoding: 'utf8',
      });
      assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
