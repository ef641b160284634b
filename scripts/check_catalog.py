#!/usr/bin/env python3
"""Checks the instance catalog (data/instances/*.json) against docs/instance-schema.md.

Stdlib only, so CI can run it before anything is built. It applies the rules the C++ loader
enforces (schema string, name = file name, figure objects well formed, required figures known,
counts and bandwidths positive, indices in range, NVLink pair sums, no unknown keys, `name`
and `sagemaker_name` as core/name_check.h's check_name) plus two
catalog-hygiene rules of this project: every source cites instances.md (a section) or a named
vendor document, and docs/catalog.md's generated block matches the data.

Usage:
  scripts/check_catalog.py               check every file and the docs block (exit 1 on errors)
  scripts/check_catalog.py FILE...       check only these files
  scripts/check_catalog.py --markdown    print the generated block of docs/catalog.md
  scripts/check_catalog.py --self-test   break a valid file in many ways; each must be caught
"""

import copy
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA_DIR = os.path.join(ROOT, "data", "instances")
DOC = os.path.join(ROOT, "docs", "catalog.md")
BEGIN, END = "<!-- BEGIN GENERATED: scripts/check_catalog.py --markdown -->", "<!-- END GENERATED -->"

SCHEMA = "topotune.instance/1"
VENDORS = {"aws", "nvidia", "gcp", "azure", "custom"}
ARCHS = {"volta", "turing", "ampere", "hopper", "blackwell"}
FABRICS = {"nvswitch", "nvlink_mesh", "pcie"}
TRANSPORTS = {"efa", "infiniband", "roce", "tcp", "gpudirect_tcpx", "gpudirect_tcpxo"}
TAGS = {"derived", "secondary", "unverified", "disagree"}
# A source must point at a section of instances.md or at a named vendor document.
SOURCE_RE = re.compile(r"instances\.md §\d|NVIDIA [^,;]*(datasheet|specifications|whitepaper)")
# core/name_check.h's rule: names reach emitted launch files (after `#`, inside Python string
# literals) and the terminal, so they are 1..128 characters of a closed set. Same set as
# is_name_char(); ASCII only (no re.ASCII needed: the class names its ranges).
NAME_RE = re.compile(r"[A-Za-z0-9 ._\-+:/(),]{1,128}")

TOP_KEYS = {"schema", "name", "vendor", "description", "sagemaker_name", "gpu", "intra", "host",
            "network"}
# section -> {key: (required-known?, kind)}; kinds are checked in check_value().
SECTIONS = {
    "gpu": {
        "count": (True, "count"), "model": (True, "str"), "arch": (True, "arch"),
        "bf16_native": (True, "bool"),
        "memory_GiB": (False, "pos"), "peak_fp16_TFLOPS": (False, "pos"),
        "peak_fp32_TFLOPS": (False, "pos"), "peak_tf32_TFLOPS": (False, "pos"),
        "memory_bandwidth_GBps": (False, "pos"),
        "reduce_bandwidth_GBps": (False, "pos"), "sm_count": (False, "count"),
    },
    "intra": {
        "fabric": (True, "fabric"), "nvlink_GBps_per_link": (False, "pos"),
        "nvlinks_per_gpu": (False, "count"), "nvlink_pairs": (False, "pairs"),
        "nvls": (False, "bool"), "nvlink_domain_hosts": (False, "count"),
    },
    "host": {
        "cpu_model": (False, "str"), "cpu_sockets": (True, "count"),
        "host_memory_GiB": (False, "pos"), "cpu_interconnect_GBps": (False, "pos"),
        "cpu_reduce_GBps": (False, "pos"), "pcie_GBps": (False, "pos"),
        "pcie_switches": (False, "switches"), "gpu_socket": (False, "intlist"),
        "nic_socket": (False, "intlist"),
    },
    "network": {
        "nics": (True, "count"), "nic_Gbps": (True, "pos"), "transport": (True, "transport"),
        "efa_version": (False, "count"), "gpudirect_rdma": (True, "bool"),
    },
}
# Keys that may be absent (everything else must be present, known or unknown).
OPTIONAL = {"intra.nvlink_GBps_per_link", "intra.nvlinks_per_gpu", "intra.nvlink_pairs",
            "intra.nvlink_domain_hosts", "network.efa_version", "gpu.peak_tf32_TFLOPS"}


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check_figure(fig, path, err):
    """Returns (known, value) for a well-formed figure object; reports malformed ones."""
    if not isinstance(fig, dict):
        err(path, "not a figure object (expected {value, source} or {unknown, note})")
        return False, None
    keys = set(fig)
    if "unknown" in keys:
        if keys != {"unknown", "note"} or fig["unknown"] is not True:
            err(path, "unknown figure must be exactly {\"unknown\": true, \"note\": ...}")
        elif not isinstance(fig["note"], str) or not fig["note"].strip():
            err(path, "unknown figure needs a non-empty note")
        return False, None
    if not {"value", "source"} <= keys or keys - {"value", "source", "tag"}:
        err(path, "figure must have value+source (and optional tag), got keys %s" % sorted(keys))
        return False, None
    src = fig["source"]
    if not isinstance(src, str) or not src.strip():
        err(path, "source must be a non-empty string")
    elif not SOURCE_RE.search(src):
        err(path, "source cites neither 'instances.md §N' nor a named NVIDIA document")
    if "tag" in fig and fig["tag"] not in TAGS:
        err(path, "tag %r not one of %s" % (fig["tag"], sorted(TAGS)))
    return True, fig["value"]


