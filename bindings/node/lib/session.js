'use strict';
const binding = require('./binding');
const { invalidArgument } = require('./errors');
const { Generation, WINDOW } = require('./generation');
const { kInternal } = require('./internal');
const opt = require('./options');

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
    const sampler = opt.samplerSettings(o);
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
