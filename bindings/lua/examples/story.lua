-- Prints a short story from the stories260K model.
--
--   lua5.4 examples/story.lua [MODEL [TOKENIZER [PROMPT]]]   (require "llm")
--   luajit examples/story.lua ...                            (require "llm_ffi")
--
-- The model paths default to $LLM_SHARED_DIR/models (or ../shared/models
-- next to the repository).
local llm = require(jit and "llm_ffi" or "llm")

local shared = os.getenv("LLM_SHARED_DIR") or "../../../shared"
local model_path = arg[1] or shared .. "/models/stories260K.bin"
local tokenizer = arg[2] or shared .. "/models/tok512.bin"
local prompt = arg[3] or "Once upon a time"

local model, message = llm.load(model_path, { tokenizer = tokenizer })
if not model then
    io.stderr:write("error: ", message, "\n")
    os.exit(1)
end
local session = assert(model:session())

io.write(prompt)
for text in session:stream(prompt, { temperature = 0, max_tokens = 200 }) do
    io.write(text)
    io.flush()
end
io.write("\n")

session:close()
model:close()