def check_value(kind, v, path, err):
    ok = True
    if kind == "count":
        ok = is_int(v) and v >= 1
    elif kind == "pos":
        ok = is_num(v) and v > 0
    elif kind == "str":
        ok = isinstance(v, str) and v.strip() != ""
    elif kind == "bool":
        ok = isinstance(v, bool)
    elif kind == "arch":
        ok = v in ARCHS
    elif kind == "fabric":
        ok = v in FABRICS
    elif kind == "transport":
        ok = v in TRANSPORTS
    elif kind == "intlist":
        ok = isinstance(v, list) and all(is_int(x) for x in v)
    elif kind == "pairs":
        ok = isinstance(v, list) and all(
            isinstance(p, list) and len(p) == 3 and all(is_int(x) for x in p) for p in v)
    elif kind == "switches":
        ok = isinstance(v, list) and all(
            isinstance(s, dict) and set(s) == {"socket", "gpus", "nics"} and is_int(s["socket"])
            and all(isinstance(s[k], list) and all(is_int(x) for x in s[k])
                    for k in ("gpus", "nics")) for s in v)
    if not ok:
        err(path, "bad value %s for a %s figure" % (json.dumps(v), kind))
    return ok


def check_cross(vals, err):
    """Index ranges and counts that involve more than one figure."""
    g = lambda k: vals.get(k)
    ngpu, nnic, nsock, fabric = g("gpu.count"), g("network.nics"), g("host.cpu_sockets"), g("intra.fabric")
    nvlink_keys = ("intra.nvlink_GBps_per_link", "intra.nvlinks_per_gpu")
    if fabric in ("nvswitch", "nvlink_mesh"):
        for k in nvlink_keys:
            if g(k) is None:
                err(k, "required (and must be known) for fabric %s" % fabric)
    elif fabric == "pcie":
        for k in nvlink_keys + ("intra.nvlink_pairs",):
            if k in vals.get("_present", ()):
                err(k, "must be omitted for a pcie fabric")
    if fabric == "nvlink_mesh" and "intra.nvlink_pairs" not in vals.get("_present", ()):
        err("intra.nvlink_pairs", "required for an nvlink_mesh fabric")
    if fabric != "nvlink_mesh" and "intra.nvlink_pairs" in vals.get("_present", ()):
        err("intra.nvlink_pairs", "only allowed for an nvlink_mesh fabric")
    # The planner searches bf16 gradients only where the GPU computes bf16 natively: Ampere
    # and later (Volta's and Turing's Tensor Cores take fp16 only).
    arch = g("gpu.arch")
    if arch is not None and g("gpu.bf16_native") is not None and \
            g("gpu.bf16_native") != (arch in ("ampere", "hopper", "blackwell")):
        err("gpu.bf16_native", "bf16_native must be true exactly on Ampere and later, got %r "
            "on %s" % (g("gpu.bf16_native"), arch))
    if g("intra.nvls") is True and fabric != "nvswitch":
        err("intra.nvls", "NVLS (in-switch reduction) needs an nvswitch fabric")
    if "intra.nvlink_domain_hosts" in vals.get("_present", ()) and fabric != "nvswitch":
        err("intra.nvlink_domain_hosts", "a multi-node NVLink domain needs an nvswitch fabric")
    if ("network.efa_version" in vals.get("_present", ())) != (g("network.transport") == "efa"):
        err("network.efa_version", "present exactly when transport is efa")
    pairs = g("intra.nvlink_pairs")
    if pairs is not None and ngpu is not None:
        used, seen = [0] * ngpu, set()
        for a, b, links in pairs:
            if not (0 <= a < ngpu and 0 <= b < ngpu) or a == b or links < 1:
                err("intra.nvlink_pairs", "bad pair %s for %d GPUs" % ([a, b, links], ngpu))
                continue
            key = (min(a, b), max(a, b))
            if key in seen:
                err("intra.nvlink_pairs", "pair %d-%d listed twice" % key)
            seen.add(key)
            used[a] += links
            used[b] += links
        per = g("intra.nvlinks_per_gpu")
        for i, n in enumerate(used):
            if per is not None and n > per:
                err("intra.nvlink_pairs", "GPU %d uses %d links > nvlinks_per_gpu %d" % (i, n, per))
    sw = g("host.pcie_switches")
    if sw is not None and None not in (ngpu, nnic, nsock):
        for kind, n in (("gpus", ngpu), ("nics", nnic)):
            owner = {}
            for i, s in enumerate(sw):
                for x in s[kind]:
                    if not 0 <= x < n:
                        err("host.pcie_switches", "switch %d: %s index %d out of range [0,%d)" % (i, kind[:-1], x, n))
                    elif x in owner:
                        err("host.pcie_switches", "%s %d under switches %d and %d" % (kind[:-1], x, owner[x], i))
                    owner[x] = i
        for i, s in enumerate(sw):
            if not 0 <= s["socket"] < nsock:
                err("host.pcie_switches", "switch %d: socket %d >= cpu_sockets %d" % (i, s["socket"], nsock))
    for key, n in (("host.gpu_socket", ngpu), ("host.nic_socket", nnic)):
        lst = g(key)
        if lst is None or n is None or nsock is None:
            continue
        if len(lst) != n:
            err(key, "has %d entries, expected %d" % (len(lst), n))
        if any(not 0 <= x < nsock for x in lst):
            err(key, "socket index out of range [0,%d)" % nsock)
    # A device under a switch sits on that switch's socket.
    if sw is not None:
        for kind, key in (("gpus", "host.gpu_socket"), ("nics", "host.nic_socket")):
            lst = g(key)
            for s in sw:
                for x in s[kind]:
                    if lst is not None and 0 <= x < len(lst) and lst[x] != s["socket"]:
                        err(key, "%s %d on socket %d but its switch is on socket %d" % (kind[:-1], x, lst[x], s["socket"]))


