#!/usr/bin/env bash
# Fresh-process speed of `ptxcast predict` and `compare` with the per-user caches cold (an empty
# cache directory each run) and warm (the directory of the run before): median of N runs each,
# with the load average, so that a noisy machine shows. docs/benchmarks.md, "Prediction".
#
# Usage: bench/predict_speed.sh [PTXCAST] [RUNS]   (defaults: build/tools/ptxcast/ptxcast, 5)
set -euo pipefail
PTXCAST=${1:-build/tools/ptxcast/ptxcast}
RUNS=${2:-5}
CACHE=$(mktemp -d)
trap 'rm -rf "$CACHE"' EXIT

# Median wall seconds of RUNS runs of "$@"; with cold, each run starts from an empty cache.
median() {
  local mode=$1; shift
  local times=()
  for _ in $(seq "$RUNS"); do
    [ "$mode" = cold ] && rm -rf "$CACHE"/*
    local start end
    start=$(date +%s%N)
    PTXCAST_CACHE="$CACHE" "$@" >/dev/null
    end=$(date +%s%N)
    times+=("$(((end - start) / 1000000))")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {m=(NR%2)?a[(NR+1)/2]:(a[NR/2]+a[NR/2+1])/2; printf "%.3f", m/1000}'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg), $RUNS runs each, median seconds"
printf '%-44s %8s %8s\n' command cold warm
for cmd in "predict efficientnet-b7 --gpu h100" "compare --models all --gpus h100" \
  "compare --models all --gpus all --format csv"; do
  # shellcheck disable=SC2086 # the command's words
  cold=$(median cold "$PTXCAST" $cmd)
  # shellcheck disable=SC2086 # the last cold run left the cache warm
  warm=$(median warm "$PTXCAST" $cmd)
  printf '%-44s %8s %8s\n' "$cmd" "$cold" "$warm"
done
