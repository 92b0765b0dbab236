// Every database difference lives under src/store/ behind the dialect interface (store-dialect.ts:
// methods and capability flags such as supportsSkipLocked). Outside src/store/ no code may import from
// store/sqlite/ or store/postgres/, nor use a database driver (`pg`, `better-sqlite3`, loadPg), nor name
// a dialect: no string literal that is a dialect's name (a comparison, a `case`, a type such as
// `kind: 'sqlite'`), and no comparison or switch on `dialect.name`.
//
// What stays allowed, and why:
// - Asking the dialect (`store.dialect.columnType(…)`, `dialect.supportsSkipLocked`): that is the interface.
// - Passing `dialect.name` on unchanged to a library that asks which database it is given (the identity
//   component's Kysely adapter): nothing here branches on it.
// - Database URL schemes in config (`sqlite:PATH`, `postgres://…`): the setting is where an operator
//   names a database, so loading it (a relative `sqlite:` path made absolute) and validating its form
//   must know the schemes; which dialect a URL opens is decided in store/create-store.ts. Scheme text
//   such as 'sqlite:' is not a dialect's name, so the rule below does not catch it.
// - The optional-package loader (any file named optional-packages.ts) names the `pg` driver: it only
//   loads it, for store/postgres/, when first needed.
// - Comments and messages that mention SQLite or PostgreSQL to explain a choice: only code that selects
//   behaviour by dialect is confined, not the words.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-dialect.ts';
import { postgresDialect } from '../../src/store/postgres/postgres-dialect.ts';

const ROOT = resolve(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const STORE = join(SRC, 'store');
const DIALECT_FOLDERS = [join(STORE, 'sqlite'), join(STORE, 'postgres')];
const DIALECT_NAMES: ReadonlySet<string> = new Set([sqliteDialect.name, postgresDialect.name]);
const DRIVERS: ReadonlySet<string> = new Set(['pg', 'better-sqlite3']);
const DRIVER_LOADERS: ReadonlySet<string> = new Set(['loadPg']);
const PACKAGE_LOADER = 'optional-packages.ts';
const COMPARISONS = new Set([
  ts.SyntaxKind.EqualsEqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsEqualsToken,
  ts.SyntaxKind.EqualsEqualsToken,
  ts.SyntaxKind.ExclamationEqualsToken,
]);

interface Violation {
  line: number;
  what: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return path === STORE ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function isInside(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder + sep);
}

/** Whether an expression reads a dialect's name: `dialect.name`, `store.dialect.name`, `this.#store.dialect.name`. */
function readsDialectName(node: ts.Node): boolean {
  return (
    ts.isPropertyAccessExpression(node) &&
    node.name.text === 'name' &&
    /(^|\.)#?dialect$/i.test(node.expression.getText())
  );
}

function isDialectNameLiteral(node: ts.Node): boolean {
  return (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) && DIALECT_NAMES.has(node.text);
}

/** What in `text` (the source of the file at `path`) names a dialect, with its line. */
export function dialectViolations(path: string, text: string): Violation[] {
  const file = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: Violation[] = [];
  const report = (node: ts.Node, what: string) =>
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, what });
  const loader = basename(path) === PACKAGE_LOADER;
  const checkSpecifier = (node: ts.Node, specifier: string) => {
    if (DRIVERS.has(specifier) && !loader) report(node, `imports the database driver ${specifier}`);
    if (!specifier.startsWith('.')) return;
    const target = resolve(dirname(path), specifier);
    if (DIALECT_FOLDERS.some((folder) => isInside(target, folder))) report(node, `imports ${specifier}`);
  };
  const visit = (node: ts.Node): void => {
    if (
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      checkSpecifier(node, node.moduleSpecifier.text);
    }
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      checkSpecifier(node, node.arguments[0].text);
    }
    if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      checkSpecifier(node, node.argument.literal.text);
    }
    if (
      ts.isBinaryExpression(node) &&
      COMPARISONS.has(node.operatorToken.kind) &&
      (readsDialectName(node.left) || readsDialectName(node.right))
    ) {
      report(node, `compares the dialect's name: ${node.getText(file)}`);
    }
    if (ts.isSwitchStatement(node) && readsDialectName(node.expression))
      report(node, `switches on the dialect's name: ${node.expression.getText(file)}`);
    if (ts.isIdentifier(node) && DRIVER_LOADERS.has(node.text) && !loader)
      report(node, `loads a database driver: ${node.text}`);
    if (isDialectNameLiteral(node))
      report(node, `names a dialect: ${node.getText(file)} (${node.parent.getText(file).slice(0, 80)})`);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

describe('dialect confinement', () => {
  it('finds an import of a dialect folder, a comparison with a dialect name and a switch on it, not a URL scheme', () => {
    const path = join(SRC, 'events', 'example.ts');
    const text = [
      "import { countByInSteps } from '../store/sqlite/count-in-steps.ts';",
      "import type { Db } from '../store/store-dialect.ts';",
      "if (store.dialect.name === 'postgres') run();",
      'if (kind !== this.#store.dialect.name) run();',
      'switch (dialect.name) {}',
      "const file = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : undefined;",
      '// on sqlite this is one statement',
      "const flag = store.dialect.supportsSkipLocked; const type = store.dialect.name; const pg = await import('../store/postgres/open-postgres.ts');",
      "import type pg from 'pg';",
      "import { loadPg } from '../optional-packages.ts';",
    ].join('\n');
    const lines = dialectViolations(path, text).map((violation) => violation.line);
    assert.deepEqual(lines, [1, 3, 3, 4, 5, 8, 9, 10]);
    assert.deepEqual(
      dialectViolations(join(SRC, 'tools', PACKAGE_LOADER), "import type pg from 'pg';\nexport function loadPg() {}"),
      [],
    );
  });

  it('no file outside src/store/ imports a dialect folder or names a dialect', () => {
    const problems: string[] = [];
    for (const path of sourceFiles(SRC)) {
      const name = relative(ROOT, path).split(sep).join('/');
      const violations = dialectViolations(path, readFileSync(path, 'utf8'));
      if (violations.length === 0) continue;
      for (const { line, what } of violations) problems.push(`${name}:${line}: ${what}`);
    }
    assert.deepEqual(
      problems,
      [],
      `database differences belong under src/store/ (sqlite/, postgres/) behind the dialect interface (store-dialect.ts):\n${problems.join('\n')}`,
    );
  });
});
