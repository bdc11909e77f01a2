-- gen_llm_h.lua — writes llm_h.lua (LuaJIT's ffi.cdef text and the
-- constants of include/llm.h) from the header itself, so the FFI binding
-- never drifts from the C API.
--
--   lua gen_llm_h.lua include/llm.h bindings/lua/llm_h.lua           write it
--   lua gen_llm_h.lua --check include/llm.h bindings/lua/llm_h.lua   exit 1 if stale
--
-- A deliberately small preprocessor: #if/#ifdef/#ifndef/#elif/#else/#endif
-- over defined(...), ||, && and ! (SWIG counts as defined, as for any binding
-- generator: the export and deprecation macros are then empty), #define of
-- constants (numbers, strings, arithmetic over earlier constants) and of empty
-- attribute macros, which are removed from the declarations. Anything else is
-- an error, so a header change this cannot handle is noticed at once.

local DEFINED = { SWIG = true }

local function fail(fmt, ...)
    io.stderr:write("gen_llm_h: ", string.format(fmt, ...), "\n")
    os.exit(2)
end

local function evaluate(expr, env, what)
    local chunk, err
    if setfenv then -- Lua 5.1 / LuaJIT
        chunk, err = loadstring("return " .. expr)
        if chunk then setfenv(chunk, env) end
    else
        chunk, err = load("return " .. expr, what, "t", env)
    end
    if not chunk then fail("cannot evaluate %s: %s", what, err) end
    local ok, value = pcall(chunk)
    if not ok then fail("cannot evaluate %s: %s", what, value) end
    return value
end

-- The value of an #if / #elif condition.
local function condition(expr, defined)
    local lua = expr:gsub("defined%s*%(%s*([%w_]+)%s*%)", function(name)
        return defined[name] and " true " or " false "
    end):gsub("defined%s+([%w_]+)", function(name)
        return defined[name] and " true " or " false "
    end):gsub("||", " or "):gsub("&&", " and "):gsub("!", " not ")
    local rest = lua:gsub("%f[%w_]true%f[^%w_]", ""):gsub("%f[%w_]false%f[^%w_]", "")
        :gsub("%f[%w_]and%f[^%w_]", ""):gsub("%f[%w_]or%f[^%w_]", ""):gsub("%f[%w_]not%f[^%w_]", "")
    if rest:find("[^%s%(%)]") then fail("unsupported condition: #if %s", expr) end
    return evaluate(lua, {}, "#if " .. expr)
end

local function generate(header)
    -- drop comments, keeping their line breaks and marking (\1) the lines
    -- they were on, then join continued lines
    local text = header:gsub("/%*.-%*/", function(c) return "\1" .. c:gsub("[^\n]", ""):gsub("\n", "\n\1") end)
        :gsub("//[^\n]*", "\1"):gsub("\\\n", " ")

    local defined = {}
    for name in pairs(DEFINED) do defined[name] = true end
    local constants, order = {}, {}
    local attributes = {}              -- empty macros: name -> takes arguments
    local stack = {}                   -- per #if: { active, taken }
    local active = true
    local decls = {}

    local function set_active()
        active = true
        for _, frame in ipairs(stack) do active = active and frame.active end
    end

    for line in (text .. "\n"):gmatch("([^\n]*)\n") do
        local commented = line:find("\1", 1, true)
        line = line:gsub("\1", "")
        local directive, rest = line:match("^%s*#%s*(%a+)%s*(.-)%s*$")
        if directive == "if" or directive == "ifdef" or directive == "ifndef" then
            local value = true
            if active then
                if directive == "ifdef" then value = defined[rest] == true
                elseif directive == "ifndef" then value = not defined[rest]
                else value = condition(rest, defined) end
            end
            stack[#stack + 1] = { active = value, taken = value }
            set_active()
        elseif directive == "elif" or directive == "else" then
            local frame = stack[#stack] or fail("#%s without #if", directive)
            if frame.taken then
                frame.active = false
            else
                frame.active = directive == "else" or condition(rest, defined)
                frame.taken = frame.active
            end
            set_active()
        elseif directive == "endif" then
            if #stack == 0 then fail("#endif without #if") end
            stack[#stack] = nil
            set_active()
        elseif directive == "include" then
            -- <stddef.h>, <stdint.h>: LuaJIT's FFI knows their types
            if not rest:match("^<std[%w]+%.h>$") then fail("unsupported #include %s", rest) end
        elseif directive == "define" and active then
            local name, params, body = rest:match("^([%w_]+)(%b())%s*(.-)$")
            if not name then name, body = rest:match("^([%w_]+)%s*(.-)$") end
            defined[name] = true
            if body == "" then
                attributes[name] = params ~= nil
            elseif params then
                fail("unsupported function-like macro %s", name)
            else
                local value = evaluate(body, constants, name)
                if type(value) ~= "number" and type(value) ~= "string" then
                    fail("#define %s is not a constant", name)
                end
                constants[name] = value
                order[#order + 1] = name
            end
        elseif directive then
            if active then fail("unsupported directive #%s", directive) end
        elseif active and not (commented and line:match("^%s*$")) then
            decls[#decls + 1] = line -- without lines that held only comments
        end
    end
    if #stack ~= 0 then fail("unterminated #if") end

    local cdef = table.concat(decls, "\n")
    for name, takes_args in pairs(attributes) do
        local pattern = "%f[%w_]" .. name .. "%f[^%w_]" .. (takes_args and "%s*%b()" or "") .. "%s*"
        cdef = cdef:gsub(pattern, "")
    end
    cdef = cdef:gsub("[ \t]+\n", "\n"):gsub("\n\n\n+", "\n\n"):match("^%s*(.-)%s*$") .. "\n"
    if cdef:find("%]%]") then fail("declarations contain ']]'") end

    local out = {
        "-- Generated from include/llm.h by bindings/lua/gen_llm_h.lua. Do not edit.\n",
        "-- The C declarations for LuaJIT's ffi.cdef, and the header's constants.\n",
        "return {\n",
        "  cdef = [[\n", cdef, "]],\n",
        "  constants = {\n",
    }
    for _, name in ipairs(order) do
        local value = constants[name]
        local literal = type(value) == "string" and string.format("%q", value)
            or (math.type and math.type(value) == "float" and string.format("%.17g", value))
            or string.format("%d", value)
        out[#out + 1] = string.format("    %s = %s,\n", name, literal)
    end
    out[#out + 1] = "  },\n}\n"
    return table.concat(out)
end

local function read(path)
    local f = io.open(path, "rb")
    if not f then return nil end
    local data = f:read("*a")
    f:close()
    return data
end

local check = arg[1] == "--check"
local header_path, out_path = arg[check and 2 or 1], arg[check and 3 or 2]
if not header_path or not out_path then
    io.stderr:write("usage: lua gen_llm_h.lua [--check] llm.h llm_h.lua\n")
    os.exit(2)
end
local header = read(header_path) or fail("cannot read %s", header_path)
local generated = generate(header)
if check then
    if read(out_path) ~= generated then
        io.stderr:write(out_path, " is stale: regenerate it with gen_llm_h.lua",
                        " (the llm_lua_generate build target)\n")
        os.exit(1)
    end
    print(out_path .. " matches " .. header_path)
else
    local f = io.open(out_path, "wb") or fail("cannot write %s", out_path)
    f:write(generated)
    f:close()
end
