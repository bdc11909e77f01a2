'use strict';
const binding = require('./binding');
const chat = require('./chat');
const { invalidArgument } = require('./errors');
const { kInternal } = require('./internal');
const opt = require('./options');
const { Session } = require('./session');

const weightTypeNames = new Map(Object.entries(binding.weightTypes).map(([name, code]) => [code, name]));
// LLM_POOLING_* of llm.h, by name.
const poolings = { default: 0, none: 1, mean: 2, last: 3, first: 4 };
const poolingNames = new Map(Object.entries(poolings).map(([name, code]) => [code, name]));

/**
 * A loaded model: weights and tokenizer, immutable, shared by any number of
 * sessions. Its memory is freed when the Model and all its sessions are
 * garbage-collected or disposed.
 */
class Model {
  #native;
  #info;

  /** @internal Use Model.load(). */
  constructor(token, native) {
    if (token !== kInternal) throw invalidArgument('use Model.load() to load a model');
    this.#native = native;
    this.#info = native.info();
  }

  /**
   * Load a llama2.c checkpoint (.bin) or a Hugging Face folder. The file is
   * read on a worker thread; the promise rejects with an LlmError
   * (code NOT_FOUND, FORMAT, ...).
   */
  static async load(path, options) {
    opt.string(path, 'path');
    const o = opt.optionsObject(options, 'options');
    const tokenizerPath = o.tokenizerPath === undefined || o.tokenizerPath === null ? null : opt.string(o.tokenizerPath, 'tokenizerPath');
    const weightName = o.weightType === undefined ? 'auto' : String(o.weightType).toLowerCase();
    const weightType = Object.hasOwn(binding.weightTypes, weightName) ? binding.weightTypes[weightName] : undefined;
    if (weightType === undefined)
      throw invalidArgument(`weightType must be one of ${Object.keys(binding.weightTypes).join(', ')}`);
    const mmap = opt.boolean(o.mmap, 'mmap', true);
    const native = await binding.loadModel(path, tokenizerPath, weightType, mmap);
    return new Model(kInternal, native);
  }

  // Getters for the plain facts of native info() (documented in index.d.ts).
  static {
    const facts = ['arch', 'vocabSize', 'contextLength', 'embeddingLength', 'layerCount', 'headCount', 'kvHeadCount'];
    for (const key of [...facts, 'paramCount', 'weightBytes']) {
      Object.defineProperty(Model.prototype, key, {
        get() {
          return this.#get(key);
        },
        configurable: true,
      });
    }
  }

