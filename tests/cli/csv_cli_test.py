#!/usr/bin/env python3
"""--format csv is the same result as --format json, row by row: every command that has a
table offers CSV, and its values read back to exactly the JSON's (integers as integers,
doubles at full precision). usage: csv_cli_test.py TOPOTUNE_BINARY"""
import csv
import io
import json
import subprocess
import sys

BIN = sys.argv[1]
failures = 0


def run(args):
    r = subprocess.run([BIN] + args, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise RuntimeError(f"{args}: exit {r.returncode}: {r.stderr}")
    return r.stdout


def check(name, args, rows_of, columns):
    """CSV of `args` vs JSON of `args`: rows_of(json) gives the rows, columns maps each CSV
    column to a function of a JSON row."""
    global failures
    try:
        table = list(csv.reader(io.StringIO(run(args + ["--format", "csv"]))))
        rows = rows_of(json.loads(run(args + ["--format", "json"])))
        assert table[0] == list(columns), f"header {table[0]}"
        assert len(table) - 1 == len(rows), f"{len(table) - 1} CSV rows, {len(rows)} JSON rows"
        for line, row in zip(table[1:], rows):
            for text, (col, want) in zip(line, columns.items()):
                value = want(row)
                got = type(value)(text) if not isinstance(value, bool) else text == "yes"
                assert got == value, f"{col}: CSV {text!r}, JSON {value!r}"
        print(f"PASS: {name}")
    except (AssertionError, RuntimeError, ValueError) as e:
        print(f"FAIL: {name}: {e}")
        failures += 1


def predict_columns():
    return {"bytes": lambda r: r["bytes"], "count": lambda r: r["count"],
            "type": lambda r: r["type"], "time_us": lambda r: r["time_us"],
            "algbw_GBps": lambda r: r["algbw_GBps"], "busbw_GBps": lambda r: r["busbw_GBps"],
            "algorithm": lambda r: r["algorithm"], "protocol": lambda r: r["protocol"]}


check("predict (NCCL's model)",
      ["predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--sizes", "8:64M"],
      lambda j: j["rows"], predict_columns())
check("predict --algo (a schedule, quoted name)",
      ["predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring",
       "--sizes", "1M,3M,64M"], lambda j: j["rows"], predict_columns())

check("instances", ["instances"], lambda j: j, {
    "instance": lambda r: r["name"], "gpus": lambda r: r["gpus"],
    "gpu_model": lambda r: r["gpu_model"], "fabric": lambda r: r["fabric"],
    "nvlink_per_gpu_Bps": lambda r: float(r["nvlink_per_gpu_Bps"]), "nics": lambda r: r["nics"],
    "nic_bandwidth_Bps": lambda r: float(r["nic_bandwidth_Bps"]),
    "transport": lambda r: r["transport"], "gpudirect_rdma": lambda r: r["gpudirect_rdma"],
    "sagemaker_name": lambda r: r["sagemaker_name"] or ""})

check("simulate (every link that carried traffic)",
      ["simulate", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "hierarchical(rhd)",
       "--size", "64M"], lambda j: j["links"],
      {k: (lambda key: lambda r: r[key])(k)
       for k in ("src", "dst", "kind", "bytes", "capacity_GBps", "busy_s", "active_s",
                 "utilisation")})


def check_validate():
    """validate's CSV is checked against the measurement it read, against its own table (the
    same rows, each value rounded as the table prints it) and against its JSON (the same rows;
    the JSON's summaries are the table's summary lines)."""
    global failures
    import os
    import tempfile
    m = {"schema": "topotune.measurement/1", "source": "topotune-measure", "backend": "nccl",
         "collective": "allreduce", "ranks": 8, "nodes": 1,
         "rows": [{"algorithm": "nccl", "bytes": b, "time_us": t}
                  for b, t in ((8192, 35.91), (1048576, 74.78), (67108864, 584.5),
                               (8589934592, 63896.0))]}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.json")
        with open(path, "w") as f:
            json.dump(m, f)
        args = ["validate", "--measured", path, "--instance", "dgx-a100"]
        try:
            table = list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]))))
            text = [line for line in run(args).splitlines() if not line.startswith("#")]
            assert len(table) == len(m["rows"]) == len(text), (len(table), len(text))
            for row, want, line in zip(table, m["rows"], text):
                assert int(row["bytes"]) == want["bytes"] and row["algorithm"] == "nccl", row
                assert float(row["measured_us"]) == want["time_us"], row
                # error = t_meas / t_pred - 1, exactly as computed (full precision)
                err = 100 * (float(row["measured_us"]) / float(row["predicted_us"]) - 1)
                assert abs(float(row["error_pct"]) - err) < 1e-9 * max(1, abs(err)), row
                fields = line.split()
                assert fields[3] == f"{float(row['predicted_us']):.2f}", (fields, row)
                assert fields[6] == f"{float(row['error_pct']):+.1f}", (fields, row)
            j = json.loads(run(args + ["--format", "json"]))
            assert (j["instance"], j["ranks"], j["collective"]) == ("dgx-a100", 8, "allreduce"), j
            summary = [line for line in run(args).splitlines() if line.startswith("# sizes")]
            assert len(summary) == len(j["summaries"]) == 2, (summary, j["summaries"])
            for line, s in zip(summary, j["summaries"]):
                want = (f"# sizes {'>= 1 MiB' if s['size_class'] == 'large' else '<  1 MiB'}: "
                        f"{s['sizes']:2d}, median |busbw error| {s['median_abs_error_pct']:5.1f}%,"
                        f" max {s['max_abs_error_pct']:6.1f}%")
                assert line == want and s["algorithm"] == "", (line, want)
            print("PASS: validate")
        except (AssertionError, RuntimeError, ValueError, KeyError) as e:
            print(f"FAIL: validate: {e}")
            failures += 1
        check("validate (JSON rows)", args, lambda j: j["rows"],
              {k: (lambda key: lambda r: r[key])(k)
               for k in ("bytes", "algorithm", "measured_us", "predicted_us",
                         "measured_busbw_GBps", "predicted_busbw_GBps", "error_pct",
                         "predicted_by")})


