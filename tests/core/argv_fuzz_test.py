#!/usr/bin/env python3
"""Random command lines (fixed seed, so every run is the same): topotune must answer each with
exit 0, or exit 1/2 and a message, within its timeout, create no file, and print no NaN or inf.
Commands and flags that write files or start processes are left out (emulate, measure,
calibrate's -o, --out/--emit/--trace/--plot). Usage: argv_fuzz_test.py TOPOTUNE [RUNS] [SEED]"""
import os, random, re, stat, subprocess, sys, tempfile

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
                 "--nccl-version", "--nccl-algo", "--nccl-proto", "--calibration",
                 "--gpus-per-thread"],
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
           "99999999999999999999", "", "1.5", "5e-324"]
WORDS = ["p4d.24xlarge", "p5.48xlarge", "dgx-a100", "g5.48xlarge", "ring", "tree", "ps",
         "hierarchical", "dbtree", "rhd", "nccl", "mpi", "ddp", "horovod", "fp16", "bf16",
         "fp32", "allreduce", "broadcast", "table", "json", "csv", "dot", "spread", "LL",
         "Simple", "2.18.3", "resnet50", "1M", "64K", "1G", "8388607T", "x'y;touch PWNED",
         "\udcff", "a" * 300]


def files(tmp):
    c = os.path.join(tmp, "in")
    os.makedirs(c)
    paths = {
        "cluster": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2}',
        "dup": '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2, "nodes": 3}',
        "cal": '{"schema": "topotune.nccl_model/2", "parameters": {"nic_latency_us.efa_srd": 20}}',
        "overflow": '{"schema": "topotune.nccl_model/2", "parameters": {"net_window": 2e308}}',
        "measured": '{"schema": "topotune.measurement/1", "backend": "mpi", "ranks": 16, '
                    '"nodes": 2, "rows": [{"algorithm": "ring", "bytes": 1048576, "time_us": 100}]}',
        "null": "null",
    }
    out = []
    for name, text in paths.items():
        with open(os.path.join(c, name + ".json"), "w") as f:
            f.write(text)
        out.append(os.path.join(c, name + ".json"))
    return out + [c, "/dev/null", "/dev/zero", os.path.join(c, "missing.json")]


def bases(inputs):
    cluster, dup, cal, overflow, measured = inputs[:5]
    return [
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


def command(rng, inputs):
    """A valid command line with up to two mutations: a value replaced, a flag added, or a
    flag removed."""
    argv = list(rng.choice(bases(inputs)))
    for _ in range(rng.randint(0, 2)):
        pool = rng.choice([NUMBERS, WORDS, inputs])
        values = [i for i in range(1, len(argv)) if not argv[i].startswith("--")]
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


def main():
    binary = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 18)
    env = dict(os.environ, TOPOTUNE_MEMORY_LIMIT_MB="1024", TOPOTUNE_MAX_INPUT_MB="1")
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        inputs = files(tmp)
        work = os.path.join(tmp, "cwd")
        os.makedirs(work)
        for _ in range(runs):
            argv = command(rng, inputs)
            shown = "topotune " + " ".join(repr(a) if not re.fullmatch(r"[\w.,=/-]*", a) else a
                                           for a in argv)
            try:
                p = subprocess.run([binary] + argv, cwd=work, env=env, capture_output=True,
                                   timeout=30, errors="surrogateescape")
            except subprocess.TimeoutExpired:
                print("FAIL (timeout):", shown)
                failures += 1
                continue
            why = None
            if p.returncode not in (0, 1, 2):
                why = "exit %d" % p.returncode
            elif p.returncode != 0 and not p.stderr.strip():
                why = "exit %d without a message" % p.returncode
            elif p.returncode == 1 and "topotune: error:" not in p.stderr:
                why = "exit 1 without 'topotune: error:'"
            elif re.search(r"(?<![\w.])-?(nan|inf)(?![\w])", p.stdout, re.I):
                why = "NaN or inf in the output"
            elif os.listdir(work):
                why = "created " + ", ".join(os.listdir(work))
            elif not stat.S_ISCHR(os.stat("/dev/null").st_mode):
                why = "/dev/null is no longer a device"
            if why:
                print("FAIL (%s): %s\n  %s" % (why, shown, (p.stderr or p.stdout)[-300:]))
                failures += 1
                for f in os.listdir(work):
                    os.remove(os.path.join(work, f))
    if failures:
        print("%d of %d command lines failed" % (failures, runs))
        return 1
    print("argv fuzz: %d command lines ok" % runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
