#!/usr/bin/env python3
"""`topotune instances --check FILE...` and `--format markdown` through the built binary.

usage: instances_check_cli_test.py TOPOTUNE_BINARY REPO_ROOT [--doc]

Without --doc: every catalog file passes (exit 0, one summary line); a valid catalog file
broken in one way per rule class (syntax, structure, figure objects, values, indices, names,
and the catalog's own rules: presence, sources, cross-field) fails with exit 2 and one line
`FILE: field: message` naming the broken field; several files are all checked; JSON carries
the same problems. With --doc: docs/catalog.md's generated block is what
`topotune instances --format markdown` prints for the data."""
import copy
import glob
import json
import os
import subprocess
import sys
import tempfile

BIN, ROOT = sys.argv[1], sys.argv[2]
CATALOG = os.path.join(ROOT, "data", "instances")
failures = 0


def run(args):
    return subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)


def expect(name, cond, detail=""):
    global failures
    if cond:
        print(f"PASS: {name}")
    else:
        print(f"FAIL: {name}: {detail}")
        failures += 1


def doc_block():
    with open(os.path.join(ROOT, "docs", "catalog.md"), encoding="utf-8") as f:
        text = f.read()
    begin = "<!-- BEGIN GENERATED: topotune instances --format markdown -->\n"
    end = "<!-- END GENERATED -->"
    if begin not in text or end not in text:
        return None
    return text.split(begin, 1)[1].split(end, 1)[0]


if sys.argv[3:] == ["--doc"]:
    r = run(["instances", "--format", "markdown"])
    expect("instances --format markdown runs", r.returncode == 0, r.stderr)
    expect("docs/catalog.md's generated block matches the data (regenerate it with "
           "`topotune instances --format markdown`)", doc_block() == r.stdout,
           "block differs")
    sys.exit(1 if failures else 0)


# The table's columns line up under the header whatever the names' lengths (the catalog's
# longest names, e.g. Azure's, used to push every later column of their row out of line).
r = run(["instances"])
lines = [ln for ln in r.stdout.splitlines() if ln and not ln.startswith("NVLink/GPU")]
header = lines[0]
for label in ("GPUs", "fabric", "transport", "GDR", "SageMaker"):
    at = header.index(label)
    misplaced = [ln.split()[0] for ln in lines[1:]
                 if at == 0 or ln[at - 1] != " " or ln[at] == " "]
    expect(f"instances table: every row's {label} column starts under its header",
           r.returncode == 0 and not misplaced, f"rows out of line: {misplaced}")


def load(name):
    with open(os.path.join(CATALOG, name + ".json"), encoding="utf-8") as f:
        return json.load(f)


def setp(d, path, value):
    *head, last = path.split(".")
    for h in head:
        d = d[h]
    d[last] = value


def delp(d, path):
    *head, last = path.split(".")
    for h in head:
        d = d[h]
    del d[last]


def nvlink7_dup(d):
    setp(d, "intra.nvlinks_per_gpu.value", 7)
    d["intra"]["nvlink_pairs"]["value"].append([3, 0, 1])


