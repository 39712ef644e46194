#!/usr/bin/env bash
# Fresh-process speed of `ptxcast predict` and `compare` with the per-user caches cold (an empty
# cache directory each run) and warm (the directory of the run before): median of N runs each,
# with the load average, so that a noisy machine shows. With a BASELINE binary, every run of
# PTXCAST is followed by one of BASELINE (each with its own cache), and the table adds the
# baseline's medians and the ratio PTXCAST / BASELINE: on a shared host the ratio of runs taken
# back to back is the figure to trust. docs/benchmarks.md, "Prediction".
#
# Usage: bench/predict_speed.sh [PTXCAST] [RUNS] [BASELINE]
#        (defaults: build/tools/ptxcast/ptxcast, 5, none)
set -euo pipefail
PTXCAST=${1:-build/tools/ptxcast/ptxcast}
RUNS=${2:-5}
BASELINE=${3:-}
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT

# One timed run of binary $2 with "$@" after it, in cache folder $1 (emptied first when $MODE is
# cold); prints milliseconds.
timed() {
  local dir=$1 bin=$2; shift 2
  mkdir -p "$dir"
  [ "$MODE" = cold ] && rm -rf "${dir:?}"/*
  local start end
  start=$(date +%s%N)
  PTXCAST_CACHE="$dir" "$bin" "$@" >/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

median() {
  sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1000}'
}

# Medians (seconds) of RUNS runs of PTXCAST and, alternating with it, of BASELINE.
measure() {
  local ours=() theirs=()
  for _ in $(seq "$RUNS"); do
    ours+=("$(timed "$CACHE/ours" "$PTXCAST" "$@")")
    [ -n "$BASELINE" ] && theirs+=("$(timed "$CACHE/baseline" "$BASELINE" "$@")")
  done
  local a b
  a=$(printf '%s\n' "${ours[@]}" | median)
  if [ -n "$BASELINE" ]; then
    b=$(printf '%s\n' "${theirs[@]}" | median)
    printf '%8s %8s %6s' "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.2f", a / b}')"
  else
    printf '%8s' "$a"
  fi
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs each, median seconds"
if [ -n "$BASELINE" ]; then
  printf '%-44s %24s %24s\n' "" "cold: ours base ratio" "warm: ours base ratio"
else
  printf '%-44s %8s %8s\n' command cold warm
fi
for cmd in "predict efficientnet-b7 --gpu h100" "compare --models all --gpus h100" \
  "compare --models all --gpus all --format csv"; do
  # shellcheck disable=SC2086 # the command's words
  cold=$(MODE=cold measure $cmd)
  # shellcheck disable=SC2086 # the last cold run left each cache warm
  warm=$(MODE=warm measure $cmd)
  printf '%-44s %s %s\n' "$cmd" "$cold" "$warm"
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
