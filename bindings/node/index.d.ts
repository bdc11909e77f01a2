// Type definitions for libllm (Node.js bindings).

/** Status codes of libllm (llm.h) by name: `Status.NOT_FOUND === -2`. */
export declare const Status: Readonly<{
  OK: 0;
  INVALID_ARGUMENT: -1;
  NOT_FOUND: -2;
  IO: -3;
  TRUNCATED: -4;
  SIZE_MISMATCH: -5;
  BAD_DIMENSIONS: -6;
  FORMAT: -7;
  TOKENIZER_MISMATCH: -8;
  UNSUPPORTED: -9;
  TOKEN_OUT_OF_RANGE: -10;
  CONTEXT_FULL: -11;
  BUFFER_TOO_SMALL: -12;
  CANCELLED: -13;
  OUT_OF_MEMORY: -14;
  INTERNAL: -15;
  TEMPLATE: -16;
  GRAMMAR: -17;
  STATE_MISMATCH: -18;
}>;

export type StatusCode = (typeof Status)[keyof typeof Status];

/** Version of the compiled-in libllm, e.g. "1.5.0". */
export declare const version: string;

/**
 * What libllm runs on, for logs and bug reports: space-separated key=value
 * pairs such as "simd=avx2vnni simd_best=avx2vnni cores=8". `simd` is the
 * kernel level in use (the CPU's best unless the environment variable
 * LLM_SIMD lowers it), `simd_best` the best this CPU and OS support, `cores`
 * the physical cores (a session's default thread count). Later versions may
 * add keys.
 */
export declare const systemInfo: string;

/**
 * Every error libllm reports. `code` is the llm_status number, `statusName`
 * its name in llm.h ("LLM_ERR_NOT_FOUND"). An aborted generation rejects with
 * code CANCELLED and name "AbortError" (cause: the signal's reason).
 */
export declare class LlmError extends Error {
  readonly code: StatusCode;
  readonly statusName: string;
  private constructor();
}

/**
 * In-memory type of the weight matrices (llm_weight_type_name in llm.h). The
 * block-quantized types are those of GGUF files; 'auto' keeps the file's type.
 */
export type WeightType =
  | 'auto'
  | 'f32'
  | 'bf16'
  | 'f16'
  | 'q8_0'
  | 'q4_0'
  | 'q4_1'
  | 'q5_0'
  | 'q5_1'
  | 'q4_k'
  | 'q5_k'
  | 'q6_k';
export type KvType = 'f32' | 'f16';

