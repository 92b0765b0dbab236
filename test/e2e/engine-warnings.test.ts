// `npm install` on the oldest supported Node (20) prints no EBADENGINE warning: every package it installs
// supports the Node running it. npm itself decides, from package.json and package-lock.json copied into
// an empty folder (--package-lock-only: nothing is downloaded or built, the check is the same).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '../..');

test(`npm install on Node ${process.versions.node} warns about no package's engines`, { timeout: 120_000 }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-engines-'));
  try {
    for (const file of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, file), join(dir, file));
    const env = { ...process.env };
    delete env.NODE_V8_COVERAGE;
    const install = spawnSync(
      'npm',
      ['install', '--package-lock-only', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'],
      {
        cwd: dir,
        env,
        encoding: 'utf8',
      },
    );
    assert.equal(install.status, 0, install.stderr);
    const warnings = (install.stdout + install.stderr).split('\n').filter((line) => /EBADENGINE.*package:/.test(line));
    assert.deepEqual(warnings, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
