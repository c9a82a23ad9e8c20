#!/usr/bin/env bash
# The seed pipeline (issue 9) in the engine benchmark on the CUDA machine, beside the
# original PyTorch code's timings. Run from the repository root on the device:
#   scripts/gpu/bench_seed_pipeline.sh [--weights-dir DIR] [--frames N] [--quick]
#                                      [--no-original] [--preload] [--keyframe-policy P]
# --preload: every mode reads frames decoded into memory beforehand (the bench's
# --preload), so the synthetic renderer (5-10 ms per frame on one CPU thread) does not
# bound the throughput the modes are compared by. --keyframe-policy every: the overlapped
# and multi-GPU modes register every keyframe (VO waits for room instead of latest-wins
# dropping), the condition of issue 7's two-GPU target.
# Steps:
#  (a) weights + original timings: when .orig/ is present (git-ignored, carried with the
#      run) and --no-original is not given, runs the original implementations' timing
#      scripts there (time_original_superpoint_lightglue.py, time_original_dinov2.py,
#      time_original_litesam.py; write_dinov2_weights.py for DINOv2, whose timing script
#      writes no weights). They write seeded random weights in the release layouts
#      (superpoint_v1.pth, superpoint_lightglue.pth, dinov2_vits14_pretrain.pth,
#      mloftr.ckpt) to the weights folder unless real ones are there, so that both sides
#      load the same files. Without .orig/, --weights-dir must hold those four files.
#  (b) builds the GPU-only engine (scripts/gpu/engine/engine_env.sh, as
#      build_engine_bench.sh does);
#  (c) runs skytrace-bench-engine at 640x480, 1024 VO keypoints, every frame a keyframe:
#        seed:   --vo-model superpoint+lightglue --sat-model dinov2+litesam (224 px DINOv2
#                crops, 512x512 LiteSAM pairs; LightGlue at full depth: every layer on
#                every point, no early exit or pruning, so that random weights give the
#                work real weights would at worst), modes sequential, vo_only,
#                overlapped, multi_gpu, multi_gpu_frames (both skipped with a reason on
#                one GPU);
#        seed, every 5th frame a keyframe: sequential, overlapped (not with --quick);
#        ALIKED default for comparison: aliked-n16rot (1024) + MNN / aliked-n16rot (2048),
#                same modes (when ALIKED weights are found, see engine_env.sh);
#  (d) writes summary.txt (our per-frame figures beside the original's) and packs every
#      result and log into ONE file, $OUT/seed_pipeline.tar.gz (the device returns few
#      files), re-packed after every step so that a run cut short still returns what ran.
# Frames per mode: 200 (--quick: 60), 20 warm-up (--quick: 10).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/out/gpu-seed}"
mkdir -p "$out"
results="$root/out/seed-pipeline-results"
rm -rf "$results"
mkdir -p "$results"
weights=""
frames=200
warmup=20
quick=0
original=1
preload=0
policy=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --weights-dir) weights="$2"; shift ;;
    --frames) frames="$2"; shift ;;
    --quick) quick=1; frames=60; warmup=10 ;;
    --no-original) original=0 ;;
    --preload) preload=1 ;;
    --keyframe-policy) policy="$2"; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done
[[ -d "$root/.orig" ]] || original=0
[[ -z "$weights" ]] && weights="$results/weights"
mkdir -p "$weights"
weights="$(cd "$weights" && pwd)"

log() { echo "[bench_seed_pipeline] $*" | tee -a "$results/bench_seed_pipeline.log"; }
pack() { tar czf "$out/seed_pipeline.tar.gz.tmp" -C "$(dirname "$results")" \
           --exclude="$(basename "$results")/weights" "$(basename "$results")" &&
         mv "$out/seed_pipeline.tar.gz.tmp" "$out/seed_pipeline.tar.gz"; }

