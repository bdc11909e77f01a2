-- llm_json.lua — a small JSON encoder/decoder in pure Lua (5.1/LuaJIT and
-- 5.4), for the chat API: messages, tools and template variables go to
-- libllm as JSON text, parsed answers come back as JSON.
--
--   json.encode(value) -> text, or nil, message
--   json.decode(text)  -> value, or nil, message
--
-- A table whose keys are exactly 1..n (n >= 1) is an array, any other
-- non-empty table an object (string keys only). An empty table is an object
-- unless marked with json.array({}); decoded arrays and objects carry these
-- marks, so they encode back the same. json.null stands for null.
local json = {}

local ARRAY_MT = { __name = "json.array" }
local OBJECT_MT = { __name = "json.object" }
json.null = setmetatable({}, { __name = "json.null", __tostring = function() return "null" end })

function json.array(t) return setmetatable(t or {}, ARRAY_MT) end
function json.object(t) return setmetatable(t or {}, OBJECT_MT) end

local MAX_DEPTH = 200

------------------------------------------------------------------ encode ---
local ESCAPES = { ['"'] = '\\"', ["\\"] = "\\\\", ["\b"] = "\\b", ["\f"] = "\\f",
                  ["\n"] = "\\n", ["\r"] = "\\r", ["\t"] = "\\t" }

local function escape_char(c) return ESCAPES[c] or string.format("\\u%04x", c:byte()) end

local function encode_string(s) return '"' .. s:gsub('[%c"\\]', escape_char) .. '"' end

local function encode_number(x)
    if x ~= x or x == math.huge or x == -math.huge then error("cannot encode " .. tostring(x), 0) end
    if x % 1 == 0 and x > -2 ^ 53 and x < 2 ^ 53 then return string.format("%d", x) end
    return string.format("%.17g", x)
end

-- n when t's keys are exactly 1..n, else nil
local function array_length(t)
    local n = 0
    for _ in pairs(t) do n = n + 1 end
    for i = 1, n do
        if t[i] == nil then return nil end
    end
    return n
end

local encode_value

