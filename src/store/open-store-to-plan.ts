// Opens the database `svc plan` looks at without creating it: a SQLite file that does not exist yet is
// planned against an empty database in memory (every table to create), and is left uncreated.
import { existsSync } from 'node:fs';
import { createStore, isPostgresUrl, type Store } from './create-store.ts';

export function openStoreToPlan(url: string): Store {
  if (isPostgresUrl(url)) return createStore(url);
  const path = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) : url;
  return path === '' || path === ':memory:' || existsSync(path) ? createStore(url) : createStore('sqlite::memory:');
}
