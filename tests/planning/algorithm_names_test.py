#!/usr/bin/env python3
"""algorithm_names_test.py TOPOTUNE: every algorithm name `topotune plan` prints is accepted
by `schedule`, `simulate` and `predict`, and means the same algorithm there.

The names are read from the plans' own output (JSON candidates, baselines, Horovod's best)
for the default search, topotune's framework with every family, and the mpi backend; nothing
here keeps a copy of the grammar. topotune's schedules must run in all three commands, and
`simulate` and `predict --simulate` must give the same time for them (the same schedule on
the same topology). NCCL's own algorithms (nccl:*) have no topotune schedule: `schedule` and
`simulate` must say exactly that (exit 2), and `predict` must time them with the NCCL
predictor, with NCCL_ALGO as the name says."""
import json
import subprocess
import sys
import unittest

TOPOTUNE = None
CLUSTER = ["--instance", "p4d.24xlarge", "--nodes", "2"]


def run(*args):
    return subprocess.run([TOPOTUNE, *args], capture_output=True, text=True)


def plan_names():
    names = set()
    families = [["--framework", "topotune", "--algos", f] for f in ("ring", "dbtree", "rhd", "ps")]
    for extra in ([], ["--backend", "mpi"], ["--framework", "horovod"], *families):
        p = run("plan", *CLUSTER, *extra, "--format", "json")
        assert p.returncode == 0, p.stderr
        doc = json.loads(p.stdout)
        rows = doc["candidates"] + doc["baselines"] + [doc["horovod"], doc["recommendation"]]
        names |= {r["algorithm"] for r in rows}
    return sorted(names)


class AlgorithmNamesTest(unittest.TestCase):
    def test_every_plan_name_is_accepted_everywhere(self):
        names = plan_names()
        self.assertTrue(any(n.startswith("nccl:") for n in names), names)
        self.assertTrue(any(n.startswith("hierarchical(") for n in names), names)
        for family in ("dbtree", "ring", "rhd"):
            self.assertIn(family, names)
        for name in names:
            with self.subTest(name=name):
                sched = run("schedule", "--algo", name, *CLUSTER, "--size", "64M")
                sim = run("simulate", "--algo", name, *CLUSTER, "--size", "64M", "--format", "json")
                pred = run("predict", "--algo", name, *CLUSTER, "--sizes", "64M", "--format",
                           "json")
                self.assertEqual(pred.returncode, 0, pred.stderr)
                if name.startswith("nccl:"):
                    for p in (sched, sim):
                        self.assertEqual(p.returncode, 2, p.stdout)
                        self.assertIn("is NCCL's own algorithm", p.stderr)
                    chosen = json.loads(pred.stdout)["rows"][0]["algorithm"]
                    base = name.split("/")[0]
                    if base != "nccl:default":
                        self.assertEqual(chosen.lower(), base[len("nccl:"):], pred.stdout)
                    continue
                self.assertEqual(sched.returncode, 0, sched.stderr)
                self.assertEqual(sim.returncode, 0, sim.stderr)
                again = run("predict", "--algo", name, *CLUSTER, "--sizes", "64M", "--simulate",
                            "--format", "json")
                self.assertEqual(again.returncode, 0, again.stderr)
                t_sim = json.loads(sim.stdout)["time_s"] * 1e6
                t_pred = json.loads(again.stdout)["rows"][0]["time_us"]
                # predict --simulate adds the schedule's software costs (NCCL's per-step
                # and per-collective constants, one model of time) to the simulated wire time.
                self.assertGreaterEqual(t_pred, t_sim - 1e-6 * t_sim)
                self.assertLess(t_pred, 1.5 * t_sim)

    def test_old_spellings_are_aliases(self):
        for alias, name in (("hierarchical:rhd", "hierarchical(rhd)"), ("tree", "dbtree")):
            a = run("predict", "--algo", alias, *CLUSTER, "--sizes", "64M", "--format", "json")
            b = run("predict", "--algo", name, *CLUSTER, "--sizes", "64M", "--format", "json")
            self.assertEqual(a.returncode, 0, a.stderr)
            self.assertEqual(json.loads(a.stdout)["rows"], json.loads(b.stdout)["rows"])


if __name__ == "__main__":
    TOPOTUNE = sys.argv.pop(1)
    unittest.main()
