-- model:apply_chat_template, model:chat_template and model:parse_chat, and
-- llm_json, under Lua 5.4 (require("llm")) and LuaJIT (require("llm_ffi")).
local module = jit and "llm_ffi" or "llm"
local llm = require(module)
local json = require("llm_json")

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"

describe(module .. " chat templates", function()
    local model
    before_each(function() model = assert(llm.load(shared .. "/models/qwen2-tiny")) end)
    after_each(function() model:close() end)

    it("renders a conversation with the model's template", function()
        assert.is_truthy(model:chat_template():find("<|im_start|>", 1, true))
        local prompt = assert(model:apply_chat_template({
            { role = "user", content = "Hello" },
            { role = "assistant", content = "Hi there" },
            { role = "user", content = "How are you?" },
        }))
        assert.is_truthy(prompt:find("<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\nHi there<|im_end|>\n", 1, true))
        local tail = "<|im_start|>user\nHow are you?<|im_end|>\n<|im_start|>assistant\n"
        assert.equals(tail, prompt:sub(-#tail))
        local closed = assert(model:apply_chat_template({ { role = "user", content = "Hello" } },
                                                       { add_generation_prompt = false }))
        assert.equals("<|im_end|>\n", closed:sub(-#"<|im_end|>\n"))
    end)

    it("takes a template, variables and tools", function()
        local prompt = assert(model:apply_chat_template({ { role = "user", content = "x\"y" } }, {
            template = "{% for m in messages %}[{{ m.role }}:{{ m.content }}]{% endfor %}{{ flavour }}"
                .. "{% if tools %}{{ tools | length }}{% endif %}",
            vars = { flavour = "é" },
            tools = { { type = "function", ["function"] = { name = "f", parameters = {} } } },
        }))
        assert.equals("[user:x\"y]é1", prompt)
    end)

    it("reports a bad template as TEMPLATE and bad messages as INVALID_ARGUMENT", function()
        local prompt, msg, status = model:apply_chat_template({ { role = "user", content = "x" } },
                                                              { template = "{% if %}" })
        assert.is_nil(prompt)
        assert.equals(llm.status.TEMPLATE, status)
        assert.is_string(msg)
        prompt, msg, status = model:apply_chat_template({ { content = "x" } })
        assert.is_nil(prompt)
        assert.equals(llm.status.INVALID_ARGUMENT, status)
        assert.has_error(function() model:apply_chat_template({}, { bogus = 1 }) end)
    end)

    it("feeds a chat prompt's markers as special tokens with parse_special", function()
        local prompt = assert(model:apply_chat_template({ { role = "user", content = "Hello" } }))
        local session = assert(model:session({ context_size = 128 }))
        assert(session:generate(prompt, { parse_special = true, max_tokens = 1 }))
        local special = session:position()
        session:reset()
        assert(session:generate(prompt, { max_tokens = 1 }))
        assert.is_true(session:position() > special)
        session:close()
    end)

    it("parses reasoning and tool calls out of an answer", function()
        local parsed = assert(model:parse_chat("<think>a</think>b"))
        assert.equals("a", parsed.reasoning_content)
        assert.equals("b", parsed.content)
        assert.equals(0, #parsed.tool_calls)
        parsed = assert(model:parse_chat('<tool_call>{"name": "get", "arguments": {"city": "Oslo"}}</tool_call>'))
        assert.equals(1, #parsed.tool_calls)
        assert.equals("get", parsed.tool_calls[1].name)
        assert.equals("Oslo", parsed.tool_calls[1].arguments.city)
    end)
end)

describe("llm_json", function()
    it("round-trips values", function()
        local text = '{"a":[1,2.5,true,false,null],"b":"x\\u00e9\\ud83d\\ude00\\n\\"","c":{},"d":[]}'
        local v = assert(json.decode(text))
        assert.equals("x\195\169\240\159\152\128\n\"", v.b)
        assert.equals(json.null, v.a[5])
        assert.equals('{"a":[1,2.5,true,false,null],"b":"x\195\169\240\159\152\128\\n\\"","c":{},"d":[]}',
                      json.encode(v))
        assert.equals('["a",{"k":"\\u0001"}]', json.encode({ "a", { k = "\1" } }))
    end)

    it("rejects bad input", function()
        for _, bad in ipairs({ '"\\ud83d"', "01", "[1,]", '{"a" 1}', '"abc', "nul",
                               string.rep("[", 1000) .. string.rep("]", 1000) }) do
            local v, msg = json.decode(bad)
            assert.is_nil(v, bad)
            assert.is_string(msg)
        end
        local t = {}
        t.t = t
        assert.is_nil(json.encode(t))
        assert.is_nil(json.encode({ [1] = 1, [3] = 3 }))
        assert.is_nil(json.encode(0 / 0))
    end)
end)
