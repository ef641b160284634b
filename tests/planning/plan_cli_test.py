#!/usr/bin/env python3
"""`topotune plan` on bad input: a clear error on stderr, exit code 2, no partial files.
Also: --emit writes every file, and --replay of a written plan gives the same JSON."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

TOPOTUNE = None


def plan(*args):
    return subprocess.run([TOPOTUNE, "plan", *args], capture_output=True, text=True, check=False)


class PlanCliTest(unittest.TestCase):
    def assert_replays(self, plan_json):
        """`plan --replay` of a saved plan JSON prints the same JSON."""
        with tempfile.TemporaryDirectory() as d:
            saved = os.path.join(d, "plan.json")
            with open(saved, "w", encoding="utf-8") as f:
                f.write(plan_json)
            r = plan("--replay", saved, "--format", "json")
            self.assertEqual(r.stdout, plan_json)

    def test_unknown_model_lists_the_known_ones(self):
        p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--model", "bert-huge")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("unknown model 'bert-huge'", p.stderr)
        self.assertIn("bert-large, gpt2-xl, llama-3.1-70b, llama-3.1-8b, llama-3.2-1b, "
                      "maskrcnn-r50-fpn, resnet50, vit-l16", p.stderr)
        self.assertEqual(p.stdout, "")

    def test_profile_with_negative_size(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "bad.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"schema": "topotune.model_profile/1", "name": "bad",
                           "layers": [{"name": "fc", "forward_flops": 10}],
                           "params": [{"name": "fc.weight", "numel": -4, "layer": 0}]}, f)
            p = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--model", path)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("numel must be positive, got -4", p.stderr)
            self.assertIn(path, p.stderr)

    def test_unknown_instance(self):
        p = plan("--instance", "p9.huge", "--nodes", "2")
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertIn("p9.huge", p.stderr)

    def test_emit_to_unwritable_dir_writes_nothing(self):
        # /proc refuses new files even for root; a file, and a directory that cannot be
        # created (under a file), are refused before anything is staged. (A missing directory
        # is created: test_flags_that_would_be_ignored_are_errors_and_out_is_created.)
        with tempfile.TemporaryDirectory() as d:
            a_file = os.path.join(d, "file")
            open(a_file, "w").close()
            for out in ["/proc", os.path.join(a_file, "sub"), a_file]:
                p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--emit", "all", "--out", out)
                self.assertEqual(p.returncode, 2, out + ": " + p.stderr)
                self.assertIn("topotune: error:", p.stderr)
                self.assertEqual(p.stdout, "", out)
            self.assertEqual(sorted(os.listdir(d)), ["file"])
            if os.geteuid() != 0:  # permissions do not stop root
                ro = os.path.join(d, "ro")
                os.mkdir(ro, 0o555)
                p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--emit", "all", "--out", ro)
                self.assertEqual(p.returncode, 2, p.stderr)
                self.assertEqual(os.listdir(ro), [])

    def test_emit_with_a_directory_in_the_way_writes_nothing(self):
        with tempfile.TemporaryDirectory() as d:
            os.mkdir(os.path.join(d, "horovod.env"))
            p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--emit", "all", "--out", d)
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertIn("is a directory", p.stderr)
            self.assertEqual(os.listdir(d), ["horovod.env"])

    def test_nccl_version_changes_what_nccl_is_told(self):
        """NCCL 2.18.5 picks tree for p4d x 4's 32 MiB buckets: no NCCL_ALGO=Ring for it.
        (NCCL's algorithms only: with every SM charge, topotune's hook is within 2 %.)"""
        runs = {}
        for version in (None, "2.18.5"):
            extra = ["--nccl-version", version] if version else []
            p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--format", "json",
                     "--algos", "nccl:default,nccl:ring,nccl:tree", *extra)
            self.assertEqual(p.returncode, 0, p.stderr)
            runs[version] = json.loads(p.stdout)
        self.assertEqual(runs[None]["recommendation"]["algorithm"], "nccl:ring")
        self.assertNotEqual(runs["2.18.5"]["recommendation"]["algorithm"], "nccl:ring")
        self.assertEqual(runs["2.18.5"]["nccl"]["version"], "2.18.5")
        self.assertIn("tree", [b["algo"] for b in runs["2.18.5"]["nccl"]["buckets"]])
        bad = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--nccl-version", "2.x")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--nccl-version", bad.stderr)

    def test_advice_only_beyond_the_error_band(self):
        """p5 x 2: the best change gains ~2 %, inside the model's error band: keep the
        defaults, and say so with the figures; every candidate carries its band."""
        p = plan("--instance", "p5.48xlarge", "--nodes", "2", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        j = json.loads(p.stdout)
        rec = j["recommendation"]
        self.assertTrue(rec["keeps_defaults"], rec["sentence"])
        self.assertIn("error band", rec["sentence"])
        self.assertGreater(rec["error_band_s"], 0)
        for c in j["candidates"]:
            self.assertGreaterEqual(c["error_band_s"], 0)
        big = json.loads(plan("--instance", "p4d.24xlarge", "--nodes", "4", "--format",
                              "json").stdout)["recommendation"]
        self.assertFalse(big["keeps_defaults"])
        self.assertIn("beyond the model's error band", big["sentence"])

    def test_emit_all_and_replay(self):
        with tempfile.TemporaryDirectory() as d:
            p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--format", "json",
                     "--emit", "all", "--out", d)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertEqual(sorted(os.listdir(d)),
                             ["ddp_snippet.py", "horovod.env", "nccl.env",
                              "nccl_tuner_rules.txt", "sagemaker_distribution.py",
                              "torchrun.sh"])
            path = os.path.join(d, "plan.json")
            with open(path, "w", encoding="utf-8") as f:
                f.write(p.stdout)
            r = plan("--replay", path, "--format", "json")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(r.stdout, p.stdout)

    def test_cluster_file_and_replay(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "cluster.json")
            with open(path, "w", encoding="utf-8") as f:
                json.dump({"schema": "topotune.cluster/1", "instance": "p4d.24xlarge",
                           "nodes": 2, "placement": "spread"}, f)
            p = plan("--cluster", path, "--format", "json")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(doc["nodes"], 2)
            self.assertEqual(doc["inputs"]["cluster_spec"]["placement"], "spread")
            saved = os.path.join(d, "plan.json")
            with open(saved, "w", encoding="utf-8") as f:
                f.write(p.stdout)
            r = plan("--replay", saved, "--format", "json")
            self.assertEqual(r.stdout, p.stdout)

    def test_default_model_is_stated(self):
        p = plan("--instance", "p4d.24xlarge", "--nodes", "2")
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("model bert-large", p.stdout)
        self.assertTrue(p.stdout.rstrip().splitlines()[-1].startswith("Use "))
        h = subprocess.run([TOPOTUNE, "plan", "--help"], capture_output=True, text=True)
        self.assertIn("default bert-large", h.stdout)

    def test_algos_restricts_the_search_and_replays(self):
        p = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--algos",
                 "nccl:ring/chN,hierarchical/chN", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        kinds = {c["algorithm"].split("(")[0].split("/")[0] for c in doc["candidates"]}
        self.assertTrue(kinds and kinds <= {"nccl:ring", "hierarchical"}, kinds)
        self.assertIn(doc["recommendation"]["algorithm"].split("(")[0].split("/")[0], kinds)
        self.assertEqual(doc["inputs"]["algorithms"], ["nccl:ring/chN", "hierarchical/chN"])
        # Only the top candidates are listed; the counts searched show the filter: the two
        # complementary restrictions partition the unrestricted search.
        def evaluated(*extra):
            r = plan("--instance", "p4d.24xlarge", "--nodes", "2", *extra, "--format", "json")
            return json.loads(r.stdout)["candidates_evaluated"]
        rest = evaluated("--algos", "nccl:default/chN,nccl:tree/chN,rhd/chN,ps/chN")
        self.assertEqual(doc["candidates_evaluated"] + rest, evaluated())
        self.assertGreater(rest, 0)
        # Without /chN each family runs at its own channel count only: no /ch rows at all.
        own = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--algos",
                   "nccl:ring,hierarchical", "--format", "json")
        self.assertEqual(own.returncode, 0, own.stderr)
        own_doc = json.loads(own.stdout)
        self.assertFalse([c for c in own_doc["candidates"] if "/ch" in c["algorithm"]])
        self.assertFalse([n for n in own_doc["notes"] if n.startswith("channels:")])
        self.assertTrue([n for n in doc["notes"] if n.startswith("channels:")])
        self.assertEqual(own_doc["inputs"]["algorithms"], ["nccl:ring", "hierarchical"])
        # The baselines stay NCCL's defaults.
        self.assertEqual(doc["baselines"][0]["algorithm"], "nccl:default")
        self.assert_replays(p.stdout)
        bad = plan("--instance", "p4d.24xlarge", "--algos", "ring,bogus")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("--algos: unknown algorithm 'bogus'", bad.stderr)

    def test_backend_mpi_plans_topotune_schedules_only(self):
        p = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--backend", "mpi",
                 "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertNotIn("nccl:default", {c["algorithm"] for c in doc["candidates"]})
        # Only the top candidates are listed: the count searched shows nccl-default is out,
        # the same as naming every other family.
        named = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--backend", "mpi",
                     "--algos", "ring,dbtree,rhd,ps,hierarchical", "--format", "json")
        self.assertEqual(doc["candidates_evaluated"],
                         json.loads(named.stdout)["candidates_evaluated"])
        self.assertEqual(doc["inputs"]["backend"], "mpi")
        self.assertTrue(any("backend mpi" in n for n in doc["notes"]), doc["notes"])
        nccl = json.loads(plan("--instance", "p4d.24xlarge", "--nodes", "2", "--format",
                               "json").stdout)
        self.assertNotIn("backend", nccl["inputs"])
        self.assert_replays(p.stdout)
        bad = plan("--instance", "p4d.24xlarge", "--backend", "mpi", "--algos", "nccl-default")
        self.assertEqual(bad.returncode, 2)
        self.assertIn("nccl:default needs the nccl backend", bad.stderr)

    def test_ddp_recommendation_is_the_first_row_and_runs_with_ddp(self):
        p = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        rec, first = doc["recommendation"], doc["candidates"][0]
        self.assertEqual(doc["framework"], "ddp")
        self.assertIn("ddp", rec["frameworks"])
        for key in ("algorithm", "bucket_bytes", "comm_dtype", "step_time_s", "busbw_GBps"):
            self.assertEqual(rec[key], first[key], key)
        self.assertNotIn("topotune's runtime", rec["sentence"])
        table = plan("--instance", "p4d.24xlarge", "--nodes", "4").stdout
        # "1*" when row 1 is not the fastest row (it says why on the next line).
        row = [l for l in table.splitlines() if l.startswith(("1 ", "1* "))][0].split()
        self.assertEqual(row[1], rec["algorithm"])
        self.assertEqual(float(row[6]), round(rec["step_time_s"] * 1e3, 2))

    def test_keeps_the_defaults_when_nothing_beats_them(self):
        # GPT-2 XL on 16 x p5: nothing DDP runs is predicted 2 % faster than its defaults (at 8
        # sequences per GPU, so that the replica fits and the sentence starts with the advice).
        args = ("--instance", "p5.48xlarge", "--nodes", "16", "--model", "gpt2-xl",
                "--batch-per-gpu", "8")
        doc = json.loads(plan(*args, "--format", "json").stdout)
        rec = doc["recommendation"]
        self.assertTrue(rec["keeps_defaults"])
        self.assertTrue(rec["sentence"].startswith("Keep DDP's defaults"), rec["sentence"])
        self.assertEqual(rec["step_time_s"], doc["baselines"][0]["step_time_s"])
        self.assertEqual(doc["candidates"][0]["step_time_s"], rec["step_time_s"])
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "cfg")
            os.mkdir(out)
            r = plan(*args, "--emit", "all", "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            env = open(os.path.join(out, "nccl.env")).read()
            self.assertEqual([l for l in env.splitlines() if l and not l.startswith("#")], [])
            ddp = open(os.path.join(out, "ddp_snippet.py")).read()
            self.assertNotIn("bucket_cap_mb", ddp)
            self.assertNotIn("comm_hook", ddp)
            hvd = open(os.path.join(out, "horovod.env")).read()
            self.assertNotIn("NCCL_ALGO", hvd)

    def test_horovod_file_agrees_with_algos(self):
        with tempfile.TemporaryDirectory() as d:
            r = plan("--instance", "p4d.24xlarge", "--nodes", "4", "--algos",
                     "nccl:default,nccl:ring,nccl:tree", "--emit", "horovod", "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            hvd = open(os.path.join(d, "horovod.env")).read()
            self.assertNotIn("HOROVOD_TORUS_ALLREDUCE=1", hvd)
            self.assertNotIn("hierarchical", hvd)

    def test_horovod_hierarchical_is_the_gpu_direct_torus_path(self):
        """p4d x 8 ResNet-50 at batch 16 for Horovod recommends hierarchical(ring): emitted as
        Horovod's NCCL torus allreduce, never HOROVOD_HIERARCHICAL_ALLREDUCE (host-staged MPI).
        (At batch 32 the fitted compute is long enough that NCCL's own choice overlaps.)"""
        with tempfile.TemporaryDirectory() as d:
            r = plan("--instance", "p4d.24xlarge", "--nodes", "8", "--model", "resnet50",
                     "--batch-per-gpu", "16", "--framework", "horovod", "--emit", "horovod",
                     "--out", d)
            self.assertEqual(r.returncode, 0, r.stderr)
            hvd = open(os.path.join(d, "horovod.env")).read()
            self.assertIn("\nHOROVOD_TORUS_ALLREDUCE=1\n", hvd)
            self.assertNotIn("\nHOROVOD_HIERARCHICAL_ALLREDUCE", hvd)

    def test_gradient_dtype_follows_the_hardware(self):
        # V100 (p3) and T4 (g4dn) have no bf16: never searched, fp16 instead; A100 has it.
        for instance in ("p3.16xlarge", "g4dn.12xlarge", "p3dn.24xlarge"):
            p = plan("--instance", instance, "--nodes", "4", "--format", "json")
            self.assertEqual(p.returncode, 0, p.stderr)
            doc = json.loads(p.stdout)
            self.assertEqual(doc["inputs"]["dtypes"], ["fp32", "fp16"], instance)
            rows = doc["candidates"] + [doc["recommendation"], doc["horovod"]]
            self.assertNotIn("bf16", {r["comm_dtype"] for r in rows}, instance)
            self.assertIn("fp16", {r["comm_dtype"] for r in doc["candidates"]}, instance)
            bad = plan("--instance", instance, "--nodes", "4", "--dtype", "bf16")
            self.assertEqual(bad.returncode, 2)
            self.assertIn("bf16 gradients need a GPU that computes bf16 natively", bad.stderr)
        a100 = json.loads(plan("--instance", "p4d.24xlarge", "--nodes", "2", "--format",
                               "json").stdout)
        self.assertEqual(a100["inputs"]["dtypes"], ["fp32", "bf16"])

    def test_flags_that_would_be_ignored_are_errors_and_out_is_created(self):
        for args, said in ((["--instance", "p4d.24xlarge", "--out", "x"], "--out needs --emit"),
                           (["--cluster", "c.json", "--placement", "spread"],
                            "--placement would be ignored with --cluster"),
                           (["--cluster", "c.json", "--instance", "p4d.24xlarge"],
                            "--instance would be ignored with --cluster"),
                           (["--replay", "p.json", "--nodes", "2"],
                            "--nodes would be ignored with --replay")):
            r = plan(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr)
        with tempfile.TemporaryDirectory() as d:
            # Only --out's last component is created (docs/output-files.md).
            deep = os.path.join(d, "cfg", "new")
            r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--emit", "all", "--out", deep)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn("only the last component", r.stderr)
            self.assertEqual(os.listdir(d), [])
            out = os.path.join(d, "new")
            r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--emit", "all", "--out", out)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(os.path.isfile(os.path.join(out, "nccl.env")))
        help_ = subprocess.run([TOPOTUNE, "plan", "--help"], capture_output=True, text=True)
        self.assertIn("Examples:", help_.stdout.rstrip().splitlines()[-7])

    def test_unknown_commands_and_flags_get_a_did_you_mean(self):
        for args, said in ((["plna"], "unknown command 'plna': did you mean 'plan'?"),
                           (["simulat", "--nodes", "2"], "did you mean 'simulate'?"),
                           (["plan", "--instance", "p4d.24xlarge", "--nodse", "4"],
                            "unknown flag '--nodse': did you mean '--nodes'?"),
                           (["predict", "--placment=spread"], "did you mean '--placement'?")):
            r = subprocess.run([TOPOTUNE, *args], capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn(said, r.stderr, args)
            self.assertEqual(r.stdout, "", args)
        far = subprocess.run([TOPOTUNE, "zzzzzz"], capture_output=True, text=True)
        self.assertEqual(far.returncode, 2)
        self.assertNotIn("did you mean", far.stderr)

    def test_bad_options(self):
        for args in [["--instance", "p4d.24xlarge", "--nodes", "0"],
                     ["--instance", "p4d.24xlarge", "--format", "xml"],
                     ["--instance", "p4d.24xlarge", "--dtype", "int8"],
                     ["--instance", "p4d.24xlarge", "--backend", "gloo"],
                     ["--instance", "p4d.24xlarge", "--emit", "slurm", "--out", "/tmp"],
                     ["--instance", "p4d.24xlarge", "--emit", "all"],
                     ["--replay", "/nonexistent/plan.json"], []]:
            p = plan(*args)
            self.assertEqual(p.returncode, 2, f"{args}: {p.stderr}")
            self.assertIn("topotune: error:", p.stderr, args)


if __name__ == "__main__":
    TOPOTUNE = sys.argv.pop(1)
    unittest.main()
