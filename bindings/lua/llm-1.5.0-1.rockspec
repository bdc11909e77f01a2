-- LuaRocks package of the libllm Lua binding, built against an installed
-- libllm found by pkg-config (set PKG_CONFIG_PATH for a custom prefix):
--
--   luarocks make llm-1.5.0-1.rockspec        (from bindings/lua)
--
-- Lua 5.x gets require("llm") over the C module llm_core, compiled from the
-- committed SWIG output llm_core_wrap.c (no SWIG needed here); LuaJIT can
-- use require("llm_ffi"), which loads libllm.so.1 by its SONAME.
rockspec_format = "3.0"
package = "llm"
version = "1.5.0-1"
source = {
   url = "https://github.com/OWNER/libllm/archive/refs/tags/v1.5.0.tar.gz",
   dir = "libllm-1.5.0/bindings/lua",
}
description = {
   summary = "Lua binding of libllm, a small LLM inference engine",
   homepage = "https://github.com/OWNER/libllm",
   license = "MIT",
}
dependencies = {
   "lua >= 5.3",
}
build = {
   type = "command",
   build_command = [[$(CC) $(CFLAGS) -I$(LUA_INCDIR) `pkg-config --cflags llm` $(LIBFLAG) -o llm_core.so llm_core_wrap.c `pkg-config --libs llm` -Wl,-rpath,`pkg-config --variable=libdir llm`]],
   install = {
      lua = {
         llm = "llm.lua",
         llm_api = "llm_api.lua",
         llm_ffi = "llm_ffi.lua",
         llm_h = "llm_h.lua",
         llm_json = "llm_json.lua",
      },
      lib = {
         llm_core = "llm_core.so",
      },
   },
}
