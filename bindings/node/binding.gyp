{
  # The engine is compiled into the addon (LLM_STATIC): one .node file, no
  # shared library to find at run time. scripts/engine.js says where the
  # engine's sources are (the repository, or ./engine inside a package).
  # libllm_prebuilt=yes (scripts/prebuild.js) makes the addon shipped in the
  # package: libstdc++ linked in and hidden (libgcc_s stays shared: its static
  # unwinder would need glibc 2.35), symbols stripped.
  "variables": {
    "engine_dir": "<!(node scripts/engine.js root)",
    "libllm_prebuilt%": "no"
  },
  "target_defaults": {
    "cflags!": ["-fno-exceptions"],
    "cflags_cc!": ["-fno-exceptions", "-fno-rtti"],
    "cflags": ["-fPIC", "-pthread"],
    "cflags_cc": ["-std=c++17", "-fexceptions", "-frtti"],
    "xcode_settings": {
      "GCC_ENABLE_CPP_EXCEPTIONS": "YES",
      "GCC_ENABLE_CPP_RTTI": "YES",
      "CLANG_CXX_LANGUAGE_STANDARD": "c++17"
    },
    "msvs_settings": {
      "VCCLCompilerTool": {"ExceptionHandling": 1, "AdditionalOptions": ["/std:c++17", "/utf-8"]}
    }
  },
  "conditions": [
    ['target_arch=="x64" and OS!="win"', {
      "targets": [
        {
          "target_name": "llm_kernels_avx2",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_avx2.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_avx2.cpp)"]
        },
        {
          "target_name": "llm_kernels_avx2vnni",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_avx2vnni.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_avx2vnni.cpp)"]
        },
        {
          "target_name": "llm_kernels_avx512",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_avx512.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_avx512.cpp)"]
        },
        {
          "target_name": "llm_kernels_avx512vnni",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_avx512vnni.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_avx512vnni.cpp)"]
        },
        {
          "target_name": "llm_kernels_amx",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_amx.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_amx.cpp)"]
        }
      ]
    }],
    ['target_arch=="arm64" and OS!="win"', {
      "targets": [
        {
          "target_name": "llm_kernels_neondot",
          "type": "static_library",
          "sources": ["<!(node scripts/engine.js isa-source kernels_neondot.cpp)"],
          "include_dirs": ["<(engine_dir)/src"],
          "defines": ["LLM_STATIC", "LLM_BUILDING"],
          "cflags_cc": ["<!@(node scripts/engine.js isa-flags kernels_neondot.cpp)"],
          "xcode_settings": {
            "OTHER_CPLUSPLUSFLAGS": ["<!@(node scripts/engine.js isa-flags kernels_neondot.cpp)"]
          }
        }
      ]
    }]
  ],
  "targets": [
    {
      "target_name": "llm_engine",
      "type": "static_library",
      "include_dirs": ["<(engine_dir)/include", "<(engine_dir)/src"],
      "defines": ["LLM_STATIC", "LLM_BUILDING"],
      "direct_dependent_settings": {
        "include_dirs": ["<(engine_dir)/include"],
        "defines": ["LLM_STATIC"]
      },
      "link_settings": {"libraries": ["-pthread"]},
      # On x86-64 and arm64 with GCC or Clang each SIMD kernel file is its
      # own library built with that instruction set's flags, as in
      # CMakeLists.txt (the CPU picks a table at run time); elsewhere they
      # build as stubs.
      "conditions": [
        ['target_arch=="x64" and OS!="win"', {
          "sources": ["<!@(node scripts/engine.js portable-sources x64)"],
          "dependencies": ["llm_kernels_avx2", "llm_kernels_avx2vnni", "llm_kernels_avx512", "llm_kernels_avx512vnni", "llm_kernels_amx"]
        }],
        ['target_arch=="arm64" and OS!="win"', {
          "sources": ["<!@(node scripts/engine.js portable-sources arm64)"],
          "dependencies": ["llm_kernels_neondot"]
        }],
        ['OS=="win" or (target_arch!="x64" and target_arch!="arm64")', {
          "sources": ["<!@(node scripts/engine.js sources)"]
        }]
      ]
    },
    {
      "target_name": "llm_node",
      "sources": [
        "src/addon.cc",
        "src/args.cc",
        "src/chat_template.cc",
        "src/embed_worker.cc",
        "src/errors.cc",
        "src/generation.cc",
        "src/handles.cc",
        "src/model_wrap.cc",
        "src/session_state.cc",
        "src/session_wrap.cc",
        "src/text_ops.cc"
      ],
      # While a worker thread is being terminated JS cannot run: an error
      # then cannot be thrown and is dropped instead of aborting.
      "defines": ["NODE_API_SWALLOW_UNTHROWABLE_EXCEPTIONS"],
      "conditions": [
        ['libllm_prebuilt=="yes" and OS=="linux"', {
          "sources": ["scripts/prebuilt-glibc-compat.c"],
          "ldflags": ["-static-libstdc++", "-Wl,--exclude-libs,ALL", "-s"]
        }]
      ],
      "dependencies": [
        "llm_engine",
        "<!(node -p \"require('node-addon-api').targets\"):node_addon_api_except"
      ]
    }
  ]
}
