#!/usr/bin/env python3
"""Every command on every seed of the fuzz corpus it can read ("no NaN or inf ever
printed"). fuzz/corpus/<target>/ holds the libFuzzer seeds, valid and hostile (deep nesting,
many objects, duplicate keys, 1e308, denormals, hostile names); each file goes through the
commands that read that kind of input, in each of their output formats:

  model_profile_fuzz      plan --model
  calibration_fuzz        predict / simulate / plan --calibration
  measurement_fuzz        validate --measured, calibrate --measured -o
  plan_replay_fuzz        plan --replay
  instance_loader_fuzz    topo / predict / simulate / plan --cluster
  nccl_tests_parser_fuzz  validate --nccl-tests, calibrate --nccl-tests -o
  schedule_json_fuzz      (no command reads a schedule file; the library is fuzzed directly)

Each run must exit 0, 1 or 2 within its timeout; a failing run prints exactly one line, on
stderr, starting "topotune: error:"; stdout and stderr (and a file calibrate wrote) hold no
inf, infinity or nan as a word, in any case; nothing is created in the working directory.
Every command must succeed on at least one seed, so the grep has output to look at.
usage: corpus_cli_test.py TOPOTUNE [CORPUS_DIR]
"""
import os
import re
import subprocess
import sys
import tempfile
import time

NONFINITE = re.compile(r"(?<![a-z_])[-+]?(inf|nan)(?![a-z_])", re.I)
P4D = ["--instance", "p4d.24xlarge", "--nodes", "2"]
# nccl-tests logs are named after the system they were taken on.
LOG_INSTANCES = [("p3dn", "p3dn.24xlarge"), ("p4d", "p4d.24xlarge"), ("p5", "p5.48xlarge"),
                 ("dgx_a100", "dgx-a100"), ("hgx_a100", "dgx-a100"), ("dgx_h100", "dgx-h100")]


def log_instance(name):
    return next((inst for key, inst in LOG_INSTANCES if key in name), "p4d.24xlarge")


def commands(target, path, out):
    """(label, argv, formats) for one seed; `out` is a fresh path calibrate may write."""
    name = os.path.basename(path)
    if target == "model_profile_fuzz":
        return [("plan --model", ["plan", *P4D, "--model", path], ["table", "json", "csv"])]
    if target == "calibration_fuzz":
        return [("predict --calibration", ["predict", *P4D, "--calibration", path],
                 ["table", "json", "csv"]),
                ("simulate --calibration", ["simulate", *P4D, "--algo", "ring", "--size", "64M",
                                            "--calibration", path], ["table", "json"]),
                ("plan --calibration", ["plan", *P4D, "--calibration", path], ["table"])]
    if target == "measurement_fuzz":
        return [("validate --measured", ["validate", "--instance", "p4d.24xlarge", "--measured",
                                         path], ["table", "csv"]),
                ("calibrate --measured", ["calibrate", "--instance", "p4d.24xlarge", "--measured",
                                          path, "--rounds", "2", "-o", out], ["table"])]
    if target == "plan_replay_fuzz":
        return [("plan --replay", ["plan", "--replay", path], ["table", "json"])]
    if target == "instance_loader_fuzz":
        return [("topo --cluster", ["topo", "--cluster", path], ["table", "json", "csv"]),
                ("predict --cluster", ["predict", "--cluster", path, "--sizes", "1M,1G"],
                 ["table", "json"]),
                ("simulate --cluster", ["simulate", "--cluster", path, "--algo", "ring",
                                        "--size", "64M"], ["table"]),
                ("plan --cluster", ["plan", "--cluster", path], ["table"])]
    if target == "nccl_tests_parser_fuzz":
        inst = log_instance(name)
        return [("validate --nccl-tests", ["validate", "--instance", inst, "--nccl-tests", path],
                 ["table", "csv"]),
                ("calibrate --nccl-tests", ["calibrate", "--instance", inst, "--nccl-tests",
                                            path, "--rounds", "2", "-o", out], ["table"])]
    return []


def judge(run, out):
    """Why this run is wrong, or None."""
    if run.returncode not in (0, 1, 2):
        return "exit %d" % run.returncode
    if run.returncode != 0:
        lines = run.stderr.splitlines()
        if len(lines) != 1 or not lines[0].startswith("topotune: error: "):
            return "exit %d without exactly one 'topotune: error:' line" % run.returncode
    elif "topotune: error:" in run.stderr:
        return "exit 0 with an error message"
    written = ""
    if os.path.exists(out):
        with open(out, errors="replace") as f:
            written = f.read()
    for where, text in (("stdout", run.stdout), ("stderr", run.stderr), ("-o file", written)):
        m = NONFINITE.search(text)
        if m:
            line = text[text.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0]
            return "%r in %s: %s" % (m.group(0), where, line[:200])
    return None


def main():
    binary = os.path.abspath(sys.argv[1])
    here = os.path.dirname(os.path.abspath(__file__))
    corpus = sys.argv[2] if len(sys.argv) > 2 else os.path.join(here, "..", "..", "fuzz", "corpus")
    env = dict(os.environ, TOPOTUNE_MEMORY_LIMIT_MB="2048")
    failures, runs, ok = [], 0, {}
    start = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        work = os.path.join(tmp, "cwd")
        os.makedirs(work)
        for target in sorted(os.listdir(corpus)):
            for name in sorted(os.listdir(os.path.join(corpus, target))):
                path = os.path.abspath(os.path.join(corpus, target, name))
                out = os.path.join(tmp, "calibration.json")
                for label, argv, formats in commands(target, path, out):
                    ok.setdefault(label, 0)
                    for fmt in formats:
                        if os.path.exists(out):
                            os.remove(out)
                        full = argv + ([] if fmt == "table" else ["--format", fmt])
                        shown = "topotune " + " ".join(full)
                        runs += 1
                        try:
                            run = subprocess.run([binary] + full, cwd=work, env=env,
                                                 capture_output=True, timeout=30,
                                                 errors="replace")
                        except subprocess.TimeoutExpired:
                            failures.append("timeout: " + shown)
                            continue
                        why = judge(run, out)
                        if not why and os.listdir(work):
                            why = "created " + ", ".join(sorted(os.listdir(work)))
                        if why:
                            failures.append("%s: %s\n  %s" % (why, shown,
                                                              (run.stderr or "")[-300:].strip()))
                        elif run.returncode == 0 and run.stdout.strip():
                            ok[label] += 1
    for label, n in sorted(ok.items()):
        if n == 0:
            failures.append("no seed gave '%s' a successful run to check" % label)
    for f in failures:
        print("FAIL (" + f)
    print("corpus CLI: %d runs, %d failure(s), %.1f s; successful runs per command: %s"
          % (runs, len(failures), time.monotonic() - start,
             ", ".join("%s %d" % kv for kv in sorted(ok.items()))))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