/** What `signal` accepts: an AbortSignal (or anything shaped like one). */
export interface AbortSignalLike {
  readonly aborted: boolean;
  readonly reason?: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface LoadOptions {
  /** tokenizer.bin of a llama2.c checkpoint (default: "tokenizer.bin" beside the model). */
  tokenizerPath?: string;
  /**
   * 'auto' (default) keeps the file's type; 'f16', 'q8_0', 'q4_k', ... convert
   * fp32/fp16 weights at load (a matrix whose rows do not fit the type's blocks
   * keeps its type; block-quantized GGUF weights are used as they are).
   */
  weightType?: WeightType;
  /** Memory-map the file (default true) instead of reading it. */
  mmap?: boolean;
}

export interface TokenizeOptions {
  /** Add BOS/EOS as the model's tokenizer does (default true). */
  addSpecial?: boolean;
  /** Alias of addSpecial. */
  addBos?: boolean;
  /** Special tokens written in the text ("<|im_start|>") become their ids (default false). */
  parseSpecial?: boolean;
}

export interface DetokenizeOptions {
  /** Write special tokens' text instead of skipping them (default false). */
  renderSpecial?: boolean;
}

export interface SessionOptions {
  /** Positions the session holds (default 0 = the model's maximum). */
  contextLength?: number;
  /** Compute threads (default 0 = the physical cores). */
  threads?: number;
  /** The KV cache's values: 'f32' (default) or 'f16' (half the memory, rounded to fp16). */
  kvType?: KvType;
}

export interface SamplingOptions {
  /** 0 = greedy (argmax); default 1.0. */
  temperature?: number;
  /** Nucleus sampling; 1 = off; default 0.9. */
  topP?: number;
  /** 0 = off (default). */
  topK?: number;
  /** Drop tokens with p < minP * p_max; 0 = off (default). */
  minP?: number;
  /** > 1 discourages repeats; 1 = off (default). */
  repeatPenalty?: number;
  /** Window of recent tokens for the penalty (default 64). */
  repeatLastN?: number;
  /** RNG seed (default 0: a fixed constant, so runs repeat). */
  seed?: number | bigint;
}

export interface GenerateOptions extends SamplingOptions {
  /** Tokens to generate at most; 0 (default) = until end-of-generation or a full context. */
  maxTokens?: number;
  /** Stops the generation; it then rejects with an LlmError (code CANCELLED, name AbortError). */
  signal?: AbortSignalLike;
  /** For a text prompt: add BOS & co. (default: only at position 0). */
  addSpecial?: boolean;
  /** Alias of addSpecial. */
  addBos?: boolean;
  /** For a text prompt: parse special tokens written in it (default false). */
  parseSpecial?: boolean;
  /**
   * Structured output (OpenAI's shape): the text is JSON that validates against
   * a JSON Schema, or any JSON object. A schema libllm refuses (see
   * docs/structured-output.md) makes the generation reject with LlmError GRAMMAR.
   */
  responseFormat?: ResponseFormat;
  /** Structured output: a GBNF grammar the text follows (LlmError GRAMMAR if it is bad). */
  grammar?: string;
  /** The grammar's start rule (default "root"). */
  grammarRoot?: string;
}

/** A JSON Schema: an object, or its JSON text. */
export type JsonSchema = string | { [key: string]: unknown };

export type ResponseFormat =
  | { type: 'json_schema'; json_schema: { schema: JsonSchema; name?: string; strict?: boolean | null } }
  | { type: 'json_schema'; schema: JsonSchema }
  /** Any JSON object: the schema {"type": "object"}. */
  | { type: 'json_object' }
  /** Unconstrained text (the default). */
  | { type: 'text' };

export type ChatOptions = SessionOptions & GenerateOptions;

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | (string & {});
  content: string;
}

/** Options of model.applyChatTemplate(). */
export interface ChatTemplateOptions {
  /** Tool definitions (JSON-able), given to the template as `tools`. */
  tools?: readonly unknown[] | null;
  /** Extra template variables, e.g. {enable_thinking: false}. */
  vars?: Record<string, unknown> | null;
  /** End by opening the assistant's turn (default true). */
  addGenerationPrompt?: boolean;
  /** A Jinja template to use instead of the model's. */
  template?: string | null;
}

/** A message for applyChatTemplate(): earlier answers may carry their parsed parts. */
export interface TemplateMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | (string & {});
  content: string | readonly unknown[];
  reasoningContent?: string;
  toolCalls?: readonly unknown[];
  toolCallId?: string;
  [key: string]: unknown;
}

/** A tool call found in an answer. */
export interface ToolCall {
  name: string;
  arguments: unknown;
}

/** An answer split by model.parseChat(). */
export interface ParsedChat {
  content: string;
  reasoningContent: string;
  toolCalls: ToolCall[];
}

/** Why a generation ended. */
export type StopReason = 'eog' | 'maxTokens' | 'contextFull' | 'cancelled' | 'error';

/** A text prompt, or token ids. */
export type Prompt = string | ArrayLike<number>;

/**
 * A running generation: an async iterator of text pieces (complete UTF-8).
 * Nothing runs until it is first read; `break` stops it.
 */
export declare class Generation implements AsyncIterableIterator<string> {
  private constructor();
  [Symbol.asyncIterator](): Generation;
  next(): Promise<IteratorResult<string, undefined>>;
  /** Stops the generation and resolves once the engine has stopped. */
  return(value?: any): Promise<IteratorResult<string, any>>;
  /** Token ids generated so far (without the end-of-generation token). */
  readonly tokens: number[];
  /** Why it ended; null while it runs. */
  readonly stopReason: StopReason | null;
}