source "$root/scripts/gpu/engine/engine_env.sh"
engine_env_record "$results/environment.txt"
cat "$results/environment.txt"
log "weights: $weights; original timings: $([[ $original == 1 ]] && echo yes || echo no)"

# --- (a) original code: weights in the release layouts and its timings ------------------
iterations=100
[[ $quick == 1 ]] && iterations=30
if [[ $original == 1 ]]; then
  engine_step original_splg python3 .orig/time_original_superpoint_lightglue.py --weights-dir "$weights" \
    --size 640x480 --keypoints 1024 --iterations "$iterations" --warmup 10 \
    --out "$results/original_splg_cuda.json"
  if [[ ! -f "$weights/dinov2_vits14_pretrain.pth" ]]; then
    engine_step write_dinov2_weights python3 .orig/write_dinov2_weights.py --weights-dir "$weights"
  fi
  engine_step original_dinov2 env OUT="$results" SIZES=224 BATCHES=1 ITERS="$iterations" WARMUP=10 \
    python3 .orig/time_original_dinov2.py
  engine_step original_litesam python3 .orig/time_original_litesam.py --weights-dir "$weights" --size 512 \
    --iterations "$((iterations / 2))" --warmup 5 --modes fp32,released \
    --out "$results/original_litesam_cuda.json"
fi
missing=()
for file in superpoint_v1.pth superpoint_lightglue.pth dinov2_vits14_pretrain.pth mloftr.ckpt; do
  [[ -f "$weights/$file" ]] || missing+=("$file")
