#!/usr/bin/env python3
"""Random command lines (fixed seed, so every run is the same): topotune must answer each with
exit 0, or exit 1/2 and a message, within its timeout, create no file, and print no NaN or inf.
Commands and flags that write files or start processes are left out (emulate, measure,
calibrate's -o, --trace/--plot), except `plan --emit all --out DIR`: DIR is a fresh path in
the temp directory that no mutation touches; a failed plan must leave no DIR, and no file
named "pwned" may appear anywhere. Input files include hostile names (profiles and cluster
files, each first run unmutated through --emit: refused with exit 2, nothing written),
denormal and huge numbers, 80,000-deep nesting and 200,000 objects.
Usage: argv_fuzz_test.py TOPOTUNE [RUNS] [SEED]"""
import copy, json, os, random, re, shutil, stat, subprocess, sys, tempfile

FLAGS = {
    "instances": ["--format"],
    "topo": ["--instance", "--nodes", "--placement", "--cluster", "--format"],
    "schedule": ["--algo", "--ranks", "--gpus-per-node", "--instance", "--nodes", "--size",
                 "--dtype", "--collective", "--channels", "--chunks", "--shards",
                 "--ps-placement", "--inner", "--format", "--verify"],
    "predict": ["--instance", "--nodes", "--cluster", "--placement", "--collective", "--algo",
                "--sizes", "--nccl-version", "--nccl-algo", "--nccl-proto", "--calibration",
                "--gpus-per-thread", "--format", "--simulate", "--explain"],
    "validate": ["--nccl-tests", "--measured", "--instance", "--nodes", "--cluster",
                 "--nccl-version", "--nccl-algo", "--nccl-proto", "--collective",
                 "--calibration", "--gpus-per-thread"],
    "simulate": ["--instance", "--nodes", "--placement", "--cluster", "--algo", "--size",
                 "--dtype", "--collective", "--channels", "--chunks", "--shards",
                 "--ps-placement", "--inner", "--reduction", "--no-flow-caps", "--format",
                 "--calibration"],
    "plan": ["--instance", "--nodes", "--placement", "--cluster", "--model", "--batch-per-gpu",
             "--dtype", "--algos", "--buckets", "--backend", "--framework",
             "--compute-efficiency", "--peak-tflops", "--calibration", "--format", "--replay"],
}
# Small valid counts only: large valid ones (plan at 65,536 nodes: 84 s) are limits_cli's job.
NUMBERS = ["0", "1", "2", "3", "8", "-1", "010", "0x10", "1e308", "inf", "nan", "2147483647",
           "99999999999999999999", "", "1.5", "5e-324", "1e-320", "2.2250738585072014e-308",
           "4294967304", "9223372036854775807", "18446744073709551616", "1e300", "-0"]
WORDS = ["p4d.24xlarge", "p5.48xlarge", "dgx-a100", "g5.48xlarge", "ring", "tree", "ps",
         "hierarchical", "dbtree", "rhd", "nccl", "mpi", "ddp", "horovod", "fp16", "bf16",
         "fp32", "allreduce", "broadcast", "table", "json", "csv", "dot", "spread", "LL",
         "Simple", "2.18.3", "resnet50", "1M", "64K", "1G", "8388607T", "x'y;touch PWNED",
         "\udcff", "a" * 300]


# Names that would be code in an emitted file (newline, CR, quotes, $(), backticks, ESC, NUL,
# U+2028, 10 kB) or are outside the name rule (empty).
HOSTILE_NAMES = ["evil\ntouch pwned #", "x\rtouch pwned", "a'b", 'a"b', "$(touch pwned)",
                 "`touch pwned`", "\x1b[2J\x1b]0;t\x07", "a\x00b", "a\u2028b", "a" * 10240,
                 "x;touch pwned", ""]
PROFILE = {"schema": "topotune.model_profile/1", "name": "tiny", "measured_batch_per_gpu": 8,
           "layers": [{"name": "a", "backward_time_s": 0.01}, {"name": "b", "backward_time_s": 0.02}],
           "params": [{"name": "w", "numel": 1000000, "layer": 0},
                      {"name": "v", "numel": 4000000, "layer": 1}]}
INSTANCE = {"schema": "topotune.instance/1", "name": "onprem-4gpu", "vendor": "custom",
            "sagemaker_name": {"value": "ml.onprem-4gpu", "source": "x"},
            "gpu": {"count": {"value": 4, "source": "x"}, "model": {"value": "L40S", "source": "x"},
                    "arch": {"value": "ampere", "source": "x"}},
            "intra": {"fabric": {"value": "pcie", "source": "x"}},
            "host": {"cpu_sockets": {"value": 1, "source": "x"}},
            "network": {"nics": {"value": 1, "source": "x"}, "nic_Gbps": {"value": 100, "source": "x"},
                        "transport": {"value": "infiniband", "source": "x"},
                        "gpudirect_rdma": {"value": True, "source": "x"}}}
