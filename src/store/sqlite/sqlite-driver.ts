// Which build of better-sqlite3 this Node.js loads. better-sqlite3 12 wraps its objects in Node's C++
// `ObjectWrap`, whose destructor on Node 24 asserts that a Node environment is current; a statement
// collected by the garbage collector then aborts the whole process ("Assertion failed: (env) !=
// nullptr"). Version 13 is built on Node-API and does not, but it needs Node 22 or newer and crashes
// on Node 20. So both are dependencies (13 under the alias `better-sqlite3-napi`, shipped prebuilt)
// and each Node loads the one that works on it. 13 is an optional dependency: its engines field says
// Node >= 22, and npm skips an optional package whose engines do not match instead of warning
// (EBADENGINE) on every install on Node 20, where it is never loaded.
import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);

/** The first Node.js major version that loads the Node-API build. */
export const NODE_API_DRIVER_FROM_MAJOR = 24;

export function sqliteDriverPackage(nodeVersion: string = process.versions.node): string {
  return Number(nodeVersion.split('.')[0]) >= NODE_API_DRIVER_FROM_MAJOR ? 'better-sqlite3-napi' : 'better-sqlite3';
}

/** The driver's entry file, for a worker thread that opens its own connection. */
export const sqliteDriverPath: string = require.resolve(sqliteDriverPackage());

/** The two builds have the same JavaScript API; the types are those of version 12. */
export const Database: typeof BetterSqlite3 = require(sqliteDriverPath);

/** An open connection of either build. */
export type SqliteDatabase = BetterSqlite3.Database;
