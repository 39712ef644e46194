#!/usr/bin/env bash
# Rebuilds the shipped predictor bundles models/*.json from the measured datasets in
# ../shared/datasets (SOURCES.md there): `ptxcast dataset` joins each measurement with ptxcast's
# analysis of the same workload, `ptxcast train --level ... --cv group=gpu` measures the error band
# by leave-one-GPU-out cross-validation and then fits on every row. Deterministic: the same
# datasets and binary give the same bytes. docs/predict.md describes the bundles.
#
# Usage: scripts/train-models.sh [BUILD_DIR]      (default build/; the binary must be built)
# Environment: LIMIT=N  ingest only the first N rows per source (quick trial runs; 0 = all)
#              DATASETS=DIR  the datasets folder (default ../shared/datasets)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
PTXCAST=$BUILD/tools/ptxcast/ptxcast
DATASETS=${DATASETS:-../shared/datasets}
LIMIT=${LIMIT:-0}
WORK=$BUILD/data
mkdir -p "$WORK" models
[ -x "$PTXCAST" ] || { echo "train-models: build $PTXCAST first" >&2; exit 1; }

# 1. NeuSight: per-operator latencies of PyTorch 2.1 / cuDNN 8.9, fp32, on P4, P100, T4, V100.
#    Applied to each launch of a network and summed.
"$PTXCAST" dataset neusight --limit "$LIMIT" -o "$WORK/neusight.csv" \
  "$DATASETS"/neusight/{conv,linear,relu,add,softmax}/{p4,p100,t4,v100}.csv
"$PTXCAST" train --data "$WORK/neusight.csv" --target latency_ms \
  --learner xgboost --param num_round=150 --log-target \
  --level operator --dtype f32 --cv group=gpu --name neusight-operator-f32 \
  --predicts "PyTorch 2.1/cuDNN 8.9 fp32 operator latency (NeuSight measurements), summed over the network's launches" \
  -o models/neusight-operator-f32.json

# 2. timm: whole-network AMP (f16) inference step time on RTX 3090 (PyTorch 2.4) and RTX 4090
#    (PyTorch 2.9.1, eager), NCHW. Applied to the whole network's features. The band comes from
#    leave-one-network-out (two GPUs are too few to leave one out). Ridge linear on log target
#    and log features: 6.4 % out of fold, where the tree learners reach 13-15 % (docs/accuracy.md).
"$PTXCAST" dataset timm --limit "$LIMIT" -o "$WORK/timm.csv" \
  "$DATASETS"/timm/benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv \
  "$DATASETS"/timm/benchmark-infer-amp-nchw-pt291-cu128-4090.csv
"$PTXCAST" train --data "$WORK/timm.csv" --target infer_step_time_ms \
  --learner linear --log-target --log-features \
  --level network --dtype f16 --cv group=zoo_model --name timm-network-f16 \
  --predicts "PyTorch AMP (f16) network inference step time (timm benchmarks, RTX 3090 PyTorch 2.4 and RTX 4090 PyTorch 2.9.1, NCHW), per batch" \
  -o models/timm-network-f16.json

# 3. H100: PyTorch 2.11 whole-network times measured by this project (CUDA-graph replays, fp32
#    and fp16 autocast, batch 1/8/32/64; corpus/data/measured/README.md), analysed from the ONNX
#    graphs that were timed. One GPU: predict uses these bundles for the H100 only.
MEASURED=corpus/data/measured/h100
"$PTXCAST" dataset frameworks --limit "$LIMIT" -o "$WORK/h100-frameworks.csv" \
  "$MEASURED/frameworks.csv"
for DTYPE in f32 f16; do
  "$PTXCAST" train --data "$WORK/h100-frameworks.csv" --where dtype=$DTYPE --target median_ms \
    --learner linear --log-target --log-features \
    --level network --dtype $DTYPE --cv group=model --name h100-network-$DTYPE \
    --predicts "PyTorch 2.11 $DTYPE network inference time on an H100 SXM (CUDA-graph replay, measured by ptxcast), per batch" \
    -o models/h100-network-$DTYPE.json
done

ls -l models/*.json
