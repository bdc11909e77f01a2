'use strict';
// Memory and thread lifetime: garbage collection, dispose(), shutdown.
const assert = require('node:assert/strict');
const { spawnSync } = require('node:child_process');
const { test } = require('node:test');
const { setImmediate: tick } = require('node:timers/promises');
const v8 = require('node:v8');
const vm = require('node:vm');
const { Worker } = require('node:worker_threads');
const { liveHandles } = require('../lib/binding');
const { storiesGoldens, loadStories, paths, generatedText } = require('./helpers');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');

// Collect garbage until the native counts reach `expected` (finalizers may
// run a few turns after the collection).
async function settle(expected) {
  for (let i = 0; i < 50; ++i) {
    gc();
    await tick();
    const live = liveHandles();
    if (live.models === expected.models && live.contexts === expected.contexts) return live;
  }
  return liveHandles();
}

test('models and sessions are freed when garbage-collected', async () => {
  const before = await settle({ models: 0, contexts: 0 });
  assert.deepEqual(before, { models: 0, contexts: 0 });
  await (async () => {
    const model = await loadStories();
    const sessions = [model.createSession(), model.createSession()];
    await sessions[0].complete('Once upon a time', { maxTokens: 5 });
    assert.deepEqual(liveHandles(), { models: 1, contexts: 2 });
  })();
  assert.deepEqual(await settle({ models: 0, contexts: 0 }), { models: 0, contexts: 0 });
});

test('dispose() frees at once; a session keeps its model alive', async () => {
  const g = storiesGoldens()[1];
  const model = await loadStories();
  const session = model.createSession({ contextLength: 256 });
  model.dispose();
  assert.deepEqual(liveHandles(), { models: 1, contexts: 1 }); // held by the session
  assert.equal(session.model.disposed, true);
  assert.equal(await session.complete(g.prompt, { temperature: 0 }), generatedText(g));
  session.dispose();
  assert.deepEqual(liveHandles(), { models: 0, contexts: 0 });
});

test('a disposed session with a running generation is freed once the worker stops', async () => {
  const model = await loadStories();
  const session = model.createSession();
  const generation = session.generate('Once upon a time', { temperature: 0 });
  await generation.next();
  session.dispose();
  model.dispose();
  // Pieces the worker made before the dispose (it may run a window of them
  // ahead of the reader) are still delivered; then next() rejects.
  const drain = async () => {
    for (let read = 0; read <= 16; ++read) await generation.next();
  };
  await assert.rejects(drain(), /disposed/);
  assert.deepEqual(await settle({ models: 0, contexts: 0 }), { models: 0, contexts: 0 });
});

// Runs `code` in a fresh node with libllm, returns the result of spawnSync.
function runNode(code) {
  return spawnSync(process.execPath, ['-e', code], {
    cwd: __dirname,
    env: { ...process.env, MODEL: paths.stories, TOKENIZER: paths.tok512 },
    encoding: 'utf8',
    timeout: 120000,
  });
}

const PRELUDE = `
  const { Model } = require('..');
  const load = () => Model.load(process.env.MODEL, { tokenizerPath: process.env.TOKENIZER });
`;

test('an unread paused generation does not keep the process alive', () => {
  const result = runNode(`${PRELUDE}
    (async () => {
      const session = (await load()).createSession();
      const generation = session.generate('Once upon a time', { temperature: 0 });
      await generation.next(); // then never read again
      console.log('started');
    })();`);
  assert.equal(result.signal, null, result.stderr);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stdout.trim(), 'started');
});

test('process.exit() during a generation shuts down cleanly', () => {
  const result = runNode(`${PRELUDE}
    (async () => {
      const session = (await load()).createSession({ threads: 2 });
      let n = 0;
      for await (const piece of session.generate('', { temperature: 1, seed: 3 })) {
        if (++n === 20) process.exit(7);
      }
    })();`);
  assert.equal(result.signal, null, result.stderr);
  assert.equal(result.status, 7, result.stderr);
});

test('works in worker threads, and terminating one mid-generation is safe', async () => {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const { Model } = require(workerData.index);
    (async () => {
      const model = await Model.load(workerData.model, { tokenizerPath: workerData.tokenizer });
      const session = model.createSession({ contextLength: 256 });
      parentPort.postMessage(await session.complete('Once upon a time', { temperature: 0 }));
      for (;;) { // stories until terminated
        session.reset();
        for await (const piece of session.generate('', { temperature: 1 })) parentPort.postMessage(piece);
      }
    })();`;
  const worker = new Worker(code, {
    eval: true,
    workerData: { index: require.resolve('..'), model: paths.stories, tokenizer: paths.tok512 },
  });
  const messages = [];
  await new Promise((resolve, reject) => {
    worker.on('error', reject);
    worker.on('exit', (code) => reject(new Error(`the worker exited early (${code})`)));
    worker.on('message', (m) => {
      messages.push(m);
      if (messages.length === 20) resolve();
    });
  });
  assert.equal(messages[0], generatedText(storiesGoldens()[1]));
  assert.equal(await worker.terminate(), 1);
});
