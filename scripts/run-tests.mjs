// `npm test`: every test file under test/ through Node's test runner (Node 20's --test takes no globs),
// with line coverage measured by c8. The output ends with the coverage summary and then the test
// totals, so the verdict is the last thing on the screen.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

function findTests(dir) {
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return findTests(path);
      return name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

// Files that take minutes (packing and installing the package, which may compile better-sqlite3) start
// first, so they run alongside the others instead of after them: the runner starts files in order.
const STARTED_FIRST = new Set([join('test', 'e2e', 'package-install.test.ts')]);
const only = process.argv.slice(2);
const files =
  only.length > 0
    ? only
    : findTests('test').sort((a, b) => Number(STARTED_FIRST.has(b)) - Number(STARTED_FIRST.has(a)));
const summaryFile = join('coverage', 'test-events.jsonl');
rmSync('coverage', { recursive: true, force: true });
mkdirSync('coverage', { recursive: true });
if (!process.env.TEST_DATABASE_URL)
  process.stdout.write('# PostgreSQL suites are skipped: TEST_DATABASE_URL is not set\n');
if (!process.env.TEST_REDIS_URL) process.stdout.write('# Redis suites are skipped: TEST_REDIS_URL is not set\n');

// TEST_COVERAGE=off runs the same files without c8 (CI's second Node version: coverage is measured once,
// and collecting it slows every test).
const measureCoverage = process.env.TEST_COVERAGE !== 'off';
const coverage = ['--include=src/**', '--exclude=src/cli/cli.ts'];
// Three files at once keeps two cores busy (the suite is mostly CPU-bound: its child processes and the
// database); TEST_CONCURRENCY changes it for a larger machine.
const runner = [
  process.execPath,
  '--import',
  'tsx',
  '--test',
  `--test-concurrency=${process.env.TEST_CONCURRENCY ?? 3}`,
  '--test-reporter=spec',
  '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/test-summary-reporter.mjs',
  `--test-reporter-destination=${summaryFile}`,
  ...files,
];
const [command, ...args] = measureCoverage
  ? ['npx', 'c8', '--reporter=none', '--clean', ...coverage, ...runner]
  : runner;
const run = spawnSync(command, args, {
  stdio: 'inherit',
  env: { ...process.env, NODE_ENV: 'test', SVC_TEST_RUNNER: '1' },
});

if (measureCoverage) {
  process.stdout.write('\n# Coverage (files under 90% of lines; the full table: coverage/coverage-summary.json)\n');
  spawnSync('npx', ['c8', 'report', ...coverage, '--reporter=json-summary', '--reporter=text-summary'], {
    stdio: 'inherit',
  });
  try {
    const summary = JSON.parse(readFileSync(join('coverage', 'coverage-summary.json'), 'utf8'));
    for (const [path, entry] of Object.entries(summary)) {
      if (path !== 'total' && entry.lines.pct < 90)
        process.stdout.write(`  ${entry.lines.pct.toFixed(1).padStart(5)}%  ${relative(process.cwd(), path)}\n`);
    }
  } catch {
    process.stdout.write('  (no coverage summary was written)\n');
  }
}

let events = [];
try {
  events = readFileSync(summaryFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
} catch {
  // No events at all: the runner itself failed; its exit status decides below.
}
const tests = events.filter((event) => !event.suite);
const failures = events.filter((event) => !event.passed && event.ownFailure);
const skippedTests = tests.filter((event) => event.skip !== null || event.todo);
const skippedSuites = events.filter((event) => event.suite && event.skip !== null);
const passed = tests.filter((event) => event.passed && event.skip === null && !event.todo).length;

process.stdout.write('\n');
if (skippedSuites.length > 0) {
  const reasons = new Map();
  for (const suite of skippedSuites) reasons.set(suite.skip, (reasons.get(suite.skip) ?? 0) + 1);
  for (const [reason, count] of reasons) process.stdout.write(`# ${count} suite(s) skipped: ${reason}\n`);
}
for (const failure of failures) {
  process.stdout.write(
    `# FAILED: ${failure.name}${failure.file ? ` (${relative(process.cwd(), failure.file)})` : ''}\n`,
  );
}
process.stdout.write(
  `tests: ${passed} passed, ${failures.length} failed, ${skippedTests.length + skippedSuites.length} skipped\n`,
);
const status = run.status ?? 1;
process.exit(status !== 0 ? status : failures.length > 0 ? 1 : 0);
