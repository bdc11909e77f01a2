# CTest fixture gguf_models: llm-make-model (MAKE_MODEL) writes the GGUF test
# files into OUT_DIR from SHARED_DIR/models:
#   stories260K-TYPE.gguf    llama2.c's stories260K with tok512, for the
#                            32-block types (its 172-wide ffn_down falls back
#                            to F16 in the quantized ones, gguf_writer.h);
#   tiny256-llama-TYPE.gguf  a random Llama (peaked weights, tok512), every
#                            width a multiple of 256: every type, q4_k_m too;
#   tiny256-TYPE.gguf        the same in Qwen2 form with qwen2-tiny's
#                            tokenizer (151936 x 256 embedding: only q4_k_m,
#                            38 MB, to keep the folder small);
#   qwen2-tiny-TYPE.gguf     shared/models/qwen2-tiny converted (HF folder):
#                            bf16 (its own values) and q8_0;
#   ARCH-tiny-TYPE.gguf      random Qwen3, Llama 3 (rope scaling) and Gemma 3
#                            (5 of 6 layers windowed) models, peaked weights
#                            and tok512: f32, f16, q8_0 and q4_k_m; with
#   ARCH-tiny-hf/            the same weights as an f32 Hugging Face folder
#                            (no tokenizer: tests/internal/test_gguf_oracle_hf.cpp
#                            loads the weights alone).
foreach(var MAKE_MODEL OUT_DIR SHARED_DIR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "gguf models: ${var} is not set")
  endif()
endforeach()
file(MAKE_DIRECTORY ${OUT_DIR})
set(models ${SHARED_DIR}/models)

function(make_model out)
  execute_process(
    COMMAND ${MAKE_MODEL} ${ARGN} --format gguf --out ${OUT_DIR}/${out}
    RESULT_VARIABLE rc
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gguf models: llm-make-model failed for ${out} (${rc}): ${err}")
  endif()
endfunction()

# cmake-format: off
foreach(type f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1)
  make_model(stories260K-${type}.gguf --from ${models}/stories260K.bin -z ${models}/tok512.bin
             --gguf-type ${type} --name stories260K)
endforeach()
foreach(type f32 f16 bf16 q8_0 q4_0 q4_1 q5_0 q5_1 q4_k q5_k q6_k q4_k_m)
  make_model(tiny256-llama-${type}.gguf --shape tiny256-llama --peaked -z ${models}/tok512.bin
             --gguf-type ${type})
endforeach()
make_model(tiny256-q4_k_m.gguf --shape tiny256 --peaked --tokenizer-from ${models}/qwen2-tiny
           --gguf-type q4_k_m)
foreach(type bf16 q8_0)
  make_model(qwen2-tiny-${type}.gguf --from ${models}/qwen2-tiny --gguf-type ${type}
             --name qwen2-tiny)
endforeach()
foreach(arch qwen3 llama3 gemma3)
  foreach(type f32 f16 q8_0 q4_k_m)
    make_model(${arch}-tiny-${type}.gguf --shape ${arch}-tiny --peaked -z ${models}/tok512.bin
               --gguf-type ${type})
  endforeach()
  execute_process(
    COMMAND ${MAKE_MODEL} --shape ${arch}-tiny --peaked --dtype f32 --out ${OUT_DIR}/${arch}-tiny-hf
    RESULT_VARIABLE rc
    ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "gguf models: llm-make-model failed for ${arch}-tiny-hf (${rc}): ${err}")
  endif()
endforeach()
# cmake-format: on
