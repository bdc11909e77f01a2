'use strict';
// Chat templates from the model itself (llm.h 1.4: llm_chat_apply,
// llm_model_chat_template, llm_chat_parse). Messages, tools and template
// variables go to the addon as JSON text; parsed answers come back as JSON.
const { invalidArgument } = require('./errors');
const opt = require('./options');

// A message as the template sees it: {role, content, ...} with the
// camelCase keys of parseChat()'s result written as templates name them.
function templateMessage(message, i) {
  if (message === null || typeof message !== 'object' || Array.isArray(message))
    throw invalidArgument(`messages[${i}] must be an object`);
  opt.string(message.role, `messages[${i}].role`);
  if (typeof message.content !== 'string' && !Array.isArray(message.content))
    throw invalidArgument(`messages[${i}].content must be a string (or a list of parts)`);
  const out = { ...message };
  for (const [camel, snake] of [['reasoningContent', 'reasoning_content'], ['toolCalls', 'tool_calls'], ['toolCallId', 'tool_call_id']]) {
    if (Object.hasOwn(out, camel)) {
      if (!Object.hasOwn(out, snake)) out[snake] = out[camel];
      delete out[camel];
    }
  }
  return out;
}

function jsonOf(value, name) {
  let text;
  try {
    text = JSON.stringify(value);
  } catch (e) {
    throw invalidArgument(`${name} cannot be written as JSON: ${e.message}`);
  }
  if (text === undefined) throw invalidArgument(`${name} cannot be written as JSON`);
  return text;
}

// The arguments of NativeModel.applyChatTemplate for messages and options.
function applyArguments(messages, options) {
  if (!Array.isArray(messages)) throw invalidArgument('messages must be an array');
  const o = opt.optionsObject(options, 'options');
  const messagesJson = jsonOf(messages.map(templateMessage), 'messages');
  let toolsJson = null;
  if (o.tools !== undefined && o.tools !== null) {
    if (!Array.isArray(o.tools)) throw invalidArgument('tools must be an array');
    toolsJson = jsonOf(o.tools, 'tools');
  }
  let varsJson = null;
  if (o.vars !== undefined && o.vars !== null) {
    if (typeof o.vars !== 'object' || Array.isArray(o.vars)) throw invalidArgument('vars must be an object');
    varsJson = jsonOf(o.vars, 'vars');
  }
  const addGenerationPrompt = opt.boolean(o.addGenerationPrompt, 'addGenerationPrompt', true);
  const template = o.template === undefined || o.template === null ? null : opt.string(o.template, 'template');
  return [messagesJson, toolsJson, varsJson, addGenerationPrompt, template];
}

// llm_chat_parse's JSON as {content, reasoningContent, toolCalls}.
function parsedAnswer(json) {
  const p = JSON.parse(json);
  return {
    content: p.content ?? '',
    reasoningContent: p.reasoning_content ?? '',
    toolCalls: (p.tool_calls ?? []).map((c) => ({ name: c.name, arguments: c.arguments })),
  };
}

module.exports = { applyArguments, parsedAnswer };
