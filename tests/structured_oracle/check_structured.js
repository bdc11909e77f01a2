// Validates the JSON that gen_structured wrote (one line per schema and
// seed) against the corpus schemas with ajv (JSON Schema 2020-12, with
// ajv-formats for date, time, date-time and uuid). Every run must have
// ended by itself (an end-of-generation token once the JSON was complete),
// be valid UTF-8, parse as JSON and validate. Any miss fails with the
// schema, the seed and the output.
//
//   node check_structured.js OUTPUTS.jsonl CORPUS_DIR SEEDS
"use strict";
const fs = require("fs");
const path = require("path");
const Ajv2020 = require("ajv/dist/2020");
const addFormats = require("ajv-formats");

const [outputsPath, corpusDir, seedsArg] = process.argv.slice(2);
if (!outputsPath || !corpusDir || !seedsArg) {
  console.error("usage: node check_structured.js OUTPUTS.jsonl CORPUS_DIR SEEDS");
  process.exit(2);
}
const seeds = Number(seedsArg);

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const validators = new Map();
for (const file of fs.readdirSync(corpusDir).filter((f) => f.endsWith(".json")).sort()) {
  const schema = JSON.parse(fs.readFileSync(path.join(corpusDir, file), "utf8"));
  validators.set(file, { validate: ajv.compile(schema), seen: new Set() });
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const failures = [];
let runs = 0;
let tokens = 0;
for (const line of fs.readFileSync(outputsPath, "utf8").split("\n")) {
  if (!line.trim()) continue;
  const run = JSON.parse(line);
  runs++;
  tokens += run.tokens || 0;
  const where = `${run.schema} seed ${run.seed}`;
  const v = validators.get(run.schema);
  if (!v) {
    failures.push(`${where}: not a corpus schema`);
    continue;
  }
  v.seen.add(run.seed);
  const bytes = Buffer.from(run.output_hex, "hex");
  let text;
  try {
    text = decoder.decode(bytes);
  } catch (e) {
    failures.push(`${where}: output is not valid UTF-8: ${run.output_hex}`);
    continue;
  }
  if (!run.terminated) {
    failures.push(`${where}: did not end (${run.tokens} tokens): ${JSON.stringify(text)}`);
    continue;
  }
  let value;
  try {
    value = JSON.parse(text);
  } catch (e) {
    failures.push(`${where}: not JSON (${e.message}): ${JSON.stringify(text)}`);
    continue;
  }
  if (!v.validate(value))
    failures.push(`${where}: invalid: ${ajv.errorsText(v.validate.errors)}: ${text}`);
}
for (const [file, v] of validators)
  for (let s = 1; s <= seeds; s++)
    if (!v.seen.has(s)) failures.push(`${file} seed ${s}: no output`);

console.log(`${runs} runs of ${validators.size} schemas, ${tokens} tokens, ` +
            `${failures.length} failures`);
for (const f of failures) console.log("FAIL " + f);
process.exit(failures.length ? 1 : 0);
