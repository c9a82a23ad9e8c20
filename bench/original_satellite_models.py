#!/usr/bin/env python3
"""Times the ORIGINAL DINOv2 ViT-S/14 and LiteSAM (eager PyTorch) on a CUDA GPU.

The other side of the satellite-stage comparison in docs/benchmarks.md: Skytrace's ports
(`skytrace-bench-vision --retrieval dinov2-vits14 --dense litesam`) and this script run in
one session on one GPU, on the same frames and the same weight files.

  original_satellite_models.py time --litesam DIR --dinov2 DIR --weights WEIGHTS_DIR \
          --frames FRAMES_DIR [--size 512] [--retrieval-size 224] [--iterations 100] \
          [--warmup 10] [--litesam-commit 8b49e8d] [--dinov2-commit b8931f7] --out FILE.json
      Times DINOv2 ViT-S/14 on the centre --retrieval-size crop of frame a; LiteSAM on the
      --size pair (a, b), with the multi-branch MobileOne (as test_mega.py runs it) and the
      fused one (as PL_LoFTR.test_step reparameterises it); and one satellite keyframe
      (DINOv2, then LiteSAM) as a single timed call. Two modes:
        float32           exact: TF32 off for matmul and cuDNN; LiteSAM with default.py's
                          config (MP False: scaled_dot_product_attention) and FineMatching's
                          forced autocast made inert (see fine_autocast_inert);
        float16-autocast  the originals' mixed precision: each call under
                          torch.autocast("cuda") (float16); LiteSAM with eloftr_full.py's
                          config (MP, NO_FLASH, REPLACE_NAN True) as test_mega.py runs it;
                          PyTorch's TF32 defaults (cuDNN on, matmul off), which neither
                          original changes.
      WEIGHTS_DIR: mloftr.ckpt (a bare LoFTR state dict, or a Lightning checkpoint whose
      ["state_dict"] keys start with "matcher.") and dinov2_vits14_pretrain.pth (the
      published keys and shapes, e.g. bench/random_weights.py's); float16 tensors are cast
      to float32. FRAMES_DIR: the 8-bit gray PGMs dense_a_SxS.pgm and dense_b_SxS.pgm that
      `skytrace-bench-vision --dense litesam --save-frames FRAMES_DIR` writes.

--litesam DIR / --dinov2 DIR: files of https://github.com/boyagesmile/LiteSAM (8b49e8d) and
https://github.com/facebookresearch/dinov2 (b8931f7) at their repository paths, exported
file by file (device-deps/seed/original/{LiteSAM,dinov2}) and imported by path, never copied
into Skytrace. The files read:
  LiteSAM: configs/loftr/eloftr_full.py, src/config/default.py, src/utils/{misc,plotting}.py,
    src/loftr/{__init__,loftr}.py, src/loftr/backbone/{__init__,backbone,repvgg,mobileone}.py,
    src/loftr/loftr_module/{__init__,transformer,linear_attention,fine_preprocess}.py,
    src/loftr/utils/{coarse_matching,fine_matching,position_encoding,full_config,opt_config,
    supervision,geometry}.py
  dinov2: dinov2/__init__.py, dinov2/hub/{__init__,backbones,utils}.py,
    dinov2/models/{__init__,vision_transformer}.py, dinov2/layers/{__init__,attention,block,
    dino_head,drop_path,layer_scale,mlp,patch_embed,swiglu_ffn}.py
LiteSAM's modules import kornia, yacs, loguru, pytorch_lightning, joblib and
matplotlib for helpers that inference does not call: stand-ins take those names
(install_stand_ins; einops is the real one), as for fixtures/parity/litesam. DINOv2 runs
with XFORMERS_DISABLED=1 (its plain Attention: scaled_dot_product_attention).

Inputs: LiteSAM gray / 255, [1, 1, S, S] float32 (the repo's loaders), RoPE NPE
[832, 832, S, S] (default.py's advice; Skytrace's LiteSamModel::ropeExtent); DINOv2 the gray
crop as RGB, / 255, ImageNet mean/std, [1, 3, R, R]; its forward() returns the final-norm
CLS token [1, 384] (head = Identity), where Skytrace's retrieval descriptor starts. Timing:
CUDA events around each call (LoFTR.forward itself synchronises after each stage), medians
and p99 in milliseconds over --iterations after --warmup calls, as test_mega.py measures.
"""
import argparse
import contextlib
import copy
import importlib
import importlib.util
import json
import os
import pickle
import sys
import types
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from original_seed_models import read_pgm, time_cuda  # noqa: E402  (same folder)

IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
MODES = ("float32", "float16-autocast")
BACKBONES = ("multi-branch", "fused")


# --- stand-ins for packages the imported modules name but inference does not use -------
class CfgNode(dict):
    """yacs.config.CfgNode as LiteSAM uses it: a dict with attribute access and clone()."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None  # so that copy/pickle probes behave

    def __setattr__(self, name, value):
        self[name] = value

    def clone(self):
        return CfgNode({k: v.clone() if isinstance(v, CfgNode) else copy.deepcopy(v) for k, v in self.items()})


def create_meshgrid(height, width, normalized_coordinates=True, device=None, dtype=torch.float32):
    """kornia.utils.grid.create_meshgrid: [1, H, W, 2] of (x, y) pixel coordinates, or
    normalised to [-1, 1] ((v / (n - 1) - 0.5) * 2) as kornia does. LiteSAM's inference
    calls (3, 3, True) (offsets -1/0/1 after .to(long)) and (8, 8, False)."""
    xs = torch.linspace(0, width - 1, width, device=device, dtype=dtype)
    ys = torch.linspace(0, height - 1, height, device=device, dtype=dtype)
    if normalized_coordinates:
        xs = (xs / (width - 1) - 0.5) * 2
        ys = (ys / (height - 1) - 0.5) * 2
    grid_y, grid_x = torch.meshgrid(ys, xs, indexing="ij")  # [H, W] each
    return torch.stack((grid_x, grid_y), dim=-1).unsqueeze(0)


class NullLogger:
    """loguru's logger: every call (info, warning, ...) is dropped."""

    def __getattr__(self, name):
        return lambda *args, **kwargs: None


def install_stand_ins():
    """Stand-ins under the real names, installed whether or not the real packages exist, so
    that every run imports the same code. Besides create_meshgrid (kornia's arithmetic, one
    call per forward) none of them computes anything: CfgNode holds the config, the logger
    drops messages, and the rest are names that are only imported (dsnt, plotting, joblib,
    Lightning: training, supervision and figures)."""
    def module(name, **attrs):
        stub = types.ModuleType(name)
        stub.__path__ = []
        stub.__dict__.update(attrs)
        sys.modules[name] = stub
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, stub)

    for name in ("yacs", "kornia", "kornia.geometry", "kornia.geometry.subpix", "kornia.geometry.subpix.dsnt",
                 "pytorch_lightning", "joblib", "matplotlib", "matplotlib.pyplot"):
        module(name)
    module("yacs.config", CfgNode=CfgNode)
    module("kornia.utils", create_meshgrid=create_meshgrid)
    module("kornia.utils.grid", create_meshgrid=create_meshgrid)
    module("loguru", logger=NullLogger(), _Logger=NullLogger)
    module("pytorch_lightning.utilities", rank_zero_only=types.SimpleNamespace(rank=0))  # misc.py reads .rank
    # linear_attention.py imports torch.backends.cuda.sdp_kernel (deprecated since torch
    # 2.3) when scaled_dot_product_attention exists; should a torch lack it, the same
    # backend choice through torch.nn.attention.sdpa_kernel.
    sdpa = hasattr(torch.nn.functional, "scaled_dot_product_attention")
    if sdpa and not hasattr(torch.backends.cuda, "sdp_kernel"):
        from torch.nn.attention import SDPBackend, sdpa_kernel

        def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, enable_cudnn=True):
            chosen = ((SDPBackend.FLASH_ATTENTION, enable_flash),
                      (SDPBackend.EFFICIENT_ATTENTION, enable_mem_efficient),
                      (SDPBackend.MATH, enable_math), (SDPBackend.CUDNN_ATTENTION, enable_cudnn))
            return sdpa_kernel([backend for backend, enabled in chosen if enabled])

        torch.backends.cuda.sdp_kernel = sdp_kernel


