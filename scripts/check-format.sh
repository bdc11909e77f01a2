#!/usr/bin/env bash
# Fails if any C/C++ or CMake file is not formatted (clang-format, cmake-format).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
while IFS= read -r f; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    echo "not clang-formatted: $f (run: clang-format -i $f)"
    status=1
  fi
done < <(git ls-files '*.c' '*.h' '*.cpp' '*.hpp' | grep -v -e '^bindings/go/internal/capi/llm_wrap.c' -e '^bindings/lua/llm_core_wrap.c' \
  -e '/generated/')
while IFS= read -r f; do
  if ! cmake-format --check "$f" >/dev/null 2>&1; then
    echo "not cmake-formatted: $f (run: cmake-format -i $f)"
    status=1
  fi
done < <(git ls-files 'CMakeLists.txt' '*/CMakeLists.txt' '*.cmake')
exit $status
