#!/usr/bin/env python3
"""Writes a checkpoint of seeded random weights in a published model's layout.

  random_weights.py --keys KEYS.json --out FILE.pth [--seed 7]

KEYS.json maps every key of the published state dict to its shape, as the parity
fixtures' keys_full.json files list them (e.g. fixtures/parity/dinov2_vits14, the 12-block
DINOv2 ViT-S/14 of dinov2_vits14_pretrain.pth). Timing runs need the published shapes, not
the published values, and the release files cannot be fetched offline. Values: matrices and
convolution kernels N(0, 0.02), normalisation scales and BatchNorm variances 1, biases,
means and position embeddings 0.02-scaled noise, layer-scale gammas 1e-5 (DINOv2's
init_values), counters 0; float32 unless the key is an integer counter.
"""
import argparse
import json

import torch


def value(key, shape, generator):
    leaf = key.rsplit(".", 1)[-1]
    if leaf == "num_batches_tracked":
        return torch.zeros(shape, dtype=torch.long)
    if leaf == "running_var":
        return torch.ones(shape)
    if leaf == "gamma":
        return torch.full(shape, 1e-5)
    if len(shape) == 1 and leaf == "weight":  # LayerNorm / BatchNorm scale
        return torch.ones(shape)
    return torch.randn(shape, generator=generator) * 0.02


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--keys", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    shapes = json.loads(open(args.keys).read())
    generator = torch.Generator().manual_seed(args.seed)
    state = {key: value(key, list(shape), generator) for key, shape in shapes.items()}
    torch.save(state, args.out)
    print(f"wrote {args.out}: {len(state)} tensors, seed {args.seed}")


if __name__ == "__main__":
    main()
