// The OpenAPI document as tools use it, served by a real `svc start` with the bundled example config:
// Spectral's `spectral:oas` ruleset finds nothing to complain about, and a typed client works from it —
// openapi-typescript generates the types, a small openapi-fetch client (and the README's) type-checks
// with them, a wrong call does not, and the client's calls answer as typed.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Document, Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { SvcProcess } from '../helpers/svc-process.ts';
import { testConfig } from '../helpers/test-config.ts';
import { buildOpenApiDocument } from '../../src/http/openapi/openapi-document.ts';
import { ResourceRegistry } from '../../src/resources/resource-registry.ts';

type Json = Record<string, unknown>;

const ROOT = join(import.meta.dirname, '../..');
const ADMIN = 'openapi-tooling-admin-token-0123456789';
/** Spectral's severities: 0 error, 1 warning, 2 information, 3 hint. */
const WARNING = 1;

/** What `extends: spectral:oas` means in a .spectral.yaml: the ruleset's recommended rules. */
function oasLinter(): Spectral {
  const spectral = new Spectral();
  // The ruleset's declared type is a union that TypeScript cannot narrow; Spectral's docs cast it the same way.
  spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
  return spectral;
}

/** The client under test: signs up, gets a key from /token, creates records and lists them with filters. */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './svc-api.js';