def import_originals(litesam_dir, dinov2_dir):
    """(src.loftr, src.config.default, src.utils.misc, dinov2.hub.backbones) from the two
    exports; refuses modules that would come from anywhere else."""
    try:
        import einops  # noqa: F401  (the real one; LiteSAM's rearrange/repeat)
    except ImportError:
        raise SystemExit("time: needs the einops package (LiteSAM's rearrange/repeat)")
    install_stand_ins()
    os.environ["XFORMERS_DISABLED"] = "1"
    # Top-level packages at the exports (LiteSAM's src/ has no __init__.py; dinov2's only
    # sets __version__), so that no other `src` or `dinov2` on sys.path can answer.
    for name, directory in (("src", Path(litesam_dir) / "src"), ("dinov2", Path(dinov2_dir) / "dinov2")):
        sys.modules[name] = types.ModuleType(name)
        sys.modules[name].__path__ = [str(directory)]
    names = ("src.loftr", "src.config.default", "src.utils.misc", "dinov2.hub.backbones")
    modules = [importlib.import_module(name) for name in names]
    for name, root in (("src.loftr.loftr", litesam_dir), ("dinov2.hub.backbones", dinov2_dir)):
        path = Path(sys.modules[name].__file__).resolve()
        if not path.is_relative_to(Path(root).resolve()):
            raise SystemExit(f"time: {name} was imported from {path}, not from {root}")
    return modules


def litesam_configs(default, misc, litesam_dir, size):
    """{mode: LoFTR config} (lower_config(cfg)["loftr"], NPE [832, 832, S, S])."""
    exact = default.get_cfg_defaults()
    # test_mega.py: cfg = get_cfg_defaults(); cfg.merge_from_file("configs/loftr/eloftr_full.py").
    # That file sets its values on default.py's _CN itself, so a clone taken after running it
    # is the merged config.
    path = Path(litesam_dir) / "configs/loftr/eloftr_full.py"
    spec = importlib.util.spec_from_file_location("eloftr_full", path)
    spec.loader.exec_module(importlib.util.module_from_spec(spec))
    mixed = default.get_cfg_defaults()
    configs = {}
    for mode, cfg in zip(MODES, (exact, mixed)):
        cfg.LOFTR.COARSE.NPE = [832, 832, size, size]
        cfg.LOFTR.MATCH_COARSE.THR = 0.2  # as test_mega.py (also default.py's value)
        configs[mode] = misc.lower_config(cfg)["loftr"]
    if configs["float32"]["mp"] or not configs["float16-autocast"]["mp"]:
        raise SystemExit(f"time: unexpected MP flags in default.py / {path}")
    return configs


def load_state(path):
    """A state dict with float32 floating tensors; a Lightning checkpoint's ["state_dict"]."""
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:  # a Lightning checkpoint with pickled hyper-parameters
        try:
            state = torch.load(path, map_location="cpu", weights_only=False)
        except Exception as error:
            raise SystemExit(f"time: cannot read {path}: {error}")
    if "state_dict" in state:
        state = state["state_dict"]
    if any(k.startswith("matcher.") for k in state):  # PL_LoFTR: keep the matcher only
        state = {k: v for k, v in state.items() if k.startswith("matcher.")}
    return {k: v.float() if v.is_floating_point() else v for k, v in state.items()}


def build_litesam(loftr, config, state, fused, device):
    model = loftr.LoFTR(config=config)
    # LoFTR.load_state_dict strips "matcher."; test_mega.py loads with strict=False.
    missing, unexpected = model.load_state_dict(dict(state), strict=False)
    if missing or unexpected:
        raise SystemExit(f"mloftr.ckpt does not fit LoFTR: missing {missing}, unexpected {unexpected}")
    model.eval()
    if fused:  # PL_LoFTR.test_step: reparameterize() every MobileOneBlock (here on the CPU)
        with torch.no_grad():
            for module in list(model.modules()):
                if hasattr(module, "reparameterize"):
                    module.reparameterize()
    return model.to(device)


