'use strict';
// session.saveState / loadState (and their file forms) and copyPrefixFrom.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { Model, Status } = require('..');
const { paths, loadStories, isCode } = require('./helpers');

const GREEDY = { temperature: 0 };

test('a loaded state continues exactly as the saved session', async () => {
  const model = await loadStories();
  const a = model.createSession();
  const b = model.createSession();
  await a.complete('Once upon a time', { ...GREEDY, maxTokens: 8 });
  const state = a.saveState();
  assert.ok(Buffer.isBuffer(state));
  b.loadState(state);
  assert.equal(b.position, a.position);
  assert.deepEqual(b.tokens, a.tokens);
  const ta = await a.complete('', { ...GREEDY, maxTokens: 16 });
  const tb = await b.complete('', { ...GREEDY, maxTokens: 16 });
  assert.equal(tb, ta);

  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'llm-state-')), 'session.state');
  await a.saveStateFile(file);
  const c = model.createSession();
  await c.loadStateFile(file);
  assert.deepEqual(c.tokens, a.tokens);
  await assert.rejects(c.loadStateFile(file + '.missing'), { code: 'ENOENT' });
  fs.rmSync(path.dirname(file), { recursive: true });
});

test('damaged states and other models\' states are refused', async () => {
  const model = await loadStories();
  const a = model.createSession();
  a.loadState(a.saveState()); // an empty state
  const b = model.createSession();
  b.copyPrefixFrom(a);
  assert.equal(b.position, 0);
  await a.complete(Int32Array.from([1, 400, 401]), { ...GREEDY, maxTokens: 1 });
  const state = a.saveState();
  assert.throws(() => b.loadState(state.subarray(0, state.length >> 1)), isCode(Status.TRUNCATED));
  const damaged = Buffer.from(state);
  damaged[damaged.length >> 1] ^= 1;
  assert.throws(() => b.loadState(damaged), isCode(Status.FORMAT));
  assert.throws(() => b.loadState('not a buffer'), isCode(Status.INVALID_ARGUMENT));
  assert.equal(b.position, 0);
  const q8 = await Model.load(paths.stories, { tokenizerPath: paths.tok512, weightType: 'q8_0' });
  const c = q8.createSession();
  assert.throws(() => c.loadState(state), isCode(Status.STATE_MISMATCH));
  assert.throws(() => c.copyPrefixFrom(a), isCode(Status.STATE_MISMATCH));
});

test('copyPrefixFrom shares a prefilled prompt', async () => {
  const model = await loadStories();
  const system = model.createSession();
  await system.complete('Once upon a time', { ...GREEDY, maxTokens: 4 });
  const a = model.createSession();
  const b = model.createSession();
  a.copyPrefixFrom(system);
  b.copyPrefixFrom(system, system.position);
  assert.deepEqual(a.tokens, system.tokens);
  const ta = await a.complete('', { ...GREEDY, maxTokens: 10 });
  assert.equal(await b.complete('', { ...GREEDY, maxTokens: 10 }), ta);
  assert.equal(await system.complete('', { ...GREEDY, maxTokens: 10 }), ta);
  assert.throws(() => a.copyPrefixFrom(system, 100000), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => a.copyPrefixFrom({}), isCode(Status.INVALID_ARGUMENT));
});
