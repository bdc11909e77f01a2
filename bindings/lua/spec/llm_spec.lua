-- Runs against require("llm") (the SWIG module) under Lua 5.4 and against
-- require("llm_ffi") under LuaJIT:
--   busted --lua=lua5.4 spec     busted --lua=luajit spec
-- LLM_SHARED_DIR points at the test models and goldens (set by CTest).
local json = require("dkjson")
local module = jit and "llm_ffi" or "llm"
local llm = require(module)

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"
local model_path = shared .. "/models/stories260K.bin"
local tokenizer_path = shared .. "/models/tok512.bin"

-- run.c's greedy output for one prompt (shared/golden/llama2c)
local function golden(name)
    local f = assert(io.open(shared .. "/golden/llama2c/stories260K_" .. name .. ".json", "rb"))
    local data = assert(json.decode(f:read("*a")))
    f:close()
    return data
end

local function slice(list, from, to)
    local out = {}
    for i = from, to do out[#out + 1] = list[i] end
    return out
end

describe(module, function()
    local g = golden("once_upon")
    local model

    local function session()
        local s = assert(model:session())
        finally(function() s:close() end)
        return s
    end

    before_each(function() model = assert(llm.load(model_path, { tokenizer = tokenizer_path })) end)
    after_each(function() model:close() end)

    it("reports its version and what it runs on", function()
        assert.is_truthy(llm.version:match("^%d+%.%d+%.%d+$"))
        local simd, best, cores = llm.system_info:match("^simd=(%w+) simd_best=(%w+) cores=(%d+)")
        assert.is_truthy(simd, llm.system_info)
        local levels = { scalar = 1, neon = 1, neondot = 1, avx2 = 1, avx2vnni = 1, avx512 = 1, avx512vnni = 1, amx = 1 }
        assert.is_truthy(levels[simd], simd)
        assert.is_truthy(levels[best], best)
        assert.is_true(tonumber(cores) >= 1)
        if (os.getenv("LLM_SIMD") or "") == "" then assert.equals(best, simd) end
    end)

    it("has enough golden ids", function()
        assert.is_true(#g.generated_token_ids >= 64)
    end)

    it("describes the model", function()
        local info = model:info()
        assert.is_true(info.n_params > 0 and info.weight_bytes > 0)
        info.n_params, info.weight_bytes = nil, nil
        assert.are.same({ arch = "llama", n_vocab = 512, n_ctx_train = 512, n_embd = 64, n_layer = 5,
                          n_head = 8, n_head_kv = 4, weight_type = llm.weights.F32, weight_type_name = "f32",
                          bos = 1, eos = 2 }, info)
        assert.are.equal(512, model:vocab_size())
        assert.is_true(model:is_eog(1))
        assert.is_false(model:is_eog(403))
    end)

    it("names every weight type of llm.h", function()
        local names = { "auto", "f32", "bf16", "f16", "q8_0", "q4_0", "q4_1", "q5_0", "q5_1", "q4_k", "q5_k", "q6_k" }
        local count = 0
        for _ in pairs(llm.weights) do count = count + 1 end
        assert.are.equal(#names, count)
        for value, name in ipairs(names) do
            assert.are.equal(value - 1, llm.weights[name:upper()])
            assert.are.equal(name, llm.weight_type_name(value - 1))
        end
        assert.are.equal(9, llm.weights.Q4_K)
        assert.is_nil(llm.weight_type_name(12))
        assert.is_nil(llm.weight_type_name(-1))
        assert.is_nil(llm.weight_type_name("f32"))
    end)

    it("converts the weights to a block type at load, by value or by name", function()
        -- stories260K's rows hold 64 values: 32-value blocks fit, the 256-value
        -- k-quant blocks do not and the weights stay fp32.
        for _, weight_type in ipairs({ llm.weights.Q4_0, "q4_0", "Q4_0" }) do
            local m = assert(llm.load(model_path, { tokenizer = tokenizer_path, weight_type = weight_type }))
            local info = m:info()
            m:close()
            assert.are.equal(llm.weights.Q4_0, info.weight_type)
            assert.are.equal("q4_0", info.weight_type_name)
        end
        local m = assert(llm.load(model_path, { tokenizer = tokenizer_path, weight_type = "q4_k" }))
        assert.are.equal("f32", m:info().weight_type_name)
        m:close()
        for _, bad in ipairs({ "q4_k_m", "f32\0" }) do
            local none, message, status = llm.load(model_path, { tokenizer = tokenizer_path, weight_type = bad })
            assert.is_nil(none)
            assert.are.equal(llm.status.INVALID_ARGUMENT, status)
            assert.is_truthy(message:find("unknown weight type", 1, true))
        end
    end)

    it("reads the file's metadata", function()
        local meta = assert(model:metadata())
        assert.are.equal("llama", meta["general.architecture"])
        for key, value in pairs(meta) do assert.are.equal(value, model:meta(key)) end
        assert.are.equal("llama", model:meta("general.architecture"))
        for _, absent in ipairs({ "no.such.key", "", "general.architecture\0x" }) do
            local value, message, status = model:meta(absent)
            assert.is_nil(value)
            assert.are.equal(llm.status.NOT_FOUND, status)
            assert.is_string(message)
        end
        assert.has_error(function() model:meta(42) end)
        model:close()
        assert.has_error(function() model:metadata() end, "attempt to use a closed llm model")
        assert.has_error(function() model:meta("general.architecture") end, "attempt to use a closed llm model")
    end)

    it("tokenizes and detokenizes round trip", function()
        assert.are.same(g.prompt_token_ids, model:tokenize(g.prompt))
        assert.are.same(slice(g.prompt_token_ids, 2, #g.prompt_token_ids),
                        model:tokenize(g.prompt, { add_special = false }))
        for _, text in ipairs({ g.prompt, 'Lily saw a big, red ball.\nShe said: "Hi!"', "", "héllo ✓" }) do
            assert.are.equal(text, model:detokenize(model:tokenize(text)))
        end
    end)

    it("generates the golden greedy tokens and text", function()
        local s = session()
        local r = assert(s:generate(g.prompt, { temperature = 0, max_tokens = #g.generated_token_ids }))
        assert.are.same(g.generated_token_ids, r.tokens)
        assert.are.equal(g.text, g.prompt .. r.text .. "\n")
        assert.are.equal("max_tokens", r.stop)
        assert.are.equal(#g.prompt_token_ids + #g.generated_token_ids, s:position())
    end)

    it("runs with an fp16 KV cache, and refuses an unknown cache type", function()
        local s = assert(model:session({ kv_type = llm.kv.F16 }))
        local r = assert(s:generate(g.prompt, { temperature = 0, max_tokens = 30 }))
        assert.are.same(slice(g.generated_token_ids, 1, 30), r.tokens)
        s:close()
        local none, msg, status = model:session({ kv_type = 9 })
        assert.is_nil(none)
        assert.are.equal(llm.status.INVALID_ARGUMENT, status)
        assert.truthy(msg:find("kv_type", 1, true))
    end)

    it("stops at the end of generation, or feeds it back", function()
        local p = golden("pigs_punct") -- run.c stopped at a sampled BOS
        local s = session()
        local r = assert(s:generate(p.prompt, { temperature = 0 }))
        assert.are.same(p.generated_token_ids, r.tokens)
        assert.are.equal("eos", r.stop)
        assert.are.equal(p.text, p.prompt .. r.text .. "\n")
        s:reset()
        local n = #p.generated_token_ids
        r = assert(s:generate(p.prompt, { temperature = 0, stop_at_eos = false, max_tokens = n + 3 }))
        assert.are.equal(n + 3, #r.tokens)
        assert.are.equal(1, r.tokens[n + 1])
        assert.are.same(p.generated_token_ids, slice(r.tokens, 1, n))
    end)

    it("streams pieces with an iterator and a callback", function()
        local s = session()
        local texts, ids = {}, {}
        for text, token in s:stream(g.prompt, { temperature = 0, max_tokens = 10 }) do
            texts[#texts + 1], ids[#ids + 1] = text, token
        end
        assert.are.same(slice(g.generated_token_ids, 1, 10), ids)
        assert.are.equal(g.prompt .. table.concat(texts), g.text:sub(1, #g.prompt + #table.concat(texts)))

        s:reset()
        local seen = {}
        local r = assert(s:generate(g.prompt, { temperature = 0, on_piece = function(text)
            seen[#seen + 1] = text
            return #seen < 7
        end }))
        assert.are.equal("callback", r.stop)
        assert.are.equal(7, #r.tokens)
        assert.are.equal(table.concat(seen), r.text)
    end)

    it("returns nil, message, status for a missing file", function()
        -- os.tmpname creates the file on POSIX: remove it, use a name beside it.
        local base = os.tmpname()
        os.remove(base)
        local path = base .. "-missing.bin"
        local m, message, status = llm.load(path)
        assert.is_nil(m)
        assert.are.equal(llm.status.NOT_FOUND, status)
        assert.are.equal(-2, status)
        assert.is_truthy(message:find(path, 1, true))
    end)

    it("gives identical greedy results in two sessions", function()
        local a, b = session(), session()
        local ra = assert(a:generate(g.prompt, { temperature = 0, max_tokens = 40 }))
        local rb = assert(b:generate(g.prompt, { temperature = 0, max_tokens = 40 }))
        assert.are.same(ra, rb)
        assert.are.same(slice(g.generated_token_ids, 1, 40), ra.tokens)
    end)

    it("repeats a seeded sample after reset", function()
        local s = session()
        local opts = { temperature = 1, top_p = 0.9, seed = 42, max_tokens = 30 }
        local first = assert(s:generate(g.prompt, opts))
        s:reset()
        assert.are.equal(0, s:position())
        assert.are.same(first, assert(s:generate(g.prompt, opts)))
    end)

    it("reports bad arguments", function()
        local s = session()
        local r, message, status = s:generate("x", { top_p = 2 })
        assert.is_nil(r)
        assert.are.equal(llm.status.INVALID_ARGUMENT, status)
        assert.is_truthy(message:find("top_p"))
        r, message, status = model:detokenize({ 1, 9999 })
        assert.are.equal(llm.status.TOKEN_OUT_OF_RANGE, status)
        assert.has_error(function() s:generate("x", { temprature = 0 }) end)
        assert.has_error(function() model:detokenize({ 1, 2.5 }) end)
        s:cancel() -- consumed by the next call
        r, message, status = s:generate("Once")
        assert.are.equal(llm.status.CANCELLED, status)
        local ok, err = pcall(function()
            for _ in s:stream("Once", { max_tokens = -1 }) do end
        end)
        assert.is_false(ok)
        assert.are.equal(llm.status.INVALID_ARGUMENT, err.status)
        assert.are.equal(3, #assert(s:generate("Once", { temperature = 0, max_tokens = 3 })).tokens)
    end)

    it("survives closing twice and use after close", function()
        local s = assert(model:session())
        model:close()
        model:close()
        -- the open session keeps the native model alive
        local r = assert(s:generate(g.prompt, { temperature = 0, max_tokens = 5 }))
        assert.are.same(slice(g.generated_token_ids, 1, 5), r.tokens)
        assert.has_error(function() model:tokenize("x") end, "attempt to use a closed llm model")
        assert.has_error(function() model:session() end)
        s:close()
        s:close()
        assert.is_nil(s.handle)
        assert.is_nil(model.handle)
        assert.has_error(function() s:generate("x") end, "attempt to use a closed llm session")
        assert.has_error(function() s:reset() end)
        s:cancel()
        assert.are.equal(512, model:vocab_size()) -- metadata stays readable
    end)

    it("frees forgotten objects when collected", function()
        for _ = 1, 3 do
            local m = assert(llm.load(model_path, { tokenizer = tokenizer_path }))
            local s = assert(m:session())
            assert.are.equal(3, #assert(s:generate("Once", { temperature = 0, max_tokens = 3 })).tokens)
        end
        collectgarbage("collect")
        collectgarbage("collect")
    end)

    if not jit then
        it("closes to-be-closed variables (Lua 5.4)", function()
            local chunk = assert(load([[
                local llm, path, tok = ...
                local m <close> = assert(llm.load(path, { tokenizer = tok }))
                local s <close> = assert(m:session())
                return m, s
            ]]))
            local m, s = chunk(llm, model_path, tokenizer_path)
            assert.is_nil(s.handle)
            assert.is_nil(m.handle)
        end)
    end
end)
