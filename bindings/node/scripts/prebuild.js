'use strict';
// Builds the prebuilt addons that `npm pack` puts in the package, so that
// `npm install` needs no compiler on these platforms:
//   prebuilds/linux-x64/llm_node.node     the host's g++ (on an x86-64 host)
//   prebuilds/linux-arm64/llm_node.node   aarch64-linux-gnu-g++ (cross, on an x86-64 host)
// Each is binding.gyp's from-source build made ahead of time (the engine
// compiled in, each SIMD kernel file with its own instruction-set flags, the
// CPU choosing at run time), configured with --libllm_prebuilt=yes:
// libstdc++ and libgcc linked in and hidden, symbols stripped, so the file
// needs nothing but glibc and Node's N-API (version 8: Node >= 18).
// node-gyp runs in a staging folder per platform under LIBLLM_PREBUILD_WORK
// (default ./build-prebuild) holding binding.gyp and scripts/ plus links to
// src/, node_modules/ and the engine, so the package's own build/ is left
// alone and a rebuild only compiles what changed.
//   node scripts/prebuild.js [linux-x64] [linux-arm64]     (default: both)
//   npm run prebuilds && npm pack
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');
const { engineRoot } = require('./engine');
const { runNodeGyp } = require('./run-node-gyp');

const packageDir = path.resolve(__dirname, '..');

// e_machine in the ELF header: what the built file must be.
const targets = {
  'linux-x64': { arch: 'x64', triplet: 'x86_64-linux-gnu', elfMachine: 62 },
  'linux-arm64': { arch: 'arm64', triplet: 'aarch64-linux-gnu', elfMachine: 183 },
};

function fail(message) {
  console.error(`libllm prebuild: ${message}`);
  process.exit(1);
}

// The compiler environment for a target: the default compilers when it is
// this machine's platform, else the Debian cross toolchain of its triplet.
function compilerEnv(name, target) {
  const env = { ...process.env };
  for (const key of ['CC_target', 'CXX_target', 'AR_target', 'LINK_target', 'LINK']) delete env[key];
  if (`${process.platform}-${process.arch}` === name) return env;
  if (process.platform !== 'linux') fail(`${name} can only be cross-compiled on Linux`);
  env.CC = `${target.triplet}-gcc`;
  env.CXX = `${target.triplet}-g++`;
  env.AR = `${target.triplet}-ar`;
  const probe = spawnSync(env.CXX, ['--version'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0)
    fail(`${env.CXX} not found: install the cross compiler (Debian: g++-${target.triplet})`);
  return env;
}

function link(to, at) {
  fs.rmSync(at, { recursive: false, force: true });
  fs.symlinkSync(to, at, 'dir');
}

// The inputs node-gyp reads, in `dir`: copies of binding.gyp and scripts/ (so
// that scripts/engine.js sees `dir` as the package and dir/engine as the
// engine) and links to the rest.
function stage(dir) {
  fs.mkdirSync(path.join(dir, 'engine'), { recursive: true });
  fs.copyFileSync(path.join(packageDir, 'binding.gyp'), path.join(dir, 'binding.gyp'));
  fs.cpSync(path.join(packageDir, 'scripts'), path.join(dir, 'scripts'), { recursive: true });
  link(path.join(packageDir, 'src'), path.join(dir, 'src'));
  link(path.join(packageDir, 'node_modules'), path.join(dir, 'node_modules'));
  const engine = engineRoot();
  for (const part of ['include', 'src']) link(path.join(engine, part), path.join(dir, 'engine', part));
}

function elfMachine(file) {
  const header = Buffer.alloc(20);
  const fd = fs.openSync(file, 'r');
  try {
    fs.readSync(fd, header, 0, header.length, 0);
  } finally {
    fs.closeSync(fd);
  }
  if (header.readUInt32BE(0) !== 0x7f454c46 || header[4] !== 2 || header[5] !== 1) return null; // 64-bit LE ELF
  return header.readUInt16LE(18);
}

function build(name, workRoot) {
  const target = targets[name];
  const env = compilerEnv(name, target);
  const dir = path.join(workRoot, name);
  const out = path.join(packageDir, 'prebuilds', name, 'llm_node.node');
  fs.rmSync(out, { force: true }); // a failed build leaves no stale file behind
  stage(dir);
  console.log(`libllm prebuild: ${name} in ${dir}`);
  const args = ['configure', 'build', `--arch=${target.arch}`, '--libllm_prebuilt=yes'];
  if (runNodeGyp(args, { cwd: dir, env }) !== 0) fail(`node-gyp failed for ${name}`);

  const built = path.join(dir, 'build', 'Release', 'llm_node.node');
  const machine = elfMachine(built);
  if (machine !== target.elfMachine)
    fail(`${built} is not a 64-bit ELF for ${name} (e_machine ${machine}, expected ${target.elfMachine})`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.copyFileSync(built, out);
  if (`${process.platform}-${process.arch}` === name) {
    const check = spawnSync(process.execPath, ['-p', 'require(process.argv[1]).version', out], {
      encoding: 'utf8',
    });
    if (check.status !== 0) fail(`${out} does not load:\n${check.stderr}`);
  }
  console.log(`libllm prebuild: ${path.relative(packageDir, out)} (${Math.round(fs.statSync(out).size / 1024)} KiB)`);
}

function main() {
  const names = process.argv.slice(2);
  const wanted = names.length ? names : Object.keys(targets);
  for (const name of wanted) if (!targets[name]) fail(`unknown platform ${name} (known: ${Object.keys(targets).join(', ')})`);
  try {
    require.resolve('node-addon-api', { paths: [packageDir] });
  } catch {
    fail('node-addon-api is not installed here: run `npm install` first');
  }
  const workRoot = path.resolve(process.env.LIBLLM_PREBUILD_WORK || path.join(packageDir, 'build-prebuild'));
  for (const name of wanted) build(name, workRoot);
}

main();
