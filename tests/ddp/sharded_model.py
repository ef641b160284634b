"""The synthetic transformer of the emulated sharded-training check, and its model profile.

A GPT-shaped stack at a small hidden size: a root unit (token embedding VOCAB x HIDDEN and the
final LayerNorm) and BLOCKS transformer blocks (fused QKV, attention output, two LayerNorms,
MLP 4 x HIDDEN: 12 h^2 + 13 h parameters each). Compute is set sleeps, as synthetic.py's (the
CPU stays free, as a GPU's compute would leave it): each block's backward sleeps BLOCK_BWD_S,
its forward BLOCK_FWD_S; the root computes nothing. Blocks are grouped `per_unit` to a unit
(the unit size swept): layer "blocks.U.bJ" is block J of unit U, which the planner's unit rule
(a dotted integer component, planning/shard_units.h) reads as unit "blocks.U".
Environment: TT_SH_HIDDEN (192), TT_SH_BLOCKS (8), TT_SH_BWD_S (0.08), TT_SH_FWD_S (0.04).
"""
import json
import os

HIDDEN = int(os.environ.get("TT_SH_HIDDEN", "192"))
BLOCKS = int(os.environ.get("TT_SH_BLOCKS", "8"))
BLOCK_BWD_S = float(os.environ.get("TT_SH_BWD_S", "0.08"))
BLOCK_FWD_S = float(os.environ.get("TT_SH_FWD_S", "0.04"))
VOCAB, HEADS, SEQ = 2048, 4, 128


def block_numel(h=HIDDEN):
    # qkv (3h^2 + 3h), attention out (h^2 + h), 2 LayerNorms (4h), fc1 (4h^2 + 4h), fc2 (4h^2 + h)
    return 12 * h * h + 13 * h


def units(per_unit):
    """[(name, numel, [(layer name, fwd_s, bwd_s)] in forward order)]; unit 0 is the root.
    The root's two segments (embedding first, final norm last) are its first and last layers."""
    h = HIDDEN
    out = [("root", VOCAB * h + 2 * h, [])]
    for u in range(0, BLOCKS, per_unit):
        n = min(per_unit, BLOCKS - u)
        layers = [(f"blocks.{u // per_unit}.b{j}", BLOCK_FWD_S, BLOCK_BWD_S) for j in range(n)]
        out.append((f"blocks.{u // per_unit}", n * block_numel(), layers))
    return out


def segments(per_unit):
    """Forward order: [(unit index, fwd_s, bwd_s)], the root's embedding first and norm last."""
    segs = [(0, 0.0, 0.0)]
    for i, (_, _, layers) in enumerate(units(per_unit)):
        for _, f, b in layers:
            segs.append((i, f, b))
    segs.append((0, 0.0, 0.0))
    return segs


def profile(per_unit):
    """The model as topotune.model_profile/1 (docs/model-profile.md), with a transformer shape."""
    h = HIDDEN
    layers = [{"name": "embed", "forward_flops": 0, "forward_time_s": 0.0, "backward_time_s": 0.0}]
    params = [{"name": "embed.weight", "numel": VOCAB * h, "layer": 0}]
    for _, numel, ls in units(per_unit)[1:]:
        for name, f, b in ls:
            params.append({"name": name + ".weight", "numel": block_numel(), "layer": len(layers)})
            layers.append({"name": name, "forward_flops": 0, "forward_time_s": f,
                           "backward_time_s": b})
    params.append({"name": "norm.weight", "numel": 2 * h, "layer": len(layers)})
    layers.append({"name": "norm", "forward_flops": 0, "forward_time_s": 0.0,
                   "backward_time_s": 0.0})
    return {"schema": "topotune.model_profile/1", "name": f"synthetic-sharded-u{per_unit}",
            "description": "tests/ddp/sharded_model.py: GPT-shaped, compute set by sleeps",
            "source": "synthetic: times are the sleeps the emulated check's model runs",
            "input": f"{SEQ} tokens", "flops_convention": "none: measured (set) times",
            "family": "transformer", "measured_device": "cpu",
            "total_params": sum(p["numel"] for p in params), "measured_batch_per_gpu": 1,
            "transformer": {"layers": BLOCKS, "hidden": h, "heads": HEADS, "seq_len": SEQ,
                            "vocab": VOCAB},
            "layers": layers, "params": params}


if __name__ == "__main__":
    import sys
    with open(sys.argv[2], "w") as f:
        json.dump(profile(int(sys.argv[1])), f, indent=1)