def check_schedule(name, args):
    """schedule's CSV is its summary as one row: checked against the schedule's JSON (counted
    from its transfers) and against its own table's lines."""
    global failures
    try:
        table = list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]))))
        assert len(table) == 1, f"{len(table)} rows"
        row = table[0]
        j = json.loads(run(args + ["--format", "json"]))
        text = run(args)
        spec = j["spec"]
        assert row["algorithm"] == j["algorithm"] and row["collective"] == spec["collective"], row
        assert int(row["bytes"]) == spec["bytes"] and row["dtype"] == spec["dtype"], row
        assert int(row["ranks"]) == spec["ranks"], row
        assert int(row["transfers"]) == len(j["transfers"]), row
        assert int(row["extra_endpoints"]) == len(j["endpoints"]), row
        sent = [0] * spec["ranks"]
        depth = []
        for t in j["transfers"]:
            if t["src"] < spec["ranks"]:
                sent[t["src"]] += t["bytes"]
            depth.append(1 + max((depth[d] for d in t["deps"]), default=0))
        assert int(row["min_sent_bytes"]) == min(sent), (row, min(sent))
        assert int(row["max_sent_bytes"]) == max(sent), (row, max(sent))
        assert int(row["steps"]) == max(depth, default=0), row
        hosts, gpus = int(row["hosts"]), int(row["gpus_per_host"])
        assert f"on {spec['ranks']} ranks ({hosts} hosts x {gpus} GPUs)" in text, text
        assert f"on {row['cluster']}\n" in text and float(row["closed_form_s"]) > 0, row
        assert row["verified"] == "yes" and "proved by the symbolic interpreter" in text, row
        print(f"PASS: {name}")
    except (AssertionError, RuntimeError, ValueError) as e:
        print(f"FAIL: {name}: {e}")
        failures += 1


