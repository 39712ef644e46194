#!/usr/bin/env bash
# Compares ptxcast's per-kernel resource estimate (ptx::estimateResources, printed by
# `ptxcast inspect --format json`) with ptxas -v for sm_90 and sm_75 and with the registers and
# static shared memory the H100 driver reported for the zoo kernels
# (corpus/data/measured/h100/kernels.csv). Prints the figures docs/ptx-frontend.md quotes
# ("Resource estimate"). Needs ptxas (CUDA 13); not run by CI. Takes a few minutes.
#
#   scripts/check-register-estimate.sh [--ptxcast PATH] [--ptxas PATH] [--kernels DIR] [--keep DIR]
#
# Zoo models are lowered at batch 1 for sm_90 and sm_75 (compared with ptxas -arch of the same
# target) and at batch 8, 32 and 64 for sm_90 (compared with the driver's numbers, which were
# measured at batch 1/8/32/64); the test kernels are DIR/*.sm_75.ptx, *.sm_90.ptx and *.llc.ptx
# (default build/kernels; llc output is sm_90 there). --keep DIR keeps the PTX, the ptxas logs and
# DIR/kernels.csv (one row per kernel and source: estimate and the reference numbers); a second
# run with the same --keep DIR reuses the lowered models.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
PTXCAST=${PTXCAST:-$ROOT/build/tools/ptxcast/ptxcast}
PTXAS=${PTXAS:-/usr/local/cuda/bin/ptxas}
KERNELS=$ROOT/build/kernels
KEEP=""
while [[ $# -gt 0 ]]; do
  case "$1" in
  --ptxcast) PTXCAST=$2; shift 2 ;;
  --ptxas) PTXAS=$2; shift 2 ;;
  --kernels) KERNELS=$2; shift 2 ;;
  --keep) KEEP=$2; shift 2 ;;
  -h | --help) sed -n '2,16p' "$0"; exit 0 ;;
  *) echo "check-register-estimate.sh: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
for Tool in "$PTXCAST" "$PTXAS"; do
  if [[ ! -x $Tool ]]; then
    echo "check-register-estimate.sh: error: '$Tool' is not executable (set PTXCAST/PTXAS or pass --ptxcast/--ptxas)" >&2
    exit 2
  fi
done

WORK=${KEEP:-$(mktemp -d -t ptxcast-regs.XXXXXX)}
mkdir -p "$WORK"
[[ -n $KEEP ]] || trap 'rm -rf "$WORK"' EXIT

mapfile -t MODELS < <("$PTXCAST" zoo --format json |
  python3 -c 'import json,sys; print("\n".join(m["name"] for m in json.load(sys.stdin)["models"]))')
echo "lowering ${#MODELS[@]} zoo models into $WORK ..." >&2
for Model in "${MODELS[@]}"; do
  for Config in sm_90:1 sm_90:8 sm_90:32 sm_90:64 sm_75:1; do
    Arch=${Config%%:*}
    Batch=${Config##*:}
    Dir=$WORK/zoo/$Arch/b$Batch/$Model
    [[ -n $KEEP && -f $Dir/manifest.json ]] && continue # a kept directory is reused
    "$PTXCAST" lower "$Model" --batch "$Batch" --arch "$Arch" --math simt -o "$Dir" >/dev/null
  done
done

exec python3 - "$PTXCAST" "$PTXAS" "$KERNELS" "$WORK" \
  "$ROOT/corpus/data/measured/h100/kernels.csv" <<'PYTHON'
import concurrent.futures, csv, glob, json, math, os, re, statistics, subprocess, sys

PTXCAST, PTXAS, KERNELS, WORK, DRIVER_CSV = sys.argv[1:6]

def ptxas(path, arch):
    """{kernel: (registers, static shared bytes)} from `ptxas -v`."""
    log = subprocess.run([PTXAS, "-v", "-arch=" + arch, path, "-o", "/dev/null"],
                         capture_output=True, text=True, check=True).stderr
    out, kernel = {}, None
    for line in log.splitlines():
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            kernel = m.group(1)
        m = re.search(r"Used (\d+) registers", line)
        if m and kernel:
            smem = re.search(r"(\d+) bytes smem", line)
            out[kernel] = (int(m.group(1)), int(smem.group(1)) if smem else 0)
            kernel = None
    return out

def estimate(path):
    """{kernel: (registers, static shared bytes)} from `ptxcast inspect --format json`."""
    j = json.loads(subprocess.run([PTXCAST, "inspect", "--format", "json", path],
                                  capture_output=True, text=True, check=True).stdout)
    return {k["name"]: (k["estimated_registers_per_thread"], k["static_shared_bytes"])
            for k in j["kernels"] if k["entry"]}

def blocks(manifest):
    """{kernel: threads per CTA} of a lowered model's launches."""
    m = json.load(open(manifest))
    return {l["kernel"]: l["block"][0] * l["block"][1] * l["block"][2] for l in m["launches"]}

def ctas_per_sm(regs, threads, sm_threads=2048, sm_ctas=32):
    """CTAs per SM limited by registers and threads: 65536 registers allocated per warp in
    units of 256, sm_threads threads, at most sm_ctas CTAs (sm_90: 2048, 32; sm_75: 1024, 16)."""
    warps = (threads + 31) // 32
    per_warp = (regs * 32 + 255) // 256 * 256
    return min(65536 // per_warp // warps, sm_threads // 32 // warps, sm_ctas)

OWN_SM = {"sm_90": (2048, 32), "sm_75": (1024, 16)}

def at_cliff(regs, threads, arch):
    """ptxas spends registers that cost no occupancy on its target: a count where one more
    register would lose a CTA is (usually) such a fill, not the kernel's need."""
    return regs < 255 and ctas_per_sm(regs + 1, threads, *OWN_SM[arch]) < \
        ctas_per_sm(regs, threads, *OWN_SM[arch])

# Jobs: (source, arch, batch, model, ptx path, block sizes).
jobs = []
for path in sorted(glob.glob(os.path.join(WORK, "zoo", "*", "*", "*", "*.ptx"))):
    arch, batch, model = path.split(os.sep)[-4:-1]
    jobs.append(("zoo", arch, int(batch[1:]), model, path,
                 blocks(os.path.join(os.path.dirname(path), "manifest.json"))))
for path in sorted(glob.glob(os.path.join(KERNELS, "*.ptx"))):
    arch = "sm_75" if path.endswith(".sm_75.ptx") else "sm_90"
    jobs.append(("test", arch, 0, os.path.basename(path), path, {}))

def run(job):
    source, arch, batch, model, path, block = job
    ref, est = ptxas(path, arch), estimate(path)
    return [(source, arch, batch, model, k, block.get(k, 256)) + est[k] + ref[k] for k in est]

rows = []
with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
    for r in pool.map(run, jobs):
        rows.extend(r)

with open(os.path.join(WORK, "kernels.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["source", "arch", "batch", "model", "kernel", "threads", "est_registers",
                "est_smem", "ptxas_registers", "ptxas_smem"])
    w.writerows(rows)

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, math.ceil(q * len(xs)) - 1))]

