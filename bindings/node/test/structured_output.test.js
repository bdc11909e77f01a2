'use strict';
// Structured output: responseFormat (JSON Schema, any JSON object) and grammar
// (GBNF), over llm_sampler_set_json_schema / llm_sampler_set_grammar (1.4).
// qwen2-tiny has random weights and the real Qwen vocabulary: at temperature
// 1 only the grammar keeps its output in shape.
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Model, Status, LlmError } = require('..');
const { paths, isCode } = require('./helpers');

const PERSON = {
  type: 'object',
  properties: { name: { type: 'string', maxLength: 8 }, age: { type: 'integer' } },
  required: ['name', 'age'],
  additionalProperties: false,
};
const PROMPT = 'Answer in JSON:';
const FREE = { temperature: 1, topP: 1, maxTokens: 64 };

let modelPromise = null;
function qwen() {
  modelPromise ??= Model.load(paths.qwen);
  return modelPromise;
}

async function run(options) {
  const model = await qwen();
  const session = model.createSession({ contextLength: 128 });
  try {
    const generation = session.generate(PROMPT, options);
    let text = '';
    for await (const piece of generation) text += piece;
    return { text, stopReason: generation.stopReason };
  } finally {
    session.dispose();
  }
}

function assertPerson(text) {
  const value = JSON.parse(text);
  assert.deepEqual(Object.keys(value), ['name', 'age'], text);
  assert.equal(typeof value.name, 'string', text);
  assert.ok([...value.name].length <= 8, text);
  assert.ok(Number.isInteger(value.age), text);
}

test('responseFormat json_schema: every seed gives JSON of the schema', async () => {
  for (const seed of [1, 2, 3, 4]) {
    const { text, stopReason } = await run({
      ...FREE,
      seed,
      responseFormat: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: PERSON } },
    });
    assert.equal(stopReason, 'eog', `seed ${seed}: ${text}`);
    assertPerson(text);
  }
});

test('responseFormat: the schema as JSON text, the short shape, json_object, text', async () => {
  const asText = await run({ ...FREE, seed: 5, responseFormat: { type: 'json_schema', schema: JSON.stringify(PERSON) } });
  assert.equal(asText.stopReason, 'eog');
  assertPerson(asText.text);
  const short = await run({ ...FREE, seed: 5, responseFormat: { type: 'json_schema', schema: PERSON } });
  assert.equal(short.text, asText.text); // the same grammar and seed

  const object = await run({ ...FREE, seed: 6, responseFormat: { type: 'json_object' } });
  assert.ok(object.text.startsWith('{'), object.text);
  if (object.stopReason === 'eog') {
    const value = JSON.parse(object.text);
    assert.ok(value !== null && typeof value === 'object' && !Array.isArray(value), object.text);
  }
  const free = await run({ ...FREE, seed: 6, maxTokens: 4, responseFormat: { type: 'text' } });
  assert.equal(free.stopReason, 'maxTokens');
});

test('grammar: the output is exactly one of the alternatives', async () => {
  for (const seed of [1, 2, 3]) {
    const { text, stopReason } = await run({ ...FREE, seed, grammar: 'root ::= ("yes" | "no")' });
    assert.equal(stopReason, 'eog');
    assert.ok(text === 'yes' || text === 'no', text);
  }
  const rooted = await run({ ...FREE, seed: 1, grammar: 'answer ::= "maybe"\nroot ::= "never"', grammarRoot: 'answer' });
  assert.equal(rooted.text, 'maybe');
});

test('a bad grammar or schema rejects with LlmError GRAMMAR; the session stays usable', async () => {
  const model = await qwen();
  const session = model.createSession({ contextLength: 128 });
  const isGrammar = (expected) => (error) => {
    isCode(Status.GRAMMAR)(error);
    assert.ok(error instanceof LlmError);
    assert.equal(error.statusName, 'LLM_ERR_GRAMMAR');
    assert.match(error.message, expected);
    return true;
  };
  await assert.rejects(session.complete(PROMPT, { ...FREE, grammar: 'root ::= missing' }), isGrammar(/missing/));
  const zip = { type: 'object', properties: { zip: { type: 'string', pattern: '^[0-9]+$' } } };
  await assert.rejects(
    session.complete(PROMPT, { ...FREE, responseFormat: { type: 'json_schema', json_schema: { schema: zip } } }),
    isGrammar(/pattern/)
  );
  await assert.rejects(
    session.complete(PROMPT, { ...FREE, responseFormat: { type: 'json_schema', schema: '{"type": ' } }),
    isCode(Status.GRAMMAR)
  );
  assert.equal(session.busy, false);
  assert.equal(session.position, 0); // refused before the prompt was fed
  const text = await session.complete(PROMPT, { ...FREE, seed: 1, grammar: 'root ::= "ok"' });
  assert.equal(text, 'ok');
  session.dispose();
});

test('wrong structured-output options are INVALID_ARGUMENT before anything runs', async () => {
  const model = await qwen();
  const session = model.createSession({ contextLength: 128 });
  const bad = [
    { responseFormat: 'json' },
    { responseFormat: { type: 'xml' } },
    { responseFormat: { type: 'json_schema' } },
    { responseFormat: { type: 'json_schema', json_schema: { name: 'x' } } },
    { responseFormat: { type: 'json_schema', json_schema: { schema: {}, strict: 'yes' } } },
    { responseFormat: { type: 'json_schema', schema: 42 } },
    { responseFormat: { type: 'json_schema', schema: { big: 1n } } },
    { responseFormat: { type: 'json_schema', schema: '{"type":"string"}\0' } },
    { grammar: 42 },
    { grammar: 'root ::= "a"\0' },
    { grammarRoot: 'root' },
    { grammar: 'root ::= "a"', responseFormat: { type: 'json_object' } },
  ];
  for (const options of bad) {
    assert.throws(() => session.generate(PROMPT, options), isCode(Status.INVALID_ARGUMENT), JSON.stringify(options, (k, v) => (typeof v === 'bigint' ? `${v}n` : v)));
  }
  session.dispose();
});
