-- Two conversations served at once: two sessions of one model, each told
-- by a coroutine of llm.batch. With LuaJIT (llm_ffi) each round's tokens
-- are taken in one batched step over the weights (llm_step_batch); Lua
-- 5.4's SWIG module (llm) interleaves the two token by token.
--
--   lua5.4 examples/parallel.lua [--check]
--   luajit examples/parallel.lua [--check]
--
-- The model is stories260K in $LLM_SHARED_DIR/models (or ../shared/models
-- next to the repository). --check generates each story again alone and
-- fails unless they are the same.
local llm = require(jit and "llm_ffi" or "llm")

local models = (os.getenv("LLM_SHARED_DIR") or "../../../shared") .. "/models"
local model = assert(llm.load(models .. "/stories260K.bin", { tokenizer = models .. "/tok512.bin" }))
local prompts = { "Once upon a time", "The little dog" }

local function tell(prompt)
    local session = assert(model:session())
    local result = assert(session:generate(prompt, { temperature = 0, max_tokens = 60 }))
    session:close()
    return prompt .. result.text
end

local tellers = {}
for i, prompt in ipairs(prompts) do
    tellers[i] = function() return tell(prompt) end
end
local stories = assert(llm.batch(tellers)) -- both at once
for i, story in ipairs(stories) do print(("[%d] %s"):format(i, story)) end

if arg[1] == "--check" then
    for i, prompt in ipairs(prompts) do
        if tell(prompt) ~= stories[i] then
            io.stderr:write("story ", i, " differs from the one generated alone\n")
            os.exit(1)
        end
    end
    print("both stories are the same as generated alone")
end
model:close()