@contextlib.contextmanager
def fine_autocast_inert():
    """FineMatching wraps its two einsums in torch.autocast("cuda") whenever it is not
    training, so on CUDA its heatmap comes out float16 and meets update_block's float32
    Linear (a dtype error once there are matches; the JSON's litesam_float32_as_is says
    what the code as it stands did). In the CPU reference (fixtures/parity/litesam) that
    autocast was inert; the float32 mode makes it inert the same way (torch.autocast -> a
    no-op context while the model runs), so that everything is float32."""
    saved = torch.autocast
    torch.autocast = lambda *args, **kwargs: contextlib.nullcontext()
    try:
        yield
    finally:
        torch.autocast = saved


def mode_context(mode):
    if mode == "float32":
        return fine_autocast_inert()
    return torch.autocast(device_type="cuda", dtype=torch.float16)  # test_mega.py's autocast


def set_tf32(mode):
    """float32: TF32 off (Skytrace's default); autocast: PyTorch's defaults."""
    autocast = mode != "float32"
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = autocast
    return {"matmul": False, "cudnn": autocast}


def require(path, what):
    if not path.is_file():
        raise SystemExit(f"time: {path} is missing ({what})")
    return path


def time_models(args):
    size, crop = args.size, args.retrieval_size
    if size % 32 or crop % 14 or crop > size:
        raise SystemExit("time: --size must be a multiple of 32, --retrieval-size one of 14 and <= --size")
    for source in ("src/loftr/loftr.py", "src/config/default.py", "configs/loftr/eloftr_full.py"):
        require(Path(args.litesam) / source, "--litesam: an export of boyagesmile/LiteSAM")
    require(Path(args.dinov2) / "dinov2/hub/backbones.py", "--dinov2: an export of facebookresearch/dinov2")
    litesam_ckpt = require(Path(args.weights) / "mloftr.ckpt", "LiteSAM weights")
    dinov2_pth = require(Path(args.weights) / "dinov2_vits14_pretrain.pth", "DINOv2 ViT-S/14 weights")
    writer = "skytrace-bench-vision --dense litesam --save-frames"
    pixels = {n: read_pgm(require(Path(args.frames) / f"dense_{n}_{size}x{size}.pgm", writer)) for n in "ab"}
    if any(p.shape != (size, size) for p in pixels.values()):
        raise SystemExit(f"time: the frames in {args.frames} are not {size}x{size}")

    loftr, default, misc, backbones = import_originals(args.litesam, args.dinov2)
    device = torch.device("cuda")
    # LiteSAM: gray / 255, [1, 1, S, S]. DINOv2: centre crop, RGB, ImageNet-normalised.
    image0, image1 = (torch.from_numpy(pixels[n].copy()).float().div(255)[None, None].to(device) for n in "ab")
    top = (size - crop) // 2
    gray = torch.from_numpy(pixels["a"][top:top + crop, top:top + crop].copy()).float().div(255)
    mean, std = (torch.tensor(v).view(3, 1, 1) for v in (IMAGENET_MEAN, IMAGENET_STD))
    rgb = ((gray.expand(3, crop, crop) - mean) / std)[None].contiguous().to(device)

    dinov2 = backbones.dinov2_vits14(pretrained=False)  # the hub entry's arguments, no download
    try:
        dinov2.load_state_dict(load_state(dinov2_pth), strict=True)
    except RuntimeError as error:
        raise SystemExit(f"{dinov2_pth} does not fit DINOv2 ViT-S/14: {error}")
    dinov2 = dinov2.eval().to(device)
    configs = litesam_configs(default, misc, args.litesam, size)
    state = load_state(litesam_ckpt)
    litesam = {(mode, backbone): build_litesam(loftr, configs[mode], state, backbone == "fused", device)
               for mode in MODES for backbone in BACKBONES}
    attention = sys.modules["src.loftr.loftr_module.linear_attention"]

    def match(model):
        data = {"image0": image0, "image1": image1}  # no masks, no scale0/scale1
        model(data)
        return data

    results = {"size": size, "retrieval_size": crop, "iterations": args.iterations, "warmup": args.warmup,
               "litesam_commit": args.litesam_commit, "dinov2_commit": args.dinov2_commit,
               "device": "cuda:0", "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
               "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
               "cudnn_benchmark": torch.backends.cudnn.benchmark, "rows": []}

    def emit(row):
        results["rows"].append(row)
        print(json.dumps(row), flush=True)

    with torch.no_grad():  # test_mega.py
        # As the code stands, the float32 model on CUDA (see fine_autocast_inert).
        try:
            match(litesam[("float32", "multi-branch")])
            results["litesam_float32_as_is"] = "ran"
        except RuntimeError as error:
            results["litesam_float32_as_is"] = f"failed: {str(error)[:300]}"
        for mode in MODES:
            tf32 = set_tf32(mode)

            def retrieval():
                with mode_context(mode):
                    return dinov2(rgb)

            out = retrieval()
            dinov2_ms = time_cuda(retrieval, args.iterations, args.warmup)
            emit({"model": "dinov2-vits14", "mode": mode, "size": crop, "forward_ms": dinov2_ms, "tf32": tf32,
                  "output": f"forward() = final-norm CLS token {list(out.shape)} {str(out.dtype)[6:]}"})
            for backbone in BACKBONES:
                model = litesam[(mode, backbone)]

                def dense(model=model):
                    with mode_context(mode):
                        return match(model)

                matches = int(dense()["mkpts0_f"].shape[0])
                config = configs[mode]
                litesam_ms = time_cuda(dense, args.iterations, args.warmup)
                emit({"model": "litesam", "mode": mode, "backbone": backbone, "size": size,
                      "forward_ms": litesam_ms, "matches": matches, "tf32": tf32,
                      # No coarse match: the original skips the FPN and the fine stage.
                      "fine_stage_ran": matches > 0,
                      "config": {"mp": config["mp"], "no_flash": config["coarse"]["no_flash"],
                                 "replace_nan": config["replace_nan"], "npe": config["coarse"]["npe"],
                                 "sdpa_attention": attention.FLASH_AVAILABLE and not config["coarse"]["no_flash"]},
                      "fine_matching_autocast": "inert" if mode == "float32" else "float16"})

                def keyframe(model=model):
                    with mode_context(mode):
                        dinov2(rgb)
                        return match(model)

                emit({"model": "dinov2-vits14+litesam", "mode": mode, "backbone": backbone, "size": size,
                      "retrieval_size": crop, "keyframe_ms": time_cuda(keyframe, args.iterations, args.warmup),
                      "sum_of_medians_ms": dinov2_ms["median"] + litesam_ms["median"], "tf32": tf32})
    Path(args.out).write_text(json.dumps(results, indent=2) + "\n")
    print(f"wrote {args.out}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    t = sub.add_parser("time")
    t.add_argument("--litesam", required=True, help="export of boyagesmile/LiteSAM (src/, configs/)")
    t.add_argument("--dinov2", required=True, help="export of facebookresearch/dinov2 (dinov2/)")
    t.add_argument("--weights", required=True, help="folder with mloftr.ckpt, dinov2_vits14_pretrain.pth")
    t.add_argument("--frames", required=True, help="folder with dense_a_SxS.pgm, dense_b_SxS.pgm")
    t.add_argument("--size", type=int, default=512)
    t.add_argument("--retrieval-size", type=int, default=224)
    t.add_argument("--iterations", type=int, default=100)
    t.add_argument("--warmup", type=int, default=10)
    t.add_argument("--litesam-commit", default="8b49e8d")
    t.add_argument("--dinov2-commit", default="b8931f7")
    t.add_argument("--out", required=True)
    args = parser.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("time: needs a CUDA GPU")
    time_models(args)


if __name__ == "__main__":
    main()
