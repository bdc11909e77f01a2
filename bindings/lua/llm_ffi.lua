-- llm_ffi.lua — libllm for LuaJIT through its FFI: no C module to build.
--
--   local llm = require("llm_ffi")   -- the same API as require("llm")
--
-- The declarations come from llm_h.lua (generated from llm.h). The library is
-- $LLM_LIBRARY if set, else libllm.so.1 / llm.dll / libllm.1.dylib from the
-- system's search path. Native objects are also freed by ffi.gc when
-- collected; a context's finalizer keeps its model alive until it has run.
local ffi = require("ffi")
local header = require("llm_h")

ffi.cdef(header.cdef)
local default_name = ({ Windows = "llm", OSX = "libllm.1.dylib" })[ffi.os] or "libllm.so.1"
local lib = ffi.load(os.getenv("LLM_LIBRARY") or default_name)

local C = header.constants
local B = { const = C }

-- status, message: llm_last_error() is read right after the failing call,
-- on the thread that made it.
local function result(status)
    if status ~= C.LLM_OK then return status, ffi.string(lib.llm_last_error()) end
    return status, nil
end

local function ids_array(ids)
    local n = #ids
    local array = ffi.new("llm_token[?]", n)
    for i = 1, n do
        local id = ids[i]
        if type(id) ~= "number" or id % 1 ~= 0 then error("token ids must be integers", 4) end
        array[i - 1] = id
    end
    return array, n
end

-- One scratch buffer per element type, grown on demand.
local scratch = {}
local function buffer(ctype, cap)
    local b = scratch[ctype]
    if not b or b.cap < cap then
        b = { cap = cap, data = ffi.new(ctype .. "[?]", math.max(cap, 1)) }
        scratch[ctype] = b
    end
    return cap > 0 and b.data or nil
end
local n_out = ffi.new("size_t[1]")

local function owned(handle, free) return ffi.gc(handle, free) end
local function release(handle, free)
    ffi.gc(handle, nil)
    free(handle)
end

function B.version() return ffi.string(lib.llm_version()) end
function B.version_number() return tonumber(lib.llm_version_number()) end
function B.system_info() return ffi.string(lib.llm_system_info()) end
function B.status_str(status) return ffi.string(lib.llm_status_str(status)) end

function B.model_load(path, opts)
    local params = ffi.new("llm_model_params[1]", lib.llm_model_default_params())
    params[0].tokenizer_path = opts.tokenizer_path -- anchored by opts during the call
    params[0].weight_type = opts.weight_type
    params[0].use_mmap = opts.use_mmap
    local out = ffi.new("llm_model *[1]")
    local status, message = result(lib.llm_model_load(path, params, out))
    if status ~= C.LLM_OK then return status, message, nil end
    return status, nil, owned(out[0], lib.llm_model_free)
end

function B.model_free(model) release(model, lib.llm_model_free) end

-- (buf, cap, &needed) calls that write text: status, message, text, needed
local function text_call(cap, call)
    local buf = buffer("char", cap)
    local status, message = result(call(buf))
    local n = tonumber(n_out[0])
    return status, message, n <= cap and n > 0 and ffi.string(buf, n) or "", n
end

function B.model_meta_count(model) return lib.llm_model_meta_count(model) end

function B.model_meta_key(model, index, cap)
    return text_call(cap, function(buf) return lib.llm_model_meta_key(model, index, buf, cap, n_out) end)
end

function B.model_meta_value(model, key, cap)
    return text_call(cap, function(buf) return lib.llm_model_meta_value(model, key, buf, cap, n_out) end)
end

function B.weight_type_name(value) return ffi.string(lib.llm_weight_type_name(value)) end
function B.weight_type_from_name(name) return lib.llm_weight_type_from_name(name) end

function B.model_get(getter, model)
    local value = lib[getter](model)
    if type(value) ~= "cdata" then return value end
    if ffi.istype("const char *", value) then return ffi.string(value) end
    return tonumber(value) -- int64_t
end

function B.token_is_eog(model, token) return lib.llm_token_is_eog(model, token) ~= 0 end

