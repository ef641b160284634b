#!/usr/bin/env python3
"""Tests scripts/gen_models.py: published parameter totals, the profile schema, PyTorch
registration order, and that the checked-in data/models/*.json are exactly what the generator
writes (so nobody edits a profile by hand)."""

import json
import os
import sys
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "scripts"))
import gen_models  # noqa: E402

# Published totals, independent of the generator's own table (sources in docs/model-profile.md).
PUBLISHED = {
    "resnet50": 25_557_032,          # torchvision resnet50
    "bert-large": 335_141_888,       # transformers BertModel, bert-large-uncased
    "gpt2-xl": 1_557_611_200,        # transformers GPT2Model/LMHead (tied head counted once)
    "vit-l16": 304_326_632,          # torchvision vit_l_16
    "maskrcnn-r50-fpn": 44_401_393,  # torchvision maskrcnn_resnet50_fpn, 91 classes
}
# Published to three significant digits (Hugging Face model cards of meta-llama/Llama-3.2-1B,
# Llama-3.1-8B, Llama-3.1-70B): total, and the unit of its last digit.
PUBLISHED_ROUNDED = {
    "llama-3.2-1b": (1.24e9, 0.01e9),
    "llama-3.1-8b": (8.03e9, 0.01e9),
    "llama-3.1-70b": (70.6e9, 0.1e9),
}


class GenModelsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.models = {n: p for n, (p, _, _) in gen_models.build_all().items()}

    def test_totals_match_published(self):
        self.assertEqual(sorted(self.models), sorted(list(PUBLISHED) + list(PUBLISHED_ROUNDED)))
        for name, total in PUBLISHED.items():
            self.assertEqual(self.models[name].total_params(), total, name)
        for name, (total, unit) in PUBLISHED_ROUNDED.items():
            # Rounds to the published figure: within half a unit of its last digit.
            self.assertLessEqual(abs(self.models[name].total_params() - total), unit / 2, name)

    def test_llama_shapes(self):
        # Per block of Llama 3.1 8B (hidden 4096, 8 KV heads of 128, intermediate 14336):
        # q,o 4096^2; k,v 4096x1024; gate,up,down 4096x14336; two RMSNorm weights.
        block = 2 * 4096 * 4096 + 2 * 4096 * 1024 + 3 * 4096 * 14336 + 2 * 4096
        p = self.models["llama-3.1-8b"]
        block0 = sum(q["numel"] for q in p.params if q["name"].startswith("model.layers.0."))
        self.assertEqual(block0, block)
        # 1B ties lm_head to embed_tokens (no lm_head tensor); 8B does not.
        names_1b = [q["name"] for q in self.models["llama-3.2-1b"].params]
        self.assertNotIn("lm_head.weight", names_1b)
        self.assertIn("lm_head.weight", [q["name"] for q in p.params])

    def test_schema(self):
        for name, p in self.models.items():
            j = p.to_json()
            self.assertEqual(j["schema"], "topotune.model_profile/1")
            self.assertEqual(j["name"], name)
            self.assertEqual(j["total_params"], sum(q["numel"] for q in j["params"]))
            names = [q["name"] for q in j["params"]]
            self.assertEqual(len(names), len(set(names)), name + ": duplicate tensor names")
            last_layer = -1
            for q in j["params"]:
                self.assertGreater(q["numel"], 0)
                self.assertLess(q["layer"], len(j["layers"]))
                # Registration order follows layer order (no model here registers a tensor of
                # an earlier layer after a later one).
                self.assertGreaterEqual(q["layer"], last_layer)
                last_layer = q["layer"]
            for layer in j["layers"]:
                self.assertGreaterEqual(layer["forward_flops"], 0)

    def test_registration_order(self):
        first = {n: p.params[0]["name"] for n, p in self.models.items()}
        self.assertEqual(first["vit-l16"], "class_token")  # root's own parameter first
        self.assertEqual(first["gpt2-xl"], "transformer.wte.weight")
        self.assertEqual(first["resnet50"], "conv1.weight")
        vit = [q["name"] for q in self.models["vit-l16"].params]
        self.assertEqual(vit[1:4], ["conv_proj.weight", "conv_proj.bias", "encoder.pos_embedding"])
        self.assertIn("encoder.layers.encoder_layer_0.self_attention.in_proj_weight", vit)
        self.assertEqual(self.models["resnet50"].params[-1]["name"], "fc.bias")

    def test_flops_by_hand(self):
        # ResNet-50 conv1: 64 x 3 x 7 x 7 weights applied at 112 x 112 outputs, x2 FLOPs/MAC.
        self.assertEqual(self.models["resnet50"].layers[0]["forward_flops"],
                         2 * 64 * 3 * 49 * 112 * 112)
        # The well-known ~4.1 GMAC of ResNet-50 at 224: between 8.0 and 8.4 GFLOP.
        total = sum(l["forward_flops"] for l in self.models["resnet50"].layers)
        self.assertTrue(8.0e9 < total < 8.4e9, total)
        # BERT-large at seq 128: ~2 x 302M encoder params x 128 tokens plus attention.
        total = sum(l["forward_flops"] for l in self.models["bert-large"].layers)
        self.assertTrue(77e9 < total < 81e9, total)

    def test_frozen_backbone(self):
        frozen = [q for q in self.models["maskrcnn-r50-fpn"].params if q.get("trainable") is False]
        # conv1 7x7x3x64 = 9,408; layer1 block 0: 1x1 64->64 (4,096), 3x3 64->64 (36,864),
        # 1x1 64->256 (16,384), downsample 1x1 64->256 (16,384); blocks 1 and 2: 1x1 256->64
        # (16,384), 3x3 (36,864), 1x1 64->256 (16,384). FrozenBatchNorm has no parameters.
        block0 = 4096 + 36864 + 16384 + 16384
        later = 16384 + 36864 + 16384
        self.assertEqual(sum(q["numel"] for q in frozen), 9408 + block0 + 2 * later)

    def test_checked_in_files_are_generated(self):
        for name, p in self.models.items():
            path = os.path.join(ROOT, "data", "models", name + ".json")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(json.load(f), p.to_json(), path + " differs: rerun gen_models.py")


if __name__ == "__main__":
    unittest.main()