INLINE = {"schema": "topotune.cluster/1", "instance": INSTANCE, "nodes": 2}


EMITTED = ["ddp_snippet.py", "horovod.env", "nccl.env", "sagemaker_distribution.py",
           "torchrun.sh"]
# ... plus the tuner plugin's rules where the plan needs NCCL to run other than its own choice.
EMITTED_WITH_RULES = sorted(EMITTED + ["nccl_tuner_rules.txt"])


def emit_inputs(c):
    """(valid profile, valid inline cluster, [(what, hostile file)]) for the --emit runs."""
    def write(name, doc):
        path = os.path.join(c, name)
        with open(path, "w") as f:
            json.dump(doc, f)
        return path
    hostile = []
    for i, name in enumerate(HOSTILE_NAMES):
        p = copy.deepcopy(PROFILE)
        p["name"] = name
        hostile.append(("profile name", write("profile-name-%d.json" % i, p)))
        k = copy.deepcopy(INLINE)
        k["instance"]["name"] = name
        hostile.append(("instance name", write("cluster-name-%d.json" % i, k)))
        k = copy.deepcopy(INLINE)
        k["instance"]["sagemaker_name"]["value"] = "ml." + name if name else name
        hostile.append(("sagemaker_name", write("cluster-sagemaker-%d.json" % i, k)))
    return write("profile.json", PROFILE), write("inline.json", INLINE), hostile


def files(tmp):
    c = os.path.join(tmp, "in")
    os.makedirs(c)
    deep = "[" * 80000 + "]" * 80000
    many = "[" + ",".join(["{}"] * 200000) + "]"
    paths = {
        "cluster": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2}',
        "dup": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, "nodes": 3}',
        "cal": '{"schema": "topotune.nccl_model/2", "parameters": {"nic_latency_us.efa_srd": 20}}',
        "overflow": '{"schema": "topotune.nccl_model/2", "parameters": {"net_window": 2e308}}',
        "measured": '{"schema": "topotune.measurement/1", "backend": "mpi", "ranks": 16, '
                    '"nodes": 2, "rows": [{"algorithm": "ring", "bytes": 1048576, "time_us": 100}]}',
        "null": "null",
        "eff-denormal": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, '
                        '"link_params": {"network": {"efficiency": 5e-324}}}',
        "nic-denormal": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, '
                        '"overrides": {"network.nic_Gbps": 5e-324}}',
        "nodes-huge": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 1e300}',
        "cal-denormal": '{"schema": "topotune.nccl_model/2", "parameters": '
                        '{"net_efficiency.efa_srd": 5e-324}}',
        "measured-denormal": '{"schema": "topotune.measurement/1", "backend": "mpi", "ranks": 16, '
                             '"nodes": 2, "rows": [{"algorithm": "ring", "bytes": 1048576, '
                             '"time_us": 5e-324}]}',
        "profile-denormal": json.dumps(dict(PROFILE, layers=[{"name": "a", "backward_time_s": 5e-324}],
                                            params=[{"name": "w", "numel": 1000, "layer": 0}])),
        "profile-batch-huge": json.dumps(dict(PROFILE, measured_batch_per_gpu=4294967304)),
        "profile-numel-huge": json.dumps(dict(PROFILE, params=[{"name": "w", "numel": 1e300,
                                                                "layer": 0}])),
        "deep": deep,
        "many": many,
    }
    out = []
    for name, text in paths.items():
        with open(os.path.join(c, name + ".json"), "w") as f:
            f.write(text)
        out.append(os.path.join(c, name + ".json"))
    profile, inline, hostile = emit_inputs(c)
    return out + [profile, inline] + [h for _, h in hostile] + [
        c, "/dev/null", "/dev/zero", os.path.join(c, "missing.json")], hostile


