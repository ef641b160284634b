#!/usr/bin/env python3
"""emulated_predictions.py SIMULATE_JSON ALGOS: converts `topotune simulate --format json`
output into the measurement schema that emulated_check.py reads. Accepts a top-level list or
an object with "rows"/"results"; each entry needs an algorithm, a size in bytes and a time
(time_us, or time_s / makespan_s in seconds). `rhd` rows are also reported as `mpi` when
ALGOS asks for mpi (Open MPI's MPI_Allreduce is Rabenseifner at these sizes)."""
import json
import sys

doc = json.load(open(sys.argv[1]))
want = sys.argv[2].split(",")
entries = doc if isinstance(doc, list) else doc.get("rows") or doc.get("results") or []
rows = []
for e in entries:
    algo = e.get("algorithm") or e.get("algo")
    size = e.get("bytes", e.get("size"))
    if "time_us" in e:
        t = float(e["time_us"])
    else:
        t = float(e.get("time_s", e.get("makespan_s"))) * 1e6
    names = [algo] + (["mpi"] if algo == "rhd" and "mpi" in want else [])
    for n in names:
        rows.append({"algorithm": n, "bytes": int(size), "time_us": t})
json.dump({"schema": "topotune.measurement/1", "source": "topotune-simulate", "backend": "",
           "collective": "allreduce", "ranks": 0, "rows": rows}, sys.stdout, indent=2)
