-- model:embed and model:default_pooling, under Lua 5.4 (require("llm")) and
-- LuaJIT (require("llm_ffi")), as llm_spec.lua.
local module = jit and "llm_ffi" or "llm"
local llm = require(module)

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"

describe(module .. " embeddings", function()
    local model
    before_each(function()
        model = assert(llm.load(shared .. "/models/stories260K.bin",
                                { tokenizer = shared .. "/models/tok512.bin" }))
    end)
    after_each(function() model:close() end)

    it("gives a unit vector of n_embd numbers, the same every time", function()
        assert.equals(llm.pooling.MEAN, model:default_pooling())
        local v = assert(model:embed("Once upon a time"))
        assert.equals(64, #v)
        local sum = 0
        for _, x in ipairs(v) do sum = sum + x * x end
        assert.is_true(math.abs(sum - 1) < 1e-4, tostring(sum))
        assert.are.same(v, assert(model:embed("Once upon a time", { pooling = llm.pooling.MEAN })))
    end)

    it("gives a row per token with pooling NONE, the last one LAST's", function()
        local ids = assert(model:tokenize("Once upon a time"))
        local rows = assert(model:embed("Once upon a time", { pooling = llm.pooling.NONE, normalize = false }))
        assert.equals(#ids, #rows)
        assert.equals(64, #rows[#rows])
        local last = assert(model:embed("Once upon a time", { pooling = llm.pooling.LAST, normalize = false }))
        assert.are.same(last, rows[#rows])
    end)

    it("reports errors", function()
        local v, msg, status = model:embed("x", { pooling = 9 })
        assert.is_nil(v)
        assert.equals(llm.status.INVALID_ARGUMENT, status)
        assert.is_truthy(msg:match("pooling"))
        assert.has_error(function() model:embed("x", { bogus = 1 }) end)
    end)
end)
