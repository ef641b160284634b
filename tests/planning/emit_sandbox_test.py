#!/usr/bin/env python3
"""Names are data, never code, in the files `plan --emit` writes.

Entry: a hostile name in a model profile, a cluster file's instance, its sagemaker_name or a
replayed plan is refused (exit 2, one line, nothing written, no raw control character on the
terminal). Exit: hostile_emit writes real plans' emitted sets with the names replaced by
hostile strings (as if one slipped past the readers); every file is then sourced, run or
executed in a sandbox directory, and none of the strings may act: no `pwned` file appears, the
shell files run cleanly and the Python files evaluate to the plan's values.

usage: emit_sandbox_test.py HOSTILE_EMIT TOPOTUNE REPO_ROOT"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import types
import unittest

HOSTILE_EMIT = TOPOTUNE = ROOT = None

# Each string tries to create a file named `pwned` in the working directory when the text
# around it is shell, an env file or Python.
PAYLOADS = [
    "evil\ntouch pwned #",
    "evil\r\ntouch pwned",
    "$(touch pwned)",
    "`touch pwned`",
    "x'; touch pwned; '",
    'x"; import os; os.system("touch pwned"); "',
    'x"\nimport os; os.system("touch pwned")\n#',
    "x\\\"\nopen('pwned', 'w')\n#",
    "\x1b[2J\x1b]0;title\x07\ntouch pwned",
    "a\x00b\ntouch pwned",
    "A" * 10000 + "\ntouch pwned",
    "x\u2028open('pwned', 'w')",
]


def stub_modules():
    """Just enough of torch and topotune for ddp_snippet.py to run without them."""
    class Model:
        def register_comm_hook(self, *args, **kwargs):
            self.hook = args

    torch = types.ModuleType("torch")
    dist = types.ModuleType("torch.distributed")
    dist.group = types.SimpleNamespace(WORLD=object())
    nn = types.ModuleType("torch.nn")
    parallel = types.ModuleType("torch.nn.parallel")
    parallel.DistributedDataParallel = lambda model, **kwargs: model
    algorithms = types.ModuleType("torch.distributed.algorithms")
    hooks_pkg = types.ModuleType("torch.distributed.algorithms.ddp_comm_hooks")
    hooks_pkg.default_hooks = types.SimpleNamespace(bf16_compress_hook=1, fp16_compress_hook=2)
    topotune = types.ModuleType("topotune")
    topotune.ddp_hooks = types.SimpleNamespace(register=lambda *a, **k: None)
    torch.distributed, torch.nn, nn.parallel = dist, nn, parallel
    dist.algorithms, algorithms.ddp_comm_hooks = algorithms, hooks_pkg
    mods = {"torch": torch, "torch.distributed": dist, "torch.nn": nn,
            "torch.nn.parallel": parallel, "torch.distributed.algorithms": algorithms,
            "torch.distributed.algorithms.ddp_comm_hooks": hooks_pkg, "topotune": topotune,
            "topotune.ddp_hooks": topotune.ddp_hooks}
    return mods, Model()


def run_python(path, cwd):
    """Executes an emitted Python file with the stubs; returns its globals."""
    mods, model = stub_modules()
    saved = dict(sys.modules)
    old_cwd = os.getcwd()
    try:
        sys.modules.update(mods)
        os.environ["LOCAL_RANK"] = "0"
        os.chdir(cwd)
        scope = {"model": model, "__name__": "__emitted__"}
        with open(path, encoding="utf-8") as f:
            exec(compile(f.read(), path, "exec"), scope)  # pylint: disable=exec-used
        return scope
    finally:
        os.chdir(old_cwd)
        sys.modules.clear()
        sys.modules.update(saved)


class EmittedFilesAreData(unittest.TestCase):
    def run_set(self, src, payload, sandbox):
        shutil.copytree(src, sandbox)
        binary = os.path.join(sandbox, "bin")
        os.mkdir(binary)
        with open(os.path.join(binary, "torchrun"), "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\nprintf "%s\\n" "$@" > torchrun.args\n'
                    'printf "%s" "${NCCL_TUNER_TOPOTUNE_RULES:-}" > torchrun.rules\n')
        os.chmod(os.path.join(binary, "torchrun"), 0o755)
        env = dict(os.environ, PATH=binary + ":" + os.environ["PATH"], NODE_RANK="0",
                   MASTER_ADDR="127.0.0.1",
                   # what torchrun.sh of a DDP-hook plan requires (the folder shipped with the job)
                   TOPOTUNE_PYTHON=os.path.join(sandbox, "python"))
        for script in ("set -euo pipefail; set -a; . ./nccl.env; . ./horovod.env; set +a",
                       "bash ./torchrun.sh train.py"):
            r = subprocess.run(["bash", "-c", script], cwd=sandbox, env=env,
                               capture_output=True, text=True, check=False)
            self.assertEqual(r.returncode, 0, f"{src}: {script}: {r.stderr}")
        with open(os.path.join(sandbox, "torchrun.args"), encoding="utf-8") as f:
            self.assertIn("train.py", f.read())
        # Where the set loads the tuner plugin, every rank gets the rules' absolute path.
        with open(os.path.join(sandbox, "torchrun.rules"), encoding="utf-8") as f:
            rules = f.read()
        if os.path.exists(os.path.join(src, "nccl_tuner_rules.txt")):
            self.assertTrue(os.path.isabs(rules), rules)
            self.assertTrue(os.path.samefile(rules, os.path.join(sandbox, "nccl_tuner_rules.txt")))
        else:
            self.assertEqual(rules, "")
        sm = run_python(os.path.join(sandbox, "sagemaker_distribution.py"), sandbox)
        if sm.get("distribution") is not None and payload.isascii():
            self.assertEqual(sm["instance_type"], payload)
        run_python(os.path.join(sandbox, "ddp_snippet.py"), sandbox)
        self.assertFalse(os.path.exists(os.path.join(sandbox, "pwned")), src)
        for name in os.listdir(src):
            with open(os.path.join(src, name), "rb") as f:
                text = f.read()
            controls = [b for b in text if b < 0x20 and b != 0x0A]
            self.assertEqual(controls, [], f"{src}/{name}: control bytes")
            for line in text.split(b"\n"):
                if b"touch pwned" in line or b"pwned'" in line:
                    self.assertTrue(line.lstrip().startswith(b"#") or b'"' in line, line[:120])

    def test_hostile_names_stay_data_in_every_emitted_file(self):
        with tempfile.TemporaryDirectory() as d:
            names = os.path.join(d, "names.json")
            with open(names, "w", encoding="utf-8") as f:
                json.dump(PAYLOADS, f)
            out = os.path.join(d, "sets")
            r = subprocess.run([HOSTILE_EMIT, names, out], capture_output=True, text=True,
                               check=False)
            self.assertEqual(r.returncode, 0, r.stderr)
            sets = sorted(os.listdir(out))
            self.assertEqual(len(sets), 4 * len(PAYLOADS))
            for s in sets:
                payload = PAYLOADS[int(s.split("-")[0])]
                with self.subTest(set=s):
                    self.run_set(os.path.join(out, s), payload, os.path.join(d, "run-" + s))


def plan(*args):
    return subprocess.run([TOPOTUNE, "plan", *args], capture_output=True, text=True,
                          check=False)


class HostileNamesAreRefusedWhereTheyEnter(unittest.TestCase):
    def assert_refused(self, args, out_dir, fragment):
        r = plan(*args, "--emit", "all", "--out", out_dir)
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertNotIn("\x1b", r.stderr)
        self.assertEqual(os.listdir(out_dir), [])

    def test_model_profile_name(self):
        with open(os.path.join(ROOT, "data/models/resnet50.json"), encoding="utf-8") as f:
            profile = json.load(f)
        for name in ("evil\ntouch /tmp/x #", "\x1b[31mred", 'a"b', "x" * 129, ""):
            with tempfile.TemporaryDirectory() as d, self.subTest(name=name[:20]):
                profile["name"] = name
                path = os.path.join(d, "evil.json")
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(profile, f)
                out = os.path.join(d, "out")
                os.mkdir(out)
                self.assert_refused(["--instance", "p4d.24xlarge", "--nodes", "2", "--model",
                                     path], out, "name")

    def test_cluster_instance_name_and_sagemaker_name(self):
        path = os.path.join(ROOT, "data/validation/clusters/lambda_b200_2n_ib_dstack_nccl2.26.2.json")
        for field in ("name", "sagemaker_name"):
            with open(path, encoding="utf-8") as f:
                cluster = json.load(f)
            cluster["instance"][field] = "b200\nexport NCCL_ALGO=$(touch pwned)"
            with tempfile.TemporaryDirectory() as d, self.subTest(field=field):
                c = os.path.join(d, "cluster.json")
                with open(c, "w", encoding="utf-8") as f:
                    json.dump(cluster, f)
                out = os.path.join(d, "out")
                os.mkdir(out)
                self.assert_refused(["--cluster", c], out, field)

    def test_replayed_plan_with_a_hostile_name(self):
        r = plan("--instance", "p4d.24xlarge", "--nodes", "2", "--model", "resnet50",
                 "--format", "json")
        self.assertEqual(r.returncode, 0, r.stderr)
        stored = json.loads(r.stdout)
        stored["inputs"]["model_profile"]["name"] = "r50\ntouch pwned #"
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "plan.json")
            with open(p, "w", encoding="utf-8") as f:
                json.dump(stored, f)
            out = os.path.join(d, "out")
            os.mkdir(out)
            self.assert_refused(["--replay", p], out, "name")


if __name__ == "__main__":
    HOSTILE_EMIT, TOPOTUNE, ROOT = sys.argv[1:4]
    unittest.main(argv=sys.argv[:1] + sys.argv[4:])
