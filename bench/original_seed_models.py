#!/usr/bin/env python3
"""Times the ORIGINAL SuperPoint + LightGlue (cvg/LightGlue, eager PyTorch) on a CUDA GPU.

The other side of the seed-model comparison in docs/benchmarks.md: Skytrace's ports
(`skytrace-bench-vision --models superpoint+lightglue-full,...`) and this script run in
one session on one GPU, on the same frames and the same weight files.

  original_seed_models.py weights --original DIR --out WEIGHTS_DIR [--seed 7]
      Builds the original modules with seeded random weights (their own initialisation;
      the release checkpoints are not downloadable offline) and writes them in the
      release layouts Skytrace loads: superpoint_v1.pth, superpoint_lightglue.pth.
  original_seed_models.py time --original DIR --weights WEIGHTS_DIR --frames FRAMES_DIR \
          [--size 640x480] [--keypoints 1024] [--iterations 100] [--warmup 10] --out FILE.json
      Times SuperPoint on frame b, LightGlue on (a, b) and one VO step (SuperPoint on b +
      LightGlue against a's features) in the original's modes: PyTorch's defaults (cuDNN
      may use TF32; LightGlue's fused float16 attention, flash=True), exact float32
      (TF32 off), mixed precision (LightGlue mp=True); full depth (every layer, no
      pruning) and the original's adaptive defaults. Frames: the 8-bit gray PGMs that
      `skytrace-bench-vision --save-frames FRAMES_DIR` writes (a_WxH.pgm, b_WxH.pgm).

DIR is a checkout of https://github.com/cvg/LightGlue (the ports follow commit 1fd587b).
Its files are imported by path, not installed, and never copied into Skytrace: the
package __init__ and utils import kornia and OpenCV, which the modules timed here do not
use, so stand-ins take their names. Timing: CUDA events around each call, medians and
p99 over --iterations after --warmup calls, as the original's benchmark.py measures.
"""
import argparse
import importlib
import json
import sys
import types
from pathlib import Path

import numpy as np
import torch


def import_original(original_dir):
    """lightglue.superpoint and lightglue.lightglue from a checkout, without __init__."""
    for name in ("kornia", "kornia.color", "cv2"):
        stub = types.ModuleType(name)
        stub.__path__ = []
        sys.modules.setdefault(name, stub)
    # rgb_to_grayscale is only used for colour input; these frames are gray.
    sys.modules["kornia.color"].rgb_to_grayscale = lambda image: image.mean(1, keepdim=True)
    package = types.ModuleType("lightglue")
    package.__path__ = [str(Path(original_dir) / "lightglue")]
    sys.modules["lightglue"] = package
    superpoint = importlib.import_module("lightglue.superpoint")
    lightglue = importlib.import_module("lightglue.lightglue")
    return superpoint, lightglue


def build_superpoint(superpoint_module, **conf):
    """The original SuperPoint with its default initialisation (no download)."""
    cls = superpoint_module.SuperPoint
    hub = torch.hub.load_state_dict_from_url
    load = cls.load_state_dict
    try:
        torch.hub.load_state_dict_from_url = lambda *args, **kwargs: None
        cls.load_state_dict = lambda self, state, strict=True: None
        model = cls(**conf)
    finally:
        torch.hub.load_state_dict_from_url = hub
        cls.load_state_dict = load
    return model


def release_lightglue_names(state):
    """transformers.{i}.self_attn -> self_attn.{i} (the release files); no buffers."""
    out = {}
    for key, value in state.items():
        if key == "confidence_thresholds":
            continue
        parts = key.split(".")
        if parts[0] == "transformers":
            key = ".".join([parts[2], parts[1]] + parts[3:])
        out[key] = value
    return out


def write_weights(args):
    superpoint_module, lightglue_module = import_original(args.original)
    torch.manual_seed(args.seed)
    superpoint = build_superpoint(superpoint_module)
    lightglue = lightglue_module.LightGlue(features=None, input_dim=256)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    torch.save(superpoint.state_dict(), out / "superpoint_v1.pth")
    torch.save(release_lightglue_names(lightglue.state_dict()), out / "superpoint_lightglue.pth")
    print(f"wrote {out}/superpoint_v1.pth, {out}/superpoint_lightglue.pth (seed {args.seed})")


def read_pgm(path):
    data = Path(path).read_bytes()
    fields, offset = [], 0
    while len(fields) < 4:  # magic, width, height, maxval (no comments: bench-vision writes none)
        while data[offset : offset + 1].isspace():
            offset += 1
        end = offset
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[offset:end])
        offset = end
    if fields[0] != b"P5" or int(fields[3]) != 255:
        raise SystemExit(f"{path}: not an 8-bit binary PGM")
    width, height = int(fields[1]), int(fields[2])
    pixels = np.frombuffer(data, dtype=np.uint8, count=width * height, offset=offset + 1)
    return pixels.reshape(height, width)


