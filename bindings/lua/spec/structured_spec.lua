-- Structured output: the generate/stream options json_schema and grammar,
-- under Lua 5.4 (require("llm")) and LuaJIT (require("llm_ffi")). qwen2-tiny
-- has random weights and the real Qwen vocabulary: at temperature 1 only the
-- grammar keeps its output in shape.
local module = jit and "llm_ffi" or "llm"
local llm = require(module)
local json = require("llm_json")

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"
local PROMPT = "Answer in JSON:"
local PERSON = {
    type = "object",
    properties = { name = { type = "string", maxLength = 8 }, age = { type = "integer" } },
    required = { "name", "age" },
    additionalProperties = false,
}
local PERSON_TEXT = '{"type":"object","properties":{"name":{"type":"string","maxLength":8},'
    .. '"age":{"type":"integer"}},"required":["name","age"],"additionalProperties":false}'

local function free(seed, extra)
    local opts = { temperature = 1, top_p = 1, max_tokens = 64, seed = seed }
    for k, v in pairs(extra or {}) do opts[k] = v end
    return opts
end

local function code_points(s)
    local n = 0
    for _ in s:gmatch("[^\128-\191]") do n = n + 1 end
    return n
end

local function assert_person(text, keys_in_order)
    local person = assert(json.decode(text), text)
    local n = 0
    for _ in pairs(person) do n = n + 1 end
    assert.are.equal(2, n, text)
    assert.are.equal("string", type(person.name), text)
    assert.is_true(code_points(person.name) <= 8, text)
    assert.are.equal("number", type(person.age), text)
    assert.are.equal(0, person.age % 1, text)
    if keys_in_order then assert.is_truthy(text:find('^{"name":'), text) end
end

describe(module .. " structured output", function()
    local model
    setup(function() model = assert(llm.load(shared .. "/models/qwen2-tiny")) end)
    teardown(function() model:close() end)

    local function run(opts)
        local s = assert(model:session({ context_size = 128 }))
        local r, msg, st = s:generate(PROMPT, opts)
        s:close()
        return r, msg, st
    end

    it("json_schema as JSON text: every seed gives JSON of the schema", function()
        for seed = 1, 4 do
            local r = assert(run(free(seed, { json_schema = PERSON_TEXT })))
            assert.are.equal("eos", r.stop, r.text)
            assert_person(r.text, true)
        end
    end)

    it("json_schema as a table (written with llm_json: keys sorted)", function()
        for seed = 1, 2 do
            local r = assert(run(free(seed, { json_schema = PERSON })))
            assert.are.equal("eos", r.stop, r.text)
            assert_person(r.text, false)
            assert.is_truthy(r.text:find('^{"age":'), r.text)
        end
    end)

    it("grammar: the output is exactly one of the alternatives", function()
        for seed = 1, 3 do
            local r = assert(run(free(seed, { grammar = 'root ::= ("yes" | "no")' })))
            assert.are.equal("eos", r.stop)
            assert.is_true(r.text == "yes" or r.text == "no", r.text)
        end
        local r = assert(run(free(1, { grammar = 'answer ::= "maybe"\nroot ::= "never"', grammar_root = "answer" })))
        assert.are.equal("maybe", r.text)
        -- stream takes the same options
        local s = assert(model:session({ context_size = 128 }))
        local pieces = {}
        for text in s:stream(PROMPT, free(2, { grammar = 'root ::= "streamed"' })) do pieces[#pieces + 1] = text end
        s:close()
        assert.are.equal("streamed", table.concat(pieces))
    end)

    it("a bad grammar or schema is nil, message, GRAMMAR; the session stays usable", function()
        local s = assert(model:session({ context_size = 128 }))
        local r, msg, st = s:generate(PROMPT, free(1, { grammar = "root ::= missing" }))
        assert.is_nil(r)
        assert.are.equal(llm.status.GRAMMAR, st)
        assert.is_truthy(msg:find("missing", 1, true), msg)
        r, msg, st = s:generate(PROMPT, free(1, { json_schema = {
            type = "object", properties = { zip = { type = "string", pattern = "^[0-9]+$" } } } }))
        assert.is_nil(r)
        assert.are.equal(llm.status.GRAMMAR, st)
        assert.is_truthy(msg:find("pattern", 1, true), msg)
        r, msg, st = s:generate(PROMPT, free(1, { json_schema = '{"type": ' }))
        assert.are.equal(llm.status.GRAMMAR, st)
        assert.are.equal(0, s:position()) -- refused before the prompt was fed
        local ok, err = pcall(function()
            for _ in s:stream(PROMPT, free(1, { grammar = "root ::= (" })) do end
        end)
        assert.is_false(ok)
        assert.are.equal(llm.status.GRAMMAR, err.status)
        r = assert(s:generate(PROMPT, free(1, { grammar = 'root ::= "ok"' })))
        assert.are.equal("ok", r.text)

        for _, bad in ipairs({
            { json_schema = PERSON_TEXT, grammar = 'root ::= "a"' },
            { grammar_root = "root" },
            { grammar = 42 },
            { json_schema = true },
            { json_schema = { bad = 0 / 0 } },
            { grammar = 'root ::= "a"\0' },
        }) do
            r, msg, st = s:generate(PROMPT, bad)
            assert.is_nil(r)
            assert.are.equal(llm.status.INVALID_ARGUMENT, st, msg)
        end
        s:close()
    end)
end)
