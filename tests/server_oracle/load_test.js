// Load test of llm-server over loopback with the official `openai` client:
//   node load_test.js LLM_SERVER MODEL
// Starts llm-server on a free port and checks: /health, /v1/models, the
// API key, HTTP errors (malformed JSON, huge body, unknown model, wrong
// method), /v1/embeddings, 64 concurrent streaming chat completions (each
// must finish and carry exactly the text its prompt gives alone, greedy),
// some of them aborted mid-stream (their slots come free at once), 429 when
// the queue is full, a client too slow to send its headers, the server's
// RSS back near its warmed-up baseline, and exit status 0 after SIGTERM.
'use strict';

const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const assert = require('node:assert/strict');
const { OpenAI } = require('openai');

const [serverBin, modelPath] = process.argv.slice(2);
if (!serverBin || !modelPath) {
  console.error('usage: node load_test.js LLM_SERVER MODEL');
  process.exit(2);
}
const API_KEY = 'test-key';
const CLIENTS = 64;
const PROMPTS = 8;
const MAX_TOKENS = 16;
const LONG_TOKENS = 400; // the aborted streams': they must not run to the end
const ABORTED = new Set([3, 11, 19, 27, 35, 43, 51, 59]); // every 8th, from 3
const started = Date.now();
const servers = [];

function log(...args) {
  console.log(`[${((Date.now() - started) / 1000).toFixed(1)}s]`, ...args);
}

// startServer runs llm-server and resolves once it prints its address.
function startServer(args) {
  const child = spawn(serverBin, ['-m', modelPath, '--port', '0', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  servers.push(child);
  child.stderr.on('data', (d) => process.stderr.write(d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('llm-server did not start in 30 s')), 30000);
    child.stdout.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ child, url: m[1], exited });
      }
    });
    exited.then(({ code }) => reject(new Error(`llm-server exited with ${code} before listening`)));
  });
}

async function stop(server, timeoutMs) {
  server.child.kill('SIGTERM');
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error('llm-server did not exit after SIGTERM')), timeoutMs);
  });
  const { code, signal } = await Promise.race([server.exited, timeout]);
  clearTimeout(timer);
  assert.equal(signal, null, `llm-server died of ${signal}`);
  assert.equal(code, 0, 'llm-server exit status after SIGTERM');
}

function rssKiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function raw(url, path, { method = 'POST', body, key = API_KEY } = {}) {
  const headers = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(url + path, { method, headers, body });
  const text = await res.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

function assertError(r, status, what) {
  assert.equal(r.status, status, `${what}: status (${r.text})`);
  const e = r.json && r.json.error;
  assert.ok(e && typeof e.message === 'string' && typeof e.type === 'string' && 'code' in e,
    `${what}: an OpenAI-shaped error, got ${r.text}`);
}

function prompt(i) {
  const topics = ['the sea', 'a red fox', 'winter', 'a small robot', 'bread', 'the moon', 'trains', 'a garden'];
  return [
    { role: 'system', content: 'You are brief.' },
    { role: 'user', content: `Tell me about ${topics[i % topics.length]}.` },
  ];
}

// stream runs one streaming chat completion and returns its text and finish
// reason; abortAfter > 0 asks for a long answer and aborts it after that
// many content chunks.
async function stream(client, model, i, { abortAfter = 0, seed = i } = {}) {
  const ac = new AbortController();
  const maxTokens = abortAfter > 0 ? LONG_TOKENS : MAX_TOKENS;
  const s = await client.chat.completions.create(
    { model, messages: prompt(i), stream: true, max_tokens: maxTokens, temperature: 0, seed },
    { signal: ac.signal });
  let text = '';
  let finish = null;
  let chunks = 0;
  let role = null;
  try {
    for await (const chunk of s) {
      const c = chunk.choices[0];
      if (!c) continue;
      if (c.delta.role) role = c.delta.role;
      if (c.delta.content) {
        text += c.delta.content;
        if (++chunks === abortAfter) {
          ac.abort();
          return { aborted: true, text };
        }
      }
      if (c.finish_reason) finish = c.finish_reason;
    }
  } catch (e) {
    if (abortAfter > 0 && ac.signal.aborted) return { aborted: true, text };
    throw e;
  }
  return { text, finish, role, aborted: false };
}

// waitIdle waits until no slot is busy and no request queued, for at most
// ms milliseconds.
async function waitIdle(url, what, ms = 5000) {
  for (let end = Date.now() + ms; Date.now() < end;) {
    const h = await raw(url, '/health', { method: 'GET' });
    if (h.status === 200 && h.json.slots_busy === 0 && h.json.queued === 0) return;
    await sleep(50);
  }
  throw new Error(`${what}: slots still busy after ${ms} ms`);
}

async function mainServer() {
  const server = await startServer(['--parallel', '4', '--queue', '64', '--api-key', API_KEY,
    '--threads', '1', '--ctx', '512']);
  const { url } = server;
  log('started', url);
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: API_KEY, maxRetries: 0, timeout: 30000 });

  const health = await raw(url, '/health', { method: 'GET', key: null });
  assert.equal(health.status, 200);
  assert.equal(health.json.status, 'ok');
  const models = await client.models.list();
  assert.equal(models.data.length, 1);
  const model = models.data[0].id;
  assert.equal(models.data[0].object, 'model');

  // Errors: each an HTTP status and an OpenAI error, never a crash.
  assertError(await raw(url, '/v1/models', { method: 'GET', key: null }), 401, 'no API key');
  assertError(await raw(url, '/v1/models', { method: 'GET', key: 'wrong' }), 401, 'wrong API key');
  assertError(await raw(url, '/v1/chat/completions', { body: '{"messages": [' }), 400, 'malformed JSON');
  assertError(await raw(url, '/v1/chat/completions', { body: '{"model":"' + 'x'.repeat(2 << 20) + '"}' }),
    413, 'huge body');
  assertError(await raw(url, '/v1/chat/completions', { body: '{"model":"' + model + '"}' }), 400, 'no messages');
  assertError(await raw(url, '/v1/chat/completions', { method: 'GET' }), 405, 'wrong method');
  assertError(await raw(url, '/v1/chat/completions',
    { body: JSON.stringify({ model, messages: prompt(0), n: 2 }) }), 400, 'n = 2');
  await assert.rejects(
    client.chat.completions.create({ model: 'no-such-model', messages: prompt(0), max_tokens: 2 }),
    (e) => e.status === 404);
  await assert.rejects(
    client.chat.completions.create({ model, messages: prompt(0), max_tokens: 2, temperature: 7 }),
    (e) => e.status === 400);
  log('errors ok');

  // Embeddings (the client asks for base64 by default; float by hand).
  const emb = await client.embeddings.create({ model, input: ['hello there', 'a red fox'] });
  assert.equal(emb.data.length, 2);
  const dim = emb.data[0].embedding.length;
  assert.ok(dim > 0);
  for (const d of emb.data) {
    const norm = Math.hypot(...d.embedding);
    assert.ok(Math.abs(norm - 1) < 1e-3, `embedding norm ${norm}`);
  }
  const floats = await raw(url, '/v1/embeddings', { body: JSON.stringify({ input: 'hello there' }) });
  assert.equal(floats.status, 200, floats.text);
  assert.equal(floats.json.data[0].embedding.length, dim);
  for (let k = 0; k < dim; k++) {
    assert.ok(Math.abs(floats.json.data[0].embedding[k] - emb.data[0].embedding[k]) < 1e-6);
  }
  log('embeddings ok, dim', dim);

  // response_format: random weights at temperature 1 give JSON of the schema.
  const schema = { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'],
    additionalProperties: false };
  const structured = await client.chat.completions.create({ model, messages: prompt(2), temperature: 1, seed: 3,
    max_tokens: 48, response_format: { type: 'json_schema', json_schema: { name: 'n', schema } } });
  assert.equal(structured.choices[0].finish_reason, 'stop');
  assert.ok(Number.isInteger(JSON.parse(structured.choices[0].message.content).n));

  // Each prompt's answer alone (greedy), non-streaming, then streaming.
  const expected = [];
  for (let i = 0; i < PROMPTS; i++) {
    const c = await client.chat.completions.create(
      { model, messages: prompt(i), max_tokens: MAX_TOKENS, temperature: 0 });
    assert.equal(c.object, 'chat.completion');
    assert.equal(c.choices[0].message.role, 'assistant');
    assert.ok(['stop', 'length'].includes(c.choices[0].finish_reason));
    assert.ok(c.usage.prompt_tokens > 0 && c.usage.completion_tokens <= MAX_TOKENS);
    // ParseChat trims the content; a stream's deltas are the raw text.
    expected.push(c.choices[0].message.content.trim());
  }
  assert.ok(new Set(expected).size >= 2, `the prompts should give different answers: ${JSON.stringify(expected)}`);
  const one = await stream(client, model, 0);
  assert.equal(one.role, 'assistant');
  assert.equal(one.text.trim(), expected[0], 'streaming = non-streaming');

  // Warm up with a burst, then take the RSS baseline.
  await Promise.all(Array.from({ length: 16 }, (_, i) => stream(client, model, i)));
  await waitIdle(url, 'warm-up');
  await sleep(300);
  const baseline = rssKiB(server.child.pid);
  log('warmed up, RSS', baseline, 'KiB');

  // 64 concurrent streams, some aborted after their first chunk.
  const t0 = Date.now();
  const results = await Promise.all(Array.from({ length: CLIENTS }, (_, j) =>
    stream(client, model, j, { abortAfter: ABORTED.has(j) ? 1 : 0, seed: 1000 + j })));
  let aborted = 0;
  results.forEach((r, j) => {
    if (ABORTED.has(j)) {
      assert.ok(r.aborted, `stream ${j} should have been aborted`);
      aborted++;
      return;
    }
    assert.ok(!r.aborted);
    assert.ok(['stop', 'length'].includes(r.finish), `stream ${j}: finish_reason ${r.finish}`);
    assert.equal(r.text.trim(), expected[j % PROMPTS], `stream ${j} got another text`);
  });
  log(`${CLIENTS} streams in ${Date.now() - t0} ms, ${aborted} aborted`);
  // An aborted stream (400 tokens asked) frees its slot at once: all are
  // free right after the last stream ends.
  await waitIdle(url, 'after the load', 1500);
  log(`idle after ${Date.now() - t0} ms`);

  // Still serving.
  const after = await client.chat.completions.create(
    { model, messages: prompt(5), max_tokens: MAX_TOKENS, temperature: 0 });
  assert.equal(after.choices[0].message.content, expected[5]);

  // Memory back near the baseline.
  let rss = 0;
  for (let t = 0; t < 30; t++) {
    rss = rssKiB(server.child.pid);
    if (rss <= baseline * 1.3) break;
    await sleep(100);
  }
  log('RSS after the load', rss, 'KiB');
  assert.ok(rss <= baseline * 1.3, `RSS ${rss} KiB is over 130% of the baseline ${baseline} KiB`);
  return server;
}