def time_cuda(fn, iterations, warmup):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(iterations):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    times = np.array(times)
    return {"median": float(np.median(times)), "p99": float(np.percentile(times, 99)),
            "mean": float(times.mean()), "min": float(times.min())}


def time_models(args):
    superpoint_module, lightglue_module = import_original(args.original)
    device = torch.device("cuda")
    width, height = (int(v) for v in args.size.split("x"))
    frames = {}
    for name in ("a", "b"):
        pixels = read_pgm(Path(args.frames) / f"{name}_{width}x{height}.pgm")
        frames[name] = torch.from_numpy(pixels.copy()).float().div(255)[None, None].to(device)
    weights = Path(args.weights)
    superpoint = build_superpoint(superpoint_module, max_num_keypoints=args.keypoints)
    superpoint.load_state_dict(torch.load(weights / "superpoint_v1.pth", map_location="cpu"))
    superpoint = superpoint.eval().to(device)
    lightglue_state = torch.load(weights / "superpoint_lightglue.pth", map_location="cpu")

    def matcher(**conf):
        model = lightglue_module.LightGlue(features=None, input_dim=256, **conf)
        # The constructor's own rename (release names -> transformers.{i}.*), then load.
        state = dict(lightglue_state)
        for i in range(model.conf.n_layers):
            for block in ("self_attn", "cross_attn"):
                state = {k.replace(f"{block}.{i}", f"transformers.{i}.{block}"): v for k, v in state.items()}
        missing, unexpected = model.load_state_dict(state, strict=False)
        if unexpected or [k for k in missing if k != "confidence_thresholds"]:
            raise SystemExit(f"LightGlue weights do not fit: missing {missing}, unexpected {unexpected}")
        return model.eval().to(device)

    size = torch.tensor([[width, height]], device=device, dtype=torch.float32)
    results = {"size": args.size, "keypoints": args.keypoints, "iterations": args.iterations,
               "warmup": args.warmup, "torch": torch.__version__, "cuda": torch.version.cuda,
               "gpu": torch.cuda.get_device_name(0), "rows": []}
    modes = [
        ("pytorch defaults", True),   # cuDNN convolutions may use TF32 (PyTorch's default)
        ("exact float32", False),     # TF32 off, as Skytrace's float32 default
    ]
    with torch.inference_mode():
        for precision, cudnn_tf32 in modes:
            torch.backends.cudnn.allow_tf32 = cudnn_tf32
            torch.backends.cuda.matmul.allow_tf32 = False
            features = {name: superpoint({"image": frame}) for name, frame in frames.items()}
            for feats in features.values():
                feats["image_size"] = size
            counts = [int(features[n]["keypoints"].shape[1]) for n in ("a", "b")]
            row = {"mode": precision, "keypoints_found": counts}
            row["superpoint_ms"] = time_cuda(lambda: superpoint({"image": frames["b"]}), args.iterations, args.warmup)
            variants = {
                "lightglue_full_ms": dict(depth_confidence=-1, width_confidence=-1),
                "lightglue_full_mp_ms": dict(depth_confidence=-1, width_confidence=-1, mp=True),
                "lightglue_adaptive_ms": dict(),
                "lightglue_full_no_flash_ms": dict(depth_confidence=-1, width_confidence=-1, flash=False),
            }
            for key, conf in variants.items():
                model = matcher(**conf)
                data = {"image0": features["a"], "image1": features["b"]}
                row[key] = time_cuda(lambda: model(data), args.iterations, args.warmup)
                if key == "lightglue_full_ms":
                    out = model(data)
                    row["matches_full"] = int(out["matches"][0].shape[0])
                    full_model = model
                if key == "lightglue_full_mp_ms":
                    mp_model = model

            def vo_step(model):
                def step():
                    current = superpoint({"image": frames["b"]})
                    current["image_size"] = size
                    model({"image0": features["a"], "image1": current})
                return step

            row["vo_step_full_ms"] = time_cuda(vo_step(full_model), args.iterations, args.warmup)
            row["vo_step_full_mp_ms"] = time_cuda(vo_step(mp_model), args.iterations, args.warmup)
            results["rows"].append(row)
            print(json.dumps(row), flush=True)
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("weights")
    w.add_argument("--original", required=True)
    w.add_argument("--out", required=True)
    w.add_argument("--seed", type=int, default=7)
    t = sub.add_parser("time")
    t.add_argument("--original", required=True)
    t.add_argument("--weights", required=True)
    t.add_argument("--frames", required=True)
    t.add_argument("--size", default="640x480")
    t.add_argument("--keypoints", type=int, default=1024)
    t.add_argument("--iterations", type=int, default=100)
    t.add_argument("--warmup", type=int, default=10)
    t.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.command == "weights":
        write_weights(args)
    else:
        if not torch.cuda.is_available():
            raise SystemExit("time: needs a CUDA GPU")
        time_models(args)


if __name__ == "__main__":
    main()
