-- llm_api.lua — the idiomatic Lua API of libllm, shared by llm.lua (Lua 5.4,
-- over the SWIG module llm_core) and llm_ffi.lua (LuaJIT, over its FFI).
-- Each of those passes a backend: the few C calls below, in the shape of
-- the raw SWIG wrapper (status, message, results...).
--
-- Errors: functions return nil, message, status (a libllm status code, see
-- llm.status) on failure. The stream iterator raises an llm error object
-- ({message = ..., status = ...}, tostring gives the message) instead, since
-- a for loop cannot return one. Using a closed model or session raises an
-- error, as Lua's io library does for closed files.

return function(B)
    local C = B.const
    -- version: "1.5.0"; system_info: what libllm runs on, for logs, e.g.
    -- "simd=avx2vnni simd_best=avx2vnni cores=8" (llm_system_info in llm.h).
    local llm = { version = B.version(), system_info = B.system_info() }
    -- Another major version of libllm has another ABI: refuse it at require.
    local engine_major = math.floor(B.version_number() / 10000)
    if engine_major ~= 1 then
        error("llm: the loaded libllm is version " .. llm.version .. " (major " .. engine_major
            .. "), this binding needs major 1: install a libllm 1.x", 0)
    end

    -- llm.status.NOT_FOUND == -2, ... (LLM_OK and LLM_ERR_* of llm.h)
    llm.status = { OK = C.LLM_OK }
    for name, value in pairs(C) do
        local short = name:match("^LLM_ERR_(.+)$")
        if short then llm.status[short] = value end
    end

    local Model, Session, Error = {}, {}, {}
    Model.__index, Session.__index = Model, Session
    llm.Model, llm.Session, llm.Error = Model, Session, Error

    Error.__index = Error
    Error.__tostring = function(e) return e.message end

    local function raise(message, status)
        error(setmetatable({ message = message, status = status }, Error), 3)
    end

    local function check_options(opts, known, what)
        for key in pairs(opts or {}) do
            if known[key] == nil then error("unknown " .. what .. " option '" .. tostring(key) .. "'", 3) end
        end
        return opts or {}
    end

    -- A (buf, cap, &n) call, retried once with the size it asks for.
    local function sized(call, guess)
        local st, msg, out, n = call(guess)
        if st == C.LLM_ERR_BUFFER_TOO_SMALL then st, msg, out, n = call(n) end
        if st ~= C.LLM_OK then return nil, msg, st end
        return out
    end

    ---------------------------------------------------------------- Model ---
    -- The native model is freed once the Model is closed and no session
    -- uses it any more.
    local function release_model(m)
        if m.closed and m.sessions == 0 and m.handle then
            B.model_free(m.handle)
            m.handle = nil
        end
    end

    local function open_model(m)
        if m.closed then error("attempt to use a closed llm model", 3) end
        return m.handle
    end

    local MODEL_OPTIONS = { tokenizer = true, weight_type = true, mmap = true }
    local INFO = {
        arch = "llm_model_arch", n_vocab = "llm_model_n_vocab", n_ctx_train = "llm_model_n_ctx_train",
        n_embd = "llm_model_n_embd", n_layer = "llm_model_n_layer", n_head = "llm_model_n_head",
        n_head_kv = "llm_model_n_head_kv", n_params = "llm_model_n_params",
        weight_bytes = "llm_model_weight_bytes", weight_type = "llm_model_weight_type",
        bos = "llm_model_bos", eos = "llm_model_eos",
    }

    -- llm.weights.AUTO, F32, BF16, F16, Q8_0, Q4_0, ..., Q6_K: the LLM_WEIGHTS_*
    -- values, named after libllm's own table (llm_weight_type_name).
    llm.weights = {}
    for value = 0, math.huge do
        local name = B.weight_type_name(value)
        if name == "" then break end
        llm.weights[name:upper()] = value
    end

    -- llm.weight_type_name(llm.weights.Q4_K) == "q4_k"; nil for an unknown value.
    function llm.weight_type_name(value)
        if type(value) ~= "number" or value % 1 ~= 0 or value < -2 ^ 31 or value >= 2 ^ 31 then return nil end
        local name = B.weight_type_name(value)
        return name ~= "" and name or nil
    end

    -- A weight_type option: an llm.weights value or its name ("q4_k", any case).
    local function weight_type_option(value)
        if value == nil then return C.LLM_WEIGHTS_AUTO end
        if type(value) == "string" then
            local known = not value:find("\0", 1, true) and B.weight_type_from_name(value:lower()) or -1
            if known < 0 then return nil, "unknown weight type '" .. value .. "'" end
            return known
        end
        return value
    end

    -- llm.load(path, {tokenizer = path, weight_type = llm.weights.Q8_0 or "q8_0",
    -- mmap = false}) loads a llama2.c checkpoint, a Hugging Face folder or a
    -- .gguf file.
    function llm.load(path, opts)
        opts = check_options(opts, MODEL_OPTIONS, "load")
        local weight_type, bad = weight_type_option(opts.weight_type)
        if not weight_type then return nil, bad, C.LLM_ERR_INVALID_ARGUMENT end
        local st, msg, handle = B.model_load(path, {
            tokenizer_path = opts.tokenizer,
            weight_type = weight_type,
            use_mmap = opts.mmap == false and 0 or 1,
        })
        if st ~= C.LLM_OK then return nil, msg, st end
        local info = {}
        for key, getter in pairs(INFO) do info[key] = B.model_get(getter, handle) end
        info.weight_type_name = B.weight_type_name(info.weight_type)
        return setmetatable({ handle = handle, sessions = 0, closed = false, _info = info }, Model)
    end
    llm.kv = { F32 = C.LLM_KV_F32, F16 = C.LLM_KV_F16 }

    -- Closing twice is harmless; open sessions keep the native model alive.
    function Model:close()
        self.closed = true
        release_model(self)
    end
    Model.__close = Model.close
    Model.__gc = Model.close

    -- {arch, n_vocab, n_ctx_train, n_embd, n_layer, n_head, n_head_kv,
    -- n_params, weight_bytes, weight_type, weight_type_name ("f32", "q4_k",
    -- ...), bos, eos}; readable after close.
    function Model:info()
        local copy = {}
        for k, v in pairs(self._info) do copy[k] = v end
        return copy
    end

    function Model:vocab_size() return self._info.n_vocab end

    function Model:is_eog(token) return B.token_is_eog(open_model(self), token) end

    -- The model file's metadata as text: {["general.architecture"] = "llama",
    -- ...} (a GGUF file's key-value pairs, numbers written out, arrays left
    -- out); nil, message, status on failure.
    function Model:metadata()
        local handle = open_model(self)
        local meta = {}
        for index = 0, B.model_meta_count(handle) - 1 do
            local key, msg, st = sized(function(cap) return B.model_meta_key(handle, index, cap) end, 64)
            if not key then return nil, msg, st end
            local value
            value, msg, st = sized(function(cap) return B.model_meta_value(handle, key, cap) end, 64)
            if not value then return nil, msg, st end
            meta[key] = value
        end
        return meta
    end

    -- One metadata value; nil, message, llm.status.NOT_FOUND for a key the
    -- file lacks.
    function Model:meta(key)
        if type(key) ~= "string" then
            error("bad argument #1 to 'meta' (string expected, got " .. type(key) .. ")", 2)
        end
        local handle = open_model(self)
        if key:find("\0", 1, true) then -- C strings: never a key
            return nil, "no metadata key " .. string.format("%q", key), C.LLM_ERR_NOT_FOUND
        end
        return sized(function(cap) return B.model_meta_value(handle, key, cap) end, 64)
    end

    local TOKENIZE_OPTIONS = { add_special = true, parse_special = true }

    -- ids = model:tokenize(text, {add_special = true, parse_special = false})
    function Model:tokenize(text, opts)
        opts = check_options(opts, TOKENIZE_OPTIONS, "tokenize")
        local flags = (opts.add_special ~= false and C.LLM_TOKENIZE_ADD_SPECIAL or 0)
            + (opts.parse_special and C.LLM_TOKENIZE_PARSE_SPECIAL or 0)
        local handle = open_model(self)
        return sized(function(cap) return B.tokenize(handle, text, flags, cap) end, #text + 2)
    end

    -- text = model:detokenize(ids), special tokens skipped
    function Model:detokenize(ids)
        local handle = open_model(self)
        return sized(function(cap) return B.detokenize(handle, ids, 0, cap) end, 0)
    end

    -- llm.pooling.MEAN, .LAST, .FIRST, .NONE, .DEFAULT (LLM_POOLING_* of llm.h)
    llm.pooling = {}
    for name, value in pairs(C) do
        local short = name:match("^LLM_POOLING_(.+)$")
        if short then llm.pooling[short] = value end
    end

    local EMBED_OPTIONS = { pooling = true, normalize = true, threads = true }

    -- The embedding of text: an array of n_embd numbers, unit length unless
    -- normalize = false; with pooling = llm.pooling.NONE, one such array per
    -- token. pooling defaults to the model's own (model:default_pooling()).
    -- vector = model:embed(text, {pooling = llm.pooling.LAST, normalize = true, threads = 0})
    function Model:embed(text, opts)
        opts = check_options(opts, EMBED_OPTIONS, "embed")
        local handle = open_model(self)
        local ids, msg, st = sized(function(cap)
            return B.tokenize(handle, text, C.LLM_TOKENIZE_ADD_SPECIAL, cap)
        end, #text + 2)
        if not ids then return nil, msg, st end
        if #ids == 0 then return nil, "the text has no tokens", C.LLM_ERR_INVALID_ARGUMENT end
        local n_ctx = math.min(#ids, self._info.n_ctx_train)
        local ctx
        st, msg, ctx = B.context_new(handle, n_ctx, opts.threads or 0, C.LLM_KV_F32, 1)
        if st ~= C.LLM_OK then return nil, msg, st end
        local pooling = opts.pooling or C.LLM_POOLING_DEFAULT
        local normalize = opts.normalize == false and 0 or 1
        local values
        values, msg, st = sized(function(cap) return B.embed(ctx, ids, pooling, normalize, cap) end, 0)
        B.context_free(ctx)
        if not values or pooling ~= C.LLM_POOLING_NONE then return values, msg, st end
        local dim, rows = self._info.n_embd, {}
        for i, v in ipairs(values) do
            local t = math.floor((i - 1) / dim) + 1
            rows[t] = rows[t] or {}
            rows[t][i - (t - 1) * dim] = v
        end
        return rows
    end

    -- The pooling the model file asks for: llm.pooling.LAST for
    -- Qwen3-Embedding, else llm.pooling.MEAN.
    function Model:default_pooling() return B.model_default_pooling(open_model(self)) end

    ----------------------------------------------------------------- Chat ---
    local json = require("llm_json")
    llm.json = json
    local CHAT_OPTIONS = { tools = true, vars = true, add_generation_prompt = true, template = true }

    local function bad_argument(message) return nil, message, C.LLM_ERR_INVALID_ARGUMENT end

    -- The conversation as a JSON array: each message a table with a string
    -- role and a string (or list of parts) content, plus what the template
    -- reads (tool_calls, reasoning_content, ...).
    local function messages_json(messages)
        if type(messages) ~= "table" then return bad_argument("messages must be a list of message tables") end
        local items = {}
        for i = 1, #messages do
            local m = messages[i]
            if type(m) ~= "table" then return bad_argument("messages[" .. i .. "] must be a table") end
            if type(m.role) ~= "string" then return bad_argument("messages[" .. i .. "].role must be a string") end
            if type(m.content) ~= "string" and type(m.content) ~= "table" then
                return bad_argument("messages[" .. i .. "].content must be a string (or a list of parts)")
            end
            local text, err = json.encode(m)
            if not text then return bad_argument("messages[" .. i .. "]: " .. err) end
            items[i] = text
        end
        return "[" .. table.concat(items, ",") .. "]"
    end

    -- The prompt of a conversation, rendered by the model's own chat template:
    -- prompt = model:apply_chat_template({{role = "user", content = "Hi"}}, {
    --     tools = {...},                 -- tool definitions (a list), for templates that take them
    --     vars = {enable_thinking = false}, -- extra template variables
    --     add_generation_prompt = true,  -- end with the opening of an assistant turn
    --     template = "...",              -- a Jinja template used instead of the model's
    -- })
    -- nil, message, status on failure (llm.status.TEMPLATE: the template
    -- failed to parse or raised; UNSUPPORTED: the model has none). Feed the
    -- prompt to session:generate, which parses its special tokens.
    function Model:apply_chat_template(messages, opts)
        opts = check_options(opts, CHAT_OPTIONS, "apply_chat_template")
        local handle = open_model(self)
        local msgs, msg, st = messages_json(messages)
        if not msgs then return nil, msg, st end
        local tools, vars, err
        if opts.tools ~= nil then
            if type(opts.tools) ~= "table" then return bad_argument("tools must be a list") end
            tools, err = json.encode(next(opts.tools) == nil and json.array({}) or opts.tools)
            if not tools or tools:sub(1, 1) ~= "[" then
                return bad_argument("tools must be a list" .. (err and ": " .. err or ""))
            end
        end
        if opts.vars ~= nil then
            if type(opts.vars) ~= "table" then return bad_argument("vars must be a table") end
            local keys = 0
            for k in pairs(opts.vars) do
                if type(k) ~= "string" then return bad_argument("vars keys must be strings") end
                keys = keys + 1
            end
            vars, err = json.encode(keys == 0 and json.object({}) or opts.vars)
            if not vars then return bad_argument("vars: " .. err) end
        end
        if opts.template ~= nil and type(opts.template) ~= "string" then
            return bad_argument("template must be a string")
        end
        if opts.template and opts.template:find("\0", 1, true) then
            return bad_argument("template must not contain NUL bytes")
        end
        local params = B.chat_params(opts.template, tools, vars, opts.add_generation_prompt == false and 0 or 1)
        return sized(function(cap) return B.chat_apply(handle, msgs, params, cap) end, #msgs * 2 + 256)
    end

    -- The model's Jinja chat template ("" if it has none).
    function Model:chat_template()
        local handle = open_model(self)
        return sized(function(cap) return B.model_chat_template(handle, cap) end, 4096)
    end

    -- A generated answer split into {content = "...", reasoning_content =
    -- "..." (a <think> block), tool_calls = {{name = "...", arguments =
    -- {...}}, ...}}; nil, message, status on failure.
    function Model:parse_chat(text)
        if type(text) ~= "string" then
            error("bad argument #1 to 'parse_chat' (string expected, got " .. type(text) .. ")", 2)
        end
        local handle = open_model(self)
        local out, msg, st = sized(function(cap) return B.chat_parse(handle, text, cap) end, #text + 256)
        if not out then return nil, msg, st end
        local parsed, err = json.decode(out)
        if type(parsed) ~= "table" then
            return nil, "llm_chat_parse gave bad JSON: " .. tostring(err), C.LLM_ERR_INTERNAL
        end
        local function str(v) return type(v) == "string" and v or "" end
        local calls = {}
        if type(parsed.tool_calls) == "table" then
            for i, c in ipairs(parsed.tool_calls) do
                local args = c.arguments
                if args == json.null then args = nil end
                calls[i] = { name = str(c.name), arguments = args }
            end
        end
        return { content = str(parsed.content), reasoning_content = str(parsed.reasoning_content), tool_calls = calls }
    end

    local SESSION_OPTIONS = { context_size = true, threads = true, kv_type = true }

    -- model:session({context_size = 0 (the model's), threads = 0 (all cores),
    --                kv_type = llm.kv.F32 or llm.kv.F16 (half the cache's memory)})
    function Model:session(opts)
        opts = check_options(opts, SESSION_OPTIONS, "session")
        local st, msg, ctx = B.context_new(open_model(self), opts.context_size or 0, opts.threads or 0,
                                           opts.kv_type or C.LLM_KV_F32)
        if st ~= C.LLM_OK then return nil, msg, st end
        self.sessions = self.sessions + 1
        return setmetatable({ model = self, handle = ctx, cap = B.context_step_max_bytes(ctx), run = 0 },
                            Session)
    end

    -------------------------------------------------------------- Session ---
    local function open_session(s)
        if not s.handle then error("attempt to use a closed llm session", 3) end
        return s.handle
    end

    local function free_sampler(s)
        if s.sampler then
            B.sampler_free(s.sampler)
            s.sampler = nil
        end
    end

    -- Closing twice is harmless.
    function Session:close()
        if self.handle then
            free_sampler(self)
            B.context_free(self.handle)
            self.handle = nil
            self.model.sessions = self.model.sessions - 1
            release_model(self.model)
        end
    end
    Session.__close = Session.close
    Session.__gc = Session.close

    function Session:reset() B.context_reset(open_session(self)) end

    -- Makes the running or next generation fail with status CANCELLED.
    function Session:cancel()
        if self.handle then B.context_cancel(self.handle) end
    end

    function Session:position() return B.context_position(open_session(self)) end

    -- The session's state (tokens, KV cache, logits, text stream) as a
    -- string that load_state, on a session of the same model, continues
    -- from exactly; nil, message, status on failure.
    function Session:save_state()
        local ctx = open_session(self)
        local st, msg, size = B.state_size(ctx)
        if st ~= C.LLM_OK then return nil, msg, st end
        return sized(function(cap) return B.state_save(ctx, cap) end, size)
    end

    -- Replaces the conversation with a saved state: true, or nil, message,
    -- status (STATE_MISMATCH: another model; FORMAT, TRUNCATED: damaged;
    -- CONTEXT_FULL: longer than this session). A failure changes nothing.
    function Session:load_state(state)
        if type(state) ~= "string" then error("load_state expects the string save_state gave", 2) end
        local st, msg = B.state_load(open_session(self), state)
        if st ~= C.LLM_OK then return nil, msg, st end
        return true
    end

    -- The same through a file: true, or nil, message, status.
    function Session:save_state_file(path)
        local st, msg = B.state_save_file(open_session(self), path)
        if st ~= C.LLM_OK then return nil, msg, st end
        return true
    end

    function Session:load_state_file(path)
        local st, msg = B.state_load_file(open_session(self), path)
        if st ~= C.LLM_OK then return nil, msg, st end
        return true
    end

    -- Makes this session hold the first n tokens of src (default: all) and
    -- their KV cache, as if it had run them: a shared prompt evaluated once.
    -- Both must run the same model. true, or nil, message, status.
    function Session:copy_prefix_from(src, n)
        local dst_ctx, src_ctx = open_session(self), open_session(src)
        local st, msg = B.copy_prefix(dst_ctx, src_ctx, n or B.context_position(src_ctx))
        if st ~= C.LLM_OK then return nil, msg, st end
        return true
    end

    local SAMPLER_KEYS = { "temperature", "top_p", "top_k", "min_p", "repeat_penalty", "repeat_last_n", "seed" }
    local GENERATE_OPTIONS = { max_tokens = true, stop_at_eos = true, on_piece = true, parse_special = true,
                               json_schema = true, grammar = true, grammar_root = true }
    for _, key in ipairs(SAMPLER_KEYS) do GENERATE_OPTIONS[key] = true end

    -- Structured output options: true, schema_json, gbnf, root (each possibly
    -- nil); or nil, message. A json_schema table is written with llm_json.
    local function structure(opts)
        local schema, grammar, root = opts.json_schema, opts.grammar, opts.grammar_root
        if schema ~= nil and grammar ~= nil then return nil, "give json_schema or grammar, not both" end
        if root ~= nil and grammar == nil then return nil, "grammar_root needs grammar" end
        if type(schema) == "table" then
            local text, err = json.encode(schema)
            if not text then return nil, "json_schema: " .. err end
            schema = text
        end
        for _, field in ipairs({ { "json_schema", schema }, { "grammar", grammar }, { "grammar_root", root } }) do
            local name, value = field[1], field[2]
            if value ~= nil and type(value) ~= "string" then
                return nil, name .. " must be a string" .. (name == "json_schema" and " or a table" or "")
            end
            if value and value:find("\0", 1, true) then return nil, name .. " must not contain NUL bytes" end
        end
        return true, schema, grammar, root
    end

    -- Coroutines run by llm.batch: their steps wait to be taken together.
    local in_batch = setmetatable({}, { __mode = "k" })
    local unpack = table.unpack or unpack -- LuaJIT has the 5.1 name
    local STEP = {} -- marks what such a coroutine yields to ask for a step

    local function step(ctx, sampler, cap, model)
        local co = coroutine.running()
        if co and in_batch[co] then
            local answer = coroutine.yield(STEP, { ctx = ctx, sampler = sampler, cap = cap, model = model })
            return unpack(answer, 1, 5) -- status, message, token, eog, text as B.step
        end
        return B.step(ctx, sampler, cap)
    end

    -- Feeds the prompt (with BOS at position 0) and makes the sampler: a run
    -- object whose next() gives text, token per piece; nil, stop_reason at
    -- the end; false, message, status on failure.
    local function start(s, prompt, opts)
        local ctx = open_session(s)
        local max_tokens = opts.max_tokens or 0
        if max_tokens < 0 then return false, "max_tokens must be >= 0", C.LLM_ERR_INVALID_ARGUMENT end
        local defaults, params = B.sampler_default_params(), {}
        for _, key in ipairs(SAMPLER_KEYS) do
            if opts[key] ~= nil then params[key] = opts[key] else params[key] = defaults[key] end
        end
        local ok, schema, grammar, root = structure(opts)
        if not ok then return false, schema, C.LLM_ERR_INVALID_ARGUMENT end
        free_sampler(s)
        local st, msg, sampler = B.sampler_new(params) -- bad options fail before the prompt is fed
        if st ~= C.LLM_OK then return false, msg, st end
        s.sampler = sampler
        if schema then
            st, msg = B.sampler_set_json_schema(sampler, s.model.handle, schema)
        elseif grammar then
            st, msg = B.sampler_set_grammar(sampler, s.model.handle, grammar, root)
        end
        if st ~= C.LLM_OK then return false, msg, st end
        local flags = B.context_position(ctx) == 0 and C.LLM_TOKENIZE_ADD_SPECIAL or 0
        if opts.parse_special then flags = flags + C.LLM_TOKENIZE_PARSE_SPECIAL end -- chat prompts
        local model = s.model.handle -- alive while this session is
        local ids
        ids, msg, st = sized(function(cap) return B.tokenize(model, prompt, flags, cap) end, #prompt + 2)
        if not ids then return false, msg, st end
        if #ids > 0 then
            st, msg = B.forward(ctx, ids)
            if st ~= C.LLM_OK then return false, msg, st end
        end
        s.run = s.run + 1 -- a newer run makes older stream iterators stop

        local id, count, done = s.run, 0, false
        local stop_at_eos = opts.stop_at_eos ~= false
        local run = {}
        function run.next()
            if done then return nil, done end
            if s.run ~= id or not s.handle then error("llm stream used after a newer generation or close", 3) end
            if max_tokens > 0 and count >= max_tokens then
                done = "max_tokens"
                return nil, done
            end
            local st, msg, token, eog, text = step(ctx, sampler, s.cap, model)
            local full = st == C.LLM_ERR_CONTEXT_FULL -- the token still came
            if st ~= C.LLM_OK and not full then
                done = "error"
                return false, msg, st
            end
            if eog ~= 0 then
                if stop_at_eos then
                    done = "eos"
                    return nil, done
                end
                if not full then -- llm_context_step does not feed it
                    st, msg = B.forward(ctx, { token })
                    full = st == C.LLM_ERR_CONTEXT_FULL
                    if st ~= C.LLM_OK and not full then
                        done = "error"
                        return false, msg, st
                    end
                end
            end
            count = count + 1
            if full then done = "context_full" end
            return text, token
        end
        return run
    end

    -- result = session:generate(prompt, opts) with opts temperature, top_p,
    -- top_k, min_p, repeat_penalty, repeat_last_n, seed (libllm's defaults
    -- when absent), max_tokens (0 = no limit), stop_at_eos (true),
    -- parse_special (false; true for model:apply_chat_template's prompts,
    -- whose <|im_start|>-like markers are special tokens), json_schema (a
    -- JSON Schema as a table or JSON text: the text is JSON that validates
    -- against it), grammar (GBNF text the output follows; grammar_root: its
    -- start rule, default "root"), and
    -- on_piece = function(text, token) ... end (return false to stop).
    -- A schema or grammar libllm refuses: nil, message, llm.status.GRAMMAR.
    -- result = {text = ..., tokens = {...}, stop = "eos" | "max_tokens" |
    -- "context_full" | "callback"}.
    function Session:generate(prompt, opts)
        opts = check_options(opts, GENERATE_OPTIONS, "generate")
        local run, msg, st = start(self, prompt, opts)
        if not run then return nil, msg, st end
        local pieces, tokens = {}, {}
        local result = { tokens = tokens }
        while true do
            local text, token, status = run.next()
            if text == false then return nil, token, status end
            if text == nil then
                result.stop = token
                break
            end
            pieces[#pieces + 1] = text
            tokens[#tokens + 1] = token
            if opts.on_piece and opts.on_piece(text, token) == false then
                result.stop = "callback"
                break
            end
        end
        result.text = table.concat(pieces)
        return result
    end

    -- for text, token in session:stream(prompt, opts) do ... end
    -- Same options as generate (without on_piece); failures raise an
    -- llm error object.
    function Session:stream(prompt, opts)
        opts = check_options(opts, GENERATE_OPTIONS, "stream")
        local run, msg, st = start(self, prompt, opts)
        if not run then raise(msg, st) end
        return function()
            local text, token, status = run.next()
            if text == false then raise(token, status) end
            if text == nil then return nil end
            return text, token
        end
    end

    -- results = llm.batch({function() ... end, ...}): runs the functions as
    -- coroutines, typically one conversation each (its own session; all
    -- sessions of one model) written with generate or stream as usual. Each
    -- round, every function runs until it needs its next token (or yields),
    -- then they all take it together: with llm_ffi (LuaJIT) in one batched
    -- pass over the weights (llm_step_batch), with llm (the SWIG module) one
    -- after another. results[i] is what function i returned; if one raises,
    -- nil and its error (the others are not resumed).
    function llm.batch(fns)
        local cos, waiting, results, streams = {}, {}, {}, {}
        for i, fn in ipairs(fns) do
            cos[i] = coroutine.create(fn)
            in_batch[cos[i]] = true
        end
        local function finish(...)
            if B.free_streams then B.free_streams(streams) end
            return ...
        end
        while true do
            -- The step requests of this round, by model.
            local groups, order = {}, {}
            for i, co in ipairs(cos) do
                local r = waiting[i]
                if r then
                    if not groups[r.model] then
                        groups[r.model] = {}
                        order[#order + 1] = r.model
                    end
                    local g = groups[r.model]
                    g[#g + 1] = i
                end
            end
            local answers = {}
            for _, model in ipairs(order) do
                local g = groups[model]
                if B.step_batch then
                    local requests = {}
                    for k, i in ipairs(g) do requests[k] = waiting[i] end
                    local out = B.step_batch(requests, streams)
                    for k, i in ipairs(g) do answers[i] = out[k] end
                else
                    for _, i in ipairs(g) do
                        local r = waiting[i]
                        answers[i] = { B.step(r.ctx, r.sampler, r.cap) }
                    end
                end
            end
            local alive = false
            for i, co in ipairs(cos) do
                if coroutine.status(co) == "suspended" then
                    local ok, what, request
                    if answers[i] then
                        ok, what, request = coroutine.resume(co, answers[i])
                    else
                        ok, what, request = coroutine.resume(co)
                    end
                    if not ok then return finish(nil, what) end
                    if coroutine.status(co) == "dead" then
                        results[i] = what
                        waiting[i] = nil
                    else
                        alive = true
                        waiting[i] = what == STEP and request or nil
                    end
                end
            end
            if not alive then return finish(results) end
        end
    end

    function llm.status_string(status) return B.status_str(status) end

    return llm
end
