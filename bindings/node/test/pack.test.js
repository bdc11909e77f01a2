'use strict';
// The package as users get it: `npm pack`, then `npm install <tarball>` in an
// empty folder (which compiles the engine and the addon from the sources in
// the tarball, with this Node's installed headers: nothing is downloaded
// except node-addon-api from the npm registry), then run the example.
// Set LIBLLM_TEST_PACK=0 to skip it (CTest runs it on its own as node-pack).
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { packageDir, paths, golden } = require('./helpers');

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(command, args, options) {
  const result = spawnSync(command, args, { encoding: 'utf8', shell: process.platform === 'win32', ...options });
  const output = `${command} ${args.join(' ')}\n${result.stdout}\n${result.stderr}`;
  assert.equal(result.error, undefined, output);
  assert.equal(result.status, 0, output);
  return result.stdout;
}

// The environment of the install: the user's npm config without nodedir, so
// scripts/build.js has to find the headers itself, and an empty node-gyp
// folder, which stays empty unless node-gyp downloads headers.
function installEnv(tmp) {
  const env = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^npm_(config_(nodedir|devdir|dist_url|disturl|userconfig)|lifecycle_|package_)/i.test(key)) delete env[key];
  }
  const userConfig = spawnSync(npm, ['config', 'get', 'userconfig'], { encoding: 'utf8', shell: process.platform === 'win32' }).stdout.trim();
  const kept = fs.existsSync(userConfig)
    ? fs.readFileSync(userConfig, 'utf8').split('\n').filter((line) => !/^\s*nodedir\s*=/.test(line))
    : [];
  env.npm_config_userconfig = path.join(tmp, 'npmrc');
  fs.writeFileSync(env.npm_config_userconfig, kept.join('\n'));
  env.npm_config_devdir = path.join(tmp, 'node-gyp');
  fs.mkdirSync(env.npm_config_devdir);
  env.JOBS ??= '2';
  env.LIBLLM_BUILD_FROM_SOURCE = '1'; // this test is the source build, prebuilds/ or not
  return env;
}

test('npm pack, install the tarball in an empty folder, run the example', { timeout: 30 * 60 * 1000 }, (t) => {
  if (process.env.LIBLLM_TEST_PACK === '0') return t.skip('LIBLLM_TEST_PACK=0 (CTest runs this as node-pack)');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'libllm-pack-'));
  t.after(() => fs.rmSync(tmp, { recursive: true, force: true }));

  const [packed] = JSON.parse(run(npm, ['pack', '--json', '--pack-destination', tmp], { cwd: packageDir }));
  const files = packed.files.map((f) => f.path);
  for (const needed of [
    'package.json',
    'binding.gyp',
    'index.js',
    'index.d.ts',
    'README.md',
    'LICENSE',
    'examples/story.js',
    'scripts/build.js',
    'src/addon.cc',
    'lib/model.js',
    'engine/include/llm.h',
    'engine/src/capi/llm_api.cpp',
  ])
    assert.ok(files.includes(needed), `${needed} is missing from the tarball`);
  assert.deepEqual(files.filter((f) => /^(test|build|build-prebuild|node_modules(?!\/node-addon-api))\//.test(f)), []);
  assert.equal(fs.existsSync(path.join(packageDir, 'engine')), false, 'postpack removes the copy');
  assert.equal(fs.existsSync(path.join(packageDir, 'LICENSE')), false, 'postpack removes the copy');

  const app = path.join(tmp, 'app');
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, 'package.json'), JSON.stringify({ name: 'app', version: '0.0.0', private: true }));
  const env = installEnv(tmp);
  run(npm, ['install', '--no-audit', '--no-fund', path.join(tmp, packed.filename)], { cwd: app, env });
  assert.deepEqual(fs.readdirSync(env.npm_config_devdir), [], 'node-gyp downloaded headers');

  const installed = path.join(app, 'node_modules', 'libllm');
  assert.ok(fs.existsSync(path.join(installed, 'build', 'Release', 'llm_node.node')));
  assert.ok(fs.existsSync(path.join(installed, 'index.d.ts')));
  const version = run(process.execPath, ['-p', "require('libllm').version"], { cwd: app }).trim();
  assert.equal(version, packed.version);

  // The example, greedy over 256 positions, prints exactly what run.c printed.
  const g = golden('llama2c/stories260K_once_upon.json');
  const story = run(
    process.execPath,
    [path.join(installed, 'examples', 'story.js'), paths.stories, '--tokenizer', paths.tok512,
      '--prompt', g.prompt, '--temperature', '0', '--context', '256'],
    { cwd: app }
  );
  assert.equal(story, g.text);
});
