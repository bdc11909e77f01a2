'use strict';
// Structured output options of a generation: `responseFormat` (OpenAI's
// shape: a JSON Schema, or any JSON object) or `grammar` (GBNF). The result
// goes to the addon with the sampler settings, which hands it to
// llm_sampler_set_json_schema / llm_sampler_set_grammar; a schema or grammar
// the engine refuses is an LlmError with code GRAMMAR.
const { invalidArgument } = require('./errors');

const ANY_OBJECT = '{"type":"object"}';

// C strings end at the first NUL: refuse text that would be cut there.
function cString(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`${name} must be a string`);
  if (value.includes('\0')) throw invalidArgument(`${name} must not contain NUL characters`);
  return value;
}

// A schema as JSON text: a string is taken as it is, an object is stringified.
function schemaText(schema, name) {
  if (typeof schema === 'string') return cString(schema, name);
  if (schema === null || typeof schema !== 'object')
    throw invalidArgument(`${name} must be a JSON Schema (an object, or its JSON text)`);
  let text;
  try {
    text = JSON.stringify(schema);
  } catch (error) {
    throw invalidArgument(`${name} cannot be written as JSON: ${error.message}`);
  }
  if (typeof text !== 'string') throw invalidArgument(`${name} cannot be written as JSON`);
  return text;
}

function jsonSchemaOf(format) {
  if (format.json_schema === undefined) {
    if (format.schema === undefined) throw invalidArgument('responseFormat json_schema needs json_schema.schema (or schema)');
    return schemaText(format.schema, 'responseFormat.schema');
  }
  const spec = format.json_schema;
  if (spec === null || typeof spec !== 'object') throw invalidArgument('responseFormat.json_schema must be an object');
  if (spec.name !== undefined && typeof spec.name !== 'string')
    throw invalidArgument('responseFormat.json_schema.name must be a string');
  if (spec.strict !== undefined && spec.strict !== null && typeof spec.strict !== 'boolean')
    throw invalidArgument('responseFormat.json_schema.strict must be a boolean');
  if (spec.schema === undefined) throw invalidArgument('responseFormat.json_schema.schema is missing');
  return schemaText(spec.schema, 'responseFormat.json_schema.schema');
}

// { jsonSchema } or { grammar, grammarRoot? } or {} for the addon's sampler settings.
function structuredOutput(o) {
  const format = o.responseFormat;
  const out = {};
  if (format !== undefined && format !== null) {
    if (typeof format !== 'object') throw invalidArgument('responseFormat must be an object');
    switch (format.type) {
      case 'json_schema':
        out.jsonSchema = jsonSchemaOf(format);
        break;
      case 'json_object':
        out.jsonSchema = ANY_OBJECT;
        break;
      case 'text':
        break;
      default:
        throw invalidArgument(`responseFormat.type must be 'json_schema', 'json_object' or 'text'`);
    }
  }
  if (o.grammar !== undefined) {
    if (out.jsonSchema !== undefined) throw invalidArgument('give either grammar or responseFormat, not both');
    out.grammar = cString(o.grammar, 'grammar');
    if (o.grammarRoot !== undefined) out.grammarRoot = cString(o.grammarRoot, 'grammarRoot');
  } else if (o.grammarRoot !== undefined) {
    throw invalidArgument('grammarRoot needs grammar');
  }
  return out;
}

module.exports = { structuredOutput };
