'use strict';
// The engine version check of lib/binding.js: libllm 1.x loads, another major
// version is refused with a clear error.
const test = require('node:test');
const assert = require('node:assert');
const binding = require('../lib/binding');
const llm = require('..');

test('the loaded libllm is major 1', () => {
  assert.match(llm.version, /^1\./);
  assert.strictEqual(Math.floor(binding.versionNumber / 10000), 1);
});

test('another major version is refused', () => {
  assert.throws(
    () => binding.checkEngineVersion({ version: '2.0.0', versionNumber: 20000 }),
    /libllm is version 2\.0\.0 \(major 2\), this binding needs major 1/,
  );
});
