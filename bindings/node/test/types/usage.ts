// Compiled (not run) by types.test.js: index.d.ts must describe the API as used here.
import { Generation, LlmError, Model, ParsedChat, Session, Status, StopReason, WeightType, systemInfo, version } from 'libllm';

async function main(): Promise<string> {
  const model: Model = await Model.load('stories260K.bin', { tokenizerPath: 'tok512.bin', weightType: 'q8_0', mmap: true });
  const ids: number[] = model.tokenize('Once upon a time', { addBos: true, parseSpecial: false });
  const text: string = model.detokenize(Int32Array.from(ids), { renderSpecial: false });
  const piece: Uint8Array = model.tokenPiece(ids[1]);
  const facts: number = model.vocabSize + model.contextLength + model.layerCount + piece.length;
  const bos: number | null = model.bos;
  const metadata: Record<string, string> = model.metadata;
  const arch: string | undefined = model.meta('general.architecture');
  const weightType: WeightType = model.weightType;
  const quantized = await Model.load('stories260K.bin', { weightType: 'q4_k' });

  const session: Session = model.createSession({ contextLength: 256, threads: 1, kvType: 'f16' });
  const controller = new AbortController();
  const generation: Generation = session.generate(text, {
    maxTokens: 20,
    temperature: 0.8,
    topP: 0.9,
    topK: 40,
    seed: 42n,
    signal: controller.signal,
  });
  let story = '';
  for await (const p of generation) story += p;
  const reason: StopReason | null = generation.stopReason;
  const tokens: number[] = generation.tokens;

  const whole: string = await session.complete(ids, { temperature: 0 });
  const json: string = await session.complete('Answer in JSON:', {
    maxTokens: 32,
    responseFormat: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: { type: 'object' } } },
  });
  await session.complete('', { responseFormat: { type: 'json_schema', schema: '{"type":"integer"}' } });
  await session.complete('', { responseFormat: { type: 'json_object' } });
  const yes: string = await session.complete('Yes or no?', { grammar: 'answer ::= "yes" | "no"', grammarRoot: 'answer' });
  session.reset();
  session.rewind(0);
  const state: Uint8Array = session.saveState();
  session.loadState(state);
  await session.saveStateFile('state.bin');
  await session.loadStateFile('state.bin');
  session.copyPrefixFrom(session, 0);
  const position: number = session.position + session.contextLength;

  try {
    await model.chat([{ role: 'user', content: 'Hi' }], { maxTokens: 8, contextLength: 128 });
  } catch (error) {
    if (error instanceof LlmError && error.code === Status.UNSUPPORTED) console.log(error.statusName);
  }
  const chatPrompt: string = model.applyChatTemplate([{ role: 'user', content: 'Hi' }], {
    vars: { enable_thinking: false },
    addGenerationPrompt: true,
  });
  const parsed: ParsedChat = model.parseChat('<think>a</think>b');
  const template: string = model.chatTemplate;
  console.log(chatPrompt.length, parsed.reasoningContent, parsed.toolCalls.length, template.length);
  session.dispose();
  model.dispose();
  quantized.dispose();
  return `${version} ${systemInfo} ${facts} ${bos} ${metadata['general.name']} ${arch} ${weightType} ${reason} ${tokens.length} ${whole} ${json} ${yes} ${position} ${story}`;
}

main();
