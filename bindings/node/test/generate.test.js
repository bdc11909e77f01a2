'use strict';
// Generation: goldens, streaming, cancellation, concurrency, event loop.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Status } = require('..');
const { WINDOW } = require('../lib/generation');
const { storiesGoldens, loadStories, expectedStopReason, generatedText, isCode } = require('./helpers');

// Greedy run.c reproduction: 256 positions, as the goldens were made.
const GREEDY = { temperature: 0 };
const RUN_C_POSITIONS = 256;

async function collect(generation) {
  const pieces = [];
  for await (const piece of generation) pieces.push(piece);
  return pieces;
}

test('greedy generation equals the run.c goldens (ids, text, stop)', async () => {
  const model = await loadStories();
  for (const g of storiesGoldens()) {
    const session = model.createSession({ contextLength: RUN_C_POSITIONS });
    const generation = session.generate(g.prompt, GREEDY);
    const pieces = await collect(generation);
    assert.deepEqual(generation.tokens, g.generated_token_ids, `prompt ${JSON.stringify(g.prompt)}`);
    assert.equal(generation.stopReason, expectedStopReason(g));
    assert.equal(pieces.length, g.generated_token_ids.length);
    assert.equal(pieces.join(''), generatedText(g));
    // The cache holds the prompt and every generated token that was fed back.
    const fed = g.prompt_token_ids.length + g.generated_token_ids.length;
    assert.equal(session.position, Math.min(fed, RUN_C_POSITIONS));
    assert.deepEqual(session.tokens, [...g.prompt_token_ids, ...g.generated_token_ids].slice(0, RUN_C_POSITIONS));
  }
});

test('token-id prompts, complete(), maxTokens and continuing', async () => {
  const model = await loadStories();
  const g = storiesGoldens()[1];
  const session = model.createSession({ contextLength: RUN_C_POSITIONS });
  const text = await session.complete(g.prompt_token_ids, GREEDY);
  assert.equal(text, generatedText(g));

  session.reset();
  assert.equal(session.position, 0);
  const first = session.generate(g.prompt, { ...GREEDY, maxTokens: 10 });
  await collect(first);
  assert.equal(first.stopReason, 'maxTokens');
  assert.deepEqual(first.tokens, g.generated_token_ids.slice(0, 10));
  // An empty prompt continues from where the session is (no BOS in the middle).
  const next = session.generate('', { ...GREEDY, maxTokens: 10 });
  await collect(next);
  assert.deepEqual(next.tokens, g.generated_token_ids.slice(10, 20));
});

test('an fp16 KV cache gives the golden greedy start', async () => {
  const model = await loadStories();
  const g = storiesGoldens()[1];
  const session = model.createSession({ kvType: 'f16' });
  const generation = session.generate(g.prompt, { ...GREEDY, maxTokens: 30 });
  await collect(generation);
  assert.deepEqual(generation.tokens, g.generated_token_ids.slice(0, 30));
});

test('seeded sampling repeats for a seed and differs between seeds', async () => {
  const model = await loadStories();
  const run = (seed) => model.createSession().complete('Once upon a time', { temperature: 1, maxTokens: 60, seed });
  const [a, b, c] = await Promise.all([run(7), run(7), run(8n)]);
  assert.equal(a, b);
  assert.notEqual(a, c);
});

test('an AbortSignal stops a generation early', async () => {
  const model = await loadStories();
  const g = storiesGoldens()[1];
  const session = model.createSession(); // 512 positions: greedy runs far longer than 5 pieces
  const controller = new AbortController();
  const generation = session.generate(g.prompt, { ...GREEDY, signal: controller.signal });
  const pieces = [];
  await assert.rejects(
    (async () => {
      for await (const piece of generation) {
        pieces.push(piece);
        if (pieces.length === 5) controller.abort(new Error('enough'));
      }
    })(),
    (error) => {
      isCode(Status.CANCELLED)(error);
      assert.equal(error.name, 'AbortError');
      assert.equal(error.cause.message, 'enough');
      return true;
    }
  );
  assert.equal(pieces.length, 5);
  assert.equal(generation.stopReason, 'cancelled');
  // The worker runs at most WINDOW pieces ahead of the reader.
  assert.ok(generation.tokens.length <= 5 + WINDOW + 1, `${generation.tokens.length} tokens`);
  assert.equal(session.busy, false);

  // The session is usable again: same greedy output from a reset.
  session.reset();
  const again = session.generate(g.prompt, { ...GREEDY, maxTokens: 20 });
  await collect(again);
  assert.deepEqual(again.tokens, g.generated_token_ids.slice(0, 20));
});

test('aborting at once, before any piece arrives, and an already aborted signal', async () => {
  const model = await loadStories();
  const g = storiesGoldens()[1];
  const session = model.createSession();
  for (let round = 0; round < 10; ++round) {
    const controller = new AbortController();
    const generation = session.generate(g.prompt, { ...GREEDY, signal: controller.signal });
    const first = generation.next();
    controller.abort();
    await assert.rejects(first, (e) => e.name === 'AbortError' && e.code === Status.CANCELLED);
    assert.equal(session.busy, false);
    // No cancel request leaks into the next generation on this session.
    session.reset();
    const check = session.generate(g.prompt, { ...GREEDY, maxTokens: 3 });
    await collect(check);
    assert.deepEqual(check.tokens, g.generated_token_ids.slice(0, 3));
    session.reset();
  }
  const aborted = AbortSignal.abort();
  await assert.rejects(session.complete(g.prompt, { signal: aborted }), (e) => e.name === 'AbortError');
  assert.equal(session.position, 0); // nothing ran
});

