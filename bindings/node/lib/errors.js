'use strict';
const binding = require('./binding');

/**
 * Status codes of libllm (llm.h), by name without the LLM_ / LLM_ERR_ prefix:
 * Status.NOT_FOUND === -2.
 */
const Status = Object.freeze(
  Object.fromEntries(
    Object.entries(binding.status).map(([name, code]) => [name.replace(/^ERR_/, ''), code])
  )
);
const statusNames = new Map(Object.entries(binding.status).map(([name, code]) => [code, `LLM_${name}`]));

/**
 * Every error libllm reports: `code` is the llm_status number (< 0),
 * `statusName` its name in llm.h ("LLM_ERR_NOT_FOUND").
 */
class LlmError extends Error {
  constructor(message, code, options) {
    super(message, options);
    this.code = code;
    this.statusName = statusNames.get(code) ?? 'LLM_ERR_UNKNOWN';
  }
}
Object.defineProperty(LlmError.prototype, 'name', { value: 'LlmError', writable: true, configurable: true });

binding.setErrorClass(LlmError);

function invalidArgument(message) {
  return new LlmError(message, Status.INVALID_ARGUMENT);
}

module.exports = { Status, LlmError, invalidArgument };
