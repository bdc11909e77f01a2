'use strict';
// examples/parallel.js: two stories generated at once, each the same as
// generated alone (the example's --check), the first one run.c's.
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const path = require('node:path');
const { test } = require('node:test');
const { packageDir, paths } = require('./helpers');

test('examples/parallel.js serves two conversations at once', () => {
  const out = execFileSync(
    process.execPath,
    [path.join(packageDir, 'examples', 'parallel.js'), paths.stories, '--tokenizer', paths.tok512, '--check'],
    { cwd: packageDir, encoding: 'utf8' }
  );
  assert.match(out, /^\[1\] Once upon a time, there was a little girl named Lily\. She loved to play/m);
  assert.match(out, /^\[2\] The little dog \S/m);
  assert.match(out, /both stories are the same as generated alone/);
});
