// Only http/ knows where a value sits in a request's JSON:API document. Domain code names the field a
// problem is about (`ErrorIssue.field`) and http/server/domain-error-answer.ts gives it its pointer
// (an attribute, a relationship, an operation of a batch). This finds a `/data…` pointer written as a
// string anywhere outside http/ (the browser console and the client read documents, so they may).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { SRC, sourceFiles, srcPath } from './import-graph.ts';

const MAY_NAME_DOCUMENT_MEMBERS = ['http/', 'console/', 'client/'];
const DOCUMENT_POINTER = /^\/data(\/|$)/;

/** `file:line` of each string or template literal that starts as a document pointer. */
function documentPointers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    const text =
      ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)
        ? node.text
        : ts.isTemplateExpression(node)
          ? node.head.text
          : undefined;
    if (text !== undefined && DOCUMENT_POINTER.test(text)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      found.push(`${srcPath(file)}:${line} ${JSON.stringify(text)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('document pointers', () => {
  it('are written only in http/: the domain names fields', () => {
    const outside = sourceFiles(SRC).filter((file) => {
      const path = srcPath(file);
      return !MAY_NAME_DOCUMENT_MEMBERS.some((folder) => path.startsWith(folder));
    });
    assert.ok(outside.length > 100, `read ${outside.length} files`);
    assert.deepEqual(outside.flatMap(documentPointers), []);
  });
});
