#!/usr/bin/env node
'use strict';
// A two-turn chat: each prompt is rendered by the model's own chat template
// from the whole conversation so far.
//
//   node examples/chat.js [MODEL_DIR]   (default: $LLM_SHARED_DIR/models/qwen2-tiny)
const path = require('node:path');
const { Model } = require('libllm');

async function main() {
  const dir = process.argv[2] ?? path.join(process.env.LLM_SHARED_DIR ?? '.', 'models', 'qwen2-tiny');
  const model = await Model.load(dir);
  const session = model.createSession({ contextLength: 512 });
  const messages = [{ role: 'system', content: 'You are a helpful assistant.' }];
  for (const question of ['Hello, who are you?', 'Tell me a short story.']) {
    messages.push({ role: 'user', content: question });
    const prompt = model.applyChatTemplate(messages, { vars: { enable_thinking: false } });
    session.reset();
    const raw = await session.complete(prompt, { maxTokens: 48, parseSpecial: true, seed: 1 });
    const answer = model.parseChat(raw);
    console.log(`> ${question}\n${answer.content}\n`);
    messages.push({ role: 'assistant', content: answer.content });
  }
  model.dispose();
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
