#!/usr/bin/env bash
# Issue 7's targets on the CUDA machine, in one call: ALIKED-n16rot VO (1024 keypoints,
# MNN, LO-RANSAC homography) and the ALIKED satellite stage (2048 keypoints, retrieval over
# 8 tiles, MNN + RANSAC) on 640x480 synthetic frames, every frame a keyframe, frames
# decoded into memory before the modes (--preload). Run from the repository root:
#   scripts/gpu/bench_engine_targets.sh [--frames N] [--policies latest,every]
#                                       [--no-vision] [--no-checks] [--no-tf32] [--no-fp16]
#                                       [--paced 30,120] [--autotune-ab] [--fused-ab]
#                                       [--profile]
#                                       [--sat-sm-limits 33,49]
# Steps (each logged; a failed step does not stop the others):
#  (a) builds the GPU-only engine + vision bench (scripts/gpu/engine/engine_env.sh);
#  (b) the gpu-labelled checks (ctest -L gpu: gpu_check, engine_gpu_check, and the seed
#      checks when their fixtures are carried);
#  (c) skytrace-bench-vision, ALIKED VO pair: exact float32, exact float32 with cuDNN
#      autotuning (SKYTRACE_CUDNN_AUTOTUNE=1) and the float16 dense part
#      (--aliked-fp16), alternating twice; RANSAC without its host round
#      (--ransac-host-hypotheses 0); TF32; float16 + TF32;
#      --profile: per-kernel GPU times (Nsight Compute, eager, one VO pair) of the fused
#      kernels and of the ATen path: profile_fused.txt, profile_aten.txt;
#  (d) skytrace-bench-engine per keyframe policy (--keyframe-policy; "latest" is the
#      default latest-wins queue, "every" registers every keyframe with back-pressure):
#      modes sequential, vo_only, overlapped, multi_gpu and multi_gpu_frames (both
#      skipped on one GPU), exact
#      float32, then the same with --tf32 (unless --no-tf32) and with --aliked-fp16
#      (unless --no-fp16); --autotune-ab: exact float32 again with cuDNN autotuning;
#      --fused-ab: exact float32 again with ALIKED's ATen operator path instead of its
#      fused CUDA kernels (SKYTRACE_ALIKED_FUSED=0; also alternated in (c));
#      --paced R1,R2: vo_only and overlapped again with frames delivered at each rate
#      (--pace-fps: VO latency at a video's frame rate; "decode" then includes the wait);
#      --sat-sm-limits N1,N2: vo_only and overlapped again (latest wins, free-running) with
#      the satellite stage confined to N SMs (--sat-sm-limit, a CUDA green context);
#  (e) summary.txt (bench/engine_bench_summary.py) and every result and log packed into
#      ONE file, $OUT/engine_targets.tar.gz, re-packed after every step.
# Inputs carried with the working tree: .device-prefix/debs (Qt Core), build-gpu-deps
# (include/nlohmann, models/aliked; optionally fixtures/parity/aliked-n16rot, the parity
# fixture's two photographs for gpu_check); see docs/engine.md.
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$root"
out="${OUT:-$root/out/gpu-targets}"
mkdir -p "$out"
results="$root/out/engine-targets-results"
rm -rf "$results"
mkdir -p "$results"
frames=300
policies="latest"
vision=1
checks=1
tf32=1
fp16=1
paces=""
autotune_ab=0
fused_ab=0
profile=0
sm_limits=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --frames) frames="$2"; shift ;;
    --policies) policies="$2"; shift ;;
    --no-vision) vision=0 ;;
    --no-checks) checks=0 ;;
    --no-tf32) tf32=0 ;;
    --no-fp16) fp16=0 ;;
    --paced) paces="$2"; shift ;;
    --autotune-ab) autotune_ab=1 ;;
    --fused-ab) fused_ab=1 ;;
    --profile) profile=1 ;;
    --sat-sm-limits) sm_limits="$2"; shift ;;
    *) echo "unknown option $1"; exit 2 ;;
  esac
  shift
done

