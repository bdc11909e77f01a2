#!/usr/bin/env node
'use strict';
// Streams a story from a small llama2.c model, piece by piece, while the
// event loop stays free (Ctrl-C stops the generation through an AbortSignal).
//
//   node examples/story.js [MODEL] [--tokenizer PATH] [--prompt TEXT]
//        [--temperature T] [--top-p P] [--seed N] [--max-tokens N] [--context N]
//
// MODEL defaults to $LLM_SHARED_DIR/models/stories260K.bin (with tok512.bin).
const path = require('node:path');
const { parseArgs } = require('node:util');
const { Model } = require('libllm');

const USAGE =
  'usage: node story.js [MODEL] [--tokenizer PATH] [--prompt TEXT] [--temperature T]\n' +
  '                     [--top-p P] [--seed N] [--max-tokens N] [--context N]';

function parse() {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      tokenizer: { type: 'string' },
      prompt: { type: 'string', default: 'Once upon a time' },
      temperature: { type: 'string', default: '0.8' },
      'top-p': { type: 'string', default: '0.9' },
      seed: { type: 'string', default: '42' },
      'max-tokens': { type: 'string', default: '0' },
      context: { type: 'string', default: '0' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  const shared = process.env.LLM_SHARED_DIR;
  let model = positionals[0];
  let tokenizer = values.tokenizer;
  if (!model && shared) {
    model = path.join(shared, 'models', 'stories260K.bin');
    tokenizer ??= path.join(shared, 'models', 'tok512.bin');
  }
  if (values.help || !model) {
    console.error(USAGE);
    process.exit(values.help ? 0 : 2);
  }
  return {
    model,
    tokenizer,
    prompt: values.prompt,
    temperature: Number(values.temperature),
    topP: Number(values['top-p']),
    seed: Number(values.seed),
    maxTokens: Number(values['max-tokens']),
    contextLength: Number(values.context),
  };
}

async function main() {
  const args = parse();
  const model = await Model.load(args.model, { tokenizerPath: args.tokenizer });
  const session = model.createSession({ contextLength: args.contextLength });

  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());

  const started = process.hrtime.bigint();
  const story = session.generate(args.prompt, {
    temperature: args.temperature,
    topP: args.topP,
    seed: args.seed,
    maxTokens: args.maxTokens,
    signal: controller.signal,
  });
  process.stdout.write(args.prompt);
  try {
    for await (const piece of story) process.stdout.write(piece);
  } catch (error) {
    if (error.name !== 'AbortError') throw error;
  }
  process.stdout.write('\n');

  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const n = story.tokens.length;
  console.error(`[${n} tokens in ${seconds.toFixed(2)} s (${(n / seconds).toFixed(0)} tok/s), stop: ${story.stopReason}]`);
  session.dispose();
  model.dispose();
}

main().catch((error) => {
  console.error(`story: ${error.message}${error.statusName ? ` (${error.statusName})` : ''}`);
  process.exitCode = 1;
});
