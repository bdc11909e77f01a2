'use strict';
// model.applyChatTemplate(), model.chatTemplate and model.parseChat() (llm.h 1.4).
const assert = require('node:assert/strict');
const { test } = require('node:test');
const { Model, Status } = require('..');
const { paths, loadStories, isCode } = require('./helpers');

const conversation = [
  { role: 'user', content: 'Hello' },
  { role: 'assistant', content: 'Hi there' },
  { role: 'user', content: 'Tell me a story' },
];

test("chat: qwen2-tiny's own template renders the whole conversation", async () => {
  const model = await Model.load(paths.qwen);
  assert.match(model.chatTemplate, /im_start/);
  const prompt = model.applyChatTemplate(conversation);
  assert.ok(prompt.includes('<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n'), prompt);
  assert.ok(prompt.endsWith('<|im_start|>user\nTell me a story<|im_end|>\n<|im_start|>assistant\n'), prompt);
  const open = model.applyChatTemplate(conversation, { addGenerationPrompt: false, vars: { enable_thinking: false } });
  assert.ok(open.endsWith('Tell me a story<|im_end|>\n'), open);
  const own = model.applyChatTemplate(conversation, {
    template: '{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ extra }}',
    vars: { extra: '!' },
  });
  assert.equal(own, '[user:Hello][assistant:Hi there][user:Tell me a story]!');
  const withTools = model.applyChatTemplate(conversation, {
    tools: [{ type: 'function', function: { name: 'get_time', description: 'The time', parameters: { type: 'object', properties: {} } } }],
  });
  assert.ok(withTools.includes('get_time'), withTools);
  model.dispose();
});

test('chat: parseChat splits reasoning, content and tool calls', async () => {
  const model = await Model.load(paths.qwen);
  assert.deepEqual(model.parseChat('<think>a</think>b'), { content: 'b', reasoningContent: 'a', toolCalls: [] });
  const call = model.parseChat('<tool_call>\n{"name": "get_time", "arguments": {"zone": "UTC"}}\n</tool_call>');
  assert.deepEqual(call.toolCalls, [{ name: 'get_time', arguments: { zone: 'UTC' } }]);
  model.dispose();
});

test('chat: bad messages, options and templates are LlmErrors', async () => {
  const model = await Model.load(paths.qwen);
  assert.throws(() => model.applyChatTemplate('hi'), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.applyChatTemplate([{ role: 'user' }]), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.applyChatTemplate(conversation, { tools: {} }), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.applyChatTemplate(conversation, { vars: [] }), isCode(Status.INVALID_ARGUMENT));
  assert.throws(() => model.applyChatTemplate(conversation, { template: '{% for %}' }), isCode(Status.TEMPLATE));
  assert.throws(() => model.parseChat(5), isCode(Status.INVALID_ARGUMENT));
  model.dispose();
});

test('chat: a model without a template has an empty one', async () => {
  const model = await loadStories();
  assert.equal(model.chatTemplate, '');
  model.dispose();
});
