'use strict';
// model.embed() and model.defaultPooling.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Status } = require('..');
const { loadStories, isCode } = require('./helpers');

test('embed: a unit vector, the same every time', async () => {
  const model = await loadStories();
  assert.equal(model.defaultPooling, 'mean');
  const v = await model.embed('Once upon a time');
  assert.ok(v instanceof Float32Array);
  assert.equal(v.length, model.embeddingLength);
  const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
  assert.ok(Math.abs(norm - 1) < 1e-4, String(norm));
  assert.deepEqual(await model.embed('Once upon a time', { pooling: 'mean' }), v);
});

test("embed: pooling 'none' gives a row per token, the last one 'last''s", async () => {
  const model = await loadStories();
  const ids = model.tokenize('Once upon a time');
  const rows = await model.embed('Once upon a time', { pooling: 'none', normalize: false });
  assert.equal(rows.length, ids.length);
  const last = await model.embed('Once upon a time', { pooling: 'last', normalize: false });
  assert.deepEqual(Array.from(rows[rows.length - 1]), Array.from(last));
  const first = await model.embed('Once upon a time', { pooling: 'first', normalize: false });
  assert.deepEqual(Array.from(rows[0]), Array.from(first));
});

test('embed: bad options and a disposed model', async () => {
  const model = await loadStories();
  await assert.rejects(model.embed('x', { pooling: 'max' }), isCode(Status.INVALID_ARGUMENT));
  await assert.rejects(model.embed('x', { normalize: 'yes' }), isCode(Status.INVALID_ARGUMENT));
  model.dispose();
  await assert.rejects(model.embed('x'), isCode(Status.INVALID_ARGUMENT));
});
