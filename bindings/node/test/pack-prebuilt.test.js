'use strict';
// The package with prebuilt addons, installed where there is no compiler:
// `npm run prebuilds` (linux-x64, and linux-arm64 cross-compiled), `npm pack`,
// then `npm install --offline` of the tarball in an empty folder with a PATH
// that holds node, npm, a shell and nothing that compiles, and the example.
// The arm64 addon cannot run here: its ELF header and the libraries and
// symbols it needs are checked instead.
// LIBLLM_PREBUILD_PLATFORMS picks the platforms (default: linux-x64
// linux-arm64); LIBLLM_TEST_PACK=0 skips the test (CTest runs it on its own
// as node-pack-prebuilt).
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { packageDir, paths, golden } = require('./helpers');

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  const output = `${command} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`;
  assert.equal(result.error, undefined, output);
  assert.equal(result.status, 0, output);
  return result;
}

const elfMachines = { 'linux-x64': 62, 'linux-arm64': 183 };

// The shared libraries and the undefined dynamic symbols of an addon: only
// glibc's (and libstdc++'s, were it not linked in) and Node's N-API.
function checkDependencies(t, file) {
  const dynamic = run('readelf', ['-d', '-W', file]).stdout;
  const needed = [...dynamic.matchAll(/\(NEEDED\)\s+Shared library: \[([^\]]+)\]/g)].map((m) => m[1]);
  for (const lib of needed)
    assert.match(lib, /^(libc\.so\.6|libm\.so\.6|libpthread\.so\.0|libdl\.so\.2|librt\.so\.1|libstdc\+\+\.so\.6|libgcc_s\.so\.1|ld-linux-[\w-]+\.so\.\d)$/, `${file} needs ${lib}`);
  const symbols = run('readelf', ['--dyn-syms', '-W', file]).stdout;
  let newestGlibc = [0, 0];
  for (const line of symbols.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields[6] !== 'UND' || !fields[7]) continue;
    const name = fields[7];
    // A weak reference (unused transactional-memory hooks...) may stay unresolved.
    const ok = /^(napi_|node_api_)\w+$/.test(name) || /@(GLIBC|GLIBCXX|CXXABI|GCC)_[\d.]+$/.test(name) ||
      fields[4] === 'WEAK';
    assert.ok(ok, `${file} imports ${name}, which is neither glibc's nor N-API's`);
    const glibc = name.match(/@GLIBC_(\d+)\.(\d+)/);
    if (glibc) {
      const v = [Number(glibc[1]), Number(glibc[2])];
      if (v[0] > newestGlibc[0] || (v[0] === newestGlibc[0] && v[1] > newestGlibc[1])) newestGlibc = v;
    }
  }
  t.diagnostic(`${path.relative(packageDir, file)}: ${fs.statSync(file).size} bytes, needs ${needed.join(' ')}, glibc >= ${newestGlibc.join('.')}`);
}

function elfMachine(file) {
  const header = fs.readFileSync(file).subarray(0, 20);
  assert.equal(header.readUInt32BE(0), 0x7f454c46, `${file} is not ELF`);
  assert.equal(header[4], 2, `${file} is not a 64-bit ELF`);
  return header.readUInt16LE(18);
}

// A folder of links to node, npm, npx, a shell and a few utilities: nothing
// that could compile.
function noCompilerBin(dir) {
  fs.mkdirSync(dir);
  const which = (name) => spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  fs.symlinkSync(process.execPath, path.join(dir, 'node'));
  for (const name of ['npm', 'npx', 'sh', 'env', 'cat', 'ls', 'mkdir', 'rm', 'uname']) {
    const found = which(name);
    assert.ok(found || !['npm', 'sh'].includes(name), `${name} is not on PATH`);
    if (found) fs.symlinkSync(fs.realpathSync(found), path.join(dir, name));
  }
  for (const tool of ['cc', 'gcc', 'g++', 'c++', 'clang', 'clang++', 'make', 'python3', 'python', 'node-gyp']) {
    const probe = spawnSync('/bin/sh', ['-c', `command -v ${tool}`], { env: { PATH: dir } });
    assert.notEqual(probe.status, 0, `${tool} is on the no-compiler PATH`);
  }
  return dir;
}