  /** In-memory type of the matrices: 'f32', 'bf16', 'f16', 'q8_0', 'q4_k', ... */
  get weightType() {
    return weightTypeNames.get(this.#get('weightType'));
  }

  /**
   * The model file's metadata as text, by key (a GGUF file's key-value pairs;
   * every model has 'general.architecture'). A new object on each read.
   */
  get metadata() {
    return Object.fromEntries(this.#live().metadata());
  }

  /** One metadata value, or undefined if the file has no such key. */
  meta(key) {
    return this.#live().meta(opt.string(key, 'key'));
  }
  /** BOS token id, or null. */
  get bos() {
    return this.#token('bos');
  }
  /** The main EOS token id, or null. */
  get eos() {
    return this.#token('eos');
  }

  get disposed() {
    return this.#native === null;
  }

  /**
   * Text to token ids. addSpecial (alias addBos, default true) adds BOS/EOS as
   * the model's tokenizer does; parseSpecial (default false) turns special
   * tokens written in the text ("<|im_start|>") into their ids.
   */
  tokenize(text, options) {
    opt.string(text, 'text');
    const o = opt.optionsObject(options, 'options');
    const add = opt.boolean(o.addSpecial ?? o.addBos, 'addSpecial', true);
    const parse = opt.boolean(o.parseSpecial, 'parseSpecial', false);
    const flags = (add ? binding.TOKENIZE_ADD_SPECIAL : 0) | (parse ? binding.TOKENIZE_PARSE_SPECIAL : 0);
    return this.#live().tokenize(text, flags);
  }

  /** Token ids to text; special tokens are skipped unless renderSpecial. */
  detokenize(ids, options) {
    const o = opt.optionsObject(options, 'options');
    const render = opt.boolean(o.renderSpecial, 'renderSpecial', false);
    return this.#live().detokenize(opt.tokenIds(ids, 'ids'), render ? binding.DETOKENIZE_RENDER_SPECIAL : 0);
  }

  /** The raw bytes of one token (may be part of a UTF-8 character). */
  tokenPiece(id) {
    return this.#live().tokenPiece(opt.tokenId(id));
  }

  /** True if `id` ends a generation (EOS, and BOS for llama2.c models). */
  isEndOfGeneration(id) {
    return this.#live().isEog(opt.tokenId(id));
  }

  /** True if `id` is a special/control token. */
  isSpecial(id) {
    return this.#live().isSpecial(opt.tokenId(id));
  }

  /**
   * Messages ({role, content}) in the model's chat format; with addAssistant
   * (default true) the text ends by opening the assistant's turn. Throws an
   * LlmError with code UNSUPPORTED if the model has no chat format.
   */
  formatChat(messages, options) {
    const o = opt.optionsObject(options, 'options');
    const addAssistant = opt.boolean(o.addAssistant, 'addAssistant', true);
    if (!Array.isArray(messages)) throw invalidArgument('messages must be an array');
    return this.#live().formatChat(messages, addAssistant);
  }

  /**
   * The prompt for a conversation, rendered with the model's own chat
   * template (or options.template). messages: [{role, content}, ...] (also
   * toolCalls / reasoningContent of earlier answers). Options: tools (an
   * array of tool definitions), vars (extra template variables, e.g.
   * {enable_thinking: false}), addGenerationPrompt (default true: end by
   * opening the assistant's turn), template (a Jinja template to use
   * instead). Tokenize the prompt with parseSpecial. Throws an LlmError:
   * TEMPLATE (the template failed, the message names the line),
   * UNSUPPORTED (no template), INVALID_ARGUMENT.
   */
  applyChatTemplate(messages, options) {
    const args = chat.applyArguments(messages, options);
    return this.#live().applyChatTemplate(...args);
  }

  /** The model's Jinja chat template ('' if it has none). */
  get chatTemplate() {
    return this.#live().chatTemplate();
  }

  /**
   * Split a generated answer into {content, reasoningContent, toolCalls}:
   * a <think>...</think> block is the reasoning, <tool_call> blocks (and a
   * Llama 3.1 JSON call) are toolCalls [{name, arguments}].
   */
  parseChat(text) {
    opt.string(text, 'text');
    return chat.parsedAnswer(this.#live().parseChat(text));
  }

  /**
   * A new session. contextLength: positions to hold (default: the model's
   * maximum); threads: compute threads (default: the physical cores);
   * kvType: 'f32' (default) or 'f16' (a KV cache of half the memory, keys
   * and values rounded to fp16).
   */
  createSession(options) {
    const o = opt.optionsObject(options, 'options');
    const contextLength = opt.integer(o.contextLength, 'contextLength', 0, opt.INT32_MAX, 0);
    const threads = opt.integer(o.threads, 'threads', 0, opt.INT32_MAX, 0);
    const kvType = binding.kvTypes[o.kvType === undefined ? 'f32' : o.kvType];
    if (typeof kvType !== 'number')
      throw invalidArgument(`kvType must be one of ${Object.keys(binding.kvTypes).join(', ')}`);
    return new Session(kInternal, this, this.#live().createSession(contextLength, threads, kvType));
  }

  /**
   * The embedding of `text` (tokenized with the model's special tokens),
   * computed on a worker thread: a Float32Array of embeddingLength values,
   * of unit length unless normalize is false. pooling: 'mean', 'last',
   * 'first' or 'none' (then an array of one Float32Array per token);
   * default: the model's own (defaultPooling). threads: compute threads
   * (default: the physical cores).
   */
  async embed(text, options) {
    opt.string(text, 'text');
    const o = opt.optionsObject(options, 'options');
    const pooling = poolings[o.pooling === undefined ? 'default' : o.pooling];
    if (typeof pooling !== 'number' || !Object.hasOwn(poolings, o.pooling ?? 'default'))
      throw invalidArgument(`pooling must be one of ${Object.keys(poolings).join(', ')}`);
    const normalize = opt.boolean(o.normalize, 'normalize', true);
    const threads = opt.integer(o.threads, 'threads', 0, opt.INT32_MAX, 0);
    const ids = Int32Array.from(this.tokenize(text));
    if (ids.length === 0) throw invalidArgument('the text has no tokens');
    const values = await this.#live().embed(ids, pooling, normalize, threads);
    if (pooling !== poolings.none) return values;
    const dim = this.embeddingLength;
    const rows = [];
    for (let t = 0; t < values.length / dim; ++t) rows.push(values.subarray(t * dim, (t + 1) * dim));
    return rows;
  }

  /** The pooling the model file asks for: 'last' for Qwen3-Embedding, else 'mean'. */
  get defaultPooling() {
    return poolingNames.get(this.#live().defaultPooling());
  }

  /**
   * Answer a conversation: format `messages` with the chat template, generate
   * in a fresh session and resolve with the reply. Options: those of
   * createSession() and of session.generate().
   */
  async chat(messages, options) {
    const o = opt.optionsObject(options, 'options');
    const prompt = this.formatChat(messages, { addAssistant: true });
    const session = this.createSession({ contextLength: o.contextLength, threads: o.threads, kvType: o.kvType });
    try {
      return await session.complete(prompt, { ...o, addSpecial: true, parseSpecial: true });
    } finally {
      session.dispose();
    }
  }

  /** Release this object's hold on the model (sessions keep theirs). Later use throws. */
  dispose() {
    if (this.#native === null) return;
    this.#native.dispose();
    this.#native = null;
  }

  #live() {
    if (this.#native === null) throw invalidArgument('the model has been disposed');
    return this.#native;
  }

  #get(key) {
    this.#live();
    return this.#info[key];
  }

  #token(key) {
    const id = this.#get(key);
    return id === binding.TOKEN_NONE ? null : id;
  }
}

if (Symbol.dispose) Model.prototype[Symbol.dispose] = Model.prototype.dispose;

module.exports = { Model };
