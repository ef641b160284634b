#!/usr/bin/env python3
"""Generates the gradient profiles in data/models/ from architecture definitions.

Each model below is written the way its reference implementation builds it (torchvision for
ResNet-50, ViT-L/16 and Mask R-CNN; Hugging Face transformers for BERT and GPT-2), so the
parameter tensors come out in the order `model.parameters()` yields them: a module's own
parameters first, then its children in assignment order (PyTorch's named_modules pre-order).
That is the order DDP's bucketing reverses.

Forward FLOPs per sample follow one convention for every model: 2 x multiply-adds of the
convolutions, linear layers and attention matmuls. Normalisation, activations, softmax,
pooling, embedding lookups and residual adds are not counted (they are memory-bound; the
compute-efficiency factor of the simulator absorbs them). Input sizes are stated per model.

Usage: gen_models.py [--out DIR] [--check]   (stdlib only; --check verifies the totals only)
"""

import argparse
import json
import os
import sys

SCHEMA = "topotune.model_profile/1"
FLOPS_CONVENTION = ("forward FLOPs per sample = 2 x multiply-adds of conv, linear and "
                    "attention matmuls; norms, activations, softmax, pooling, lookups excluded")


# Which fitted compute efficiency a model gets (planning/compute_efficiency.h; the fits are
# scripts/compute_accuracy.py's, from data/compute_throughput.json).
FAMILY = {"resnet50": "convnet", "maskrcnn-r50-fpn": "convnet", "bert-large": "transformer",
          "gpt2-xl": "transformer", "vit-l16": "transformer", "llama-3.2-1b": "transformer",
          "llama-3.1-8b": "transformer", "llama-3.1-70b": "transformer"}


class Profile:
    """Collects layers (compute units) and parameter tensors in registration order."""

    def __init__(self, name, description, source, input_desc):
        self.name, self.description, self.source, self.input = name, description, source, input_desc
        self.layers, self.params = [], []
        self.transformer = None  # the shape the sharded planner's activation model reads

    def layer(self, name, macs=0, params=(), trainable=True):
        """Adds a layer with `macs` multiply-adds per sample and its (suffix, numel) params."""
        self.layers.append({"name": name, "forward_flops": 2 * int(macs)})
        index = len(self.layers) - 1
        for suffix, numel in params:
            full = f"{name}.{suffix}" if suffix else name  # "" names the layer's sole tensor
            entry = {"name": full, "numel": int(numel), "layer": index}
            if not trainable:
                entry["trainable"] = False
            self.params.append(entry)
        return index

    def total_params(self):
        return sum(p["numel"] for p in self.params)

    def to_json(self):
        j = {
            "schema": SCHEMA, "name": self.name, "description": self.description,
            "source": self.source, "input": self.input, "flops_convention": FLOPS_CONVENTION,
            "family": FAMILY[self.name],
            "total_params": self.total_params(), "layers": self.layers, "params": self.params,
        }
        if self.transformer:
            j["transformer"] = self.transformer
        return j


# ---- building blocks ---------------------------------------------------------------------

def conv(p, name, cin, cout, k, hout, wout, bias=False, groups=1, trainable=True):
    weight = cout * (cin // groups) * k * k
    params = [("weight", weight)] + ([("bias", cout)] if bias else [])
    return p.layer(name, weight * hout * wout, params, trainable)


def norm(p, name, channels, trainable=True):
    """BatchNorm/LayerNorm affine parameters; FrozenBatchNorm has none (pass channels=0)."""
    return p.layer(name, 0, [("weight", channels), ("bias", channels)] if channels else [],
                   trainable)


def linear(p, name, fin, fout, tokens=1, bias=True, trainable=True):
    params = [("weight", fin * fout)] + ([("bias", fout)] if bias else [])
    return p.layer(name, fin * fout * tokens, params, trainable)


def resnet50_body(p, prefix, h, w, frozen_bn=False, frozen_stages=0):
    """torchvision ResNet-50 (v1.5: stride on the 3x3 conv) without its fc. frozen_bn: the
    detection backbone's FrozenBatchNorm2d (buffers only). frozen_stages: conv1 + layer1..k-1
    frozen (requires_grad False), as trainable_backbone_layers=3 does."""
    bn = (lambda name, c, t=True: norm(p, name, 0 if frozen_bn else c, t))
    h, w = (h + 1) // 2, (w + 1) // 2  # conv1 7x7 stride 2, padding 3
    conv(p, f"{prefix}conv1", 3, 64, 7, h, w, trainable=frozen_stages == 0)
    bn(f"{prefix}bn1", 64, frozen_stages == 0)
    h, w = (h + 1) // 2, (w + 1) // 2  # maxpool 3x3 stride 2, padding 1
    cin = 64
    for stage, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)], start=1):
        trainable = stage >= frozen_stages
        for b in range(blocks):
            name = f"{prefix}layer{stage}.{b}."
            stride = 2 if (b == 0 and stage > 1) else 1
            ho, wo = (h - 1) // stride + 1, (w - 1) // stride + 1
            conv(p, name + "conv1", cin, width, 1, h, w, trainable=trainable)
            bn(name + "bn1", width, trainable)
            conv(p, name + "conv2", width, width, 3, ho, wo, trainable=trainable)
            bn(name + "bn2", width, trainable)
            conv(p, name + "conv3", width, 4 * width, 1, ho, wo, trainable=trainable)
            bn(name + "bn3", 4 * width, trainable)
            if b == 0:
                conv(p, name + "downsample.0", cin, 4 * width, 1, ho, wo, trainable=trainable)
                bn(name + "downsample.1", 4 * width, trainable)
            cin, h, w = 4 * width, ho, wo
    return h, w


