// `npm test`: every test file under test/ through Node's test runner (Node 20's --test takes no globs),
// with line coverage measured by c8 and summarised at the end.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

function findTests(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return findTests(path);
      return name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

const only = process.argv.slice(2);
const files = only.length > 0 ? only : findTests('test');
const args = [
  'c8', '--reporter=text-summary', '--reporter=text', '--include=src/**', '--exclude=src/cli.ts',
  process.execPath, '--import', 'tsx', '--test', '--test-concurrency=3', '--test-reporter=spec', ...files,
];
const result = spawnSync('npx', args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
process.exit(result.status ?? 1);