log() { echo "[bench_engine_targets] $*" | tee -a "$results/bench_engine_targets.log"; }
pack() { tar czf "$out/engine_targets.tar.gz.tmp" -C "$(dirname "$results")" "$(basename "$results")" &&
         mv "$out/engine_targets.tar.gz.tmp" "$out/engine_targets.tar.gz"; }

# --- (a) build --------------------------------------------------------------------------
source "$root/scripts/gpu/engine/engine_env.sh"
engine_env_record "$results/environment.txt"
cat "$results/environment.txt"
engine_env_setup log || { pack; exit 2; }
[[ -z "$aliked_dir" ]] && { log "ERROR: no ALIKED weights (carry build-gpu-deps/models/aliked)"; pack; exit 2; }
start=$SECONDS
if ! engine_env_build "$results"; then log "ERROR: build failed"; pack; exit 1; fi
log "built in $((SECONDS - start)) s"
grep -c "warning:" "$results/engine_build.log" | sed 's/^/compiler warnings: /' | tee -a "$results/bench_engine_targets.log"
pack
status=0

# --- (b) gpu checks ------------------------------------------------------------------------
if [[ $checks == 1 ]]; then
  export SKYTRACE_MODEL_DIR="$aliked_dir" SKYTRACE_GPU_CHECK_DEVICE=cuda:0
  # The ALIKED parity fixture (real photographs), when carried in build-gpu-deps.
  [[ -d "$root/build-gpu-deps/fixtures/parity/aliked-n16rot" ]] &&
    export SKYTRACE_PARITY_DIR="$root/build-gpu-deps/fixtures/parity"
  engine_step gpu_checks bash -c "cd '$engine_build' && ctest -L gpu -V --timeout 300" || status=1
  grep -E "tests passed|Passed|Failed|Not Run|FAIL|float16|TF32" "$results/gpu_checks.log" | cut -c1-400 | head -24
fi

# --- (c) vision bench: the VO pair (extract + MNN + RANSAC) in each precision ----------------
if [[ $vision == 1 ]]; then
  vbench="$engine_build/vision/skytrace-bench-vision"
  vcommon=(--device cuda:0 --models aliked-n16rot --sizes 640x480 --keypoints 1024
           --iterations 200 --warmup 20 --weights-dir "$aliked_dir")
  for round in 1 2; do
    engine_step "vision_exact_r$round" "$vbench" "${vcommon[@]}" --out "$results/vision_exact_r$round.json"
    if [[ $fused_ab == 1 ]]; then
      SKYTRACE_ALIKED_FUSED=0 engine_step "vision_exact_aten_r$round" "$vbench" "${vcommon[@]}" \
        --out "$results/vision_exact_aten_r$round.json"
    fi
    SKYTRACE_CUDNN_AUTOTUNE=1 engine_step "vision_exact_autotune_r$round" "$vbench" "${vcommon[@]}" \
      --out "$results/vision_exact_autotune_r$round.json"
    engine_step "vision_fp16_r$round" "$vbench" "${vcommon[@]}" --aliked-fp16 --out "$results/vision_fp16_r$round.json"
  done
  engine_step vision_batches "$vbench" "${vcommon[@]}" --ransac-host-hypotheses 0 --out "$results/vision_batches.json"
  engine_step vision_tf32 "$vbench" "${vcommon[@]}" --tf32 --out "$results/vision_tf32.json"
  engine_step vision_fp16_tf32 "$vbench" "${vcommon[@]}" --aliked-fp16 --tf32 --out "$results/vision_fp16_tf32.json"
  if [[ $profile == 1 ]] && command -v ncu > /dev/null; then
    for fused in 1 0; do
      tag=$([[ $fused == 1 ]] && echo fused || echo aten)
      SKYTRACE_CUDA_GRAPHS=0 SKYTRACE_ALIKED_FUSED=$fused engine_step "profile_$tag" timeout 240 \
        ncu --clock-control none --print-units base --metrics gpu__time_duration.sum --csv \
        --log-file "$results/ncu_$tag.csv" "$vbench" --device cuda:0 \
        --models aliked-n16rot --sizes 640x480 --keypoints 1024 --iterations 1 --warmup 0 --weights-dir "$aliked_dir" --out "$results/profile_$tag.json"
      python3 "$root/bench/ncu_kernel_summary.py" "$results/ncu_$tag.csv" "$results/profile_$tag.txt" &&
        rm -f "$results/ncu_$tag.csv" && head -12 "$results/profile_$tag.txt"
    done
  fi
  for f in "$results"/vision_*.log; do
    echo "  $(basename "$f" .log): $(grep -h "aliked-n16rot 640x480" "$f")"
  done | tee -a "$results/bench_engine_targets.log"
