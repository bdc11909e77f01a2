# Cross-compile for 64-bit Arm Linux with Debian's aarch64-linux-gnu toolchain
# (g++-aarch64-linux-gnu); programs run under qemu-user:
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
# Used by the arm64-cross test (cmake/arm64_cross.cmake) to run the NEON
# kernels, which no x86-64 machine can.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)

set(LLM_ARM64_TRIPLET aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${LLM_ARM64_TRIPLET}-gcc)
set(CMAKE_CXX_COMPILER ${LLM_ARM64_TRIPLET}-g++)

set(CMAKE_FIND_ROOT_PATH /usr/${LLM_ARM64_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
# Header-only packages (Catch2 2, nlohmann-json) serve every architecture.
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

find_program(LLM_QEMU_AARCH64 qemu-aarch64 NO_CMAKE_FIND_ROOT_PATH)
if(LLM_QEMU_AARCH64)
  # "-cpu max" emulates every extension qemu knows, the dot product included,
  # whatever the version's default CPU.
  set(CMAKE_CROSSCOMPILING_EMULATOR ${LLM_QEMU_AARCH64} -cpu max -L /usr/${LLM_ARM64_TRIPLET})
endif()
