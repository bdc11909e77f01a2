#!/usr/bin/env bash
# Installs what libllm's build, tests and bindings need on Debian 12.
# Run as root (or with sudo). Safe to run again: apt skips what is there.
set -euo pipefail

packages=(
  # core build and tests
  build-essential cmake ninja-build pkg-config clang clang-format cmake-format doxygen
  catch2 nlohmann-json3-dev valgrind libclang-rt-14-dev python3
  # bindings: SWIG for Go, C# (Mono) and Lua; Node.js for the addon
  swig golang-go mono-mcs mono-runtime nunit-console libnunit-cil-dev
  lua5.4 liblua5.4-dev luajit libluajit-5.1-dev lua-busted luarocks nodejs npm
  # Windows cross-check
  g++-mingw-w64-x86-64-posix wine64
  # arm64 cross-check: the NEON kernels' tests under qemu-user
  g++-aarch64-linux-gnu qemu-user
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# Node.js may come from outside Debian (the machine image ships Node 20 and
# npm 11): do not replace it with Debian's older packages.
if command -v node >/dev/null && command -v npm >/dev/null; then
  missing=("${missing[@]/nodejs/}")
  missing=("${missing[@]/npm/}")
fi
read -r -a missing <<<"${missing[*]}"
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
