'use strict';
// libllm for Node.js: see README.md and index.d.ts.
const binding = require('./lib/binding');
const { LlmError, Status } = require('./lib/errors');
const { Generation } = require('./lib/generation');
const { Model } = require('./lib/model');
const { Session } = require('./lib/session');

module.exports = {
  Model,
  Session,
  Generation,
  LlmError,
  Status,
  /** Version of the compiled-in libllm ("1.5.0"). */
  version: binding.version,
  /**
   * What libllm runs on, for logs and bug reports: "simd=avx2vnni
   * simd_best=avx2vnni cores=8" (llm_system_info in llm.h).
   */
  systemInfo: binding.systemInfo,
};
