// A start-up failure because the database server refused the service (no such database, login refused)
// is told as an unreachable database, pointing at its settings; other errors keep their own message.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isRefusedConnection } from '../../src/store/refused-connection.ts';
import { describeCliFailure } from '../../src/cli/cli-failure.ts';

function withCode(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('refused connections', () => {
  it('are the server refusing the database or the login', () => {
    for (const code of ['3D000', '28P01', '28000']) {
      const error = withCode(code, `refused (${code})`);
      assert.equal(isRefusedConnection(error), true, code);
      assert.equal(
        describeCliFailure(error),
        `could not reach the database (refused (${code})); check DATABASE_URL or database.url`,
      );
    }
  });

  it('are not other database errors', () => {
    for (const code of ['23505', 'SQLITE_CONSTRAINT', 'SQLITE_CANTOPEN']) {
      const error = withCode(code, `failed (${code})`);
      assert.equal(isRefusedConnection(error), false, code);
      assert.equal(describeCliFailure(error), `failed (${code})`);
    }
    assert.equal(isRefusedConnection('3D000'), false);
  });
});
