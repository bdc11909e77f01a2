'use strict';
// Where the engine's C++ sources are. In a checkout of the repository this
// folder is <repo>/bindings/node and the engine is <repo>/include + <repo>/src;
// in a package made by `npm pack` they were copied to ./engine (see
// scripts/vendor-engine.js). binding.gyp asks this script for the paths:
//   node scripts/engine.js root|sources|portable-sources ARCH|isa-source F|isa-flags F
const fs = require('fs');
const path = require('path');

const packageDir = path.resolve(__dirname, '..');

function isEngine(dir) {
  return fs.existsSync(path.join(dir, 'include', 'llm.h')) && fs.existsSync(path.join(dir, 'src'));
}

// The repository root when this package is its bindings/node folder, else null.
function checkoutRoot() {
  const repo = path.resolve(packageDir, '..', '..');
  const inCheckout =
    path.basename(packageDir) === 'node' &&
    path.basename(path.dirname(packageDir)) === 'bindings' &&
    isEngine(repo);
  return inCheckout ? repo : null;
}

// The folder holding include/ and src/.
function engineRoot() {
  const repo = path.resolve(packageDir, '..', '..');
  if (checkoutRoot()) return repo;
  const packed = path.join(packageDir, 'engine');
  if (isEngine(packed)) return packed;
  throw new Error(
    `libllm: engine sources not found (looked in ${repo} and ${packed}); ` +
      'install from a repository checkout or from a tarball made by `npm pack`'
  );
}

// Per target architecture, the kernel files built with their own
// instruction-set flags, and the flags (as CMakeLists.txt gives them).
// Without the flags a file builds as a stub whose table is never chosen.
const x64 = {
  'kernels_avx2.cpp': ['-mavx2', '-mfma', '-mf16c'],
  'kernels_avx512.cpp': ['-mavx2', '-mfma', '-mf16c', '-mavx512f', '-mavx512bw', '-mavx512vl',
    '-mavx512dq'],
};
x64['kernels_avx2vnni.cpp'] = [...x64['kernels_avx2.cpp'], '-mavxvnni'];
x64['kernels_avx512vnni.cpp'] = [...x64['kernels_avx512.cpp'], '-mavx512vnni'];
x64['kernels_amx.cpp'] = [...x64['kernels_avx512vnni.cpp'], '-mamx-tile', '-mamx-bf16'];
const isaFlagsByArch = {
  x64,
  arm64: { 'kernels_neondot.cpp': ['-march=armv8.2-a+dotprod'] },
};
const isaFlags = Object.assign({}, ...Object.values(isaFlagsByArch));

// Every .cpp under src/, sorted, as paths relative to `from`.
function engineSources(root, from) {
  const out = [];
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.cpp')) out.push(full);
    }
  };
  walk(path.join(root, 'src'));
  return out.sort().map((f) => path.relative(from, f).split(path.sep).join('/'));
}

module.exports = { checkoutRoot, engineRoot, engineSources };

if (require.main === module) {
  const root = engineRoot();
  const what = process.argv[2];
  if (what === 'root') console.log(path.relative(packageDir, root).split(path.sep).join('/') || '.');
  else if (what === 'sources') console.log(engineSources(root, packageDir).join('\n'));
  // The sources without the instruction-set kernel files of an
  // architecture (x64, arm64) / one such file (by name) / its flags.
  else if (what === 'portable-sources')
    console.log(
      engineSources(root, packageDir)
        .filter((f) => !(path.basename(f) in (isaFlagsByArch[process.argv[3]] || {})))
        .join('\n')
    );
  else if (what === 'isa-source')
    console.log(engineSources(root, packageDir).find((f) => path.basename(f) === process.argv[3]));
  else if (what === 'isa-flags') console.log(isaFlags[process.argv[3]].join(' '));
  else {
    console.error(
      'usage: node scripts/engine.js root|sources|portable-sources ARCH|isa-source F|isa-flags F'
    );
    process.exit(2);
  }
}