# ---- models ------------------------------------------------------------------------------

def resnet50():
    p = Profile("resnet50", "torchvision resnet50 (ImageNet, 1000 classes)",
                "torchvision.models.resnet50; published total 25,557,032 parameters",
                "224x224 RGB image")
    resnet50_body(p, "", 224, 224)
    linear(p, "fc", 2048, 1000)
    return p


def bert_large():
    hidden, inter, layers, vocab, seq = 1024, 4096, 24, 30522, 128
    p = Profile("bert-large", "BERT-large uncased, BertModel with pooler, no pre-training heads",
                "transformers BertModel(bert-large-uncased config); 335,141,888 parameters",
                f"sequence length {seq} (pre-training phase 1)")
    p.layer("embeddings.word_embeddings", 0, [("weight", vocab * hidden)])
    p.layer("embeddings.position_embeddings", 0, [("weight", 512 * hidden)])
    p.layer("embeddings.token_type_embeddings", 0, [("weight", 2 * hidden)])
    norm(p, "embeddings.LayerNorm", hidden)
    for i in range(layers):
        n = f"encoder.layer.{i}."
        for proj in ("query", "key", "value"):
            linear(p, n + "attention.self." + proj, hidden, hidden, seq)
        # QK^T and softmax(QK^T)V: 2 x seq^2 x hidden multiply-adds, no parameters. Backward
        # runs between the output projection's and the q/k/v projections' gradients.
        p.layer(n + "attention.self.scores", 2 * seq * seq * hidden)
        linear(p, n + "attention.output.dense", hidden, hidden, seq)
        norm(p, n + "attention.output.LayerNorm", hidden)
        linear(p, n + "intermediate.dense", hidden, inter, seq)
        linear(p, n + "output.dense", inter, hidden, seq)
        norm(p, n + "output.LayerNorm", hidden)
    linear(p, "pooler.dense", hidden, hidden, 1)  # the [CLS] token only
    return p


def gpt2_xl():
    hidden, layers, vocab, seq, heads = 1600, 48, 50257, 1024, 25
    p = Profile("gpt2-xl", "GPT-2 XL (1.5B), GPT2LMHeadModel; lm_head tied to wte",
                "transformers GPT2LMHeadModel(gpt2-xl config); 1,557,611,200 parameters",
                f"sequence length {seq}")
    # The config's n_layer, n_embd, n_head, n_ctx and vocab_size: what the activation
    # estimate reads (a LM head, so logits are counted).
    p.transformer = {"layers": layers, "hidden": hidden, "heads": heads,
                     "intermediate": 4 * hidden, "seq_len": seq, "vocab": vocab}
    p.layer("transformer.wte", 0, [("weight", vocab * hidden)])
    p.layer("transformer.wpe", 0, [("weight", 1024 * hidden)])
    for i in range(layers):
        n = f"transformer.h.{i}."
        norm(p, n + "ln_1", hidden)
        linear(p, n + "attn.c_attn", hidden, 3 * hidden, seq)
        p.layer(n + "attn.scores", 2 * seq * seq * hidden)  # QK^T and AV, causal mask ignored
        linear(p, n + "attn.c_proj", hidden, hidden, seq)
        norm(p, n + "ln_2", hidden)
        linear(p, n + "mlp.c_fc", hidden, 4 * hidden, seq)
        linear(p, n + "mlp.c_proj", 4 * hidden, hidden, seq)
    norm(p, "transformer.ln_f", hidden)
    # The tied head owns no parameter of its own: wte's gradient is complete only after the
    # embedding's backward, which is why wte (registered first) is ready last.
    p.layer("lm_head", hidden * vocab * seq)
    return p