check_schedule("schedule (generic cluster)", ["schedule", "--algo", "ring", "--ranks", "6",
                                               "--size", "1000", "--dtype", "fp16"])
check_schedule("schedule (CPU servers)", ["schedule", "--algo", "ps(k=2)", "--ps-placement", "cpu",
                                          "--instance", "p4d.24xlarge", "--nodes", "2",
                                          "--size", "1M"])


def check_topo(name, args):
    """topo's CSV is its link classes: each row is the JSON's links of that kind, counted, with
    their smallest and largest nominal rate; efficiency and latency are the links' own."""
    global failures
    try:
        table = list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]))))
        links = json.loads(run(args + ["--format", "json"]))["links"]
        kinds = []
        for l in links:
            if l["kind"] not in kinds:
                kinds.append(l["kind"])
        assert sorted(r["class"] for r in table) == sorted(kinds), (table, kinds)
        for row in table:
            mine = [l for l in links if l["kind"] == row["class"]]
            assert int(row["links"]) == len(mine), row
            assert float(row["nominal_min_Bps"]) == min(l["bandwidth_Bps"] for l in mine), row
            assert float(row["nominal_max_Bps"]) == max(l["bandwidth_Bps"] for l in mine), row
            assert any(float(row["latency_s"]) == l["latency_s"] for l in mine), row
            eff = float(row["efficiency"])
            assert any(abs(l["effective_bandwidth_Bps"] - eff * l["bandwidth_Bps"])
                       <= 1e-9 * l["bandwidth_Bps"] for l in mine), row
        text = run(args)
        for row in table:
            assert f"  {row['class']:<17} {int(row['links']):7d}  " in text, row["class"]
        print(f"PASS: {name}")
    except (AssertionError, RuntimeError, ValueError, KeyError) as e:
        print(f"FAIL: {name}: {e}")
        failures += 1


check_topo("topo (link classes)", ["topo", "--instance", "p4d.24xlarge", "--nodes", "9",
                                   "--placement", "spread"])
check_topo("topo (two NVLink rates)", ["topo", "--instance", "p3.16xlarge", "--nodes", "2"])


def check_plan(name, args):
    """plan's CSV is its table's rows: the ranked candidates (the JSON's first 15, in order)
    and the two baselines, each the JSON's candidate in the table's units (the JSON keeps 6
    significant digits, the CSV every digit)."""
    global failures
    try:
        table = list(csv.DictReader(io.StringIO(run(args + ["--format", "csv"]))))
        j = json.loads(run(args + ["--format", "json"]))
        want = j["candidates"][:15] + j["baselines"]
        assert len(table) == len(want), (len(table), len(want))
        labels = [str(i + 1) for i in range(len(want) - 2)] + ["(a)", "(b)"]

        def near(text, value, scale):
            return abs(float(text) / scale - value) <= 5e-6 * abs(value)

        # Row 1 carries "*" exactly when it is not the fastest listed candidate.
        fastest = min(c["step_time_s"] for c in want[:-2])
        labels[0] += "*" if want[0]["step_time_s"] > fastest else ""
        for row, c, label in zip(table, want, labels):
            assert row["rank"] == label and row["algorithm"] == c["algorithm"], (row, c)
            assert row["framework"] == c["framework"] and row["dtype"] == c["comm_dtype"], row
            assert float(row["bucket_MiB"]) * (1 << 20) == c["bucket_bytes"], row
            assert near(row["all_grads_allreduce_ms"], c["allreduce_s"], 1e3), row
            assert near(row["step_ms"], c["step_time_s"], 1e3), row
            assert near(row["exposed_ms"], c["exposed_comm_s"], 1e3), row
            assert near(row["busbw_GBps"], c["busbw_GBps"], 1), row
            nccl_override = c["channel_override"] and c["algorithm"].startswith("nccl:")
            override = " (overrides NCCL channels)" if nccl_override else ""
            assert row["runs_on"] == (",".join(c["frameworks"]) or "-") + override, row
        text = run(args)
        for row in table:
            assert any(line.split()[:2] == [row["rank"], row["algorithm"]]
                       for line in text.splitlines()), row
        print(f"PASS: {name}")
    except (AssertionError, RuntimeError, ValueError, KeyError) as e:
        print(f"FAIL: {name}: {e}")
        failures += 1