function B.tokenize(model, text, flags, cap)
    local buf = buffer("llm_token", cap)
    local status, message = result(lib.llm_tokenize(model, text, #text, flags, buf, cap, n_out))
    local n = tonumber(n_out[0])
    local ids = {}
    if n <= cap then
        for i = 1, n do ids[i] = buf[i - 1] end
    end
    return status, message, ids, n
end

function B.detokenize(model, ids, flags, cap)
    local array, count = ids_array(ids)
    local buf = buffer("char", cap)
    local status, message = result(lib.llm_detokenize(model, array, count, flags, buf, cap, n_out))
    local n = tonumber(n_out[0])
    return status, message, n <= cap and n > 0 and ffi.string(buf, n) or "", n
end

function B.context_new(model, n_ctx, n_threads, kv_type, embeddings)
    local params = ffi.new("llm_context_params[1]", lib.llm_context_default_params())
    params[0].n_ctx = n_ctx
    params[0].n_threads = n_threads
    params[0].kv_type = kv_type
    params[0].embeddings = embeddings or 0
    local out = ffi.new("llm_context *[1]")
    local status, message = result(lib.llm_context_new(model, params, out))
    if status ~= C.LLM_OK then return status, message, nil end
    return status, nil, owned(out[0], function(ctx)
        lib.llm_context_free(ctx)
        return model -- referenced here, so the model is collected after ctx
    end)
end

function B.context_free(ctx) release(ctx, lib.llm_context_free) end
B.context_reset = lib.llm_context_reset
B.context_cancel = lib.llm_context_cancel
B.context_position = lib.llm_context_position
function B.context_step_max_bytes(ctx) return tonumber(lib.llm_context_step_max_bytes(ctx)) end

function B.forward(ctx, ids)
    local array, count = ids_array(ids)
    return result(lib.llm_forward(ctx, array, count))
end

local token_out, eog_out = ffi.new("llm_token[1]"), ffi.new("int32_t[1]")

function B.step(ctx, sampler, cap)
    local buf = buffer("char", cap)
    local status, message = result(lib.llm_context_step(ctx, sampler, token_out, eog_out, buf, cap, n_out))
    local n = tonumber(n_out[0])
    return status, message, token_out[0], eog_out[0], n <= cap and n > 0 and ffi.string(buf, n) or "", n
end

-- Batched steps (llm.batch): llm_step_batch produces no text, so each
-- context gets a detokenizer that has seen the tokens in it, as the
-- context's own stream has; streams[ctx] = {d, pos} lives for one
-- llm.batch and is rebuilt when tokens went in some other way (a prompt).
local function stream_for(streams, ctx, model)
    local position = lib.llm_context_position(ctx)
    local s = streams[ctx]
    if s and s.pos == position then return s end
    if s then release(s.d, lib.llm_detokenizer_free) end
    streams[ctx] = nil
    local out = ffi.new("llm_detokenizer *[1]")
    local status, message = result(lib.llm_detokenizer_new(model, out))
    if status ~= C.LLM_OK then return nil, status, message end
    s = { pos = position, d = owned(out[0], function(d)
        lib.llm_detokenizer_free(d)
        return model -- referenced here, so the model is collected after d
    end) }
    s.cap = tonumber(lib.llm_detokenizer_max_bytes(s.d))
    lib.llm_context_tokens(ctx, nil, 0, n_out)
    local n = tonumber(n_out[0])
    local ids = ffi.new("llm_token[?]", math.max(n, 1))
    lib.llm_context_tokens(ctx, ids, n, n_out)
    local text = buffer("char", s.cap)
    for i = 0, n - 1 do lib.llm_detokenizer_push(s.d, ids[i], text, s.cap, n_out) end
    streams[ctx] = s
    return s
end

-- One llm_step_batch over requests {ctx, sampler, model} of one model: for
-- each, {status, message, token, eog, text}, the results of B.step.
function B.step_batch(requests, streams)
    local n = #requests
    local ctxs, samplers = ffi.new("llm_context *[?]", n), ffi.new("llm_sampler *[?]", n)
    for i, r in ipairs(requests) do
        local s, status, message = stream_for(streams, r.ctx, r.model) -- before the token goes in
        if not s then
            local results = {}
            for j = 1, n do results[j] = { status, message, C.LLM_TOKEN_NONE, 0, "" } end
            return results
        end
        ctxs[i - 1], samplers[i - 1] = r.ctx, r.sampler
    end
    local tokens, eogs = ffi.new("llm_token[?]", n), ffi.new("int32_t[?]", n)
    local statuses = ffi.new("llm_status[?]", n)
    local _, message = result(lib.llm_step_batch(ctxs, samplers, n, tokens, eogs, statuses))
    local results = {}
    for i, r in ipairs(requests) do
        local status, token, eog, text = statuses[i - 1], tokens[i - 1], eogs[i - 1], ""
        -- the call's message names only the first failing context
        local msg = status == C.LLM_ERR_INVALID_ARGUMENT and message or nil
        if status ~= C.LLM_OK and not msg then msg = B.status_str(status) end
        if (status == C.LLM_OK or status == C.LLM_ERR_CONTEXT_FULL) and eog == 0 then
            local s = streams[r.ctx]
            local buf = buffer("char", s.cap)
            lib.llm_detokenizer_push(s.d, token, buf, s.cap, n_out)
            text = ffi.string(buf, tonumber(n_out[0]))
            if status == C.LLM_OK then s.pos = s.pos + 1 end -- the token went in
        end
        results[i] = { status, msg, token, eog, text }
    end
    return results
end

function B.free_streams(streams)
    for ctx, s in pairs(streams) do
        release(s.d, lib.llm_detokenizer_free)
        streams[ctx] = nil
    end
end

function B.embed(ctx, ids, pooling, normalize, cap)
    local array, count = ids_array(ids)
    local buf = buffer("float", cap)
    local status, message = result(lib.llm_embed(ctx, array, count, pooling, normalize, buf, cap, n_out))
    local n = tonumber(n_out[0])
    local values = {}
    if status == C.LLM_OK then
        for i = 1, n do values[i] = buf[i - 1] end
    end
    return status, message, values, n
end

function B.model_default_pooling(model) return lib.llm_model_default_pooling(model) end

function B.state_size(ctx)
    local status, message = result(lib.llm_context_state_size(ctx, n_out))
    return status, message, tonumber(n_out[0])
end

function B.state_save(ctx, cap)
    local buf = buffer("uint8_t", cap)
    local status, message = result(lib.llm_context_state_save(ctx, buf, cap, n_out))
    local n = tonumber(n_out[0])
    return status, message, status == C.LLM_OK and n > 0 and ffi.string(buf, n) or "", n
end

function B.state_load(ctx, bytes) return result(lib.llm_context_state_load(ctx, bytes, #bytes)) end
function B.state_save_file(ctx, path) return result(lib.llm_context_state_save_file(ctx, path)) end
function B.state_load_file(ctx, path) return result(lib.llm_context_state_load_file(ctx, path)) end
function B.copy_prefix(dst, src, n) return result(lib.llm_context_copy_prefix(dst, src, n)) end

-- A llm_chat_params; the table keeps the Lua strings it points to alive.
function B.chat_params(template, tools_json, vars_json, add_generation_prompt)
    local params = ffi.new("llm_chat_params[1]", lib.llm_chat_default_params())
    params[0].template_override = template
    params[0].tools_json = tools_json
    params[0].extra_vars_json = vars_json
    params[0].add_generation_prompt = add_generation_prompt
    return { params = params, template, tools_json, vars_json }
end

function B.chat_apply(model, messages_json, params, cap)
    return text_call(cap, function(buf)
        return lib.llm_chat_apply(model, messages_json, params.params, buf, cap, n_out)
    end)
end

function B.model_chat_template(model, cap)
    return text_call(cap, function(buf) return lib.llm_model_chat_template(model, buf, cap, n_out) end)
end

function B.chat_parse(model, text, cap)
    return text_call(cap, function(buf) return lib.llm_chat_parse(model, text, #text, buf, cap, n_out) end)
end

B.sampler_default_params = lib.llm_sampler_default_params

function B.sampler_new(values)
    local params = ffi.new("llm_sampler_params[1]", lib.llm_sampler_default_params())
    for key, value in pairs(values) do params[0][key] = value end
    local out = ffi.new("llm_sampler *[1]")
    local status, message = result(lib.llm_sampler_new(params, out))
    if status ~= C.LLM_OK then return status, message, nil end
    return status, nil, owned(out[0], lib.llm_sampler_free)
end

function B.sampler_free(sampler) release(sampler, lib.llm_sampler_free) end

function B.sampler_set_json_schema(sampler, model, schema_json)
    return result(lib.llm_sampler_set_json_schema(sampler, model, schema_json))
end

function B.sampler_set_grammar(sampler, model, gbnf, root) -- root nil: "root"
    return result(lib.llm_sampler_set_grammar(sampler, model, gbnf, root))
end

return require("llm_api")(B)