def check_instance(doc, name_from_file):
    """Returns (errors, unknowns, values) for one parsed instance document."""
    errors, unknowns, vals = [], [], {"_present": set(), "_tags": {}}
    err = lambda path, msg: errors.append("%s: %s" % (path, msg))
    if not isinstance(doc, dict):
        err("(top)", "not a JSON object")
        return errors, unknowns, vals
    for k in sorted(set(doc) - TOP_KEYS):
        err(k, "unknown key")
    for k in sorted(TOP_KEYS - set(doc)):
        err(k, "missing")
    if doc.get("schema") != SCHEMA:
        err("schema", "must be %r" % SCHEMA)
    if not isinstance(doc.get("name"), str) or not NAME_RE.fullmatch(doc["name"]):
        err("name", "%s is not a name (1..128 letters, digits, space and ._-+:/(),)"
            % json.dumps(doc.get("name")))
    if doc.get("name") != name_from_file:
        err("name", "%r does not match the file name %r" % (doc.get("name"), name_from_file))
    if doc.get("vendor") not in VENDORS:
        err("vendor", "must be one of %s" % sorted(VENDORS))
    if not isinstance(doc.get("description"), str) or not doc.get("description"):
        err("description", "must be a non-empty string")
    if "sagemaker_name" in doc:
        known, v = check_figure(doc["sagemaker_name"], "sagemaker_name", err)
        if known and v is not None and not (isinstance(v, str) and v.startswith("ml.")):
            err("sagemaker_name", "value must be null or an 'ml.' name")
        elif known and isinstance(v, str) and not NAME_RE.fullmatch(v):
            err("sagemaker_name", "%s is not a name (1..128 letters, digits, space and "
                "._-+:/(),)" % json.dumps(v))
    for sec, spec in SECTIONS.items():
        body = doc.get(sec)
        if not isinstance(body, dict):
            if sec in doc:
                err(sec, "must be an object")
            continue
        for k in sorted(set(body) - set(spec)):
            err("%s.%s" % (sec, k), "unknown key")
        for k, (required, kind) in spec.items():
            path = "%s.%s" % (sec, k)
            if k not in body:
                if path not in OPTIONAL:
                    err(path, "missing (write {\"unknown\": true, \"note\": ...} if unpublished)")
                continue
            vals["_present"].add(path)
            known, v = check_figure(body[k], path, err)
            if not known:
                if required:
                    err(path, "required figure may not be unknown")
                elif isinstance(body[k], dict) and body[k].get("unknown") is True:
                    unknowns.append((path, body[k].get("note", "")))
                continue
            if check_value(kind, v, path, err):
                vals[path] = v
            if "tag" in body[k]:
                vals["_tags"].setdefault(body[k]["tag"], []).append(path)
    check_cross(vals, err)
    return errors, unknowns, vals