check_plan("plan (ranked candidates and baselines)",
           ["plan", "--instance", "p4d.24xlarge", "--nodes", "2"])
check_plan("plan --framework horovod", ["plan", "--instance", "p4d.24xlarge", "--nodes", "2",
                                        "--framework", "horovod", "--model", "resnet50"])


def check_calibrate():
    """calibrate's CSV is each fit's runs, the fit named: checked against its own table (the
    same runs in the same order, each error rounded as the table prints it) and for nothing
    but rows (the table's '#' lines are table-only)."""
    global failures
    import os
    import tempfile
    rows = [{"algorithm": a, "bytes": b, "time_us": t} for a, b, t in (
        ("ring", 1 << 20, 3100.0), ("ring", 8 << 20, 7900.0), ("ring", 64 << 20, 48000.0),
        ("rhd", 1 << 20, 2500.0), ("rhd", 8 << 20, 8800.0), ("rhd", 64 << 20, 61000.0),
        ("nccl", 1 << 20, 90.0), ("nccl", 8 << 20, 1500.0), ("nccl", 64 << 20, 9000.0))]
    m = {"schema": "topotune.measurement/1", "source": "topotune-measure", "backend": "",
         "collective": "allreduce", "ranks": 8, "nodes": 2, "rows": rows}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.json")
        with open(path, "w") as f:
            json.dump(m, f)
        args = ["calibrate", "--measured", path, "--instance", "g4dn.12xlarge", "--rounds", "2",
                "--params", "base_latency_scale,net_latency_scale",
                "--link-params", "network.efficiency", "-o", os.path.join(d, "cal.json")]
        try:
            out = run(args + ["--format", "csv"])
            table = list(csv.DictReader(io.StringIO(out)))
            assert "#" not in out, out
            assert [r["fit"] for r in table] == ["nccl", "links"], table
            text = [line for line in run(args).splitlines() if not line.startswith("#")]
            assert len(text) == len(table), (text, table)
            for row, line in zip(table, text):
                want = (f"{row['run']:<44} {float(row['median_err_pct_large_before']):6.1f}% -> "
                        f"{float(row['median_err_pct_large_after']):5.1f}%               "
                        f"{float(row['median_err_pct_small_before']):6.1f}% -> "
                        f"{float(row['median_err_pct_small_after']):5.1f}%")
                assert line == want, (line, want)
            # And against validate, which predicts the same rows with and without the file:
            # the NCCL fit's errors before and after, the link fit's after.
            cal = os.path.join(d, "cal.json")
            for fit, keep in (("nccl", lambda r: r["algorithm"] == "nccl"),
                              ("links", lambda r: r["algorithm"] != "nccl")):
                part = dict(m, rows=[r for r in rows if keep(r)])
                part_path = os.path.join(d, fit + ".json")
                with open(part_path, "w") as f:
                    json.dump(part, f)
                row = next(r for r in table if r["fit"] == fit)
                checks = [("after", ["--calibration", cal])]
                if fit == "nccl":
                    checks.append(("before", []))
                for when, extra in checks:
                    text = run(["validate", "--measured", part_path, "--instance",
                                "g4dn.12xlarge"] + extra)
                    median = next(line for line in text.splitlines()
                                  if line.startswith("# sizes >= 1 MiB"))
                    got = float(median.split("median |busbw error|")[1].split("%")[0])
                    want = float(row[f"median_err_pct_large_{when}"])
                    assert f"{got:.1f}" == f"{want:.1f}", (fit, when, got, want)
            print("PASS: calibrate")
        except (AssertionError, RuntimeError, ValueError, KeyError) as e:
            print(f"FAIL: calibrate: {e}")
            failures += 1


check_validate()
check_calibrate()
sys.exit(1 if failures else 0)
