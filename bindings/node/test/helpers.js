'use strict';
// Shared by the test files: where the models and goldens are.
// LLM_SHARED_DIR overrides the default <repo>/../shared.
const fs = require('node:fs');
const path = require('node:path');
const assert = require('node:assert/strict');
const { Model, LlmError } = require('..');

const packageDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(packageDir, '..', '..');
const sharedDir = process.env.LLM_SHARED_DIR || path.resolve(repoRoot, '..', 'shared');

const paths = {
  stories: path.join(sharedDir, 'models', 'stories260K.bin'),
  tok512: path.join(sharedDir, 'models', 'tok512.bin'),
  qwen: path.join(sharedDir, 'models', 'qwen2-tiny'),
};

function golden(relative) {
  return JSON.parse(fs.readFileSync(path.join(sharedDir, 'golden', relative), 'utf8'));
}

// The three llama2.c run.c greedy goldens (see golden/llama2c/README.md).
function storiesGoldens() {
  return ['empty', 'once_upon', 'pigs_punct'].map((name) => golden(`llama2c/stories260K_${name}.json`));
}

function loadStories() {
  return Model.load(paths.stories, { tokenizerPath: paths.tok512 });
}

// What the run.c golden's stop_reason means in this API.
function expectedStopReason(g) {
  return { steps: 'contextFull', bos: 'eog' }[g.stop_reason];
}

// The generated part of run.c's output: it echoes the prompt and ends with "\n".
function generatedText(g) {
  return g.text.slice(g.prompt.length, -1);
}

// For assert.throws / assert.rejects: an LlmError with this status code.
function isCode(code) {
  return (error) => {
    assert.ok(error instanceof LlmError, `expected an LlmError, got ${error}`);
    assert.ok(error instanceof Error);
    assert.equal(error.code, code, error.message);
    return true;
  };
}

module.exports = {
  isCode, packageDir, repoRoot, sharedDir, paths, golden, storiesGoldens, loadStories, expectedStopReason, generatedText };