def report(label, arch, pairs):
    """pairs: (estimated regs, reference regs, threads, estimated smem, reference smem or None)."""
    if not pairs:
        print(f"{label:<34} no kernels")
        return
    err = [abs(e - r) / r for e, r, *_ in pairs]
    free = [abs(e - r) / r for e, r, t, *_ in pairs if not at_cliff(r, t, arch)]
    bucket = sum(ctas_per_sm(e, t) == ctas_per_sm(r, t) for e, r, t, *_ in pairs)
    own = sum(ctas_per_sm(e, t, *OWN_SM[arch]) == ctas_per_sm(r, t, *OWN_SM[arch])
              for e, r, t, *_ in pairs)
    smem = [(es, rs) for _, _, _, es, rs in pairs if rs is not None]
    exact = sum(es == rs for es, rs in smem)
    bias = statistics.median(e - r for e, r, *_ in pairs)
    print(f"{label:<34} {len(pairs):>6} {100 * statistics.median(err):>6.1f} "
          f"{100 * pct(err, 0.9):>6.1f} {len(free):>6} "
          f"{100 * statistics.median(free) if free else 0:>6.1f} "
          f"{100 * pct(free, 0.9) if free else 0:>6.1f} {bias:>+5.0f} "
          f"{100 * bucket / len(pairs):>7.1f} {100 * own / len(pairs):>7.1f} "
          f"{exact:>5}/{len(smem):<5}")

def unique(rs):
    seen = {}
    for r in rs:
        seen.setdefault((r[1], r[4]), r)  # a kernel name is one kernel per architecture
    return list(seen.values())

print(f"{'reference':<34} {'kernels':>6} {'med%':>6} {'p90%':>6} {'<cliff':>6} {'med%':>6} "
      f"{'p90%':>6} {'bias':>5} {'bucket%':>7} {'own-SM%':>7} {'smem exact':>11}")
for arch in ("sm_90", "sm_75"):
    for source, batches in (("zoo", (1,)), ("test", (0,))):
        sel = unique(r for r in rows if r[0] == source and r[1] == arch and r[2] in batches)
        report(f"ptxas {arch}, {source} kernels" + (" (b1)" if source == "zoo" else ""), arch,
               [(r[6], r[8], r[5], r[7], r[9]) for r in sel])
sel = unique(r for r in rows if r[0] == "zoo" and r[1] == "sm_90")
report("ptxas sm_90, zoo kernels (b1-64)", "sm_90", [(r[6], r[8], r[5], r[7], r[9]) for r in sel])

# The H100 driver's numbers: one row per (network, batch, kernel) launched.
est = {(r[3], r[2], r[4]): r for r in rows if r[0] == "zoo" and r[1] == "sm_90"}
driver, missing = {}, 0
for d in csv.DictReader(open(DRIVER_CSV)):
    if d["scope"] != "launch":
        continue
    key = (d["network"], int(d["batch"]), d["kernel"])
    if key in est:
        driver[d["kernel"]] = (est[key], int(d["registers"]), int(d["static_shared_bytes"]))
    else:
        missing += 1
report("H100 driver (b1-64)", "sm_90", [(r[6], reg, r[5], r[7], smem) for r, reg, smem in driver.values()])
report("  ptxas sm_90 vs driver (same set)", "sm_90",
       [(r[8], reg, r[5], r[9], smem) for r, reg, smem in driver.values()])
if missing:
    print(f"({missing} driver rows name a kernel today's lowering does not emit)")
print("""
med%/p90%: median and 90th percentile of |estimate - reference| / reference over all kernels;
<cliff: the kernels whose reference count is not at an occupancy cliff of its own SM (where one
more register would lose a CTA; ptxas fills registers up to such a cliff when they cost nothing),
with med%/p90% over those; bias: median of estimate - reference; bucket%: same CTAs per SM on an
SM with 65536 registers, 2048 threads and <= 32 CTAs, for the kernel's block size (256 threads
where unknown); own-SM%: the same on the reference's own SM (sm_75: 1024 threads, 16 CTAs);
smem exact: kernels whose static shared bytes match.""")
PYTHON
