# Cross-compile for 64-bit Windows with Debian's mingw-w64 (posix threads).
#   cmake -S . -B build-win -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/mingw-w64.cmake
# Binaries are linked -static so they need no libstdc++/libwinpthread DLLs:
# llm.dll is the only DLL a program uses. Executables run under wine64 via
# CMAKE_CROSSCOMPILING_EMULATOR.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(LLM_MINGW_TRIPLET x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${LLM_MINGW_TRIPLET}-gcc-posix)
set(CMAKE_CXX_COMPILER ${LLM_MINGW_TRIPLET}-g++-posix)
set(CMAKE_RC_COMPILER ${LLM_MINGW_TRIPLET}-windres)

set(CMAKE_FIND_ROOT_PATH /usr/${LLM_MINGW_TRIPLET})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

set(CMAKE_EXE_LINKER_FLAGS_INIT "-static")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-static")

find_program(
  LLM_WINE64 wine64
  PATHS /usr/lib/wine
  NO_CMAKE_FIND_ROOT_PATH)
if(LLM_WINE64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${LLM_WINE64})
endif()
