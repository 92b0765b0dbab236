// docs/configuration.md documents every setting of the config schema, and names no setting the schema
// lacks: the reference and schema/svc.config.schema.json cannot drift apart.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { CONFIG_SCHEMA } from '../../src/config/config-schema.ts';

const DOC = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8');

interface SchemaNode {
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
}

/** Dotted paths of every setting, not of the objects that group them (resources have their own section). */
function settingPaths(node: SchemaNode, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [name, child] of Object.entries(node.properties ?? {})) {
    if (prefix === '' && (name === 'resources' || name === '$schema')) continue;
    // The social providers share one set of settings: the reference names them once, as `auth.social.<provider>.…`.
    if (prefix === 'auth.social.') {
      paths.push(...settingPaths(child, `${prefix}<provider>.`));
      break;
    }
    const path = `${prefix}${name}`;
    if (child.properties) paths.push(...settingPaths(child, `${path}.`));
    else paths.push(path);
  }
  return paths;
}

const documented = new Set(
  [...DOC.matchAll(/`([a-z][A-Za-z]*(?:\.(?:[A-Za-z]+|<provider>))+|[a-z][A-Za-z]*)`/g)].map((match) => match[1]!),
);

describe('the configuration reference', () => {
  const paths = settingPaths(CONFIG_SCHEMA as SchemaNode);

  it('names every setting of the schema', () => {
    assert.ok(paths.length > 40, `found ${paths.length} settings`);
    assert.deepEqual(
      paths.filter((path) => !documented.has(path)),
      [],
    );
  });

  it('names no dotted setting that the schema does not have', () => {
    const known = new Set(paths);
    const groups = new Set(
      paths.flatMap((path) =>
        path
          .split('.')
          .slice(0, -1)
          .map((_, i, parts) => parts.slice(0, i + 1).join('.')),
      ),
    );
    const sections = new Set(paths.map((path) => path.split('.')[0]!));
    const stale = [...documented].filter(
      (name) => name.includes('.') && sections.has(name.split('.')[0]!) && !known.has(name) && !groups.has(name),
    );
    assert.deepEqual(stale, []);
  });
});
