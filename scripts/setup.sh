#!/usr/bin/env bash
# Installs the Debian packages ptxcast needs (idempotent) and builds it.
# Usage: scripts/setup.sh [--no-build] [BUILD_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build g++ lld
  llvm-19-dev libzstd-dev clang-19 lld-19 libclang-rt-19-dev
  libxgboost-dev libboost-graph-dev doctest-dev
  libonnx-dev libprotobuf-dev protobuf-compiler
  libeigen3-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  gnuplot-nox librsvg2-bin
  pybind11-dev python3-dev
  python3-torch python3-torchvision python3-distributed python3-pandas python3-matplotlib
  python3-tqdm
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "setup: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: warning: CUDA toolkit not found at /usr/local/cuda; tests that compile CUDA kernels will be skipped" >&2
fi

[ "${1:-}" = "--no-build" ] && exit 0
BUILD_DIR="${1:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD_DIR" -j "$(nproc)"
