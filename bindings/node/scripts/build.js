'use strict';
// The npm `install` script. A package made by `npm pack` after
// `npm run prebuilds` carries prebuilt addons (prebuilds/<platform>-<arch>/,
// see scripts/prebuild.js): when the one for this platform loads in this
// Node, nothing is compiled. Otherwise, in a repository checkout, or with
// LIBLLM_BUILD_FROM_SOURCE=1 (or `npm install --build-from-source`), the
// engine and the addon are compiled from source with node-gyp into
// build/Release, which lib/binding.js then prefers.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { checkoutRoot } = require('./engine');
const { runNodeGyp } = require('./run-node-gyp');

const packageDir = path.resolve(__dirname, '..');
const platform = `${process.platform}-${process.arch}`;

function forcedFromSource() {
  const truthy = (value) => /^(1|true|yes)$/i.test(value || '');
  return truthy(process.env.LIBLLM_BUILD_FROM_SOURCE) || truthy(process.env.npm_config_build_from_source);
}

// Why the prebuilt addon cannot be used here, or null when it can: it is
// loaded by a child process, so a crash or a missing library cannot take the
// install down with it.
function prebuiltProblem(file) {
  if (!fs.existsSync(file)) return 'none is packaged for this platform';
  const check =
    "const a = require(process.argv[1]); if (typeof a.version !== 'string') throw new Error('not the libllm addon')";
  const result = spawnSync(process.execPath, ['-e', check, file], { encoding: 'utf8' });
  if (result.error) return result.error.message;
  if (result.status === 0) return null;
  const lines = `${result.stderr}`.split('\n').filter((line) => /error/i.test(line));
  return lines[0] || `node exited with status ${result.status}`;
}

function main() {
  const prebuilt = path.join(packageDir, 'prebuilds', platform, 'llm_node.node');
  const relative = path.relative(packageDir, prebuilt);
  let reason;
  if (forcedFromSource()) reason = 'LIBLLM_BUILD_FROM_SOURCE / --build-from-source is set';
  else if (checkoutRoot()) reason = 'a repository checkout builds from its sources';
  else {
    const problem = prebuiltProblem(prebuilt);
    if (!problem) {
      // A source build left by an earlier install would be loaded first.
      fs.rmSync(path.join(packageDir, 'build'), { recursive: true, force: true });
      console.log(`libllm: using the prebuilt addon ${relative}`);
      return 0;
    }
    reason = `prebuilt addon ${relative}: ${problem}`;
  }
  console.log(`libllm: compiling the engine and the addon from source (${reason})`);
  const status = runNodeGyp(['rebuild']);
  if (status !== 0) {
    console.error(
      `libllm: the source build failed (${reason}); it needs a C++17 compiler, make and Python 3`
    );
  }
  return status;
}

process.exit(main());