export async function tour(baseUrl: string, email: string, password: string) {
  const anonymous = createClient<paths>({ baseUrl });
  const signedUp = await anonymous.POST('/auth/sign-up/email', { body: { name: 'Typed', email, password } });
  const issued = await anonymous.POST('/token', { body: { email, password, name: 'typed client', expiresIn: 600 } });
  if (!issued.data) throw new Error('no key: ' + JSON.stringify(issued.error));
  const svc = createClient<paths>({ baseUrl, headers: { Authorization: \`Bearer \${issued.data.key}\` } });

  const created = await svc.POST('/v1/posts', { body: { title: 'Typed hello', status: 'published' } });
  await svc.POST('/v1/posts', { body: { title: 'Typed draft' } });
  const published = await svc.GET('/v1/posts', { params: { query: { status: 'published', title__like: 'Typed%', _sort: ['-created_at'] } } });
  const drafts = await svc.GET('/v1/posts', { params: { query: { status: 'draft' } } });
  const refused = await svc.POST('/v1/posts', { body: { title: 'x'.repeat(300) } });
  const me = await svc.GET('/me');
  return {
    userRole: signedUp.data?.user.primaryRole,
    createdStatus: created.response.status,
    createdId: created.data?.data.id,
    createdTitle: created.data?.data.attributes.title,
    publishedTitles: published.data?.data.map((post) => post.attributes.title),
    publishedTotal: published.data?.meta.total,
    draftTitles: drafts.data?.data.map((post) => post.attributes.title),
    refusedCode: refused.error?.errors[0]?.code,
    refusedPointer: refused.error?.errors[0]?.source?.pointer,
    meEmail: me.data?.data.attributes.kind === 'key' ? me.data.data.attributes.email : undefined,
  };
}
`;

/** Calls the types must refuse, one per line, each marked so its diagnostic can be found. */
const WRONG_CALLS = [
  "svc.POST('/v1/posts', { body: { title: 42 } }); // WRONG: a number for a string attribute",
  "svc.POST('/v1/posts', { body: { title: 'x', status: 'archived' } }); // WRONG: not one of the enum values",
  "svc.GET('/v1/postz'); // WRONG: no such path",
  "svc.GET('/v1/posts', { params: { query: { views__gte: 'many' } } }); // WRONG: a string for an integer filter",
];
const WRONG = `import createClient from 'openapi-fetch';
import type { paths } from './svc-api.js';

const svc = createClient<paths>({ baseUrl: 'http://localhost:3000' });
${WRONG_CALLS.join('\n')}
`;

/** The openapi-fetch block of the README's "Typed clients" section (the official client's is tested in test/client/). */
function readmeClient(): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Typed clients'));
  const block = /```ts\n(import createClient from 'openapi-fetch';[\s\S]*?)```/.exec(section);
  assert.ok(block, 'the README has an openapi-fetch TypeScript block under "## Typed clients"');
  return block[1]!;
}

function typeCheck(dir: string, files: string[]): Map<string, ts.Diagnostic[]> {
  const program = ts.createProgram(
    files.map((file) => join(dir, file)),
    {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      // fetch, Request and Response, which openapi-fetch's types use.
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
      skipLibCheck: true,
    },
  );
  const byFile = new Map<string, ts.Diagnostic[]>(files.map((file) => [file, []]));
  for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
    const file = diagnostic.file ? diagnostic.file.fileName.slice(dir.length + 1) : '(global)';
    byFile.set(file, [...(byFile.get(file) ?? []), diagnostic]);
  }
  return byFile;
}

const describeDiagnostic = (d: ts.Diagnostic): string => {
  const where =
    d.file && d.start !== undefined ? `line ${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
  return where + ts.flattenDiagnosticMessageText(d.messageText, '\n');
};

describe('the OpenAPI document of svc running the example config, as tools use it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-openapi-tooling-'));
  let svc: SvcProcess;
  let document: Json;
  before(async () => {
    const example = readFileSync(join(ROOT, 'examples/blog.yaml'), 'utf8');
    const configFile = join(dir, 'svc.config.yaml');
    writeFileSync(
      configFile,
      example
        .replace('url: "sqlite:./.svc/data.db"', `url: "sqlite:${join(dir, 'data.db')}"`)
        .replace('adminToken: "${SVC_ADMIN_TOKEN:-}"', `adminToken: "${ADMIN}"`),
    );
    svc = await SvcProcess.start(configFile, { LOG_LEVEL: 'warn' });
    const response = await fetch(`${svc.baseUrl}/openapi.json`);
    assert.equal(response.status, 200);
    document = (await response.json()) as Json;
  });
  after(async () => {
    await svc?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("passes Spectral's spectral:oas ruleset with no errors and no warnings", async () => {
    const results = await oasLinter().run(
      new Document(JSON.stringify(document, null, 2), spectralParsers.Json, 'openapi.json'),
    );
    const problems = results.filter((result) => result.severity <= WARNING);
    assert.deepEqual(
      problems.map((p) => `${p.code} at ${p.path.join('.')}: ${p.message}`),
      [],
    );
  });

  it('passes it too with the parts the example leaves off: social sign-in, email verification, a public URL', async () => {
    const base = testConfig('sqlite::memory:');
    const config = testConfig('sqlite::memory:', {
      auth: {
        ...base.auth,
        baseUrl: 'https://api.example.com',
        requireEmailVerification: true,
        social: {
          github: { clientId: 'id', clientSecret: 'secret' },
          google: { clientId: 'id', clientSecret: 'secret' },
        },
      },
      stream: { ...base.stream, allowQueryToken: false },
    });
    const full = buildOpenApiDocument(new ResourceRegistry(config), config);
    assert.ok((full.paths as Json)['/auth/callback/{provider}']);
    const results = await oasLinter().run(
      new Document(JSON.stringify(full, null, 2), spectralParsers.Json, 'openapi.json'),
    );
    assert.deepEqual(
      results.filter((r) => r.severity <= WARNING).map((p) => `${p.code} at ${p.path.join('.')}: ${p.message}`),
      [],
    );
  });

  it('is a linter that does complain about a flawed document', async () => {
    const flawed = structuredClone(document);
    delete (flawed.info as Json).contact;
    const results = await oasLinter().run(new Document(JSON.stringify(flawed), spectralParsers.Json, 'openapi.json'));
    assert.ok(results.some((result) => result.code === 'info-contact' && result.severity === WARNING));
  });

  describe('a typed client generated from it', () => {
    const client = join(dir, 'client');
    before(async () => {
      mkdirSync(client);
      // The generated client resolves openapi-fetch (and TypeScript its types) as a project of its own would.
      symlinkSync(join(ROOT, 'node_modules'), join(client, 'node_modules'), 'dir');
      writeFileSync(join(client, 'package.json'), JSON.stringify({ type: 'module' }));
      // Request bodies declare the defaults the server fills in; without this option openapi-typescript
      // would make every such field mandatory to send (the README's command sets it too).
      const types = await openapiTS(JSON.stringify(document), { defaultNonNullable: false });
      writeFileSync(join(client, 'svc-api.d.ts'), astToString(types));
      writeFileSync(join(client, 'client.ts'), CLIENT);
      writeFileSync(join(client, 'wrong.ts'), WRONG);
      writeFileSync(join(client, 'readme.ts'), readmeClient());
    });

    it('type-checks the client and the README example, and refuses each wrong call', () => {
      const diagnostics = typeCheck(client, ['client.ts', 'readme.ts', 'wrong.ts']);
      assert.deepEqual(
        (diagnostics.get('svc-api.d.ts') ?? []).map(describeDiagnostic),
        [],
        'the generated types compile',
      );
      assert.deepEqual((diagnostics.get('client.ts') ?? []).map(describeDiagnostic), []);
      assert.deepEqual((diagnostics.get('readme.ts') ?? []).map(describeDiagnostic), []);
      assert.deepEqual((diagnostics.get('(global)') ?? []).map(describeDiagnostic), []);
      const wrongLines = new Set(
        (diagnostics.get('wrong.ts') ?? []).map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1),
      );
      const firstCall = WRONG.split('\n').indexOf(WRONG_CALLS[0]!) + 1;
      for (const [index, call] of WRONG_CALLS.entries())
        assert.ok(wrongLines.has(firstCall + index), `not refused: ${call}`);
    });

    it('answers its calls as the types say', async () => {
      const { tour } = (await import(pathToFileURL(join(client, 'client.ts')).href)) as {
        tour(baseUrl: string, email: string, password: string): Promise<Record<string, unknown>>;
      };
      const email = `typed-${process.pid}@example.test`;
      const result = await tour(svc.baseUrl, email, 'correct horse battery');
      assert.equal(result.userRole, 'user');
      assert.equal(result.createdStatus, 201);
      assert.equal(typeof result.createdId, 'string');
      assert.equal(result.createdTitle, 'Typed hello');
      assert.deepEqual(result.publishedTitles, ['Typed hello']);
      assert.equal(result.publishedTotal, 1);
      assert.deepEqual(result.draftTitles, ['Typed draft']);
      assert.equal(result.refusedCode, 'INVALID_RESOURCE_DATA');
      assert.equal(result.refusedPointer, '/data/attributes/title');
      assert.equal(result.meEmail, email);
    });
  });
});