def vit_l16():
    hidden, inter, layers, patch, image, classes = 1024, 4096, 24, 16, 224, 1000
    tokens = (image // patch) ** 2 + 1
    p = Profile("vit-l16", "torchvision vit_l_16 (ImageNet, 1000 classes)",
                "torchvision.models.vit_l_16; 304,326,632 parameters", f"{image}x{image} image")
    # The root module's own parameter (class_token) is yielded before its children's.
    p.layer("class_token", 0, [("", hidden)])
    conv(p, "conv_proj", 3, hidden, patch, image // patch, image // patch, bias=True)
    p.layer("encoder.pos_embedding", 0, [("", tokens * hidden)])
    for i in range(layers):
        n = f"encoder.layers.encoder_layer_{i}."
        norm(p, n + "ln_1", hidden)
        # nn.MultiheadAttention owns in_proj_weight/bias itself, then its out_proj child.
        p.layer(n + "self_attention", hidden * 3 * hidden * tokens,
                [("in_proj_weight", 3 * hidden * hidden), ("in_proj_bias", 3 * hidden)])
        p.layer(n + "self_attention.scores", 2 * tokens * tokens * hidden)
        linear(p, n + "self_attention.out_proj", hidden, hidden, tokens)
        norm(p, n + "ln_2", hidden)
        linear(p, n + "mlp.0", hidden, inter, tokens)
        linear(p, n + "mlp.3", inter, hidden, tokens)
    norm(p, "encoder.ln", hidden)
    linear(p, "heads.head", hidden, classes, 1)
    return p


def maskrcnn_r50_fpn():
    h, w, classes, rois, masks = 800, 1344, 91, 512, 128
    p = Profile("maskrcnn-r50-fpn",
                "torchvision maskrcnn_resnet50_fpn (91 COCO classes), ImageNet backbone with "
                "trainable_backbone_layers=3: conv1 and layer1 frozen (trainable=false)",
                "torchvision.models.detection.maskrcnn_resnet50_fpn; 44,401,393 parameters",
                f"{h}x{w} image (800 short side, padded to 32); {rois} sampled RoIs/image, "
                f"{masks} positive RoIs in the mask head")
    resnet50_body(p, "backbone.body.", h, w, frozen_bn=True, frozen_stages=2)
    levels, hh, ww = [], h // 4, w // 4
    for _ in range(4):  # C2..C5 resolutions (stride 4, 8, 16, 32)
        levels.append((hh, ww))
        hh, ww = (hh - 1) // 2 + 1, (ww - 1) // 2 + 1
    channels = [256, 512, 1024, 2048]
    for i, (c, (lh, lw)) in enumerate(zip(channels, levels)):
        conv(p, f"backbone.fpn.inner_blocks.{i}.0", c, 256, 1, lh, lw, bias=True)
    for i, (lh, lw) in enumerate(levels):
        conv(p, f"backbone.fpn.layer_blocks.{i}.0", 256, 256, 3, lh, lw, bias=True)
    pyramid = levels + [((levels[-1][0] - 1) // 2 + 1, (levels[-1][1] - 1) // 2 + 1)]  # P6
    positions = sum(a * b for a, b in pyramid)  # the RPN head runs on every level
    conv(p, "rpn.head.conv.0.0", 256, 256, 3, positions, 1, bias=True)
    conv(p, "rpn.head.cls_logits", 256, 3, 1, positions, 1, bias=True)
    conv(p, "rpn.head.bbox_pred", 256, 12, 1, positions, 1, bias=True)
    linear(p, "roi_heads.box_head.fc6", 256 * 7 * 7, 1024, rois)
    linear(p, "roi_heads.box_head.fc7", 1024, 1024, rois)
    linear(p, "roi_heads.box_predictor.cls_score", 1024, classes, rois)
    linear(p, "roi_heads.box_predictor.bbox_pred", 1024, 4 * classes, rois)
    for i in range(4):
        conv(p, f"roi_heads.mask_head.{i}.0", 256, 256, 3, 14 * masks, 14, bias=True)
    # ConvTranspose2d(256, 256, 2, stride 2): each input pixel does 256x256x4 multiply-adds.
    p.layer("roi_heads.mask_predictor.conv5_mask", 256 * 256 * 4 * 14 * 14 * masks,
            [("weight", 256 * 256 * 4), ("bias", 256)])
    conv(p, "roi_heads.mask_predictor.mask_fcn_logits", 256, classes, 1, 28 * masks, 28,
         bias=True)
    return p


# Llama 3 shapes: meta-llama/llama-models models/sku_list.py (model_args: dim, n_layers,
# n_heads, n_kv_heads, ffn_dim_multiplier, multiple_of, vocab_size 128256) and the Hugging Face
# config.json of each (hidden_size, intermediate_size, num_key_value_heads,
# tie_word_embeddings: true for Llama-3.2-1B only). Intermediate sizes are Meta's
# FeedForward rule: multiple_of * ceil(ffn_dim_multiplier * (8/3 * dim) / multiple_of).
LLAMA_SEQ = 8192  # Llama 3's pre-training context ("initially trained with 8192")


def llama(name, description, hidden, layers, heads, kv_heads, inter, vocab, tied, published):
    """transformers LlamaForCausalLM: bias-free projections, RMSNorm (weight only), SwiGLU."""
    seq, head_dim = LLAMA_SEQ, hidden // heads
    kv = kv_heads * head_dim
    p = Profile(name, description,
                f"meta-llama/llama-models models/sku_list.py + Hugging Face config.json; "
                f"published total {published}", f"sequence length {seq}")
    p.transformer = {"layers": layers, "hidden": hidden, "heads": heads, "kv_heads": kv_heads,
                     "intermediate": inter, "seq_len": seq, "vocab": vocab}
    p.layer("model.embed_tokens", 0, [("weight", vocab * hidden)])
    for i in range(layers):
        n = f"model.layers.{i}."
        norm_only = [("weight", hidden)]
        p.layer(n + "input_layernorm", 0, norm_only)
        linear(p, n + "self_attn.q_proj", hidden, hidden, seq, bias=False)
        linear(p, n + "self_attn.k_proj", hidden, kv, seq, bias=False)
        linear(p, n + "self_attn.v_proj", hidden, kv, seq, bias=False)
        # QK^T and AV over every query head: 2 x seq^2 x hidden multiply-adds (causal mask
        # ignored, as for GPT-2); GQA shares K/V across heads but not this work.
        p.layer(n + "self_attn.scores", 2 * seq * seq * hidden)
        linear(p, n + "self_attn.o_proj", hidden, hidden, seq, bias=False)
        p.layer(n + "post_attention_layernorm", 0, norm_only)
        linear(p, n + "mlp.gate_proj", hidden, inter, seq, bias=False)
        linear(p, n + "mlp.up_proj", hidden, inter, seq, bias=False)
        linear(p, n + "mlp.down_proj", inter, hidden, seq, bias=False)
    p.layer("model.norm", 0, [("weight", hidden)])
    if tied:  # lm_head shares embed_tokens' weight: compute only
        p.layer("lm_head", hidden * vocab * seq)
    else:
        linear(p, "lm_head", hidden, vocab, seq, bias=False)
    return p


def llama_1b():
    return llama("llama-3.2-1b", "Llama 3.2 1B, LlamaForCausalLM; lm_head tied to embed_tokens",
                 2048, 16, 32, 8, 8192, 128256, True, "1.24B")


def llama_8b():
    return llama("llama-3.1-8b", "Llama 3.1 8B, LlamaForCausalLM", 4096, 32, 32, 8, 14336,
                 128256, False, "8.03B")


def llama_70b():
    return llama("llama-3.1-70b", "Llama 3.1 70B, LlamaForCausalLM", 8192, 80, 64, 8, 28672,
                 128256, False, "70.6B")


# name: (builder, published total, rounding of that total: 0 = exact)
MODELS = {
    "resnet50": (resnet50, 25_557_032, 0),
    "bert-large": (bert_large, 335_141_888, 0),
    "gpt2-xl": (gpt2_xl, 1_557_611_200, 0),
    "vit-l16": (vit_l16, 304_326_632, 0),
    "maskrcnn-r50-fpn": (maskrcnn_r50_fpn, 44_401_393, 0),
    # Meta publishes these to three significant digits (Hugging Face model cards: 1.24B,
    # 8.03B, 70.6B): ours must round to them.
    "llama-3.2-1b": (llama_1b, 1_240_000_000, 10_000_000),
    "llama-3.1-8b": (llama_8b, 8_030_000_000, 10_000_000),
    "llama-3.1-70b": (llama_70b, 70_600_000_000, 100_000_000),
}


def build_all():
    """Returns {name: (profile, published_total, rounding)}."""
    return {name: (make(), total, step) for name, (make, total, step) in MODELS.items()}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "data",
                                                  "models"))
    ap.add_argument("--check", action="store_true", help="verify totals, write nothing")
    args = ap.parse_args(argv)
    status = 0
    for name, (profile, published, step) in build_all().items():
        total = profile.total_params()
        # Rounded totals: ours within half a unit of the last published digit.
        ok = total == published if step == 0 else abs(total - published) * 2 <= step
        status |= 0 if ok else 1
        print(f"{name:18s} {total:>14,d} params  published {published:>14,d}  "
              f"{'ok' if ok else 'MISMATCH'}  fwd {sum(l['forward_flops'] for l in profile.layers) / 1e9:8.1f} GFLOP/sample")
        if ok and not args.check:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, name + ".json"), "w", encoding="utf-8") as f:
                json.dump(profile.to_json(), f, indent=1)
                f.write("\n")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
