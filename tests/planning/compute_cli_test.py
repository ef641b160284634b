#!/usr/bin/env python3
"""`topotune plan`'s compute inputs end to end: device-safe profiles, the batch default, the
training precision and their replay.

- A profile whose times were measured on the CPU is refused for a GPU plan (exit 2, saying to
  profile on the GPU or to give --timing flops); --timing flops times its layers from their
  FLOPs (checked against the plan's own peak and efficiency); one measured on cuda is used,
  and so are CPU times on a cluster of CPU ranks (`topotune emulate`).
- The batch is the profile's measured batch unless --batch-per-gpu is given, else 32, and the
  plan says which.
- --precision chooses the catalog's peak for it (read from data/instances here); precisions a
  GPU lacks are exit 2; the default is amp-bf16 on Ampere, amp-fp16 on Volta.
- --replay reproduces plans with --precision and --timing flops byte for byte.
- Memory: a DDP replica's parameters, gradients and Adam states (16 bytes per trainable
  parameter, the total read from data/models here) against the catalog's GPU memory: GPT-2 XL
  (24.9 GB) on a 16 GiB V100 does not fit and the advice says so; on a 40 GiB A100 its model
  states fit (activations are not counted); BERT-large fits a V100.
usage: compute_cli_test.py TOPOTUNE_BINARY
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

TOPOTUNE = None
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FAST = ["--nodes", "1", "--backend", "mpi"]  # compute is what is tested: one host, no NCCL


def plan(*args):
    return subprocess.run([TOPOTUNE, "plan", *args], capture_output=True, text=True, check=False)


def plan_json(*args):
    p = plan(*args, "--format", "json")
    if p.returncode != 0:
        raise AssertionError(p.stderr)
    return json.loads(p.stdout), p.stdout


def catalog_peak(instance, key):
    with open(os.path.join(ROOT, "data", "instances", instance + ".json"), encoding="utf-8") as f:
        return json.load(f)["gpu"][key]["value"] * 1e12


def profile(device, batch=2):
    """A two-layer profile with measured times (as the profiler writes them) and FLOPs."""
    return {"schema": "topotune.model_profile/1", "name": "two", "family": "convnet",
            "measured_device": device, "measured_batch_per_gpu": batch,
            "layers": [{"name": "a", "forward_flops": 4e9, "forward_time_s": 0.5,
                        "backward_time_s": 1.0},
                       {"name": "b", "forward_flops": 2e9, "forward_time_s": 0.25,
                        "backward_time_s": 0.5}],
            "params": [{"name": "a.weight", "numel": 1000000, "layer": 0},
                       {"name": "b.weight", "numel": 500000, "layer": 1}]}


class ComputeCliTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.addCleanup(self.dir.cleanup)

    def write(self, name, doc):
        path = os.path.join(self.dir.name, name)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return path

    def assert_replays(self, text):
        saved = self.write("plan.json", json.loads(text))
        with open(saved, "w", encoding="utf-8") as f:
            f.write(text)
        r = plan("--replay", saved, "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(r.stdout, text)

    def test_cpu_times_are_refused_for_a_gpu_plan(self):
        cpu = self.write("cpu.json", profile("cpu"))
        p = plan("--instance", "p4d.24xlarge", *FAST, "--model", cpu)
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stdout, "")
        self.assertIn("measured on the CPU", p.stderr)
        self.assertIn("--device cuda", p.stderr)
        self.assertIn("--timing flops", p.stderr)

    def test_cpu_times_time_a_cluster_of_cpu_ranks(self):
        # `topotune emulate`'s clusters run their ranks on the CPU: CPU times are the right ones.
        emu = os.path.join(self.dir.name, "emu")
        up = subprocess.run([TOPOTUNE, "emulate", "up", "--files-only", "--nodes", "2",
                             "--ranks-per-node", "1", "--dir", emu], capture_output=True,
                            text=True, check=False)
        self.assertEqual(up.returncode, 0, up.stderr)
        cpu = self.write("cpu.json", profile("cpu"))
        j, _ = plan_json("--cluster", os.path.join(emu, "cluster.json"), "--backend", "mpi",
                         "--model", cpu)
        self.assertAlmostEqual(j["recommendation"]["forward_s"], 0.75, places=4)

    def test_timing_flops_times_layers_from_flops(self):
        cpu = self.write("cpu.json", profile("cpu"))
        j, text = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", cpu,
                            "--timing", "flops")
        c = j["inputs"]["compute"]
        self.assertEqual(c["timing"], "flops")
        self.assertEqual((c["batch_per_gpu"], c["batch_source"]), (2, "profile"))
        # forward = sum(FLOPs) x batch / (peak x efficiency), as the plan recorded them.
        forward = 6e9 * 2 / (c["peak_flops"] * c["efficiency"])
        self.assertAlmostEqual(j["recommendation"]["forward_s"] / forward, 1, places=4)
        self.assert_replays(text)

    def test_gpu_times_are_used(self):
        gpu = self.write("gpu.json", profile("cuda"))
        j, _ = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", gpu)
        self.assertNotIn("timing", j["inputs"]["compute"])
        # The measured forward (0.75 s at batch 2) at the profile's batch.
        self.assertAlmostEqual(j["recommendation"]["forward_s"], 0.75, places=4)

    def test_batch_flag_wins_then_profile_then_default(self):
        gpu = self.write("gpu.json", profile("cuda", batch=4))
        j, _ = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", gpu,
                         "--batch-per-gpu", "8")
        c = j["inputs"]["compute"]
        self.assertEqual((c["batch_per_gpu"], c["batch_source"]), (8, "--batch-per-gpu"))
        self.assertAlmostEqual(j["recommendation"]["forward_s"], 0.75 * 8 / 4, places=4)
        j, _ = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", "resnet50")
        c = j["inputs"]["compute"]
        self.assertEqual((c["batch_per_gpu"], c["batch_source"]), (32, "default"))
        table = plan("--instance", "p4d.24xlarge", *FAST, "--model", gpu).stdout
        self.assertIn("batch 4/GPU (the profile's measured batch)", table)

    def test_precision_chooses_the_peak(self):
        for precision, key in [("fp32", "peak_fp32_TFLOPS"), ("tf32", "peak_tf32_TFLOPS"),
                               ("amp-fp16", "peak_fp16_TFLOPS"),
                               ("amp-bf16", "peak_fp16_TFLOPS")]:
            j, text = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", "resnet50",
                                "--precision", precision)
            c = j["inputs"]["compute"]
            self.assertEqual(c["precision"], precision)
            self.assertEqual(c["peak_flops"], catalog_peak("p4d.24xlarge", key))
            self.assert_replays(text)  # the precision, not the GPU's default, comes back
        j, _ = plan_json("--instance", "p4d.24xlarge", *FAST, "--model", "resnet50")
        self.assertEqual(j["inputs"]["compute"]["precision"], "amp-bf16")
        j, _ = plan_json("--instance", "p3.16xlarge", *FAST, "--model", "resnet50")
        self.assertEqual(j["inputs"]["compute"]["precision"], "amp-fp16")

    def test_precisions_the_gpu_lacks_are_errors(self):
        for precision, words in [("tf32", "tf32 needs Ampere"), ("amp-bf16", "bf16 natively"),
                                 ("fp64", "unknown precision")]:
            p = plan("--instance", "p3.16xlarge", *FAST, "--precision", precision)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn(words, p.stderr)
        # H100's TF32 peak is not in the catalog: unknown, never guessed.
        p = plan("--instance", "p5.48xlarge", *FAST, "--precision", "tf32")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("no TF32 tensor peak", p.stderr)
        self.assertIn("--precision", p.stderr)
        # A GPU whose bf16 peak is unknown and has no published figures: the default
        # precision is named (not --precision, which the user did not give) with the two ways
        # to time its compute; with a rate it plans.
        unpublished = self.gb200_cluster(None)
        p = plan("--cluster", unpublished, *FAST[2:])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("the default precision (amp-bf16): the catalog has no fp16/bf16 tensor "
                      "peak for GB200", p.stderr)
        self.assertIn("--peak-tflops", p.stderr)
        self.assertIn("--device cuda", p.stderr)
        self.assertNotIn("--precision", p.stderr)
        p = plan("--cluster", unpublished, *FAST[2:], "--peak-tflops", "2250")
        self.assertEqual(p.returncode, 0, p.stderr)

    def gb200_cluster(self, published):
        """A cluster file of one gb200-nvl72 host whose bf16 peak is unknown with `published`
        figures (None: none)."""
        with open(os.path.join(ROOT, "data", "instances", "gb200-nvl72.json"),
                  encoding="utf-8") as f:
            inst = json.load(f)
        peak = inst["gpu"]["peak_fp16_TFLOPS"]
        peak.pop("published", None)
        if published:
            peak["published"] = [{"value": v, "source": "test"} for v in published]
        path = os.path.join(self.dir.name, "gb200-%s.json" % "-".join(map(str, published or [])))
        with open(path, "w", encoding="utf-8") as f:
            json.dump({"schema": "topotune.cluster/1", "instance": inst, "nodes": 1}, f)
        return path

    def test_an_unknown_peak_is_planned_at_both_ends_of_its_published_figures(self):
        # Close figures: the same advice at both, given with its times at one end, which the
        # report, the JSON and the compute line name; a replay keeps that end's rate.
        j, text = plan_json("--cluster", self.gb200_cluster([2250, 2260]), *FAST[2:])
        b = j["peak_bracket"]
        self.assertEqual((b["low_tflops"], b["high_tflops"]), (2250, 2260))
        self.assertIn(b["used_tflops"], (2250, 2260))
        self.assertEqual(j["inputs"]["compute"]["peak_flops"], 0)  # as given: replays bracket
        self.assert_replays(text)
        p = plan("--cluster", self.gb200_cluster([2250, 2260]), *FAST[2:])
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("end of the published 2250 to 2260 TFLOP/s", p.stdout)
        self.assertIn("published figures disagree (2250 to 2260 TFLOP/s); the advice is the "
                      "same at both ends", p.stdout)
        # Figures a hundredfold apart: the advice differs, and the plan says both and asks.
        p = plan("--cluster", self.gb200_cluster([10, 1000]), *FAST[2:])
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("published figures disagree: 10 to 1000 TFLOP/s) and the advice depends "
                      "on it: at 10, ", p.stderr)
        self.assertIn(" At 1000, ", p.stderr)
        self.assertIn("Give --peak-tflops", p.stderr)
        # The catalog's own GB200 figures, on one host: a plan (the first command works).
        p = plan("--instance", "gb200-nvl72", *FAST)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("published figures disagree (2250 to 2640 TFLOP/s)", p.stdout)

    def test_a_replica_that_does_not_fit_is_flagged(self):
        # bert-large states no transformer shape; gpt2-xl at one sequence per GPU has 2.8 GiB
        # of activations, which decide no case here (at 32 it fits neither GPU).
        for model, instance, fits in [("gpt2-xl", "p3.16xlarge", False),
                                      ("gpt2-xl", "p4d.24xlarge", True),
                                      ("bert-large", "p3.16xlarge", True)]:
            with open(os.path.join(ROOT, "data", "models", model + ".json"),
                      encoding="utf-8") as f:
                params = json.load(f)["total_params"]
            with open(os.path.join(ROOT, "data", "instances", instance + ".json"),
                      encoding="utf-8") as f:
                gib = json.load(f)["gpu"]["memory_GiB"]["value"]
            j, _ = plan_json("--instance", instance, *FAST, "--model", model,
                             "--batch-per-gpu", "1")
            m = j["memory"]
            self.assertEqual(m["model_states_bytes"], 16 * params)
            self.assertEqual(m["gpu_memory_bytes"], gib * 2**30)
            self.assertEqual(m["fits"], fits)
            acts = m["activations_bytes"] or 0
            self.assertEqual(16 * params + acts <= gib * 2**30, fits)  # the data agree
            sentence = j["recommendation"]["sentence"]
            self.assertEqual(sentence.startswith("Warning: this model does not fit"), not fits)


if __name__ == "__main__":
    TOPOTUNE = sys.argv.pop(1)
    unittest.main()
