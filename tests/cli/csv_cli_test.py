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
    return {"bytes": lambda r: r["bytes"], "count": lambda r: r["bytes"] // 4,
            "type": lambda r: "float", "time_us": lambda r: r["time_us"],
            "algbw_GBps": lambda r: r["algbw_GBps"], "busbw_GBps": lambda r: r["busbw_GBps"],
            "algorithm": lambda r: r["algorithm"], "protocol": lambda r: r["protocol"]}


check("predict (NCCL's model)",
      ["predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--sizes", "8:64M"],
      lambda j: j["rows"], predict_columns())
check("predict --algo (a schedule, quoted name)",
      ["predict", "--instance", "p4d.24xlarge", "--nodes", "2", "--algo", "ring",
       "--sizes", "1M,3M,64M"], lambda j: j["rows"], predict_columns())
sys.exit(1 if failures else 0)
