# Included by the CLI test scripts: in a cross build, the programs under test
# (LLM_RUN, LLM_TOKENIZE) run under the build's emulator. EMULATOR is that
# emulator as one command line ("qemu-aarch64 -L /usr/aarch64-linux-gnu"),
# empty in a native build.
separate_arguments(_llm_emulator UNIX_COMMAND "${EMULATOR}")
foreach(tool LLM_RUN LLM_TOKENIZE)
  if(DEFINED ${tool})
    set(${tool} ${_llm_emulator} ${${tool}})
  endif()
endforeach()