// A server with one slot and a queue of one: a slow client, 429 when full,
// a disconnect handing the slot on at once, and SIGTERM while a generation
// runs.
async function smallServer() {
  const server = await startServer(['--parallel', '1', '--queue', '1', '--threads', '1', '--ctx', '512',
    '--read-timeout', '1s', '--grace', '300ms']);
  const { url } = server;
  const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'unused', maxRetries: 0 });
  const model = (await client.models.list()).data[0].id;

  // A client that never finishes its headers is dropped after --read-timeout.
  let t0 = Date.now();
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('a slow client was not dropped')), 5000);
    const sock = net.connect({ port: Number(new URL(url).port), host: '127.0.0.1' }, () => {
      sock.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Le');
    });
    sock.on('data', () => {}); // Go answers 400 and closes
    sock.on('error', reject);
    sock.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  log(`slow client dropped after ${Date.now() - t0} ms`);

  // A long stream holds the slot, a second waits, a third is refused.
  const long = JSON.stringify({ model, messages: prompt(1), max_tokens: 480, temperature: 0, stream: true });
  const holdAbort = new AbortController();
  const holder = await fetch(`${url}/v1/chat/completions`, { method: 'POST', body: long, signal: holdAbort.signal });
  assert.equal(holder.status, 200);
  await holder.body.getReader().read(); // the first chunk: it is generating
  const queued = fetch(`${url}/v1/chat/completions`, { method: 'POST', body: long });
  for (let t = 0; t < 100; t++) {
    const h = await raw(url, '/health', { method: 'GET' });
    if (h.json.queued === 1) break;
    await sleep(10);
  }
  assertError(await raw(url, '/v1/chat/completions', { body: long }), 429, 'queue full');
  await assert.rejects(client.chat.completions.create({ model, messages: prompt(0), max_tokens: 2 }),
    (e) => e.status === 429);
  log('429 ok');

  // The holder goes away: the queued request gets the slot at once.
  t0 = Date.now();
  holdAbort.abort();
  const q = await queued;
  assert.equal(q.status, 200);
  const qreader = q.body.getReader();
  await qreader.read();
  log(`the queued request started ${Date.now() - t0} ms after the holder left`);

  // SIGTERM with that generation running: after the grace period it is
  // cancelled (the stream ends with an error event), and the exit status is 0.
  let rest = '';
  const drained = (async () => {
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await qreader.read();
      if (done) return;
      rest += decoder.decode(value);
    }
  })();
  await stop(server, 10000);
  await drained.catch(() => {});
  const ended = rest.includes('"code":"shutting_down"') ? 'cancelled at shutdown' : 'finished in the grace period';
  assert.ok(rest.includes('shutting_down') || rest.includes('data: [DONE]'), 'the running stream ends cleanly');
  log(`small server stopped; the running stream ${ended}`);
}

(async () => {
  const deadline = setTimeout(() => {
    console.error('FAIL: the load test took over 100 s');
    for (const s of servers) s.kill('SIGKILL');
    process.exit(1);
  }, 100000);
  try {
    const server = await mainServer();
    await smallServer();
    await stop(server, 10000);
    log('PASS');
    clearTimeout(deadline);
  } catch (e) {
    console.error('FAIL:', e);
    for (const s of servers) s.kill('SIGKILL');
    process.exit(1);
  }
})();