done
if [[ ${#missing[@]} -gt 0 ]]; then
  log "ERROR: $weights lacks ${missing[*]} (pass --weights-dir with the release files, or carry .orig/)"
  pack; exit 2
fi
ls -l "$weights" > "$results/weights.txt"

# --- (b) the GPU-only engine build ----------------------------------------------------
engine_env_setup log || { pack; exit 2; }
if [[ -n "$aliked_dir" && ! -e "$weights/aliked-n16rot.pth" ]]; then
  ln -s "$aliked_dir/aliked-n16rot.pth" "$weights/aliked-n16rot.pth"
fi
log "building the engine"
start=$SECONDS
if ! engine_env_build "$results"; then log "ERROR: build failed"; pack; exit 1; fi
log "built in $((SECONDS - start)) s: $engine_build/skytrace-bench-engine"
pack

# --- (c) the engine benchmark -----------------------------------------------------------
bench="$engine_build/skytrace-bench-engine"
common=(--synthetic 640x480 --frames "$frames" --warmup "$warmup" --vo-keypoints 1024
        --weights-dir "$weights" --device cuda:0 --lightglue-depth full)
[[ $preload == 1 ]] && common+=(--preload)
[[ -n "$policy" ]] && common+=(--keyframe-policy "$policy")
seed=(--vo-model superpoint+lightglue --sat-model dinov2+litesam --retrieval-crop 224 --fine-size 512)
status=0
engine_step bench_seed_cuda "$bench" "${common[@]}" "${seed[@]}" --keyframe-interval 1 \
  --modes sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames --out "$results/bench_seed_cuda.json" || status=1
if [[ $quick == 0 ]]; then
  engine_step bench_seed_cuda_kf5 "$bench" "${common[@]}" "${seed[@]}" --keyframe-interval 5 \
    --modes sequential,overlapped --transfer-mib 0 --out "$results/bench_seed_cuda_kf5.json" || status=1
fi
if [[ -e "$weights/aliked-n16rot.pth" ]]; then
  engine_step bench_aliked_cuda "$bench" "${common[@]}" --vo-model aliked-n16rot --sat-model aliked-n16rot \
    --sat-keypoints 2048 --keyframe-interval 1 --modes sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames \
    --transfer-mib 0 --out "$results/bench_aliked_cuda.json" || status=1
else
  log "no ALIKED weights: the ALIKED comparison is skipped"
fi

# --- (d) summary and one archive --------------------------------------------------------
python3 - "$results" > "$results/summary.txt" 2>&1 <<'EOF'
import json, os, sys
res = sys.argv[1]
def load(name):
    try:
        with open(os.path.join(res, name)) as f:
            return json.load(f)
    except Exception as e:
        return None
def num(x, *path):
    for k in path:
        if not isinstance(x, dict) or k not in x: return None
        x = x[k]
    return x if isinstance(x, (int, float)) else None
def fmt(v): return '-' if v is None else ('%.2f' % v)
for name in ['bench_seed_cuda.json', 'bench_seed_cuda_kf5.json', 'bench_aliked_cuda.json']:
    b = load(name)
    if not b: print(name, ': missing'); continue
    w = b.get('workload', {})
    print('== %s: VO %s | satellite %s | %s' % (name, w.get('vo_model'), w.get('satellite_model'), b.get('date_utc')))
    print('   VO: %s' % w.get('vo_pipeline')); print('   satellite: %s' % w.get('satellite_pipeline'))
    print('   mode              fps     VO p50 (p99)     sat p50   extract match  pose  retrieval fine   kf done/drop  VO kp/matches/inliers  fix matches/inliers  error')
    for m in b.get('modes', []):
        if 'skipped' in m: print('   %-16s skipped: %s' % (m['mode'], m['skipped'])); continue
        s = m.get('stages', {})
        print('   %-16s %6s  %6s (%6s)  %7s   %6s %6s %6s  %6s  %6s   %s/%s   %s/%s/%s   %s/%s  %s' % (
            m['mode'], fmt(num(m, 'fps')), fmt(num(m, 'vo_frame', 'p50_ms')), fmt(num(m, 'vo_frame', 'p99_ms')),
            fmt(num(m, 'satellite_keyframe', 'p50_ms')), fmt(num(s, 'extract', 'p50_ms')), fmt(num(s, 'match', 'p50_ms')),
            fmt(num(s, 'pose', 'p50_ms')), fmt(num(s, 'retrieval', 'p50_ms')), fmt(num(s, 'fine_match', 'p50_ms')),
            num(m, 'keyframes', 'processed'), num(m, 'keyframes', 'dropped'), fmt(num(m, 'vo_keypoints', 'mean')),
            fmt(num(m, 'vo_pairs', 'mean_matches')), fmt(num(m, 'vo_pairs', 'mean_inliers')),
            fmt(num(m, 'fixes', 'mean_matches')), fmt(num(m, 'fixes', 'mean_inliers')), m.get('error', '')))
    print('   summary:', json.dumps(b.get('summary', {})))
print('== original PyTorch code (same GPU, same weight files)')
splg = load('original_splg_cuda.json')
if splg:
    print('   SuperPoint 640x480 1024 kp: median %s ms' % fmt(num(splg, 'superpoint', 'median_ms')))
    for r in splg.get('runs', []):
        print('   LightGlue %s: %s ms; SuperPoint + LightGlue per frame (pair): %s ms' % (
            r['lightglue'], fmt(num(r, 'lightglue_ms', 'median_ms')), fmt(num(r, 'pair_ms', 'median_ms'))))
dino = load('original_dinov2_cuda.json')
if dino:
    for r in dino.get('runs', []):
        if r.get('model') == 'dinov2_vits14' and r.get('batch') == 1:
            print('   DINOv2 ViT-S/14 %s %s: %s ms' % (r['size'], r['precision'], fmt(r.get('median_ms'))))
lit = load('original_litesam_cuda.json')
if lit:
    for m in lit.get('modes', []):
        print('   LiteSAM 512x512 %s: forward %s ms, matches %s %s' % (
            m.get('mode'), fmt(num(m, 'forward', 'median_ms')), m.get('matches_median'), m.get('error', '')))
EOF
cat "$results/summary.txt"
pack
log "done: $out/seed_pipeline.tar.gz (bench exit status $status)"
exit "$status"
