# llm-server against the official openai npm client (included by
# bindings/go/CMakeLists.txt, where the llm-server target is): 64 concurrent
# streams over loopback, aborts, 429, HTTP errors, memory back to its
# baseline, exit 0 after SIGTERM (load_test.js). openai is pinned to the
# newest 6.x: 7.x needs Node 22, the machines have Node 20.
set(LLM_SERVER_ORACLE_SRC ${CMAKE_CURRENT_LIST_DIR})
set(LLM_SERVER_ORACLE_DIR ${CMAKE_BINARY_DIR}/server_oracle)

add_test(
  NAME server_oracle.setup
  COMMAND ${CMAKE_COMMAND} -DNODE=${LLM_NODE} -DNPM=${LLM_NPM} -DSRC_DIR=${LLM_SERVER_ORACLE_SRC}
          -DWORK_DIR=${LLM_SERVER_ORACLE_DIR} -P ${LLM_SERVER_ORACLE_SRC}/setup.cmake)
set_tests_properties(server_oracle.setup PROPERTIES FIXTURES_SETUP server_oracle)

add_test(NAME server.openai_load COMMAND ${LLM_NODE} ${LLM_SERVER_ORACLE_DIR}/load_test.js
                                         ${LLM_SERVER_BINARY} ${LLM_SHARED_DIR}/models/qwen2-tiny)
set_tests_properties(server.openai_load PROPERTIES FIXTURES_REQUIRED server_oracle TIMEOUT 120)
