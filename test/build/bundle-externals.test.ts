// The package's runtime dependencies are exactly what the bundle leaves outside it
// (scripts/bundle-externals.mjs): a dependency the bundle also inlines would be installed for nothing,
// and one it leaves outside but package.json does not list would be missing from a user's install.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EXTERNAL } from '../../scripts/bundle-externals.mjs';

const ROOT = join(import.meta.dirname, '../..');

test("package.json's dependencies and optional dependencies are the bundle's externals", () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>;
    optionalDependencies?: Record<string, string>;
    scripts: Record<string, string>;
  };
  const listed = [...Object.keys(manifest.dependencies), ...Object.keys(manifest.optionalDependencies ?? {})];
  // pg-native is pg's optional peer: left outside so that pg's lazy require of it stays lazy.
  assert.deepEqual(listed.sort(), EXTERNAL.filter((name) => name !== 'pg-native').sort());
});

test('the build runs before packing, not at install (npm 11 lists `prepare` among install scripts)', () => {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) assert.equal(scripts[hook], undefined, hook);
  assert.equal(scripts.prepack, 'node scripts/build.mjs');
});
