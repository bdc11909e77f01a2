'use strict';
// npm pack hooks: `prepack` copies the engine (include/, src/) from the
// repository into ./engine so that the tarball builds on its own, and the
// repository's LICENSE to the package root; `postpack` removes the copies
// again (a checkout always builds from the repository's own sources).
//   node scripts/vendor-engine.js copy|clean
const fs = require('fs');
const path = require('path');

const packageDir = path.resolve(__dirname, '..');
const target = path.join(packageDir, 'engine');
const license = path.join(packageDir, 'LICENSE');

function clean() {
  fs.rmSync(target, { recursive: true, force: true });
  fs.rmSync(license, { force: true });
}

function copy() {
  clean();
  const repo = path.resolve(packageDir, '..', '..');
  if (!fs.existsSync(path.join(repo, 'include', 'llm.h')))
    throw new Error(`libllm: ${repo} is not the repository root; npm pack must run in bindings/node`);
  for (const dir of ['include', 'src'])
    fs.cpSync(path.join(repo, dir), path.join(target, dir), { recursive: true });
  fs.copyFileSync(path.join(repo, 'LICENSE'), license);
  // Said on stderr: `npm pack --json` prints its result on stdout.
  const prebuilds = path.join(packageDir, 'prebuilds');
  const platforms = fs.existsSync(prebuilds) ? fs.readdirSync(prebuilds).sort() : [];
  console.error(
    platforms.length
      ? `libllm: packing the prebuilt addons in prebuilds/ (${platforms.join(', ')}): ` +
          'make sure `npm run prebuilds` built them from these sources'
      : 'libllm: no prebuilds/ (`npm run prebuilds` makes them): installs will compile from source'
  );
}

const what = process.argv[2];
if (what === 'copy') copy();
else if (what === 'clean') clean();
else {
  console.error('usage: node scripts/vendor-engine.js copy|clean');
  process.exit(2);
}
