'use strict';
const fs = require('node:fs/promises');
const binding = require('./binding');
const { invalidArgument } = require('./errors');
const { Generation, WINDOW } = require('./generation');
const { kInternal } = require('./internal');
const opt = require('./options');
const { structuredOutput } = require('./structured_output');

/**
 * One conversation with a model: the KV cache, the tokens seen so far and the
 * position. Generations on one session run one at a time; sessions on the
 * same model run in parallel. A session keeps its model's memory alive.
 */
class Session {
  #model;
  #native;
  #active = null; // the Generation running on this session

  /** @internal Use model.createSession(). */
  constructor(token, model, native) {
    if (token !== kInternal) throw invalidArgument('use model.createSession() to create a session');
    this.#model = model;
    this.#native = native;
  }

  /** The Model this session was created from. */
  get model() {
    return this.#model;
  }

  /** Positions (tokens) this session can hold. */
  get contextLength() {
    return this.#live().contextLength();
  }

  /** Tokens in the cache: where the next token goes. */
  get position() {
    return this.#live().position();
  }

  /** The token ids in the cache, in order. */
  get tokens() {
    return this.#live().tokens();
  }

  /** True while a generation runs. */
  get busy() {
    return this.#live().isBusy();
  }

  get disposed() {
    return this.#native === null;
  }

  /** Forget everything: back to position 0. */
  reset() {
    this.#live().reset();
  }

  /** Keep the first `position` tokens and forget the rest. */
  rewind(position) {
    this.#live().rewind(opt.integer(position, 'position', 0, opt.INT32_MAX));
  }

  /**
   * Feed `prompt` (text, or token ids), then generate. Returns an async
   * iterator of text pieces; nothing runs until it is first read.
   */
  generate(prompt, options) {
    const o = opt.optionsObject(options, 'options');
    const sampler = { ...opt.samplerSettings(o), ...structuredOutput(o) };
    const maxTokens = opt.integer(o.maxTokens, 'maxTokens', 0, opt.INT32_MAX, 0);
    const signal = opt.abortSignal(o.signal);
    const addSpecial = opt.boolean(o.addSpecial ?? o.addBos, 'addSpecial', undefined);
    const parseSpecial = opt.boolean(o.parseSpecial, 'parseSpecial', false);
    const ids = typeof prompt === 'string' ? null : opt.tokenIds(prompt ?? [], 'prompt');
    this.#live();

    const start = (callback) => {
      const native = this.#live();
      let promptIds = ids;
      if (promptIds === null) {
        // By default BOS & co. are added only at the start of the session.
        const add = addSpecial ?? native.position() === 0;
        const flags =
          (add ? binding.TOKENIZE_ADD_SPECIAL : 0) | (parseSpecial ? binding.TOKENIZE_PARSE_SPECIAL : 0);
        promptIds = Int32Array.from(native.tokenize(prompt, flags));
      }
      const running = native.generate(promptIds, sampler, maxTokens, WINDOW, callback);
      this.#active = generation;
      return running;
    };
    const onEnd = (ended) => {
      if (this.#active === ended) this.#active = null;
    };
    const generation = new Generation(start, signal, onEnd);
    return generation;
  }

  /** Like generate(), but resolves with the whole text. */
  async complete(prompt, options) {
    let text = '';
    for await (const piece of this.generate(prompt, options)) text += piece;
    return text;
  }

  /**
   * The session's state (tokens, KV cache, last logits, text stream) as a
   * Buffer: loadState() on a session of the same model, here or in another
   * process, continues exactly from it.
   */
  saveState() {
    return this.#live().saveState();
  }

  /**
   * Replace the conversation with a saved state. Throws an LlmError with code
   * STATE_MISMATCH (another model's state), FORMAT or TRUNCATED (damaged),
   * CONTEXT_FULL (longer than this session); the session is then unchanged.
   */
  loadState(state) {
    if (!(state instanceof Uint8Array)) throw invalidArgument('state must be a Buffer or Uint8Array');
    this.#live().loadState(state);
  }

  /** saveState() written to a file (replacing one at `path`). */
  async saveStateFile(path) {
    await fs.writeFile(path, this.saveState());
  }

  /** loadState() from a file (fs's ENOENT error if it is missing). */
  async loadStateFile(path) {
    const state = await fs.readFile(path);
    this.loadState(state);
  }

  /**
   * Make this session hold the first `n` tokens of `source` (default: all of
   * them) and their KV cache, as if it had run them: a shared system prompt
   * evaluated once, copied into each conversation. Same model required.
   */
  copyPrefixFrom(source, n) {
    if (!(source instanceof Session)) throw invalidArgument('source must be a Session');
    const from = source.#live();
    const count = n === undefined ? from.position() : opt.integer(n, 'n', 0, opt.INT32_MAX);
    this.#live().copyPrefixFrom(from, count);
  }

  /**
   * Free the session's memory now (a running generation is stopped first;
   * it ends with an LlmError of code CANCELLED). Later use throws.
   */
  dispose() {
    if (this.#native === null) return;
    this.#active?.stop('the session was disposed');
    this.#native.dispose();
    this.#native = null;
  }

  #live() {
    if (this.#native === null) throw invalidArgument('the session has been disposed');
    return this.#native;
  }
}

if (Symbol.dispose) Session.prototype[Symbol.dispose] = Session.prototype.dispose;

module.exports = { Session };
