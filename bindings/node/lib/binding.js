'use strict';
// The native addon. A from-source build (build/Release, compiled by the
// install when no prebuilt addon fits, when asked to, or in a repository
// checkout) comes first; else the prebuilt one packaged for this platform
// (prebuilds/<platform>-<arch>/, see scripts/prebuild.js).
const fs = require('fs');
const path = require('path');

const packageDir = path.join(__dirname, '..');

function load() {
  const platform = `${process.platform}-${process.arch}`;
  const candidates = [
    path.join(packageDir, 'build', 'Release', 'llm_node.node'),
    path.join(packageDir, 'build', 'Debug', 'llm_node.node'),
    path.join(packageDir, 'prebuilds', platform, 'llm_node.node'),
  ];
  const tried = [];
  for (const file of candidates) {
    if (!fs.existsSync(file)) {
      tried.push(`${file}: not found`);
      continue;
    }
    try {
      return require(file);
    } catch (error) {
      tried.push(`${file}: ${error.message.split('\n')[0]}`);
    }
  }
  throw new Error(
    `libllm: no native addon loads on ${platform}. Tried:\n  ${tried.join('\n  ')}\n` +
      'Run `LIBLLM_BUILD_FROM_SOURCE=1 npm rebuild libllm` to compile it from source (needs a C++17 compiler, make and Python 3).',
  );
}

// The major version of libllm this binding was written for: another major
// has another API, refused at load with a clear error.
const ENGINE_MAJOR = 1;

function checkEngineVersion(addon) {
  const major = Math.floor(addon.versionNumber / 10000);
  if (major !== ENGINE_MAJOR) {
    throw new Error(
      `libllm: the loaded libllm is version ${addon.version} (major ${major}), ` +
        `this binding needs major ${ENGINE_MAJOR}: install a libllm ${ENGINE_MAJOR}.x`,
    );
  }
  return addon;
}

module.exports = checkEngineVersion(load());
module.exports.checkEngineVersion = checkEngineVersion;