fi

# --- (d) engine bench ---------------------------------------------------------------------
bench="$engine_build/skytrace-bench-engine"
common=(--synthetic 640x480 --frames "$frames" --warmup 20 --preload --device cuda:0
        --vo-model aliked-n16rot --vo-keypoints 1024 --sat-model aliked-n16rot --sat-keypoints 2048
        --keyframe-interval 1 --weights-dir "$aliked_dir" --modes sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames)
for policy in ${policies//,/ }; do
  policy_args=()
  [[ $policy != latest ]] && policy_args=(--keyframe-policy "$policy")
  engine_step "engine_${policy}" "$bench" "${common[@]}" "${policy_args[@]}" --out "$results/engine_${policy}.json" || status=1
  if [[ $fused_ab == 1 ]]; then
    SKYTRACE_ALIKED_FUSED=0 engine_step "engine_${policy}_aten" "$bench" "${common[@]}" "${policy_args[@]}" \
      --transfer-mib 0 --out "$results/engine_${policy}_aten.json" || status=1
  fi
  if [[ $autotune_ab == 1 ]]; then
    SKYTRACE_CUDNN_AUTOTUNE=1 engine_step "engine_${policy}_autotune" "$bench" "${common[@]}" "${policy_args[@]}" \
      --transfer-mib 0 --out "$results/engine_${policy}_autotune.json" || status=1
  fi
  if [[ $tf32 == 1 ]]; then
    engine_step "engine_${policy}_tf32" "$bench" "${common[@]}" "${policy_args[@]}" --tf32 --transfer-mib 0 \
      --out "$results/engine_${policy}_tf32.json" || status=1
  fi
  if [[ $fp16 == 1 ]]; then
    engine_step "engine_${policy}_fp16" "$bench" "${common[@]}" "${policy_args[@]}" --aliked-fp16 --transfer-mib 0 \
      --out "$results/engine_${policy}_fp16.json" || status=1
  fi
  if [[ $fp16 == 1 && $tf32 == 1 ]]; then
    engine_step "engine_${policy}_fp16_tf32" "$bench" "${common[@]}" "${policy_args[@]}" --aliked-fp16 --tf32 \
      --transfer-mib 0 --out "$results/engine_${policy}_fp16_tf32.json" || status=1
  fi
done
# VO latency with frames arriving at a video's rate (--pace-fps): alone vs with the
# satellite stage registering every frame (latest-wins), exact float32.
for pace in ${paces//,/ }; do
  engine_step "engine_paced_${pace}" "$bench" "${common[@]/sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames/vo_only,overlapped}" \
    --pace-fps "$pace" --transfer-mib 0 --out "$results/engine_paced_${pace}.json" || status=1
done

# VO latency with the satellite stage confined to part of the GPU's SMs.
for sms in ${sm_limits//,/ }; do
  engine_step "engine_sms_${sms}" "$bench" "${common[@]/sequential,vo_only,overlapped,multi_gpu,multi_gpu_frames/vo_only,overlapped}" \
    --sat-sm-limit "$sms" --transfer-mib 0 --out "$results/engine_sms_${sms}.json" || status=1
done

# --- (e) summary ----------------------------------------------------------------------------
python3 "$root/bench/engine_bench_summary.py" "$results"/engine_*.json > "$results/summary.txt" 2>&1
cat "$results/summary.txt"
pack
log "done: $out/engine_targets.tar.gz (status $status)"
exit "$status"
