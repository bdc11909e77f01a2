'use strict';
// Checks of user-supplied options: a wrong type or range is an LlmError with
// code INVALID_ARGUMENT before anything reaches the engine.
const { invalidArgument } = require('./errors');

function optionsObject(value, what) {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw invalidArgument(`${what} must be an object`);
  return value;
}

function string(value, name) {
  if (typeof value !== 'string') throw invalidArgument(`${name} must be a string`);
  return value;
}

function boolean(value, name, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') throw invalidArgument(`${name} must be a boolean`);
  return value;
}

function integer(value, name, min, max, fallback) {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max)
    throw invalidArgument(`${name} must be an integer within [${min}, ${max}]`);
  return value;
}

function number(value, name) {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidArgument(`${name} must be a finite number`);
  return value;
}

const INT32_MAX = 2 ** 31 - 1;

function tokenId(value, name = 'id') {
  return integer(value, name, -(2 ** 31), INT32_MAX);
}

// Token ids (any array-like of integers) as the Int32Array the addon takes.
function tokenIds(value, name) {
  if (value instanceof Int32Array) return value;
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) throw invalidArgument(`${name} must be an array of token ids`);
  const ids = new Int32Array(value.length);
  for (let i = 0; i < value.length; ++i) {
    ids[i] = tokenId(Number(value[i]), `${name}[${i}]`);
  }
  return ids;
}

// Sampler settings for the addon: only the keys given (llm.h has the defaults).
function samplerSettings(o) {
  const out = {};
  for (const key of ['temperature', 'topP', 'minP', 'repeatPenalty']) {
    const v = number(o[key], key);
    if (v !== undefined) out[key] = v;
  }
  for (const key of ['topK', 'repeatLastN']) {
    const v = integer(o[key], key, 0, INT32_MAX, undefined);
    if (v !== undefined) out[key] = v;
  }
  if (o.seed !== undefined) {
    if (typeof o.seed === 'bigint') {
      if (o.seed < 0n || o.seed >= 2n ** 64n) throw invalidArgument('seed must be within [0, 2^64)');
      out.seed = o.seed;
    } else {
      out.seed = integer(o.seed, 'seed', 0, Number.MAX_SAFE_INTEGER);
    }
  }
  return out;
}

function abortSignal(value) {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'object' || typeof value.aborted !== 'boolean' || typeof value.addEventListener !== 'function')
    throw invalidArgument('signal must be an AbortSignal');
  return value;
}

module.exports = { optionsObject, string, boolean, integer, number, tokenId, tokenIds, samplerSettings, abortSignal, INT32_MAX };
