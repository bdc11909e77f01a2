'use strict';
// Loading, model facts, tokenizer and errors.
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { test } = require('node:test');
const { Model, Status, version, systemInfo } = require('..');
const { paths, golden, storiesGoldens, loadStories, isCode } = require('./helpers');

test('the package version is the library version', () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'package.json'), 'utf8'));
  assert.equal(version, pkg.version);
  assert.equal(require('../lib/binding').headerVersion, pkg.version);
});

test('systemInfo names the kernels and the cores', () => {
  const level = '(scalar|neondot|neon|avx2|avx2vnni|avx512|avx512vnni|amx)';
  const m = new RegExp(`^simd=${level} simd_best=${level} cores=[1-9][0-9]*( |$)`).exec(systemInfo);
  assert.ok(m, systemInfo);
  if (!process.env.LLM_SIMD) assert.equal(m[1], m[2], 'without LLM_SIMD the best level runs');
});

test('load stories260K: facts agree with the checkpoint header', async () => {
  // llama2.c header: dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size, seq_len
  const header = new Int32Array(fs.readFileSync(paths.stories).buffer.slice(0, 28));
  const [dim, , layers, heads, kvHeads, vocab, seqLen] = header;
  const model = await loadStories();
  assert.equal(model.arch, 'llama');
  assert.equal(model.embeddingLength, dim);
  assert.equal(model.layerCount, layers);
  assert.equal(model.headCount, heads);
  assert.equal(model.kvHeadCount, kvHeads);
  assert.equal(model.vocabSize, Math.abs(vocab));
  assert.equal(model.contextLength, seqLen);
  assert.equal(model.weightType, 'f32');
  assert.equal(model.bos, 1);
  assert.equal(model.eos, 2);
  assert.ok(model.paramCount > 0 && model.weightBytes >= 4 * model.paramCount);
});

test('q8_0 weights on request', async () => {
  const model = await Model.load(paths.stories, { tokenizerPath: paths.tok512, weightType: 'q8_0', mmap: false });
  assert.equal(model.weightType, 'q8_0');
});

test('every weight type of llm.h is accepted by name', async () => {
  const binding = require('../lib/binding');
  const names = ['auto', 'f32', 'bf16', 'f16', 'q8_0', 'q4_0', 'q4_1', 'q5_0', 'q5_1', 'q4_k', 'q5_k', 'q6_k'];
  assert.deepEqual(Object.keys(binding.weightTypes), names); // llm_weight_type_name's table
  assert.deepEqual(Object.values(binding.weightTypes), names.map((_, i) => i));
  // stories260K's rows hold 64 values: a 32-value block type converts them,
  // the 256-value k-quant blocks do not fit and the weights stay fp32.
  const model = await Model.load(paths.stories, { tokenizerPath: paths.tok512, weightType: 'Q4_0' });
  assert.equal(model.weightType, 'q4_0');
  const kquant = await Model.load(paths.stories, { tokenizerPath: paths.tok512, weightType: 'q4_k' });
  assert.equal(kquant.weightType, 'f32');
  await assert.rejects(Model.load(paths.stories, { weightType: 'q4_k_m' }), isCode(Status.INVALID_ARGUMENT));
  await assert.rejects(Model.load(paths.stories, { weightType: 'constructor' }), isCode(Status.INVALID_ARGUMENT));
});

test('metadata: every model names its architecture', async () => {
  const model = await loadStories();
  const metadata = model.metadata;
  assert.equal(metadata['general.architecture'], 'llama');
  assert.deepEqual(Object.keys(metadata), Object.keys(metadata).sort()); // in key order
  for (const [key, value] of Object.entries(metadata)) assert.equal(model.meta(key), value);
  assert.notEqual(model.metadata, metadata); // a copy on each read
  assert.equal(model.meta('general.architecture'), 'llama');
  assert.equal(model.meta('no.such.key'), undefined);
  assert.equal(model.meta('general.architecture\0x'), undefined);
  assert.equal(model.meta(''), undefined);
  assert.throws(() => model.meta(42), isCode(Status.INVALID_ARGUMENT));
  model.dispose();
  assert.throws(() => model.metadata, /disposed/);
  assert.throws(() => model.meta('general.architecture'), /disposed/);
});

test('tokenize matches run.c encode() for the golden prompts', async () => {
  const model = await loadStories();
  for (const g of storiesGoldens()) {
    assert.deepEqual(model.tokenize(g.prompt), g.prompt_token_ids, g.prompt);
    assert.deepEqual(model.tokenize(g.prompt, { addBos: true }), g.prompt_token_ids);
    assert.deepEqual(model.tokenize(g.prompt, { addSpecial: false }), g.prompt_token_ids.slice(1));
  }
});

test('tokenize / detokenize round trip', async () => {
  const model = await loadStories();
  const texts = [
    'Once upon a time',
    'The 3 little pigs said: "Hi!" and 2 of them ran.',
    'héllo wörld — 漢字 😀 (byte fallback)',
    'tabs\tand\nnewlines  and  spaces ',
    ' leading space',
    '',
  ];
  for (const text of texts) {
    const ids = model.tokenize(text);
    assert.equal(ids[0], model.bos);
    assert.equal(model.detokenize(ids), text);
    assert.equal(model.detokenize(Int32Array.from(ids)), text);
  }
  // The golden generations decode to run.c's output.
  for (const g of storiesGoldens()) {
    assert.equal(model.detokenize([...g.prompt_token_ids, ...g.generated_token_ids]), g.text.slice(0, -1));
  }
});

