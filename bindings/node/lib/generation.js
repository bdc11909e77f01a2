'use strict';
// A running generation as an async iterator of text pieces.
//
// The engine runs on a worker thread (src/generation.cc) and calls back here
// once per token and once at the end. Pieces wait in a queue until the reader
// asks for them; the worker may run at most WINDOW pieces ahead of the reader
// and then pauses (pull(1) per piece read lets it go on).
const { LlmError, Status } = require('./errors');

const WINDOW = 8;

function abortError(signal) {
  const error = new LlmError('the generation was aborted', Status.CANCELLED, { cause: signal.reason });
  error.name = 'AbortError';
  return error;
}

class Generation {
  #start; // (callback) => NativeGeneration; runs on the first next()
  #signal;
  #onEnd;
  #native = null;
  #onAbort = null;
  #state = 'idle'; // 'idle' -> 'running' -> 'done'
  #queue = []; // pieces not read yet
  #waiters = []; // next() calls waiting for a piece
  #error = null; // delivered by next() once the queue is read
  #tokens = [];
  #stopReason = null;
  #stopMessage = null; // why the owner stopped it (dispose)
  #quiet = false; // stopped by return(): end without an error
  #ended;
  #resolveEnded;

  /** @internal Use session.generate(). */
  constructor(start, signal, onEnd) {
    this.#start = start;
    this.#signal = signal;
    this.#onEnd = onEnd;
    this.#ended = new Promise((resolve) => (this.#resolveEnded = resolve));
  }

  [Symbol.asyncIterator]() {
    return this;
  }

  /** Token ids generated so far (the end-of-generation token is not included). */
  get tokens() {
    return this.#tokens.slice();
  }

  /**
   * Why the generation ended: 'eog' (end-of-generation token), 'maxTokens',
   * 'contextFull', 'cancelled' or 'error'; null while it runs.
   */
  get stopReason() {
    return this.#stopReason;
  }

  next() {
    if (this.#signal?.aborted && this.#state !== 'idle') return this.#aborted();
    if (this.#state === 'idle') {
      try {
        this.#begin();
      } catch (error) {
        this.#state = 'done';
        this.#onEnd?.(this);
        return Promise.reject(error);
      }
    }
    if (this.#queue.length > 0) {
      const value = this.#queue.shift();
      if (this.#state === 'running') this.#native.pull(1);
      return Promise.resolve({ value, done: false });
    }
    if (this.#state === 'done') return this.#settled();
    return new Promise((resolve, reject) => this.#waiters.push({ resolve, reject }));
  }

  /** Stops the generation (a `break` in `for await` calls it) and waits until the engine has stopped. */
  async return(value) {
    if (this.#state === 'idle') this.#state = 'done';
    if (this.#state === 'running') {
      this.#quiet = true;
      this.#native.cancel();
      await this.#ended;
    }
    this.#queue.length = 0;
    this.#error = null;
    return { value, done: true };
  }

  /** @internal The session stops its generation when it is disposed. */
  stop(message) {
    if (this.#state !== 'running') return;
    this.#stopMessage = message;
    this.#native.cancel();
  }

  /** @internal Resolves once the engine no longer runs for this generation. */
  get ended() {
    return this.#ended;
  }

  // After an abort the pieces not read yet are dropped: reject once the
  // engine has stopped (the session is then free again).
  async #aborted() {
    this.#queue.length = 0;
    await this.#ended;
    const error = this.#error;
    this.#error = null;
    if (error) throw error; // the abort error (see #finish), reported once
    return { value: undefined, done: true };
  }

  #begin() {
    if (this.#signal?.aborted) throw abortError(this.#signal);
    this.#native = this.#start(this.#onEvent);
    this.#state = 'running';
    if (this.#signal) {
      this.#onAbort = () => this.#native.cancel();
      this.#signal.addEventListener('abort', this.#onAbort, { once: true });
    }
  }

  // From the addon: (text, token) per piece, (null, stopReason, error, count) at the end.
  #onEvent = (text, tokenOrReason, error) => {
    if (text !== null) {
      this.#tokens.push(tokenOrReason);
      if (this.#signal?.aborted) return; // made before the worker saw the abort: dropped
      const waiter = this.#waiters.shift();
      if (waiter) {
        this.#native.pull(1);
        waiter.resolve({ value: text, done: false });
      } else {
        this.#queue.push(text);
      }
      return;
    }
    this.#finish(tokenOrReason, error);
  };

  #finish(reason, error) {
    this.#state = 'done';
    this.#stopReason = reason;
    if (this.#onAbort) this.#signal.removeEventListener('abort', this.#onAbort);
    if (error && error.code === Status.CANCELLED) {
      if (this.#quiet) error = null;
      else if (this.#signal?.aborted) error = abortError(this.#signal);
      else if (this.#stopMessage) error = new LlmError(this.#stopMessage, Status.CANCELLED);
    }
    this.#error = error;
    this.#onEnd?.(this);
    this.#resolveEnded();
    while (this.#waiters.length > 0) {
      const waiter = this.#waiters.shift();
      this.#settled().then(waiter.resolve, waiter.reject);
    }
  }

  #settled() {
    const error = this.#error;
    if (error) {
      this.#error = null;
      return Promise.reject(error);
    }
    return Promise.resolve({ value: undefined, done: true });
  }
}

module.exports = { Generation, WINDOW };
