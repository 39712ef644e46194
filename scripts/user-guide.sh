#!/bin/bash
# Regenerates docs/user-guide.md from real command output: scripts/user-guide.sh > docs/user-guide.md
# (from the repository root, after a build; B=PATH picks another binary).
set -e
B=${B:-build/tools/ptxcast/ptxcast}
run() { echo "    \$ ptxcast $*"; $B "$@" 2>&1 | sed 's/^/    /'; }
cat <<'HDR'
# ptxcast user guide: worked examples

Every number below was produced by the command above it, run on the 2-core development machine
(no GPU) with the shipped model (models/cross-gpu.json). **Read the model line first:** it says
what the numbers mean, which GPUs were measured, and the error band measured leaving each of those
GPUs out. For any GPU not in that list, the time comes from the GPU's physical skeleton and the
learned efficiency (docs/cross-gpu.md), and the band is the honest one for such a GPU.
`scripts/user-guide.sh > docs/user-guide.md` regenerates this page.

## 1. One network on one GPU

HDR
run predict efficientnet-b0 --gpu h100
cat <<'T'

`time per batch` is what a CUDA-graph replay of PyTorch's kernels would take (`--runtime graph`,
the default); `physical bound` is the sum of the launches' bounds on this GPU, and the ratio says
how far from its peaks PyTorch runs this network. The breakdown splits the time over the
lowering's launch kinds.

## 2. Eager PyTorch: when the host, not the GPU, sets the time

T
run predict mobilenetv2-1.0 --gpu a100 --runtime eager
cat <<'T'

Eager PyTorch pays host time for every kernel it launches (19.2 us per kernel on the x86 server
the project measured, scaled by the host CPU's single-thread speed: `--host`, `ptxcast gpus
--hosts`); small networks at batch 1 are then host-bound on any fast GPU, and the prediction
says so. Its band is then the host time's own measured spread (0.82-1.69x: docs/accuracy.md,
"Eager PyTorch"), not the GPU's.

## 3. EfficientNet-B0..B7 on Jetson AGX Orin vs A100 vs H100 (batch 1, 30 fps budget)

T
run compare --models efficientnet-b0,efficientnet-b1,efficientnet-b2,efficientnet-b3,efficientnet-b4,efficientnet-b5,efficientnet-b6,efficientnet-b7 --gpus jetson-agx-orin,a100-40gb-sxm,h100-sxm --budget-ms 33.3
cat <<'T'

## 4. MobileNetV2 width sweep (Jetson Orin Nano, Jetson AGX Orin, T4; batch 1 and 8)

T
run compare --models mobilenetv2-0.35,mobilenetv2-0.5,mobilenetv2-0.75,mobilenetv2-1.0,mobilenetv2-1.4 --gpus jetson-orin-nano,jetson-agx-orin,t4 --batch 1,8
cat <<'T'

## 5. Xception vs EfficientNet-B3 under a 20 ms budget, fp16 (batch 1 and 16)

The targets column says `meets` where the slow end of the band is within the budget too, and
`maybe` where only the predicted time is: one GPU in ten runs slower than its band's end, so a
`maybe` is a GPU to measure before buying it for this budget.

T
run compare --models xception,efficientnet-b3 --gpus t4,l4,rtx-4090,a100-40gb-sxm --batch 1,16 --dtype f16 --budget-ms 20
cat <<'T'

## 6. A GPU of your own, and your own ONNX model

A GPU that is not in the catalog (a capped clock, a next-generation part) is a JSON file with the
catalog's fields (docs/gpu-catalog.md, "A GPU of your own"):

T
run predict resnet50 --gpu-spec docs/examples/h100-1400mhz.json --batch 8
cat <<'T'

Any ONNX CNN works the same way (docs/onnx.md); it is named after its file:

T
run predict corpus/data/measured/h100/onnx/resnet18.onnx --gpu l4 --batch 8
cat <<'T'

## 7. Does it fit, and how many images per second?

Every prediction says what the network needs in device memory (weights, the largest set of live
activations, cuDNN's workspace, the runtime's reserve; docs/predict.md, "Device memory") and
whether the GPU has it. EfficientNet-B7 at batch 64 on a 4 GB Orin Nano:

T
run predict efficientnet-b7 --gpu jetson-orin-nano-4gb --batch 64
cat <<'T'

"Is an Orin Nano enough for EfficientNet-B3 at 30 images/s, each batch within 100 ms?"
`--max-batch` finds, per GPU, the largest batch that fits in memory and stays within the budget,
and says whether its images/s reach the target:

T
run compare --models efficientnet-b3 --gpus jetson-orin-nano-4gb,jetson-orin-nano,jetson-agx-orin --budget-ms 100 --target-ips 30 --max-batch
cat <<'T'

## 8. PyTorch or an inference engine?

The same network under eager PyTorch, a CUDA-graph replay and an inference engine, side by side
(`--runtime tensorrt` is experimental: every such line warns with its error against published
TensorRT timings, docs/accuracy.md, "Inference engines", and its band reaches as far as those
timings strayed: fp16 engines on a T4 ran 1.1-2.9x the predicted time):

T
run compare --models resnet50 --gpus t4,jetson-agx-orin --batch 8 --dtype f16 --runtime eager,graph,tensorrt
cat <<'T'

## 9. A few timings of your own

If you can time a few networks on the GPU, or find published timings of it, hand them to
`--calibrate`: every prediction on that GPU is scaled by how far the model was off on them
(docs/predict.md, "Calibration"). docs/examples/h200-timings.csv holds three of this project's own
H200 measurements (corpus/data/measured/h200/frameworks.csv; the shipped model never trained on
an H200): ResNet-50, EfficientNet-B0 and MobileNetV2 at batch 32 in fp16, CUDA graphs. Time the
kind of network you will predict: here EfficientNet-B3, measured at 9.08 ms.

T
run predict efficientnet-b3 --gpu h200 --batch 32 --dtype f16
echo
run predict efficientnet-b3 --gpu h200 --batch 32 --dtype f16 --calibrate docs/examples/h200-timings.csv
cat <<'T'

Against the measured 9.08 ms the calibrated prediction is 11 % off instead of 13 %. The band keeps
its width and sheds the part of the model's typical bias on a GPU it never saw (1.052x too fast)
that the timings measured; three timings are drawn toward 1 less than one would be.

## Rebuilding the model

`scripts/train-models.sh` rebuilds models/cross-gpu.json from ../shared/datasets and
corpus/data/measured (docs/predict.md); rebuild ptxcast afterwards to embed it.
T