local function encode_table(t, out, depth)
    if depth > MAX_DEPTH then error("nested deeper than " .. MAX_DEPTH .. " (a cycle?)", 0) end
    local mt = getmetatable(t)
    local n = array_length(t)
    if mt == ARRAY_MT and not n then error("a json.array table with keys other than 1..n", 0) end
    if mt == ARRAY_MT or (n and n > 0 and mt ~= OBJECT_MT) then
        out[#out + 1] = "["
        for i = 1, n do
            if i > 1 then out[#out + 1] = "," end
            encode_value(t[i], out, depth + 1)
        end
        out[#out + 1] = "]"
        return
    end
    local keys = {}
    for k in pairs(t) do
        if type(k) ~= "string" then error("object keys must be strings, got " .. type(k), 0) end
        keys[#keys + 1] = k
    end
    table.sort(keys) -- the same text every time
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
        if i > 1 then out[#out + 1] = "," end
        out[#out + 1] = encode_string(k)
        out[#out + 1] = ":"
        encode_value(t[k], out, depth + 1)
    end
    out[#out + 1] = "}"
end

encode_value = function(v, out, depth)
    local kind = type(v)
    if v == nil or v == json.null then
        out[#out + 1] = "null"
    elseif kind == "boolean" then
        out[#out + 1] = v and "true" or "false"
    elseif kind == "number" then
        out[#out + 1] = encode_number(v)
    elseif kind == "string" then
        out[#out + 1] = encode_string(v)
    elseif kind == "table" then
        encode_table(v, out, depth)
    else
        error("cannot encode a " .. kind, 0)
    end
end

function json.encode(value)
    local out = {}
    local ok, err = pcall(encode_value, value, out, 0)
    if not ok then return nil, "json: " .. tostring(err) end
    return table.concat(out)
end

------------------------------------------------------------------ decode ---
local function utf8_char(cp)
    if cp < 0x80 then return string.char(cp) end
    if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 0x40), 0x80 + cp % 0x40) end
    if cp < 0x10000 then
        return string.char(0xE0 + math.floor(cp / 0x1000), 0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
    end
    return string.char(0xF0 + math.floor(cp / 0x40000), 0x80 + math.floor(cp / 0x1000) % 0x40,
                       0x80 + math.floor(cp / 0x40) % 0x40, 0x80 + cp % 0x40)
end

local UNESCAPES = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function fail(text, pos, what) error(string.format("json: %s at byte %d", what, pos), 0) end

local function skip(text, pos) return (text:find("[^ \t\r\n]", pos)) or #text + 1 end

local function hex4(text, pos)
    local h = text:match("^%x%x%x%x", pos)
    if not h then fail(text, pos, "bad \\u escape") end
    return tonumber(h, 16)
end

local function decode_string(text, pos) -- pos just after the opening quote
    local parts = {}
    while true do
        local stop = text:find('["\\%c]', pos)
        if not stop then fail(text, pos, "unterminated string") end
        parts[#parts + 1] = text:sub(pos, stop - 1)
        local c = text:sub(stop, stop)
        if c == '"' then return table.concat(parts), stop + 1 end
        if c ~= "\\" then fail(text, stop, "control character in string") end
        local e = text:sub(stop + 1, stop + 1)
        if e == "u" then
            local cp = hex4(text, stop + 2)
            pos = stop + 6
            if cp >= 0xD800 and cp <= 0xDBFF then
                if text:sub(pos, pos + 1) ~= "\\u" then fail(text, pos, "lone high surrogate") end
                local low = hex4(text, pos + 2)
                if low < 0xDC00 or low > 0xDFFF then fail(text, pos, "bad low surrogate") end
                cp = 0x10000 + (cp - 0xD800) * 0x400 + (low - 0xDC00)
                pos = pos + 6
            elseif cp >= 0xDC00 and cp <= 0xDFFF then
                fail(text, stop, "lone low surrogate")
            end
            parts[#parts + 1] = utf8_char(cp)
        else
            local u = UNESCAPES[e]
            if not u then fail(text, stop, "bad escape") end
            parts[#parts + 1] = u
            pos = stop + 2
        end
    end
end

local decode_value

local function decode_number(text, pos)
    local stop = select(2, text:find("^-?0", pos)) or select(2, text:find("^-?[1-9]%d*", pos))
    if not stop then fail(text, pos, "bad number") end
    stop = select(2, text:find("^%.%d+", stop + 1)) or stop
    stop = select(2, text:find("^[eE][-+]?%d+", stop + 1)) or stop
    local value = tonumber(text:sub(pos, stop))
    if not value then fail(text, pos, "bad number") end
    return value, stop + 1
end

local function decode_array(text, pos, depth)
    local t, n = json.array({}), 0
    pos = skip(text, pos)
    if text:sub(pos, pos) == "]" then return t, pos + 1 end
    while true do
        local v
        v, pos = decode_value(text, pos, depth + 1)
        n = n + 1
        t[n] = v
        pos = skip(text, pos)
        local c = text:sub(pos, pos)
        if c == "]" then return t, pos + 1 end
        if c ~= "," then fail(text, pos, "expected ',' or ']'") end
        pos = pos + 1
    end
end

local function decode_object(text, pos, depth)
    local t = json.object({})
    pos = skip(text, pos)
    if text:sub(pos, pos) == "}" then return t, pos + 1 end
    while true do
        pos = skip(text, pos)
        if text:sub(pos, pos) ~= '"' then fail(text, pos, "expected a string key") end
        local key
        key, pos = decode_string(text, pos + 1)
        pos = skip(text, pos)
        if text:sub(pos, pos) ~= ":" then fail(text, pos, "expected ':'") end
        local v
        v, pos = decode_value(text, pos + 1, depth + 1)
        t[key] = v
        pos = skip(text, pos)
        local c = text:sub(pos, pos)
        if c == "}" then return t, pos + 1 end
        if c ~= "," then fail(text, pos, "expected ',' or '}'") end
        pos = pos + 1
    end
end

local LITERALS = { ["true"] = true, ["false"] = false, null = json.null }

decode_value = function(text, pos, depth)
    if depth > MAX_DEPTH then fail(text, pos, "nested deeper than " .. MAX_DEPTH) end
    pos = skip(text, pos)
    local c = text:sub(pos, pos)
    if c == "{" then return decode_object(text, pos + 1, depth) end
    if c == "[" then return decode_array(text, pos + 1, depth) end
    if c == '"' then return decode_string(text, pos + 1) end
    if c == "-" or c:match("%d") then return decode_number(text, pos) end
    local word = text:match("^%a+", pos)
    if word and LITERALS[word] ~= nil then return LITERALS[word], pos + #word end
    fail(text, pos, c == "" and "unexpected end" or "unexpected character")
end

function json.decode(text)
    if type(text) ~= "string" then return nil, "json: text expected, got " .. type(text) end
    local ok, value, pos = pcall(decode_value, text, 1, 0)
    if not ok then return nil, value end
    pos = skip(text, pos)
    if pos <= #text then return nil, string.format("json: trailing characters at byte %d", pos) end
    return value
end

return json
