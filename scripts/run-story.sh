#!/usr/bin/env bash
# Installs what is needed, builds libllm and tells a story with the default
# model (llama2.c's stories260K). Extra arguments go to llm-run, e.g.
#   scripts/run-story.sh -i "Once upon a time" -t 0.8 -n 200
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
shared="${LLM_SHARED_DIR:-$root/../shared}"
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --target llm-run
exec "$root/build/tools/llm-run" "$shared/models/stories260K.bin" -z "$shared/models/tok512.bin" "$@"
