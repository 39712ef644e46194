#!/usr/bin/env bash
# Rebuilds the shipped cross-GPU model models/cross-gpu.json from every measurement the project
# has (docs/cross-gpu.md): `ptxcast dataset` joins each measured time with ptxcast's analysis of
# the same workload and the physical skeleton of the GPU it ran on; `ptxcast train --bundle --cv
# group=gpu` measures the error band leaving one GPU out at a time, then fits on every row.
# Deterministic: the same datasets and binary give the same bytes.
#
# Usage: scripts/train-models.sh [BUILD_DIR]      (default build/; the binary must be built)
# Environment: DATASETS=DIR  the public datasets (default ../shared/datasets, SOURCES.md there)
#              CACHE=DIR     analysis cache (default BUILD_DIR/analysis-cache): a second run
#                            re-analyses nothing and takes minutes instead of about an hour
#              THREADS=N     worker threads (default: all cores)
#              NEUSIGHT_ROWS=N  rows read from each NeuSight file (default 800; 0 = all)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${1:-build}
PTXCAST=$BUILD/tools/ptxcast/ptxcast
DATASETS=${DATASETS:-../shared/datasets}
CACHE=${CACHE:-$BUILD/analysis-cache}
THREADS=${THREADS:-0}
WORK=$BUILD/data
MEASURED=corpus/data/measured/h100
N=$DATASETS/neusight
T=$DATASETS/neusight-testsplit
mkdir -p "$WORK" models
[ -x "$PTXCAST" ] || { echo "train-models: build $PTXCAST first" >&2; exit 1; }
D() { "$PTXCAST" dataset "$@" --cache "$CACHE" --threads "$THREADS"; }

# 1. The project's own H100 measurements: ptxcast's kernels (per launch, with all 132 SMs and in
#    green contexts of 16/32/66 SMs; run1 only, run2 repeats it as a noise check) and their
#    CUDA-graph replays, and PyTorch 2.11 networks replayed as CUDA graphs (fp32, fp16 autocast).
D kernels "$MEASURED/kernels.csv" --run run1 -o "$WORK/h100-kernels-launch.csv"
D kernels "$MEASURED/kernels.csv" --run run1 --level network -o "$WORK/h100-kernels-network.csv"
D frameworks "$MEASURED/frameworks.csv" -o "$WORK/h100-frameworks.csv"
# 1a. ptxcast's tensor-core library kernels (--math auto: tf32 and f16 mma.sync convolutions and
#     dense layers) on the H100, replayed as CUDA graphs: source h100-library. Without them the
#     model predicted the same kernels on the H200 30 % off, 1.9x too fast in fp16
#     (docs/accuracy.md, "ptxcast's library kernels on a GPU it never saw").
D kernels corpus/data/measured/h100-library/kernels.csv --gpu h100 --math auto --kernels library \
  --run run1 --level network -o "$WORK/h100-library-network.csv"

# 1b. The project's H200 measurements of the same PyTorch networks (the graphs exported on the H100
#     run): the test GPU of step 5, not trained on. Trained on, the twin of the H100 made the
#     leave-one-GPU-out error of every GPU that is not Hopper worse (docs/accuracy.md).
D frameworks corpus/data/measured/h200/frameworks.csv --onnx-dir "$MEASURED/onnx" \
  -o "$WORK/h200-frameworks.csv"
D kernels corpus/data/measured/h200/kernels.csv --gpu h200 --math auto --kernels library \
  --run run1 --level network -o "$WORK/h200-library-network.csv"

# 2. timm: whole-network AMP (f16) inference, eager PyTorch at large batches, RTX 3090 and 4090:
#    the zoo's networks, and timm's torchvision architectures from the H100 run's ONNX graphs;
#    and torch.compile's (-dynamo) rows on the RTX 4090, runtime compile (the feature `compiled`
#    keeps them apart from the eager rows), from which the compile runtime learns.
D timm "$DATASETS"/timm/benchmark-infer-amp-nchw-pt240-cu124-rtx3090.csv \
  "$DATASETS"/timm/benchmark-infer-amp-nchw-pt291-cu128-4090.csv \
  "$DATASETS"/timm/benchmark-infer-amp-nchw-pt240-cu124-rtx4090-dynamo.csv \
  "$DATASETS"/timm/benchmark-infer-amp-nchw-pt291-cu128-4090-dynamo.csv \
  --onnx-dir "$MEASURED/onnx" -o "$WORK/timm.csv"