# (label, base file, mutation, field the one problem must name); the file keeps its name.
CASES = [
    ("wrong schema", "p3.16xlarge", lambda d: setp(d, "schema", "topotune.instance/2"), "schema"),
    ("unknown top key", "p3.16xlarge", lambda d: setp(d, "gpus", {}), "gpus"),
    ("typo in section key", "p3.16xlarge",
     lambda d: setp(d, "gpu.memory_GB", {"value": 16, "source": "instances.md §3.1"}),
     "gpu.memory_GB"),
    ("figure without source", "p3.16xlarge", lambda d: setp(d, "gpu.count", {"value": 8}),
     "gpu.count"),
    ("unknown false", "p3.16xlarge",
     lambda d: setp(d, "host.cpu_reduce_GBps", {"unknown": False, "note": "x"}),
     "host.cpu_reduce_GBps"),
    ("bad tag", "p3.16xlarge",
     lambda d: setp(d, "gpu.count", {"value": 8, "source": "instances.md §3.1", "tag": "guess"}),
     "gpu.count.tag"),
    ("required unknown", "p3.16xlarge",
     lambda d: setp(d, "network.nics", {"unknown": True, "note": "x"}), "network.nics"),
    ("zero gpus", "p3.16xlarge", lambda d: setp(d, "gpu.count.value", 0), "gpu.count"),
    ("string bandwidth", "p3.16xlarge", lambda d: setp(d, "network.nic_Gbps.value", "25"),
     "network.nic_Gbps"),
    ("bad arch", "p3.16xlarge", lambda d: setp(d, "gpu.arch.value", "pascal"), "gpu.arch"),
    ("pair out of range", "p3.16xlarge",
     lambda d: d["intra"]["nvlink_pairs"]["value"].append([0, 8, 1]), "intra.nvlink_pairs[16]"),
    ("too many links", "p3.16xlarge", lambda d: setp(d, "intra.nvlinks_per_gpu.value", 5),
     "intra.nvlink_pairs[9]"),
    ("gpu under two switches", "p4d.24xlarge",
     lambda d: d["host"]["pcie_switches"]["value"][1]["gpus"].append(0),
     "host.pcie_switches[1].gpus"),
    ("gpu_socket length", "p3.16xlarge",
     lambda d: setp(d, "host.gpu_socket.value", [0, 0, 0, 0, 1, 1, 1]), "host.gpu_socket"),
    ("name with $()", "p3.16xlarge", lambda d: setp(d, "name", "p3$(touch x)"), "name"),
    ("name mismatch", "p3.16xlarge", lambda d: setp(d, "name", "p3.8xlarge"), "name"),
    # The catalog's own rules (topology/instance_check.h).
    ("missing figure", "p3.16xlarge", lambda d: delp(d, "host.pcie_GBps"), "host.pcie_GBps"),
    ("empty description", "p3.16xlarge", lambda d: setp(d, "description", ""), "description"),
    ("uncited source", "p3.16xlarge",
     lambda d: setp(d, "gpu.count.source", "common knowledge"), "gpu.count"),
    ("blank unknown note", "p3.16xlarge",
     lambda d: setp(d, "host.cpu_reduce_GBps", {"unknown": True, "note": " "}),
     "host.cpu_reduce_GBps"),
    ("bf16 on volta", "p3.16xlarge", lambda d: setp(d, "gpu.bf16_native.value", True),
     "gpu.bf16_native"),
    ("sagemaker without ml.", "p3.16xlarge",
     lambda d: setp(d, "sagemaker_name.value", "p3.16xlarge"), "sagemaker_name"),
    ("nvls on mesh", "p3.16xlarge", lambda d: setp(d, "intra.nvls.value", True), "intra.nvls"),
    ("efa_version on tcp", "p3.16xlarge",
     lambda d: setp(d, "network.efa_version", {"value": 1, "source": "instances.md §2.3"}),
     "network.efa_version"),
    ("efa without version", "p4d.24xlarge", lambda d: delp(d, "network.efa_version"),
     "network.efa_version"),
    ("duplicate pair", "p3.16xlarge", nvlink7_dup, "intra.nvlink_pairs[16]"),
]

good = sorted(glob.glob(os.path.join(CATALOG, "*.json")))
r = run(["instances", "--check"] + good)
expect("every catalog file passes", r.returncode == 0 and r.stdout ==
       f"{len(good)} instance file(s) checked, no problems\n", r.stdout + r.stderr)
r = run(["instances", "--format", "json", "--check"] + good)
expect("every catalog file passes (json)", r.returncode == 0 and
       json.loads(r.stdout) == {"files": len(good), "problems": []}, r.stdout + r.stderr)

with tempfile.TemporaryDirectory() as tmp:
    for label, base, mutate, field in CASES:
        doc = copy.deepcopy(load(base))
        mutate(doc)
        os.makedirs(os.path.join(tmp, label), exist_ok=True)
        path = os.path.join(tmp, label, base + ".json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2, ensure_ascii=False)
        r = run(["instances", "--check", path])
        lines = r.stdout.splitlines()
        expect(label, r.returncode == 2 and len(lines) >= 1 and
               lines[0].startswith(f"{path}: {field}: ") and
               "problem(s) in 1 of 1 instance file(s)" in r.stderr,
               f"exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")

    syntax = os.path.join(tmp, "broken.json")
    with open(syntax, "w", encoding="utf-8") as f:
        f.write('{\n  "schema": ,\n}\n')
    missing = os.path.join(tmp, "absent.json")
    mixed = [good[0], syntax, missing]
    r = run(["instances", "--check"] + mixed)
    lines = r.stdout.splitlines()
    expect("every file is checked and each problem is one line",
           r.returncode == 2 and len(lines) == 2 and lines[0].startswith(f"{syntax}: line 2, column 13: syntax error") and
           lines[1].startswith(f"{missing}: ") and
           r.stderr == "topotune: error: 2 problem(s) in 2 of 3 instance file(s)\n",
           f"exit {r.returncode}, stdout {r.stdout!r}, stderr {r.stderr!r}")
    r = run(["instances", "--format", "json", "--check"] + mixed)
    try:
        doc = json.loads(r.stdout)
        ok = r.returncode == 2 and doc["files"] == 3 and \
            [p["file"] for p in doc["problems"]] == [syntax, missing] and \
            all(p["field"] == "" and p["message"] for p in doc["problems"])
    except (ValueError, KeyError, TypeError) as e:
        ok = False
    expect("json lists the same problems", ok, r.stdout + r.stderr)

r = run(["instances", "--check", good[0], "--format", "csv"])
expect("--check refuses --format csv", r.returncode == 2 and "table or json" in r.stderr,
       r.stderr)
sys.exit(1 if failures else 0)
