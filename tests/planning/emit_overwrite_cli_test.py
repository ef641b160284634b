#!/usr/bin/env python3
"""`plan --emit` into a directory that already holds files: topotune's unedited files are
replaced, edited or foreign ones refuse the whole emit (exit 2, nothing written) unless
--force, and a stale file of the set (an earlier plan's tuner rules) is removed.
Also --keep: recorded in the JSON and kept by --replay."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

TOPOTUNE = None
P4D = ["--instance", "p4d.24xlarge", "--nodes", "4", "--batch-per-gpu", "8"]


def plan(*args):
    return subprocess.run([TOPOTUNE, "plan", *args], capture_output=True, text=True, check=False)


def snapshot(d):
    out = {}
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name), encoding="utf-8") as f:
            out[name] = f.read()
    return out


class EmitOverwriteTest(unittest.TestCase):
    def emit(self, d, *extra):
        return plan(*P4D, "--emit", "all", "--out", d, *extra)

    def test_unedited_files_are_replaced(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.emit(d).returncode, 0)
            r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--batch-per-gpu", "16",
                     "--emit", "all", "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            with open(os.path.join(d, "ddp_snippet.py"), encoding="utf-8") as f:
                self.assertIn("batch 16 per GPU", f.read())

    def test_an_edited_file_refuses_the_whole_emit_and_force_replaces_it(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.emit(d).returncode, 0)
            with open(os.path.join(d, "nccl.env"), "a", encoding="utf-8") as f:
                f.write("NCCL_DEBUG=INFO\n")
            before = snapshot(d)
            r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--batch-per-gpu", "16",
                     "--emit", "all", "--out", d)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(os.path.join(d, "nccl.env") + ": edited since topotune wrote it",
                          r.stderr)
            self.assertIn("--force", r.stderr)
            self.assertEqual(r.stdout, "")
            self.assertEqual(snapshot(d), before)  # nothing written, nothing left behind
            r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--batch-per-gpu", "16",
                     "--emit", "all", "--out", d, "--force")
            self.assertEqual(r.returncode, 0, r.stderr)
            after = snapshot(d)
            self.assertNotIn("NCCL_DEBUG", after["nccl.env"])
            self.assertIn("batch 16 per GPU", after["ddp_snippet.py"])

    def test_a_file_topotune_did_not_write_is_refused(self):
        with tempfile.TemporaryDirectory() as d:
            mine = os.path.join(d, "torchrun.sh")
            with open(mine, "w", encoding="utf-8") as f:
                f.write("#!/bin/sh\necho my launcher\n")
            r = self.emit(d)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(mine + ": not written by topotune", r.stderr)
            self.assertEqual(os.listdir(d), ["torchrun.sh"])

    def test_stale_rules_of_an_earlier_plan_are_removed(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.emit(d).returncode, 0)
            rules = os.path.join(d, "nccl_tuner_rules.txt")
            self.assertTrue(os.path.exists(rules), "precondition: the first plan writes rules")
            r = self.emit(d, "--keep", "nccl")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertFalse(os.path.exists(rules))
            self.assertIn("removed " + rules, r.stdout)
            self.assertEqual(sorted(os.listdir(d)),
                             ["ddp_snippet.py", "horovod.env", "nccl.env",
                              "sagemaker_distribution.py", "torchrun.sh"])

    def test_edited_stale_rules_are_refused(self):
        with tempfile.TemporaryDirectory() as d:
            self.assertEqual(self.emit(d).returncode, 0)
            rules = os.path.join(d, "nccl_tuner_rules.txt")
            with open(rules, "a", encoding="utf-8") as f:
                f.write("# my note\n")
            r = self.emit(d, "--keep", "nccl")
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(rules + ": edited since topotune wrote it", r.stderr)
            self.assertTrue(os.path.exists(rules))

    def test_force_needs_emit(self):
        r = plan(*P4D, "--force")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--force needs --emit", r.stderr)

    def test_keep_is_recorded_and_replayed(self):
        comma = plan(*P4D, "--keep", "numerics,nccl", "--format", "json")
        self.assertEqual(comma.returncode, 0, comma.stderr)
        repeated = plan(*P4D, "--keep", "nccl", "--keep", "numerics", "--format", "json")
        self.assertEqual(repeated.stdout, comma.stdout)
        j = json.loads(comma.stdout)
        self.assertEqual(j["inputs"]["keep"], ["numerics", "nccl"])
        self.assertEqual(j["recommendation"]["comm_dtype"], "fp32")
        self.assertIn("Kept as they are (--keep)", j["recommendation"]["sentence"])
        with tempfile.TemporaryDirectory() as d:
            saved = os.path.join(d, "plan.json")
            with open(saved, "w", encoding="utf-8") as f:
                f.write(comma.stdout)
            r = plan("--replay", saved, "--format", "json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, comma.stdout)
            r = plan("--replay", saved, "--keep", "nccl")
            self.assertEqual(r.returncode, 2, r.stderr)

    def test_bad_keep(self):
        r = plan(*P4D, "--keep", "speed")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("unknown --keep 'speed'", r.stderr)
        r = plan(*P4D, "--keep", "numerics", "--dtype", "bf16")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--keep numerics", r.stderr)


if __name__ == "__main__":
    TOPOTUNE = sys.argv.pop(1)
    unittest.main()
