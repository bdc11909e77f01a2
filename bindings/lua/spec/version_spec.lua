-- The engine version check of llm_api.lua: a libllm of another major
-- version is refused at require time (a stand-in backend plays that libllm).
local api = require("llm_api")

local function backend(version, number)
    return {
        const = { LLM_OK = 0 },
        version = function() return version end,
        version_number = function() return number end,
        system_info = function() return "" end,
    }
end

describe("engine version check", function()
    it("accepts the loaded libllm 1.x", function()
        local llm = require(jit and "llm_ffi" or "llm")
        assert.are.equal(1, math.floor(tonumber(llm.version:match("^(%d+)%."))))
    end)
    it("refuses another major version with a clear message", function()
        local ok, message = pcall(api, backend("2.0.0", 20000))
        assert.is_false(ok)
        assert.matches("libllm is version 2.0.0 %(major 2%), this binding needs major 1", message)
    end)
end)
