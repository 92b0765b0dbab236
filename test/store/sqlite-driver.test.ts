// Each Node.js loads the better-sqlite3 build that works on it (see src/store/sqlite/sqlite-driver.ts).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Database, sqliteDriverPackage, sqliteDriverPath } from '../../src/store/sqlite/sqlite-driver.ts';

describe('the SQLite driver build', () => {
  it('is the C++ build before Node 24 and the Node-API build from Node 24 on', () => {
    assert.equal(sqliteDriverPackage('20.20.2'), 'better-sqlite3');
    assert.equal(sqliteDriverPackage('22.12.0'), 'better-sqlite3');
    assert.equal(sqliteDriverPackage('24.0.0'), 'better-sqlite3-napi');
    assert.equal(sqliteDriverPackage('26.1.0'), 'better-sqlite3-napi');
  });

  it('loads the build chosen for this Node and runs statements with it', () => {
    assert.match(sqliteDriverPath, new RegExp(`node_modules/${sqliteDriverPackage()}/`));
    const db = new Database(':memory:');
    try {
      db.exec('create table t (x integer)');
      db.prepare('insert into t (x) values (?)').run(7);
      assert.deepEqual(db.prepare('select x from t').all(), [{ x: 7 }]);
    } finally {
      db.close();
    }
  });
});
