#!/usr/bin/env bash
# Runs ptxcast-measure over a plan of lowered manifests on a GPU box, within a time limit.
#
#   scripts/measure/run-plan.sh MEASURE_BIN MANIFEST_ROOT PLAN OUT_DIR [SECONDS]
#
# PLAN has one line per run: `NAME SMS REPEAT WARMUP [TAG]`, where NAME is a folder under
# MANIFEST_ROOT holding manifest.json (as `ptxcast lower MODEL --batch N --math simt --kernels
# specialised -o ROOT/NAME` writes it: the measured rows are those CUDA-core kernels),
# SMS is `all` or an SM count for --sms, and TAG (default run1) tells repeated runs apart. Each run
# writes OUT_DIR/NAME.sms-SMS.TAG.csv and appends one line to OUT_DIR/runs.log (exit status, wall
# seconds). Lines starting with # are skipped. Once SECONDS (default 540) have passed, the
# remaining lines are logged as `skipped (time)` instead of run, so a caller with a hard limit
# still gets every finished CSV. The script never changes device settings.
set -u
if [ $# -lt 4 ]; then
  echo "usage: $0 MEASURE_BIN MANIFEST_ROOT PLAN OUT_DIR [SECONDS]" >&2
  exit 2
fi
BIN=$1 ROOT=$2 PLAN=$3 OUT=$4 LIMIT=${5:-540}
mkdir -p "$OUT"
START=$(date +%s)
while read -r NAME SMS REPEAT WARMUP TAG; do
  case "$NAME" in '' | '#'*) continue ;; esac
  TAG=${TAG:-run1}
  CSV="$OUT/$NAME.sms-$SMS.$TAG.csv"
  NOW=$(date +%s)
  if [ $((NOW - START)) -ge "$LIMIT" ]; then
    echo "$NAME sms=$SMS $TAG skipped (time)" >>"$OUT/runs.log"
    continue
  fi
  ARGS=(--repeat "$REPEAT" --warmup "$WARMUP")
  [ "$SMS" != all ] && ARGS+=(--sms "$SMS")
  T0=$(date +%s.%N)
  "$BIN" "$ROOT/$NAME/manifest.json" -o "$CSV" "${ARGS[@]}" 2>>"$OUT/stderr.log" </dev/null
  RC=$?
  T1=$(date +%s.%N)
  awk -v n="$NAME" -v s="$SMS" -v t="$TAG" -v r="$RC" -v a="$T0" -v b="$T1" \
    'BEGIN { printf "%s sms=%s %s rc=%d wall=%.1fs\n", n, s, t, r, b - a }' >>"$OUT/runs.log"
done <"$PLAN"
cat "$OUT/runs.log"
