'use strict';
// The compiled addon (build/Release/llm_node.node, made by `npm install`).
const path = require('path');

function load() {
  const tried = [];
  for (const config of ['Release', 'Debug']) {
    const file = path.join(__dirname, '..', 'build', config, 'llm_node.node');
    try {
      return require(file);
    } catch (error) {
      if (error.code !== 'MODULE_NOT_FOUND') throw error;
      tried.push(file);
    }
  }
  throw new Error(`libllm: the native addon is not built (tried ${tried.join(', ')}); run \`npm install\``);
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
