-- A two-turn chat with the model's own chat template. Each turn renders the
-- whole conversation so far into a prompt and answers it from a fresh
-- session; the answer is split by model:parse_chat and kept as the
-- assistant's message.
--
--   lua5.4 examples/chat.lua [MODEL_DIR]   (require "llm")
--   luajit examples/chat.lua ...           (require "llm_ffi")
--
-- The default model, qwen2-tiny, has random weights: its answers are noise.
local llm = require(jit and "llm_ffi" or "llm")

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"
local model, message = llm.load(arg[1] or shared .. "/models/qwen2-tiny")
if not model then
    io.stderr:write("error: ", message, "\n")
    os.exit(1)
end
local session = assert(model:session({ context_size = 512 }))

local conversation = { { role = "system", content = "You are a helpful assistant." } }
for _, question in ipairs({ "What is the capital of France?", "And of Italy?" }) do
    conversation[#conversation + 1] = { role = "user", content = question }
    local prompt = assert(model:apply_chat_template(conversation))
    io.write("--- prompt ---\n", prompt, "\n")
    session:reset()
    local result = assert(session:generate(prompt, { parse_special = true, temperature = 0, max_tokens = 8 }))
    local answer = assert(model:parse_chat(result.text))
    io.write("--- answer ---\n", answer.content, "\n")
    conversation[#conversation + 1] = { role = "assistant", content = answer.content }
end

session:close()
model:close()