def load(path):
    """Parses one file; JSON syntax errors carry line and column."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text), None
    except json.JSONDecodeError as e:
        return None, "line %d column %d: %s" % (e.lineno, e.colno, e.msg)


def catalog_files():
    return sorted(os.path.join(DATA_DIR, f) for f in os.listdir(DATA_DIR) if f.endswith(".json"))


def stem(path):
    return os.path.basename(path)[: -len(".json")]


def markdown(results):
    """The generated block of docs/catalog.md: overview table and every unknown figure."""
    fmt = lambda v: "?" if v is None else str(v)
    out = ["| instance | GPUs | fabric (links x GBps/dir) | NVLS | NICs | transport | GPUDirect RDMA | PCIe switches | unknown figures |",
           "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, (_, unknowns, v) in results:
        fabric = v.get("intra.fabric")
        if fabric != "pcie":
            fabric = "%s (%s x %s)" % (fabric, fmt(v.get("intra.nvlinks_per_gpu")),
                                       fmt(v.get("intra.nvlink_GBps_per_link")))
        if v.get("intra.nvlink_domain_hosts", 1) > 1:
            fabric += ", %s-host NVLink domain" % fmt(v.get("intra.nvlink_domain_hosts"))
        sw = v.get("host.pcie_switches")
        sw = "unknown" if sw is None else ("none" if not sw else str(len(sw)))
        transport = v.get("network.transport")
        if "network.efa_version" in v:
            transport += " v%d" % v["network.efa_version"]
        out.append("| %s | %s x %s | %s | %s | %s x %s Gbps | %s | %s | %s | %d |" % (
            name, fmt(v.get("gpu.count")), v.get("gpu.model"), fabric,
            "yes" if v.get("intra.nvls") else "no", fmt(v.get("network.nics")),
            fmt(v.get("network.nic_Gbps")), transport,
            "yes" if v.get("network.gpudirect_rdma") else "no", sw, len(unknowns)))
    out += ["", "### Tagged figures, per instance", "",
            "| instance | derived | secondary | unverified | disagree |", "| --- | --- | --- | --- | --- |"]
    for name, (_, _, v) in results:
        tags = v.get("_tags", {})
        cell = lambda t: ", ".join("`%s`" % p for p in tags.get(t, [])) or "-"
        out.append("| %s | %s | %s | %s | %s |" % (name, cell("derived"), cell("secondary"),
                                                   cell("unverified"), cell("disagree")))
    out += ["", "### Unknown figures, per instance", ""]
    for name, (_, unknowns, _) in results:
        out.append("**%s**" % name)
        out.append("")
        out += ["- `%s`: %s" % (p, n) for p, n in unknowns] or ["- (none)"]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def check_doc(block):
    if not os.path.exists(DOC):
        return ["docs/catalog.md: missing"]
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        return ["docs/catalog.md: generated-block markers missing"]
    current = text.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"
    if current != block:
        return ["docs/catalog.md: generated block is stale; run scripts/check_catalog.py --markdown and paste it"]
    return []


def run_checks(paths):
    failures, results = [], []
    for path in paths:
        doc, syntax = load(path)
        rel = os.path.relpath(path, ROOT)
        if syntax:
            failures.append("%s: %s" % (rel, syntax))
            continue
        res = check_instance(doc, stem(path))
        failures += ["%s: %s" % (rel, e) for e in res[0]]
        results.append((stem(path), res))
    return failures, results


# (label, field, value, refused): the file is named after `name`, so only the name rule can
# refuse these; sagemaker values start with "ml." for the same reason.
NAME_CASES = [
    ("name with newline", "name", "p3\ntouch x #", True),
    ("name with $()", "name", "p3$(touch x)", True),
    ("name with quote", "name", "p3\"x", True),
    ("name with ESC", "name", "p3\x1b[31m", True),
    ("name with NUL", "name", "p3\x00", True),
    ("name non-ASCII", "name", "p3\u00e9", True),
    ("name 129 chars", "name", "p" * 129, True),
    ("name empty", "name", "", True),
    ("name every allowed char", "name", "Az09 ._-+:/(),", False),
    ("name 128 chars", "name", "p" * 128, False),
    ("sagemaker with newline", "sagemaker_name", "ml.p3\nimport os", True),
    ("sagemaker with quote", "sagemaker_name", "ml.p3\"+__import__('os')+\"", True),
    ("sagemaker with backslash", "sagemaker_name", "ml.p3\\", True),
    ("sagemaker 129 chars", "sagemaker_name", "ml." + "p" * 126, True),
    ("sagemaker every allowed char", "sagemaker_name", "ml.Az09 ._-+:/(),", False),
]


def cpp_name_rule():
    """(characters, max length) of core/name_check's rule, read from its source."""
    with open(os.path.join(ROOT, "core", "name_check.cc"), encoding="utf-8") as f:
        body = f.read().split("bool is_name_char(char c) {", 1)[1].split("\n}\n", 1)[0]
    with open(os.path.join(ROOT, "core", "name_check.h"), encoding="utf-8") as f:
        limit = int(re.search(r"kMaxNameLength = (\d+);", f.read()).group(1))
    chars = set(re.findall(r"case '(.)':", body))
    for lo, hi in re.findall(r"c >= '(.)' && c <= '(.)'", body):
        chars |= {chr(c) for c in range(ord(lo), ord(hi) + 1)}
    return chars, limit