// npm as a user runs it: no settings inherited from a running npm script, an
// empty cache (so --offline proves nothing is fetched), no source build forced.
function installEnv(tmp, bin) {
  const env = { ...process.env, PATH: bin };
  for (const key of Object.keys(env)) {
    if (/^(npm_|LIBLLM_BUILD_FROM_SOURCE$)/i.test(key)) delete env[key];
  }
  env.npm_config_userconfig = path.join(tmp, 'npmrc');
  fs.writeFileSync(env.npm_config_userconfig, '');
  env.npm_config_cache = path.join(tmp, 'npm-cache');
  return env;
}

test('prebuilt addons: pack, install with no compiler on PATH, run the example', { timeout: 60 * 60 * 1000 }, (t) => {
  if (process.env.LIBLLM_TEST_PACK === '0') return t.skip('LIBLLM_TEST_PACK=0 (CTest runs this as node-pack-prebuilt)');
  if (process.platform !== 'linux' || process.arch !== 'x64') return t.skip('prebuilds are made on linux-x64');
  const platforms = (process.env.LIBLLM_PREBUILD_PLATFORMS || 'linux-x64 linux-arm64').split(/\s+/).filter(Boolean);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'libllm-prebuilt-'));
  const prebuilds = path.join(packageDir, 'prebuilds');
  const hadPrebuilds = fs.existsSync(prebuilds);
  t.after(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!hadPrebuilds) fs.rmSync(prebuilds, { recursive: true, force: true });
  });

  run('npm', ['run', 'prebuilds', '--', ...platforms], { cwd: packageDir }); // npm gives it its node-gyp
  for (const platform of platforms) {
    const file = path.join(prebuilds, platform, 'llm_node.node');
    assert.equal(elfMachine(file), elfMachines[platform], `${file} is not a ${platform} binary`);
    checkDependencies(t, file);
  }

  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', tmp], { cwd: packageDir }).stdout);
  const files = packed.files.map((f) => f.path);
  for (const needed of [
    ...platforms.map((p) => `prebuilds/${p}/llm_node.node`),
    'node_modules/node-addon-api/package.json', // bundled: the source build needs no download either
    'examples/story.js',
  ])
    assert.ok(files.includes(needed), `${needed} is missing from the tarball`);
  t.diagnostic(`${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${files.length} files`);

  const bin = noCompilerBin(path.join(tmp, 'bin'));
  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
  const env = installEnv(tmp, bin);
  const install = run(
    path.join(bin, 'npm'),
    ['install', '--offline', '--no-audit', '--no-fund', '--foreground-scripts', path.join(tmp, packed.filename)],
    { cwd: app, env }
  );
  assert.match(`${install.stdout}${install.stderr}`, /libllm: using the prebuilt addon prebuilds\/linux-x64\/llm_node\.node/);
  const installed = path.join(app, 'node_modules', 'libllm');
  assert.equal(fs.existsSync(path.join(installed, 'build')), false, 'nothing was compiled');

  const version = run(path.join(bin, 'node'), ['-p', "require('libllm').version"], { cwd: app, env }).stdout.trim();
  assert.equal(version, packed.version);
  // The example, greedy over 256 positions, prints exactly what run.c printed.
  const g = golden('llama2c/stories260K_once_upon.json');
  const story = spawnSync(
    path.join(bin, 'node'),
    [path.join(installed, 'examples', 'story.js'), paths.stories, '--tokenizer', paths.tok512,
      '--prompt', g.prompt, '--temperature', '0', '--context', '256'],
    { cwd: app, env, encoding: 'utf8' }
  );
  assert.equal(story.status, 0, story.stderr);
  assert.equal(story.stdout, g.text);
});
