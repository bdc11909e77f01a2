#!/usr/bin/env node
'use strict';
// Two conversations served at once: two sessions of one model generate
// concurrently (the addon runs each generation on a worker thread, and the
// engine gathers their steps into one batched pass over the weights).
//
//   node examples/parallel.js [MODEL] [--tokenizer PATH] [--max-tokens N] [--check]
//
// MODEL defaults to $LLM_SHARED_DIR/models/stories260K.bin (with tok512.bin).
// --check generates each story again alone and fails unless they are the same.
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Model } = require('libllm');

async function main() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      tokenizer: { type: 'string' },
      'max-tokens': { type: 'string', default: '60' },
      check: { type: 'boolean', default: false },
    },
  });
  const models = path.join(process.env.LLM_SHARED_DIR ?? '.', 'models');
  const model = await Model.load(positionals[0] ?? path.join(models, 'stories260K.bin'), {
    tokenizerPath: values.tokenizer ?? (positionals[0] ? undefined : path.join(models, 'tok512.bin')),
  });
  const maxTokens = Number(values['max-tokens']);

  async function tell(prompt) {
    const session = model.createSession();
    try {
      return prompt + (await session.complete(prompt, { temperature: 0, maxTokens }));
    } finally {
      session.dispose();
    }
  }

  const prompts = ['Once upon a time', 'The little dog'];
  const stories = await Promise.all(prompts.map(tell)); // both run at once
  stories.forEach((story, i) => console.log(`[${i + 1}] ${story}`));

  if (values.check) {
    for (const [i, prompt] of prompts.entries()) {
      if ((await tell(prompt)) !== stories[i]) throw new Error(`story ${i + 1} differs from the one generated alone`);
    }
    console.log('both stories are the same as generated alone');
  }
  model.dispose();
}

main().catch((error) => {
  console.error(`parallel: ${error.message}`);
  process.exit(1);
});
