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

module.exports = load();