# 3. NeuSight: PyTorch 2.1 fp32 operators, one eager call each, on P4, P100, T4, V100 (random
#    shapes) and H100 (linear and bmm, transformer shapes); and the test split of real
#    transformer shapes. One run, so the host's per-call overhead of every (GPU, operator) comes
#    from the training split's smallest operators. The first NEUSIGHT_ROWS rows of each file (the
#    files list random shapes in random order; 0 = all): 800 give 33,647 rows and 7,751 distinct
#    analyses (10 minutes on 2 cores), all of them 174,000 rows and about 40,000 analyses (hours).
#    The learner samples 5,000 rows of all sources anyway (step 4).
D neusight "$N"/{conv,linear,bmm,relu,add,softmax}/{p4,p100,t4,v100}.csv \
  "$N"/{linear,bmm}/h100.csv "$T"/*/{p4,p100,t4,v100}.csv --limit "${NEUSIGHT_ROWS:-800}" \
  -o "$WORK/neusight.csv"
# 3b. NeuSight's A100 operators: a test GPU, not trained on (step 5). Trained on, they make the
#     leave-one-GPU-out error of ptxcast's own H100 kernel networks worse (12.4 -> 29.0 %) and the
#     A100's own no better (16.0 % never seen, 14.2 % and conv 26.3 % left out; docs/accuracy.md).
D neusight "$N"/{conv,linear,bmm,relu,add,softmax}/a100.csv --limit "${NEUSIGHT_ROWS:-800}" \
  -o "$WORK/neusight-a100.csv"

# The kNN's distance leaves out share_latency, which leads a held-out GPU's rows to the wrong
# neighbours (docs/accuracy.md, "Which features the kNN measures distance by"): dropped one at a
# time from all 38, it is the feature whose removal helps the leave-one-GPU-out network rows
# most, and the GPUs never trained on and the engine tables move by under 0.1 point.
KNN=(--learner knn --param k=80 --param weighted=1 --param max_rows=5000 --param samples=5
     --ignore share_latency)
BAND_SOURCES='source=h100-kernels|frameworks|timm'
ALL=(--data "$WORK/h100-kernels-launch.csv" --data "$WORK/h100-kernels-network.csv"
     --data "$WORK/h100-frameworks.csv" --data "$WORK/timm.csv" --data "$WORK/neusight.csv"
     --data "$WORK/h100-library-network.csv")

# 4. The model: every source at once, each (source, GPU, runtime) group weighing the same, the
#    band measured leaving one GPU out on the whole-network rows. The learner is a smooth kNN
#    (80 neighbours, inverse-distance weighted, the mean over five 5,000-row weight-proportional
#    samples): of the learners it transfers best to a GPU left out (docs/accuracy.md, "Which
#    learner ships"), its distance over every feature but the one KNN leaves out. The band leaves
#    out the library kernels' rows: no other GPU's are in training, so leaving the H100 out
#    leaves them nothing to learn from (the H200's, never trained on, are scored in step 5).
"$PTXCAST" train "${ALL[@]}" --balance source,gpu,runtime "${KNN[@]}" \
  --cv group=gpu --band-where 'runtime=graph|eager' --band-where "$BAND_SOURCES" \
  --bundle --name cross-gpu \
  --predicts "the GPU time of a network in PyTorch's default execution (each layer its own kernel; TF32 for fp32 convolutions on sm_80+, fp16 tensor cores under autocast), ms per batch: its physical bound on the GPU times a learned efficiency" \
  -o models/cross-gpu.json
ls -l models/*.json

# 5. The model on GPUs it was not trained on: the H200's PyTorch networks and ptxcast's library
#    kernels there, the A100's operators.
"$PTXCAST" evaluate --data "$WORK/h200-frameworks.csv" --model models/cross-gpu.json --report-by dtype
"$PTXCAST" evaluate --data "$WORK/h200-library-network.csv" --model models/cross-gpu.json \
  --report-by dtype
"$PTXCAST" evaluate --data "$WORK/neusight-a100.csv" --model models/cross-gpu.json --report-by workload

# 6. The calibration weight's source (pipeline/Calibration.h, TimingNoiseToSpread): its last
#    line prints sigma^2 / tau^2 over the leave-one-GPU-out network predictions of the learner
#    shipped above; when it moves, update the constant and docs/predict.md's table.
#    ("${KNN[@]:2}": the kNN's options after `--learner knn`, which evaluate spells --learners.)
"$PTXCAST" evaluate "${ALL[@]}" --learners knn "${KNN[@]:2}" --cv group=gpu \
  --balance source,gpu,runtime --predictions "$WORK/logo-knn.csv" >/dev/null
scripts/calibration-check.py "$WORK/logo-knn.csv"

# 7. The host band's source (hardware/Host.h, HostTimeBand): the eager runtime on the project's
#    eager H100 rows; its last line prints the 10th and 90th percentiles of measured / predicted
#    over the host-bound rows. When they move, update the constant and docs/accuracy.md's
#    "Eager PyTorch" section.
scripts/eager-check.py --ptxcast "$PTXCAST" --model models/cross-gpu.json

# 8. The engine band's source (pipeline/Prediction.h, EngineTimeBandF32/F16): the tensorrt runtime
#    on the T4 TensorRT timings; its last two lines print the 10th and 90th percentiles of
#    measured / predicted at batch 4 and 8 per precision. When they move, update the constants and
#    docs/accuracy.md's "Inference engines" section.
scripts/engine-check.py --ptxcast "$PTXCAST" --model models/cross-gpu.json \
  --data "$DATASETS/paddleclas/t4-tensorrt.csv"
