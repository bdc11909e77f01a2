-- llm.lua — require("llm") in Lua 5.4: libllm through the SWIG module
-- llm_core (built from bindings/swig/llm.i). The API is in llm_api.lua.
local core = require("llm_core")

local B = { const = core }

function B.version() return core.llm_version() end
function B.version_number() return core.llm_version_number() end
function B.system_info() return core.llm_system_info() end
B.status_str = core.llm_status_str

function B.model_load(path, opts)
    local params = core.llm_model_default_params()
    if opts.tokenizer_path then params.tokenizer_path = opts.tokenizer_path end
    params.weight_type = opts.weight_type
    params.use_mmap = opts.use_mmap
    return core.llm_model_load(path, params)
end

B.model_free = core.llm_model_free
B.model_meta_count = core.llm_model_meta_count
B.model_meta_key = core.llm_model_meta_key     -- (model, index, cap)
B.model_meta_value = core.llm_model_meta_value -- (model, key, cap)
B.weight_type_name = core.llm_weight_type_name
B.weight_type_from_name = core.llm_weight_type_from_name
function B.model_get(getter, model) return core[getter](model) end
function B.token_is_eog(model, token) return core.llm_token_is_eog(model, token) ~= 0 end
B.tokenize = core.llm_tokenize     -- (model, text, flags, cap)
B.detokenize = core.llm_detokenize -- (model, ids, flags, cap)

function B.context_new(model, n_ctx, n_threads, kv_type, embeddings)
    local params = core.llm_context_default_params()
    params.n_ctx = n_ctx
    params.n_threads = n_threads
    params.kv_type = kv_type
    params.embeddings = embeddings or 0
    return core.llm_context_new(model, params)
end

B.context_free = core.llm_context_free
B.context_reset = core.llm_context_reset
B.context_cancel = core.llm_context_cancel
B.context_position = core.llm_context_position
B.context_step_max_bytes = core.llm_context_step_max_bytes
B.forward = core.llm_forward   -- (ctx, ids)
B.step = core.llm_context_step -- (ctx, sampler, cap)
B.embed = core.llm_embed       -- (ctx, ids, pooling, normalize, cap)
B.model_default_pooling = core.llm_model_default_pooling
B.state_size = core.llm_context_state_size           -- (ctx) -> status, message, bytes
B.state_save = core.llm_context_state_save           -- (ctx, cap)
B.state_load = core.llm_context_state_load           -- (ctx, bytes)
B.state_save_file = core.llm_context_state_save_file -- (ctx, path)
B.state_load_file = core.llm_context_state_load_file -- (ctx, path)
B.copy_prefix = core.llm_context_copy_prefix         -- (dst, src, n)

-- A llm_chat_params (it owns copies of the strings); nil fields: defaults.
function B.chat_params(template, tools_json, vars_json, add_generation_prompt)
    local params = core.llm_chat_default_params()
    if template then params.template_override = template end
    if tools_json then params.tools_json = tools_json end
    if vars_json then params.extra_vars_json = vars_json end
    params.add_generation_prompt = add_generation_prompt
    return params
end

B.chat_apply = core.llm_chat_apply                   -- (model, messages_json, params, cap)
B.model_chat_template = core.llm_model_chat_template -- (model, cap)
B.chat_parse = core.llm_chat_parse                   -- (model, text, cap)

B.sampler_default_params = core.llm_sampler_default_params

function B.sampler_new(values)
    local params = core.llm_sampler_default_params()
    for key, value in pairs(values) do params[key] = value end
    return core.llm_sampler_new(params)
end

B.sampler_free = core.llm_sampler_free
B.sampler_set_json_schema = core.llm_sampler_set_json_schema -- (sampler, model, schema_json)
B.sampler_set_grammar = core.llm_sampler_set_grammar         -- (sampler, model, gbnf, root or nil)

return require("llm_api")(B)
