// Seeds a fresh SQLite bench database with one tree's own bench code (its config, its seed), for
// bench/ab.ts: each side of an A/B runs on data and a config its own code made and accepts.
// Usage: node --import tsx bench/ab-seed.ts TREE OUT.json
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [tree, out] = process.argv.slice(2);
if (!tree || !out) throw new Error('usage: ab-seed.ts TREE OUT.json');
const fromTree = (file: string) => import(pathToFileURL(resolve(tree, 'bench', file)).href);
const { writeBenchConfig } = await fromTree('bench-config.ts');
const { createFreshDatabase } = await fromTree('bench-database.ts');
const { seed } = await fromTree('seed.ts');
const fresh = await createFreshDatabase('sqlite', undefined);
const bench = writeBenchConfig(fresh.url);
const seeded = await seed(bench.config, 10_000);
// A file, not stdout: the ids are too many for a pipe that process.exit would cut short.
writeFileSync(
  out,
  JSON.stringify({ configFile: bench.file, authorization: seeded.authorization, ids: seeded.readableIds }),
);
process.exit(0);