test('break in for-await stops the generation quietly', async () => {
  const model = await loadStories();
  const session = model.createSession();
  const generation = session.generate('Once upon a time', GREEDY);
  let n = 0;
  for await (const piece of generation) {
    assert.equal(typeof piece, 'string');
    if (++n === 3) break;
  }
  assert.equal(session.busy, false);
  assert.equal(generation.stopReason, 'cancelled');
  assert.deepEqual(await generation.next(), { value: undefined, done: true });
});

// While the worker waits for a full window to be read it does not hold the
// process open. Stopping such a generation (abort, break, dispose) drops the
// unread pieces, and the end must still arrive: if the addon left the event
// loop unheld then, the process would exit here with the test pending.
test('stopping a generation whose window is full still delivers its end', async () => {
  const model = await loadStories();
  const g = storiesGoldens()[1];
  const session = model.createSession();
  const windowFull = () => new Promise((resolve) => setTimeout(resolve, 20));
  const ways = {
    abort: async (generation, controller) => {
      controller.abort();
      await assert.rejects(generation.next(), (e) => e.name === 'AbortError');
    },
    break: async (generation) => assert.deepEqual(await generation.return(), { value: undefined, done: true }),
    dispose: async (generation, controller, s) => {
      s.dispose(); // the pieces already made can still be read, then the end
      await assert.rejects(collect(generation), isCode(Status.CANCELLED));
    },
  };
  for (const [way, stop] of Object.entries(ways)) {
    for (let round = 0; round < 5; ++round) {
      const s = way === 'dispose' ? model.createSession() : session;
      const controller = new AbortController();
      const generation = s.generate(g.prompt, { ...GREEDY, signal: controller.signal });
      await generation.next();
      await windowFull();
      await stop(generation, controller, s);
      assert.equal(generation.stopReason, 'cancelled', way);
      if (way !== 'dispose') session.reset();
    }
  }
});

test('the event loop keeps running while a long generation runs', async () => {
  const model = await loadStories();
  const session = model.createSession({ threads: 1 });
  let generating = false;
  let ticksDuringGeneration = 0;
  const timer = setInterval(() => {
    if (generating) ++ticksDuringGeneration;
  }, 1);
  try {
    let tokens = 0;
    generating = true;
    while (tokens < 2000) {
      session.reset();
      const generation = session.generate('', { temperature: 1, seed: tokens + 1 });
      await collect(generation);
      tokens += generation.tokens.length;
    }
    generating = false;
  } finally {
    clearInterval(timer);
  }
  // Were the engine on the main thread, the timer could not fire at all.
  assert.ok(ticksDuringGeneration >= 10, `${ticksDuringGeneration} timer ticks`);
});

test('two sessions generate at the same time on one model', async () => {
  const model = await loadStories();
  const goldens = storiesGoldens();
  const sessions = goldens.map(() => model.createSession({ contextLength: RUN_C_POSITIONS, threads: 1 }));
  const generations = goldens.map((g, i) => sessions[i].generate(g.prompt, GREEDY));
  const firsts = await Promise.all(generations.map((it) => it.next()));
  // Each worker waits for its reader after at most WINDOW pieces: all are running now.
  assert.ok(sessions.every((s) => s.busy));
  const texts = await Promise.all(
    generations.map(async (it, i) => firsts[i].value + (await collect(it)).join(''))
  );
  goldens.forEach((g, i) => {
    assert.equal(texts[i], generatedText(g));
    assert.deepEqual(generations[i].tokens, g.generated_token_ids);
  });
});

test('one generation at a time per session', async () => {
  const model = await loadStories();
  const session = model.createSession();
  const first = session.generate('Once upon a time', GREEDY);
  await first.next();
  await assert.rejects(session.complete('Hello'), (e) => isCode(Status.INVALID_ARGUMENT)(e) && /generating/.test(e.message));
  assert.throws(() => session.position, /generating/);
  await first.return();
  assert.equal(typeof session.position, 'number');
});

test('engine errors during a generation reject the iterator', async () => {
  const model = await loadStories();
  const small = model.createSession({ contextLength: 4 });
  await assert.rejects(small.complete('Once upon a time'), isCode(Status.CONTEXT_FULL)); // 5 prompt tokens
  const session = model.createSession();
  await assert.rejects(session.complete('x', { temperature: -1 }), isCode(Status.INVALID_ARGUMENT));
  await assert.rejects(session.complete([model.vocabSize]), isCode(Status.TOKEN_OUT_OF_RANGE));
  assert.throws(() => session.generate('x', { topK: 1.5 }), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => session.generate('x', { signal: {} }), isCode(Status.INVALID_ARGUMENT));
});

test('disposing a session stops its generation; later use throws', async () => {
  const model = await loadStories();
  const session = model.createSession();
  const generation = session.generate('Once upon a time', GREEDY);
  await generation.next();
  session.dispose();
  await assert.rejects(collect(generation), (e) => isCode(Status.CANCELLED)(e) && /disposed/.test(e.message));
  assert.equal(session.disposed, true);
  assert.throws(() => session.generate('x'), (e) => isCode(Status.INVALID_ARGUMENT)(e) && /disposed/.test(e.message));
  assert.throws(() => session.tokens, /disposed/);
});
