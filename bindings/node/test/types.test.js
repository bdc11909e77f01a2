'use strict';
// index.d.ts: the TypeScript compiler accepts a program using the whole API
// (typescript is a devDependency; the test is skipped without it).
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { test } = require('node:test');

test('index.d.ts type-checks a program using the API', (t) => {
  let tsc;
  try {
    tsc = require.resolve('typescript/bin/tsc');
  } catch {
    return t.skip('typescript is not installed (npm install without --omit=dev)');
  }
  const result = spawnSync(
    process.execPath,
    [
      tsc,
      '--noEmit',
      '--strict',
      '--target', 'es2022',
      '--lib', 'es2022,dom',
      '--module', 'nodenext',
      '--moduleResolution', 'nodenext',
      path.join(__dirname, 'types', 'usage.ts'),
    ],
    { encoding: 'utf8' }
  );
  assert.equal(result.status, 0, result.stdout + result.stderr);
});
