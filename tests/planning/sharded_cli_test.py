#!/usr/bin/env python3
"""`topotune plan --framework fsdp` end to end: the ranked strategies with memory per GPU, the
fit rule, the JSON, and the flags it refuses."""

import ast
import json
import os
import subprocess
import tempfile
import sys
import unittest

TOPOTUNE = None


def plan(*args):
    return subprocess.run([TOPOTUNE, "plan", *args], capture_output=True, text=True, check=False)


class ShardedCliTest(unittest.TestCase):
    def test_llama8b_on_p5_ranks_fsdp_hsdp_and_zero(self):
        r = plan("--instance", "p5.48xlarge", "--nodes", "32", "--model", "llama-3.1-8b",
                 "--framework", "fsdp", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        j = json.loads(r.stdout)
        self.assertEqual(j["schema"], "topotune.sharded_plan/1")
        strategies = {c["strategy"] for c in j["candidates"]}
        self.assertEqual(strategies, {"ddp", "fsdp", "hsdp", "zero1", "zero2", "zero3"})
        self.assertTrue(j["recommendation"]["fits"])
        for c in j["candidates"]:
            self.assertEqual(c["fits"], c["memory"]["total_bytes"] <= j["gpu_memory_bytes"])
            self.assertEqual(c["over_bytes"],
                             0 if c["fits"] else c["memory"]["total_bytes"] - j["gpu_memory_bytes"])

    def test_a_stored_sharded_plan_replays(self):
        r = plan("--instance", "p5.48xlarge", "--nodes", "2", "--model", "llama-3.2-1b",
                 "--framework", "fsdp", "--seq-len", "4096", "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            stored = os.path.join(tmp, "plan.json")
            with open(stored, "w") as f:
                f.write(r.stdout)
            again = plan("--replay", stored, "--format", "json")
            self.assertEqual(again.returncode, 0, again.stderr)
            self.assertEqual(again.stdout, r.stdout)  # same inputs (4096 tokens too): same plan
            table = plan("--replay", stored)
            self.assertEqual(table.returncode, 0, table.stderr)
            self.assertIn("Sharded training plan", table.stdout)
            self.assertIn("seq 4096", table.stdout)
            csv = plan("--replay", stored, "--format", "csv")
            self.assertEqual(csv.returncode, 2)
            self.assertIn("table or json, not csv", csv.stderr)

    def test_llama70b_on_four_p4d_says_ddp_does_not_fit(self):
        r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--model", "llama-3.1-70b",
                 "--framework", "fsdp")
        self.assertEqual(r.returncode, 0, r.stderr)
        rows = [line.split() for line in r.stdout.splitlines() if line[:1].isdigit()]
        ddp = [" ".join(row) for row in rows if row[1] == "ddp" and row[2] != "recompute"]
        self.assertEqual(len(ddp), 1, r.stdout)
        self.assertIn("no (", ddp[0])
        self.assertIn("GB over)", ddp[0])

    def test_refuses_flags_of_the_ddp_search(self):
        r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--model", "llama-3.2-1b",
                 "--framework", "fsdp", "--buckets", "25M")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--buckets does not apply to --framework fsdp", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_emit_writes_the_rows_it_names(self):
        args = ("--instance", "p5.48xlarge", "--nodes", "32", "--model", "llama-3.1-8b",
                "--framework", "fsdp")
        j = json.loads(plan(*args, "--format", "json").stdout)
        with tempfile.TemporaryDirectory() as d:
            r = plan(*args, "--emit", "all", "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "fsdp_snippet.py"), encoding="utf-8") as f:
                snippet = f.read()
            with open(os.path.join(d, "ds_config.json"), encoding="utf-8") as f:
                ds = json.load(f)
        ast.parse(snippet)  # valid Python
        fitting = [c for c in j["candidates"] if c["fits"]]
        best_fsdp = [c for c in fitting if c["strategy"] in ("fsdp", "hsdp")][0]
        best_zero = [c for c in fitting if c["strategy"].startswith("zero")][0]
        self.assertIn(f"plan row {best_fsdp['rank']} ({best_fsdp['label']})", snippet)
        self.assertIn("reshard_after_forward=%s" % best_fsdp["reshard_after_forward"], snippet)
        self.assertIn(f"plan row {best_zero['rank']} ({best_zero['label']})", ds["_topotune"])
        self.assertEqual(ds["zero_optimization"]["stage"], int(best_zero["strategy"][-1]))

    def test_emit_refuses_when_nothing_fits_and_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cfg")
            r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--model", "llama-3.1-70b",
                     "--framework", "fsdp", "--emit", "all", "--out", out)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("no FSDP or HSDP row fits", r.stderr)
            self.assertFalse(os.path.exists(out))

    def test_a_misspelt_framework_lists_fsdp_among_the_known(self):
        r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--framework", "fsdpp")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown framework 'fsdpp'", r.stderr)
        self.assertIn("fsdp)", r.stderr)  # the list ends with it
        self.assertEqual(r.stdout, "")

    def test_emit_is_stamped_and_refuses_edited_files(self):
        args = ("--instance", "p5.48xlarge", "--nodes", "4", "--model", "llama-3.1-8b",
                "--framework", "fsdp", "--emit", "all")
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(plan(*args, "--out", d).returncode, 0)
            for name in ("fsdp_snippet.py", "ds_config.json"):
                with open(os.path.join(d, name), encoding="utf-8") as f:
                    self.assertIn("fnv1a64=", f.read())
            with open(os.path.join(d, "ds_config.json"), encoding="utf-8") as f:
                json.load(f)  # the stamp keeps it JSON
            r = plan(*args, "--out", d)  # unedited: replaced
            self.assertEqual(r.returncode, 0, r.stderr)
            path = os.path.join(d, "ds_config.json")
            with open(path, encoding="utf-8") as f:
                ds = json.load(f)
            ds["zero_optimization"]["reduce_bucket_size"] = 1
            with open(path, "w", encoding="utf-8") as f:
                json.dump(ds, f, indent=1)
            with open(path, encoding="utf-8") as f:
                edited = f.read()
            r = plan(*args, "--out", d)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(path + ": edited since topotune wrote it", r.stderr)
            self.assertEqual(r.stdout, "")
            with open(path, encoding="utf-8") as f:
                self.assertEqual(f.read(), edited)
            r = plan(*args, "--out", d, "--force")
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(path, encoding="utf-8") as f:
                self.assertNotEqual(f.read(), edited)

    def test_a_model_without_a_transformer_shape_is_an_error(self):
        r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--model", "resnet50",
                 "--framework", "fsdp")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("states no transformer shape", r.stderr)


if __name__ == "__main__":
    TOPOTUNE = sys.argv.pop(1)
    unittest.main()
