#!/usr/bin/env bash
# Lowers every zoo model at batch 1 and 8, f32 and f16, for one architecture (default sm_90) and
# runs ptxas on every emitted PTX module; prints a summary table and exits non-zero on any failure.
#
#   scripts/check-zoo-ptxas.sh [--ptxcast PATH] [--ptxas PATH] [--arch sm_XX] [--math LIST]
#                              [--dtype LIST] [--kernels LIST] [--keep DIR] [MODEL...]
#
# --math: comma-separated `ptxcast lower --math` modes (simt, tf32, f16, bf16, int8, auto) or `all`
# (simt, tf32, f16, bf16; default simt); combinations the lowering refuses (tf32/bf16 on f16 data,
# tf32/bf16 below sm_80, int8 math without int8 data or below sm_75, int8 data with tf32, f16 or
# bf16 math) are skipped. --dtype: `ptxcast lower --dtype` types, comma-separated (f32, f16,
# int8; default f32,f16). --kernels: `ptxcast lower --kernels` sets, comma-separated (default
# specialised,library). Without MODEL arguments the model list comes from `ptxcast zoo --format
# json`. The "lower_s" column is the wall time of `ptxcast lower` (LLVM O3 + NVPTX codegen, or a
# lookup of library kernels already compiled); ptxas time is separate. The int8 engines of the
# zoo for every architecture ptxas has (docs/lowering.md, "Int8 engines"):
#
#   for A in sm_75 sm_80 sm_86 sm_89 sm_90; do
#     scripts/check-zoo-ptxas.sh --arch $A --dtype int8 --math auto,simt; done
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PTXCAST=${PTXCAST:-$ROOT/build/tools/ptxcast/ptxcast}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
ARCH=sm_90
MATH=simt
DTYPES=f32,f16
KERNELS=specialised,library
KEEP=""
MODELS=()
while [[ $# -gt 0 ]]; do
  case "$1" in
  --ptxcast) PTXCAST=$2; shift 2 ;;
  --ptxas) PTXAS=$2; shift 2 ;;
  --arch) ARCH=$2; shift 2 ;;
  --math) MATH=$2; shift 2 ;;
  --dtype) DTYPES=$2; shift 2 ;;
  --kernels) KERNELS=$2; shift 2 ;;
  --keep) KEEP=$2; shift 2 ;;
  -h | --help) sed -n '2,21p' "$0"; exit 0 ;;
  -*) echo "check-zoo-ptxas.sh: error: unknown option '$1'" >&2; exit 2 ;;
  *) MODELS+=("$1"); shift ;;
  esac
done
for Tool in "$PTXCAST" "$PTXAS"; do
  if [[ ! -x $Tool ]]; then
    echo "check-zoo-ptxas.sh: error: '$Tool' is not executable (set PTXCAST/PTXAS or pass --ptxcast/--ptxas)" >&2
    exit 2
  fi
done
if [[ ${#MODELS[@]} -eq 0 ]]; then
  mapfile -t MODELS < <("$PTXCAST" zoo --format json |
    python3 -c 'import json,sys; print("\n".join(m["name"] for m in json.load(sys.stdin)["models"]))')
fi

WORK=${KEEP:-$(mktemp -d -t ptxcast-zoo-ptxas.XXXXXX)}
mkdir -p "$WORK"
[[ -n $KEEP ]] || trap 'rm -rf "$WORK"' EXIT

[[ $MATH == all ]] && MATH=simt,tf32,f16,bf16
IFS=, read -r -a MATHS <<<"$MATH"
IFS=, read -r -a SETS <<<"$KERNELS"
IFS=, read -r -a TYPES <<<"$DTYPES"

# Whether `ptxcast lower` takes --math $1 with --dtype $2 on $ARCH.
supported() {
  [[ $1 == simt || $1 == auto ]] && return 0
  if [[ $2 == int8 || $1 == int8 ]]; then
    [[ $1 == int8 && $2 == int8 && $ARCH != sm_70 ]]
    return
  fi
  [[ $1 == f16 ]] && return 0
  [[ $ARCH == sm_70 || $ARCH == sm_75 ]] && return 1
  [[ $2 == f32 ]]
}

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

ROW='%-18s %5s %5s %5s %11s %8s %8s %8s %8s %8s\n'
printf "$ROW" model batch dtype math kernel_set launches kernels ptxas lower_s ptxas_s
FAILED=0
TOTAL=0
for Model in "${MODELS[@]}"; do
  for Batch in 1 8; do
    for DType in "${TYPES[@]}"; do
      for Math in "${MATHS[@]}"; do
       for Set in "${SETS[@]}"; do
        supported "$Math" "$DType" || continue
        TOTAL=$((TOTAL + 1))
        Dir=$WORK/$Model-b$Batch-$DType-$Math-$Set
        Start=$(date +%s.%N)
        if ! "$PTXCAST" lower "$Model" --batch "$Batch" --dtype "$DType" --arch "$ARCH" \
          --math "$Math" --kernels "$Set" -o "$Dir" >"$WORK/lower.log" 2>&1; then
          End=$(date +%s.%N)
          printf "$ROW" "$Model" "$Batch" "$DType" "$Math" "$Set" - - lower-fail \
            "$(elapsed "$Start" "$End")" -
          sed 's/^/    /' "$WORK/lower.log" >&2
          FAILED=$((FAILED + 1))
          continue
        fi
        End=$(date +%s.%N)
        Launches=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["launches"]))' \
          "$Dir/manifest.json")
        Kernels=$(cat "$Dir"/*.ptx | grep -c '^\.visible \.entry\|^\.entry' || true)
        Status=ok
        PtxasStart=$(date +%s.%N)
        for Ptx in "$Dir"/*.ptx; do
          if ! "$PTXAS" -arch="$ARCH" "$Ptx" -o /dev/null >"$WORK/ptxas.log" 2>&1; then
            Status=fail
            sed 's/^/    /' "$WORK/ptxas.log" | head -20 >&2
          fi
        done
        PtxasEnd=$(date +%s.%N)
        [[ $Status == ok ]] || FAILED=$((FAILED + 1))
        printf "$ROW" "$Model" "$Batch" "$DType" "$Math" "$Set" "$Launches" \
          "$Kernels" "$Status" "$(elapsed "$Start" "$End")" "$(elapsed "$PtxasStart" "$PtxasEnd")"
        [[ -n $KEEP ]] || rm -rf "$Dir"
       done
      done
    done
  done
done
echo "$((TOTAL - FAILED)) of $TOTAL configurations accepted by ptxas -arch=$ARCH"
[[ $FAILED -eq 0 ]]
