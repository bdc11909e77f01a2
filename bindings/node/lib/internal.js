'use strict';
// Passed to constructors that users must not call directly.
module.exports = { kInternal: Symbol('libllm.internal') };
