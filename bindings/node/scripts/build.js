'use strict';
// The npm `install` script: compiles the engine and the addon with node-gyp.
// When this Node's own headers are installed next to it (e.g. /usr/include/node
// for /usr/bin/node) they are used, so nothing is downloaded. An explicit
// nodedir (npm config or npm_config_nodedir) wins.
const { spawnSync } = require('child_process');
const fs = require('fs');
const path = require('path');

function localNodeDir() {
  const prefix = path.resolve(path.dirname(process.execPath), '..');
  const include = path.join(prefix, 'include', 'node');
  const versionHeader = path.join(include, 'node_version.h');
  if (!fs.existsSync(path.join(include, 'common.gypi')) || !fs.existsSync(versionHeader)) return null;
  const header = fs.readFileSync(versionHeader, 'utf8');
  const part = (name) => (header.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`)) || [])[1];
  const version = `v${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
  return version === process.version ? prefix : null; // headers of another Node would mislead
}

function nodeGyp() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp; // npm's bundled one
  try {
    return require.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

const args = ['rebuild'];
if (!process.env.npm_config_nodedir) {
  const dir = localNodeDir();
  if (dir) args.push(`--nodedir=${dir}`);
}
const gyp = nodeGyp();
const result = gyp
  ? spawnSync(process.execPath, [gyp, ...args], { stdio: 'inherit' })
  : spawnSync('node-gyp', args, { stdio: 'inherit', shell: process.platform === 'win32' });
if (result.error) {
  console.error(`libllm: cannot run node-gyp: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status === null ? 1 : result.status);
