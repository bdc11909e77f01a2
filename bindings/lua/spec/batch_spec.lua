-- llm.batch: conversations as coroutines whose steps are taken together
-- (batched through llm_step_batch with llm_ffi, interleaved with llm), under
-- Lua 5.4 (require("llm")) and LuaJIT (require("llm_ffi")), as llm_spec.lua.
local module = jit and "llm_ffi" or "llm"
local llm = require(module)

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"

local function load()
    return assert(llm.load(shared .. "/models/stories260K.bin", { tokenizer = shared .. "/models/tok512.bin" }))
end

describe(module .. " batch", function()
    local model
    before_each(function() model = load() end)
    after_each(function() model:close() end)

    -- prompt, options: what one conversation generates in a fresh session
    local function alone(prompt, opts)
        local session = assert(model:session())
        local result = assert(session:generate(prompt, opts))
        session:close()
        return result
    end

    local cases = {
        { "Once upon a time", { temperature = 0, max_tokens = 40 } },
        { "", { temperature = 0, max_tokens = 12 } }, -- BOS only: no space after it
        { "The little dog", { temperature = 0.9, seed = 7, max_tokens = 25 } },
        { "Lily and Tom", { temperature = 0, max_tokens = 300 } }, -- ends at EOS or the context
    }

    it("gives each conversation what it gets alone", function()
        local fns = {}
        for i, case in ipairs(cases) do fns[i] = function() return alone(case[1], case[2]) end end
        local results = assert(llm.batch(fns))
        assert.equals(#cases, #results)
        for i, case in ipairs(cases) do
            assert.are.same(alone(case[1], case[2]), results[i])
            assert.is_true(#results[i].text > 0)
        end
    end)

    it("serves streams and several turns of one session", function()
        local function story(session)
            local pieces = {}
            for text in session:stream("Once upon a time", { temperature = 0, max_tokens = 10 }) do
                pieces[#pieces + 1] = text
            end
            local more = assert(session:generate(" Then", { temperature = 0, max_tokens = 10 }))
            return table.concat(pieces) .. "|" .. more.text
        end
        local a, b, c = assert(model:session()), assert(model:session()), assert(model:session())
        local results = assert(llm.batch({ function() return story(a) end, function() return story(b) end }))
        local expected = story(c)
        assert.are.same({ expected, expected }, results)
        a:close()
        b:close()
        c:close()
    end)

    it("resumes functions that yield for their own reasons", function()
        local log = {}
        local results = assert(llm.batch({
            function()
                for i = 1, 3 do
                    log[#log + 1] = "a" .. i
                    coroutine.yield()
                end
                return "a"
            end,
            function()
                local r = alone("Once upon a time", { temperature = 0, max_tokens = 2 })
                log[#log + 1] = "b"
                return r.text
            end,
        }))
        assert.are.same({ "a", alone("Once upon a time", { temperature = 0, max_tokens = 2 }).text }, results)
        assert.are.same({ "a1", "a2", "a3", "b" }, log) -- b needed two rounds of steps
    end)

    it("serves sessions of two models in one batch", function()
        local other = load()
        local results = assert(llm.batch({
            function() return alone("Once upon a time", { temperature = 0, max_tokens = 8 }).text end,
            function()
                local s = assert(other:session())
                local r = assert(s:generate("Once upon a time", { temperature = 0, max_tokens = 8 }))
                s:close()
                return r.text
            end,
        }))
        assert.equals(results[1], results[2])
        other:close()
    end)

    it("returns nil and the error of a function that raises", function()
        local results, err = llm.batch({
            function() return alone("Once upon a time", { temperature = 0, max_tokens = 50 }) end,
            function() error("boom", 0) end,
        })
        assert.is_nil(results)
        assert.equals("boom", err)
        -- the model is still usable
        assert.is_true(#alone("Once upon a time", { temperature = 0, max_tokens = 4 }).text > 0)
    end)

    it("reports a failed step through generate", function()
        local session = assert(model:session({ context_size = 8 }))
        local results = assert(llm.batch({
            function() return assert(session:generate("Once upon a time", { temperature = 0 })) end,
        }))
        assert.equals("context_full", results[1].stop)
        session:close()
    end)

    it("follows each conversation's schema and decodes a byte-level vocabulary as alone", function()
        local qwen = assert(llm.load(shared .. "/models/qwen2-tiny"))
        local schema = { type = "object", properties = { name = { type = "string" } }, required = { "name" } }
        local function answer(seed, opts)
            local s = assert(qwen:session({ context_size = 256 }))
            local o = { temperature = 1, top_p = 1, max_tokens = 40, seed = seed }
            for k, v in pairs(opts) do o[k] = v end
            local r = assert(s:generate("Answer in JSON:", o))
            s:close()
            return r
        end
        local runs = { { 1, { json_schema = schema } }, { 2, {} }, { 3, { grammar = 'root ::= "yes" | "no"' } } }
        local fns = {}
        for i, run in ipairs(runs) do fns[i] = function() return answer(run[1], run[2]) end end
        local results = assert(llm.batch(fns))
        for i, run in ipairs(runs) do assert.are.same(answer(run[1], run[2]), results[i]) end
        qwen:close()
    end)

    it("returns an empty table for no functions", function() assert.are.same({}, assert(llm.batch({}))) end)
end)
