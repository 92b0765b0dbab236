// One plain-object guard in the tree: src/tools/is-record.ts. A second copy drifts (one that lets arrays
// through, one that does not) and readers cannot tell which a file uses. The test finds any other type
// guard (`x is …`) whose body tests for an object that is not an array.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { SRC, sourceFiles, srcPath } from './import-graph.ts';

const THE_ONE = 'tools/is-record.ts';

function objectGuards(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isFunctionLike(node) &&
      node.type !== undefined &&
      ts.isTypePredicateNode(node.type) &&
      'body' in node &&
      node.body !== undefined
    ) {
      const body = (node.body as ts.Node).getText(source);
      if (body.includes('Array.isArray') && /typeof\s+\w+\s*===\s*'object'/.test(body)) {
        found.push(`${srcPath(file)}:${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the plain-object guard', () => {
  it('is defined once, in tools/is-record.ts', () => {
    const all = sourceFiles(SRC).flatMap(objectGuards);
    assert.deepEqual(
      all.map((at) => at.split(':')[0]),
      [THE_ONE],
      `plain-object guards found at: ${all.join(', ')}`,
    );
  });
});