test('special tokens and pieces', async () => {
  const model = await loadStories();
  assert.equal(model.isSpecial(model.bos), true);
  assert.equal(model.isSpecial(403), false);
  assert.equal(model.isEndOfGeneration(model.bos), true); // llama2.c stories end with BOS
  assert.equal(model.isEndOfGeneration(model.eos), true);
  assert.equal(model.isEndOfGeneration(403), false);
  assert.equal(Buffer.from(model.tokenPiece(403)).toString(), ' Once');
  assert.equal(model.detokenize([403]), ' Once'); // the leading space is dropped only after BOS
  assert.equal(model.detokenize([model.bos, 403]), 'Once');
  assert.ok(model.detokenize([model.bos, 403], { renderSpecial: true }).length > 'Once'.length);
});

test('a missing model file rejects with NOT_FOUND', async () => {
  const missing = path.join(os.tmpdir(), 'libllm-no-such-model.bin');
  await assert.rejects(Model.load(missing), (error) => {
    isCode(Status.NOT_FOUND)(error);
    assert.equal(error.code, -2);
    assert.equal(error.statusName, 'LLM_ERR_NOT_FOUND');
    assert.equal(error.name, 'LlmError');
    assert.match(error.message, /libllm-no-such-model\.bin/); // read on the worker thread
    return true;
  });
  await assert.rejects(Model.load(paths.stories, { tokenizerPath: missing }), isCode(Status.NOT_FOUND));
});

test('a truncated checkpoint rejects with TRUNCATED', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'libllm-'));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'short.bin');
  fs.writeFileSync(file, fs.readFileSync(paths.stories).subarray(0, 1000));
  await assert.rejects(Model.load(file, { tokenizerPath: paths.tok512 }), isCode(Status.TRUNCATED));
});

test('bad arguments are LlmErrors with INVALID_ARGUMENT', async () => {
  await assert.rejects(Model.load(42), isCode(Status.INVALID_ARGUMENT));
  await assert.rejects(Model.load(paths.stories, { weightType: 'q4' }), isCode(Status.INVALID_ARGUMENT));
  await assert.rejects(Model.load('a\0b'), isCode(Status.INVALID_ARGUMENT));
  const model = await loadStories();
  assert.throws(() => model.tokenize(7), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.detokenize([1.5]), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.detokenize([model.vocabSize]), isCode(Status.TOKEN_OUT_OF_RANGE));
  assert.throws(() => model.createSession({ contextLength: model.contextLength + 1 }), isCode(Status.BAD_DIMENSIONS));
  assert.throws(() => model.createSession({ threads: -1 }), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.createSession({ kvType: 'bf16' }), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => new Model(), isCode(Status.INVALID_ARGUMENT));
});

test('a disposed model throws a clean error', async () => {
  const model = await loadStories();
  model.dispose();
  model.dispose(); // twice is fine
  assert.equal(model.disposed, true);
  assert.throws(() => model.tokenize('x'), (e) => isCode(Status.INVALID_ARGUMENT)(e) && /disposed/.test(e.message));
  assert.throws(() => model.vocabSize, /disposed/);
  assert.throws(() => model.createSession(), /disposed/);
});

test('chat needs a chat template: UNSUPPORTED for stories260K', async () => {
  const model = await loadStories();
  const messages = [{ role: 'user', content: 'Tell me a story.' }];
  assert.throws(() => model.formatChat(messages), isCode(Status.UNSUPPORTED));
  await assert.rejects(model.chat(messages), isCode(Status.UNSUPPORTED));
  assert.throws(() => model.formatChat([{ role: 'user' }]), isCode(Status.INVALID_ARGUMENT));
});

// ChatML conversation of golden/qwen2-tiny/p3_chat.json.
test('chat with qwen2-tiny matches the p3_chat golden', async (t) => {
  let model;
  try {
    model = await Model.load(paths.qwen);
  } catch (error) {
    if (error.code === Status.UNSUPPORTED) return t.skip(`this libllm cannot load it: ${error.message}`);
    throw error;
  }
  const g = golden('qwen2-tiny/p3_chat.json');
  const messages = [
    { role: 'system', content: 'You are a helpful assistant.' },
    { role: 'user', content: 'Can you give me two tips for keeping houseplants alive in winter?' },
    { role: 'assistant', content: 'Sure! Move them closer to a bright window, and water less often.' },
    { role: 'user', content: 'What about humidity?' },
  ];
  const prompt = model.formatChat(messages);
  assert.equal(prompt, g.prompt);
  assert.deepEqual(model.tokenize(prompt, { parseSpecial: true }), g.prompt_token_ids);
  const reply = await model.chat(messages, { temperature: 0, maxTokens: g.generated_token_ids.length });
  assert.equal(reply, model.detokenize(g.generated_token_ids));
});
