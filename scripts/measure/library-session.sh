#!/usr/bin/env bash
# One GPU session that measures ptxcast's tensor-core library kernels against PyTorch on ResNet-50
# and VGG-16 at batch 32 and 64 (tf32 and f16), and PyTorch with cuDNN's autotuner off and on.
# Two steps, because lowering needs LLVM and the GPU box has none:
#
#   scripts/measure/library-session.sh prepare ROOT        # here: lower, write the plans
#   scripts/measure/library-session.sh run ROOT OUT [SECONDS]   # on the GPU box, repo root
#
# `prepare` lowers each network with `ptxcast lower --math auto --kernels library` (sm_90) into
# ROOT/tf32/NAME and ROOT/f16/NAME (NAME = network-bBATCH) and writes ROOT/plan.txt.
# `run` builds ptxcast-measure, times every manifest with scripts/measure/run-plan.sh, times the
# same networks in PyTorch (CUDA graphs; cudnn.benchmark off, then on), merges the kernel CSVs
# with scripts/measure/collect.py and records nvidia-smi's read-only queries, all into OUT. Each
# step gets a share of SECONDS (default 480) and what finished is kept. It never changes device
# settings. With the device tool: carry ROOT, and give the command a limit above SECONDS.
set -u
PTXCAST=${PTXCAST:-build/tools/ptxcast/ptxcast}
NETWORKS="resnet50 vgg16"
BATCHES="32 64"

prepare() {
  local Root=$1
  mkdir -p "$Root"
  : >"$Root/plan.txt"
  for Net in $NETWORKS; do
    for B in $BATCHES; do
      "$PTXCAST" lower "$Net" --batch "$B" --math auto --kernels library -o "$Root/tf32/$Net-b$B" ||
        return 1
      "$PTXCAST" lower "$Net" --batch "$B" --dtype f16 --math auto --kernels library \
        -o "$Root/f16/$Net-b$B" || return 1
      echo "$Net-b$B all 20 5" >>"$Root/plan.txt"
    done
  done
  echo "prepared $(wc -l <"$Root/plan.txt") networks x 2 math modes in $Root"
}

run() {
  local Root=$1 Out=$2 Limit=${3:-480}
  mkdir -p "$Out"
  {
    nvidia-smi
    nvidia-smi -q -d CLOCK,PERFORMANCE | head -60
  } >"$Out/system.txt" 2>&1
  local Build=${MEASURE_BUILD:-/tmp/ptxcast-measure}
  cmake -S tools/measure -B "$Build" -DCMAKE_BUILD_TYPE=Release >"$Out/build.log" 2>&1 &&
    cmake --build "$Build" -j >>"$Out/build.log" 2>&1 || {
    echo "ptxcast-measure did not build: $Out/build.log" >&2
    return 1
  }
  local Share=$((Limit / 4))
  for Math in tf32 f16; do
    scripts/measure/run-plan.sh "$Build/ptxcast-measure" "$Root/$Math" "$Root/plan.txt" \
      "$Out/kernels-$Math" "$Share"
  done
  local Models=${NETWORKS// /,} Batches=${BATCHES// /,}
  timeout "$Share" python3 scripts/measure/time_frameworks.py --models "$Models" --cuda-graph \
    --batches "$Batches" --repeat 20 --warmup 3 --out "$Out/frameworks.csv" >"$Out/torch.log" 2>&1
  timeout "$Share" python3 scripts/measure/time_frameworks.py --models "$Models" --cuda-graph \
    --cudnn-benchmark --batches "$Batches" --repeat 20 --warmup 3 \
    --out "$Out/frameworks-cudnn-benchmark.csv" >>"$Out/torch.log" 2>&1
  python3 scripts/measure/collect.py --manifests "$Root/tf32" --manifests "$Root/f16" \
    --out "$Out/merged" "$Out/kernels-tf32" "$Out/kernels-f16" >"$Out/collect.log" 2>&1
  ls -l "$Out" "$Out/merged" 2>/dev/null
  return 0
}

usage() {
  echo "usage: $0 prepare ROOT | run ROOT OUT [SECONDS]" >&2
  exit 2
}
case "${1:-}" in
prepare) [ $# -eq 2 ] || usage; prepare "$2" ;;
run) [ $# -ge 3 ] && [ $# -le 4 ] || usage; run "$2" "$3" "${4:-480}" ;;
*) usage ;;
esac