/** One conversation: KV cache, tokens, position. Keeps its model alive. */
export declare class Session {
  private constructor();
  readonly model: Model;
  readonly contextLength: number;
  /** Tokens in the cache (throws while generating). */
  readonly position: number;
  /** The token ids in the cache (throws while generating). */
  readonly tokens: number[];
  /** True while a generation runs. */
  readonly busy: boolean;
  readonly disposed: boolean;
  /** Feed the prompt, then generate; one generation at a time per session. */
  generate(prompt: Prompt, options?: GenerateOptions): Generation;
  /** The whole generated text. */
  complete(prompt: Prompt, options?: GenerateOptions): Promise<string>;
  /** Back to position 0. */
  reset(): void;
  /** Keep the first `position` tokens. */
  rewind(position: number): void;
  /** The state (tokens, KV cache, logits, text stream) as a Buffer: loadState() continues from it exactly. */
  saveState(): Uint8Array;
  /** Replace the conversation with a saved state (LlmError STATE_MISMATCH, FORMAT, TRUNCATED, CONTEXT_FULL). */
  loadState(state: Uint8Array): void;
  /** saveState() to a file. */
  saveStateFile(path: string): Promise<void>;
  /** loadState() from a file. */
  loadStateFile(path: string): Promise<void>;
  /** Hold the first `n` tokens of `source` (default: all) and their KV cache, as if run here. */
  copyPrefixFrom(source: Session, n?: number): void;
  /** Free the memory now; a running generation is stopped. */
  dispose(): void;
}

/** How model.embed() turns the tokens' states into a vector ('default': the model's own). */
export type Pooling = 'default' | 'mean' | 'last' | 'first' | 'none';

export interface EmbedOptions {
  pooling?: Pooling;
  /** Scale to unit L2 length (default true). */
  normalize?: boolean;
  /** Compute threads; 0 or absent: the physical cores. */
  threads?: number;
}

/** Weights and tokenizer, immutable, shared by sessions. */
export declare class Model {
  private constructor();
  /** Load a llama2.c .bin or a Hugging Face folder, off the main thread. */
  static load(path: string, options?: LoadOptions): Promise<Model>;
  readonly arch: string;
  readonly vocabSize: number;
  /** The longest context the model supports. */
  readonly contextLength: number;
  readonly embeddingLength: number;
  readonly layerCount: number;
  readonly headCount: number;
  readonly kvHeadCount: number;
  readonly paramCount: number;
  readonly weightBytes: number;
  readonly weightType: Exclude<WeightType, 'auto'>;
  /**
   * The model file's metadata as text (a GGUF file's key-value pairs, numbers
   * and booleans written out, arrays left out). Every model has
   * 'general.architecture'. A new object on each read.
   */
  readonly metadata: Record<string, string>;
  /** One metadata value, or undefined if the file has no such key. */
  meta(key: string): string | undefined;
  readonly bos: number | null;
  readonly eos: number | null;
  readonly disposed: boolean;
  tokenize(text: string, options?: TokenizeOptions): number[];
  detokenize(ids: ArrayLike<number>, options?: DetokenizeOptions): string;
  /** Raw bytes of one token. */
  tokenPiece(id: number): Uint8Array;
  isEndOfGeneration(id: number): boolean;
  isSpecial(id: number): boolean;
  /** Messages in the chat template; throws LlmError UNSUPPORTED without one. */
  formatChat(messages: readonly ChatMessage[], options?: { addAssistant?: boolean }): string;
  /**
   * The prompt for a conversation, from the model's own chat template
   * (tokenize it with parseSpecial). Throws LlmError TEMPLATE or UNSUPPORTED.
   */
  applyChatTemplate(messages: readonly TemplateMessage[], options?: ChatTemplateOptions): string;
  /** The model's Jinja chat template ('' if it has none). */
  readonly chatTemplate: string;
  /** Split a generated answer into reasoning, content and tool calls. */
  parseChat(text: string): ParsedChat;
  createSession(options?: SessionOptions): Session;
  /** Format, generate in a fresh session, resolve with the reply. */
  chat(messages: readonly ChatMessage[], options?: ChatOptions): Promise<string>;
  /**
   * The text's embedding (final hidden states, pooled), computed off the
   * main thread: embeddingLength values, unit length unless normalize is
   * false; one array per token with pooling 'none'.
   */
  embed(text: string, options?: EmbedOptions & { pooling?: Exclude<Pooling, 'none'> }): Promise<Float32Array>;
  embed(text: string, options: EmbedOptions & { pooling: 'none' }): Promise<Float32Array[]>;
  /** The pooling the model file asks for ('last' for Qwen3-Embedding, else 'mean'). */
  readonly defaultPooling: Exclude<Pooling, 'none' | 'default'>;
  /** Drop this object's hold on the weights (sessions keep theirs). */
  dispose(): void;
}
