'use strict';
// Running node-gyp, shared by scripts/build.js (the install) and
// scripts/prebuild.js. When this Node's own headers are installed next to it
// (e.g. /usr/include/node for /usr/bin/node) they are used, so nothing is
// downloaded. An explicit nodedir (npm config or npm_config_nodedir) wins.
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

function nodeGypScript() {
  if (process.env.npm_config_node_gyp) return process.env.npm_config_node_gyp; // npm's bundled one
  try {
    return require.resolve('node-gyp/bin/node-gyp.js');
  } catch {
    return null;
  }
}

// Runs `node-gyp <args>` with this Node's headers; returns its exit status
// (1 when it could not start).
function runNodeGyp(args, options = {}) {
  const all = [...args];
  if (!process.env.npm_config_nodedir) {
    const dir = localNodeDir();
    if (dir) all.push(`--nodedir=${dir}`);
  }
  const script = nodeGypScript();
  const result = script
    ? spawnSync(process.execPath, [script, ...all], { stdio: 'inherit', ...options })
    : spawnSync('node-gyp', all, { stdio: 'inherit', shell: process.platform === 'win32', ...options });
  if (result.error) {
    console.error(`libllm: cannot run node-gyp: ${result.error.message}`);
    return 1;
  }
  return result.status === null ? 1 : result.status;
}

module.exports = { localNodeDir, runNodeGyp };