def name_self_test(base):
    """Labels of NAME_CASES the checker gets wrong, and of NAME_RE disagreeing with the C++."""
    missed = []
    for label, field, value, refused in NAME_CASES:
        d, file_name = copy.deepcopy(base), base["name"]
        if field == "name":
            d["name"] = file_name = value
        else:
            d["sagemaker_name"]["value"] = value
        errors = check_instance(d, file_name)[0]
        if any("is not a name" in e for e in errors) != refused or (not refused and errors):
            missed.append(label)
    chars, limit = cpp_name_rule()
    ours = {chr(c) for c in range(256) if NAME_RE.fullmatch(chr(c))}
    if ours != chars or not NAME_RE.fullmatch("a" * limit) or NAME_RE.fullmatch("a" * (limit + 1)):
        missed.append("NAME_RE equals core/name_check.cc (%d vs %d characters, limit %d)"
                      % (len(ours), len(chars), limit))
    return missed


def self_test():
    """Each mutation of a valid file must produce at least one error; the file itself none."""
    base_path = os.path.join(DATA_DIR, "p3.16xlarge.json")
    base, _ = load(base_path)
    assert not check_instance(base, "p3.16xlarge")[0], "baseline p3.16xlarge must be valid"
    sw_base, _ = load(os.path.join(DATA_DIR, "p4d.24xlarge.json"))
    assert not check_instance(sw_base, "p4d.24xlarge")[0], "baseline p4d.24xlarge must be valid"

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

    mesh = [
        ("wrong schema", lambda d: setp(d, "schema", "topotune.instance/2")),
        ("name mismatch", lambda d: setp(d, "name", "p3.8xlarge")),
        ("unknown top key", lambda d: setp(d, "gpus", {})),
        ("typo in section key", lambda d: setp(d, "gpu.memory_GB", {"value": 16, "source": "instances.md §3.1"})),
        ("missing figure", lambda d: delp(d, "host.pcie_GBps")),
        ("figure without source", lambda d: setp(d, "gpu.count", {"value": 8})),
        ("unknown without note", lambda d: setp(d, "host.cpu_reduce_GBps", {"unknown": True})),
        ("unknown false", lambda d: setp(d, "host.cpu_reduce_GBps", {"unknown": False, "note": "x"})),
        ("extra key in figure", lambda d: setp(d, "gpu.count", {"value": 8, "source": "instances.md §3.1", "note": "x"})),
        ("bad tag", lambda d: setp(d, "gpu.count", {"value": 8, "source": "instances.md §3.1", "tag": "guess"})),
        ("uncited source", lambda d: setp(d, "gpu.count", {"value": 8, "source": "common knowledge"})),
        ("required unknown", lambda d: setp(d, "network.nics", {"unknown": True, "note": "x"})),
        ("zero gpus", lambda d: setp(d, "gpu.count.value", 0)),
        ("negative bandwidth", lambda d: setp(d, "intra.nvlink_GBps_per_link.value", -25)),
        ("string bandwidth", lambda d: setp(d, "network.nic_Gbps.value", "25")),
        ("bool count", lambda d: setp(d, "network.nics.value", True)),
        ("bad arch", lambda d: setp(d, "gpu.arch.value", "pascal")),
        ("bad transport", lambda d: setp(d, "network.transport.value", "ethernet")),
        ("pair out of range", lambda d: d["intra"]["nvlink_pairs"]["value"].append([0, 8, 1])),
        ("self pair", lambda d: d["intra"]["nvlink_pairs"]["value"].append([2, 2, 1])),
        ("duplicate pair", lambda d: d["intra"]["nvlink_pairs"]["value"].append([3, 0, 1])),
        ("too many links", lambda d: setp(d, "intra.nvlinks_per_gpu.value", 5)),
        ("mesh without pairs", lambda d: delp(d, "intra.nvlink_pairs")),
        ("mesh without link rate", lambda d: delp(d, "intra.nvlink_GBps_per_link")),
        ("nvls on mesh", lambda d: setp(d, "intra.nvls.value", True)),
        ("nvlink domain on mesh", lambda d: setp(d, "intra.nvlink_domain_hosts", {"value": 18, "source": "instances.md §7.6"})),
        ("bf16 on volta", lambda d: (setp(d, "gpu.arch.value", "volta"),
                                     setp(d, "gpu.bf16_native.value", True))),
        ("gpu_socket length", lambda d: setp(d, "host.gpu_socket.value", [0, 0, 0, 0, 1, 1, 1])),
        ("gpu_socket range", lambda d: setp(d, "host.gpu_socket.value", [0, 0, 0, 0, 1, 1, 1, 2])),
        ("efa_version on tcp", lambda d: setp(d, "network.efa_version", {"value": 1, "source": "instances.md §2.3"})),
        ("bad sagemaker name", lambda d: setp(d, "sagemaker_name.value", "p3.16xlarge")),
    ]
    switches = [
        ("switch gpu out of range", lambda d: d["host"]["pcie_switches"]["value"][0]["gpus"].append(8)),
        ("switch nic out of range", lambda d: d["host"]["pcie_switches"]["value"][0]["nics"].append(4)),
        ("gpu under two switches", lambda d: d["host"]["pcie_switches"]["value"][1]["gpus"].append(0)),
        ("switch socket range", lambda d: setp(d["host"]["pcie_switches"]["value"][3], "socket", 2)),
        ("switch/socket mismatch", lambda d: setp(d["host"]["pcie_switches"]["value"][0], "socket", 1)),
        ("switch extra key", lambda d: setp(d["host"]["pcie_switches"]["value"][0], "gen", 4)),
        ("nic_socket length", lambda d: setp(d, "host.nic_socket.value", [0, 0, 1])),
        ("efa without version", lambda d: delp(d, "network.efa_version")),
        ("zero-host nvlink domain", lambda d: setp(d, "intra.nvlink_domain_hosts", {"value": 0, "source": "instances.md §7.6"})),
        ("pairs on nvswitch", lambda d: setp(d, "intra.nvlink_pairs", {"value": [[0, 1, 1]], "source": "instances.md §4.1"})),
    ]
    missed = name_self_test(base)
    for (label, mutate), (doc, name) in [(m, (base, "p3.16xlarge")) for m in mesh] + \
                                        [(m, (sw_base, "p4d.24xlarge")) for m in switches]:
        d = copy.deepcopy(doc)
        mutate(d)
        if not check_instance(d, name)[0]:
            missed.append(label)
    total = len(mesh) + len(switches) + len(NAME_CASES) + 1
    if missed:
        print("self-test: %d/%d cases wrong: %s" % (len(missed), total, ", ".join(missed)))
        return 1
    print("self-test: all %d cases right" % total)
    return 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    only_md = argv[1:] == ["--markdown"]
    paths = [os.path.abspath(p) for p in argv[1:]] if argv[1:] and not only_md else catalog_files()
    failures, results = run_checks(paths)
    block = markdown(results)
    if only_md:
        sys.stdout.write(block)
        return 1 if failures else 0
    if not argv[1:]:
        failures += check_doc(block)
    for f in failures:
        print(f)
    n_unknown = sum(len(r[1]) for _, r in results)
    print("%d instance file(s), %d unknown figure(s), %d error(s)" % (len(results), n_unknown, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