def bases(inputs, out_dir):
    cluster, dup, cal, overflow, measured = inputs[:5]
    profile, inline = (next(p for p in inputs if p.endswith(os.sep + n))
                       for n in ("profile.json", "inline.json"))
    emit = ["--emit", "all", "--out", out_dir]
    return [
        ["plan", "--instance", "p4d.24xlarge", "--nodes", "2", "--model", profile, *emit],
        ["plan", "--cluster", inline, "--peak-tflops", "100", *emit],
        ["instances"],
        ["topo", "--instance", "p4d.24xlarge", "--nodes", "2"],
        ["schedule", "--algo", "ring", "--ranks", "8", "--size", "1M"],
        ["predict", "--instance", "p4d.24xlarge", "--nodes", "2"],
        ["predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring", "--simulate",
         "--sizes", "1M"],
        ["validate", "--instance", "p4d.24xlarge", "--measured", measured],
        ["simulate", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring", "--size", "1M"],
        ["plan", "--instance", "p4d.24xlarge", "--nodes", "2", "--model", "resnet50"],
        ["plan", "--cluster", cluster, "--calibration", cal, "--model", "resnet50"],
    ]


def command(rng, inputs, out_dir):
    """A valid command line with up to two mutations: a value replaced, a flag added, or a
    flag removed. The values of --emit and --out are never replaced."""
    argv = list(rng.choice(bases(inputs, out_dir)))
    for _ in range(rng.randint(0, 2)):
        pool = rng.choice([NUMBERS, WORDS, inputs])
        values = [i for i in range(1, len(argv)) if not argv[i].startswith("--")
                  and argv[i - 1] not in ("--emit", "--out")]
        kind = rng.random()
        if kind < 0.5 and values:
            i = rng.choice(values)  # a number stays a number, a name a name, mostly
            like = NUMBERS if argv[i][:1].isdigit() else WORDS + inputs
            argv[i] = rng.choice(like if rng.random() < 0.8 else pool)
        elif kind < 0.85:
            argv += [rng.choice(FLAGS[argv[0]]), rng.choice(pool)]
        elif len(argv) > 2:
            i = rng.randrange(1, len(argv) - 1)
            del argv[i:i + 2]
    return argv


def shown(argv):
    return "topotune " + " ".join(repr(a) if not re.fullmatch(r"[\w.,=/-]*", a) else a
                                  for a in argv)


def why_wrong(p, work, tmp, out_dir, emitted):
    """Why a finished run is wrong, or None."""
    if p.returncode not in (0, 1, 2):
        return "exit %d" % p.returncode
    if p.returncode != 0 and not p.stderr.strip():
        return "exit %d without a message" % p.returncode
    if p.returncode == 1 and "topotune: error:" not in p.stderr:
        return "exit 1 without 'topotune: error:'"
    if re.search(r"(?<![\w.])-?(nan|inf)(?![\w])", p.stdout, re.I):
        return "NaN or inf in the output"
    if os.listdir(work):
        return "created " + ", ".join(os.listdir(work))
    if not stat.S_ISCHR(os.stat("/dev/null").st_mode):
        return "/dev/null is no longer a device"
    for root, _, names in os.walk(tmp):
        if "pwned" in names:
            return "a name ran code: " + os.path.join(root, "pwned")
    if os.path.lexists(out_dir) and not (emitted and p.returncode == 0):
        return "left --out %s after exit %d" % (out_dir, p.returncode)
    return None


def run(binary, argv, work, env):
    try:
        return subprocess.run([binary] + argv, cwd=work, env=env, capture_output=True,
                              timeout=30, errors="surrogateescape")
    except subprocess.TimeoutExpired:
        return None


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 18)
    env = dict(os.environ, TOPOTUNE_MEMORY_LIMIT_MB="1024", TOPOTUNE_MAX_INPUT_MB="1")
    failures = emits = 0
    with tempfile.TemporaryDirectory() as tmp:
        inputs, hostile = files(tmp)
        work = os.path.join(tmp, "cwd")
        os.makedirs(work)
        out_dir = os.path.join(tmp, "emit")
        # Each hostile name first as it stands: refused, exit 2, one line, nothing written.
        fixed = [(["plan", "--instance", "p4d.24xlarge", "--nodes", "2", "--model", f]
                  if what == "profile name" else ["plan", "--cluster", f, "--peak-tflops", "100"])
                 + ["--emit", "all", "--out", out_dir] for what, f in hostile]
        plan = [(argv, True) for argv in fixed] + [None] * runs
        for item in plan:
            argv, must_refuse = item if item else (command(rng, inputs, out_dir), False)
            p = run(binary, argv, work, env)
            if p is None:
                why = "timeout"
            else:
                why = why_wrong(p, work, tmp, out_dir, "--emit" in argv)
                if not why and must_refuse and (p.returncode != 2 or
                                                len(p.stderr.splitlines()) != 1):
                    why = "a hostile name was not refused with one line, exit 2"
            if not why and "--emit" in argv and p.returncode == 0:
                if sorted(os.listdir(out_dir)) not in (EMITTED, EMITTED_WITH_RULES):
                    why = "emitted %s" % sorted(os.listdir(out_dir))
                emits += 1
            if why:
                print("FAIL (%s): %s\n  %s" % (why, shown(argv),
                                               p and (p.stderr or p.stdout)[-300:]))
                failures += 1
            for f in os.listdir(work):
                os.remove(os.path.join(work, f))
            shutil.rmtree(out_dir, ignore_errors=True)
    total = len(plan)
    if emits == 0:  # the --out checks above need runs that wrote a set
        print("FAIL: no --emit command line succeeded")
        failures += 1
    if failures:
        print("%d of %d command lines failed" % (failures, total))
        return 1
    print("argv fuzz: %d command lines ok (%d hostile names through --emit refused, %d emitted "
          "sets)" % (total, len(fixed), emits))
    return 0


if __name__ == "__main__":
    sys.exit(main())
