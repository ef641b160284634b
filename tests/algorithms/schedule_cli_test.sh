#!/usr/bin/env bash
# `topotune schedule` end to end: a summary and a JSON schedule that parse, and bad input that
# gets a clear message and exit code 2. Usage: schedule_cli_test.sh path/to/topotune
set -u
source "$(dirname "$0")/../lib/cli_expect.sh"
cli_expect_init "$@"
cli_prefix=(schedule)
expect 0 "steps (DAG depth)      14" --algo ring --ranks 8 --size 64M
expect 0 "bytes sent per rank    min 112M  max 112M" --algo ring --ranks 8 --size 64M
expect 0 "proved by the symbolic interpreter" --algo hierarchical --inner rhd --ranks 16 --gpus-per-node 4 --size 1M
expect 0 '"schema": "topotune.schedule/1"' --algo tree --ranks 5 --size 1K --format json
expect 0 '"kind": "host_cpu"' --algo ps --ps-placement cpu --ranks 4 --gpus-per-node 2 --size 1K --format json
expect 2 "--ranks must be at least 1" --algo ring --ranks 0 --size 1M
expect 2 "unknown algorithm 'rong' (known: ring, dbtree, rhd, ps(k=N), hierarchical" --algo rong --ranks 4 --size 1M
expect 2 "9 shards is more than the 8 ranks" --algo ps --shards 9 --ranks 8 --size 1M
expect 2 "not a multiple of the fp32 element size" --algo ring --ranks 4 --size 6
expect 2 "not a multiple of the fp16 element size" --algo ring --ranks 4 --size 3 --dtype fp16
expect 2 "either --ranks N or --instance" --algo ring --size 1M
expect 2 "do not fill hosts of 4" --algo ring --ranks 6 --gpus-per-node 4 --size 1M
expect 2 "does not implement broadcast" --algo tree --ranks 4 --size 1M --collective broadcast
expect 2 "unknown inner algorithm" --algo hierarchical --inner star --ranks 4 --size 1M
# Reduce-scatter and allgather: the two-level and the halving/doubling generators, proved.
expect 0 "proved by the symbolic interpreter" --algo hierarchical --collective reduce_scatter --ranks 12 --gpus-per-node 4 --size 4100
expect 0 "proved by the symbolic interpreter" --algo hierarchical --collective allgather --ranks 12 --gpus-per-node 4 --size 1M
expect 0 "steps (DAG depth)      5" --algo rhd --collective reduce_scatter --ranks 12 --size 1M
expect 0 "proved by the symbolic interpreter" --algo rhd --collective allgather --ranks 6 --size 4100
expect 2 "hierarchical allgather runs a ring across hosts (inner=ring), not rhd" --algo hierarchical --inner rhd --collective allgather --ranks 8 --gpus-per-node 2 --size 1M
# The cluster by the rule every command shares (cli/cluster_flags.h), --ranks being schedule's
# own alternative: --cluster (its --nodes overriding the file's), --placement, the same
# messages and ranges as the other commands.
printf '{"schema": "topotune.cluster/1", "instance": "p4d.24xlarge", "nodes": 2}\n' > "$tmp/c.json"
expect 0 "on 16 ranks (2 hosts x 8 GPUs)" --algo ring --cluster "$tmp/c.json" --size 64M
expect 0 "12.174 ms on p4d.24xlarge x 2 (routes of the topology)" --algo ring --cluster "$tmp/c.json" --size 64M
expect 0 "on 24 ranks (3 hosts x 8 GPUs)" --algo ring --cluster "$tmp/c.json" --nodes 3 --size 64M
expect 0 "13.479 ms on p4d.24xlarge x 4 (spread placement, routes" --algo ring --instance p4d.24xlarge --nodes 4 --placement spread --size 64M
expect 0 "12.797 ms on p4d.24xlarge x 4 (routes of the topology)" --algo ring --instance p4d.24xlarge --nodes 4 --size 64M
expect 0 "on 8 ranks (1 hosts x 8 GPUs)" --algo ring --instance p4d.24xlarge --size 1M
expect 2 "--nodes must be in 1..65536, got 0" --algo ring --instance p4d.24xlarge --nodes 0 --size 1M
expect 2 "--nodes must be in 1..65536, got 65537" --algo ring --instance p4d.24xlarge --nodes 65537 --size 1M
expect 2 "--placement needs --instance" --algo ring --placement spread --size 1M
expect 2 "--placement would be ignored with --cluster (the file says it)" --algo ring --cluster "$tmp/c.json" --placement spread --size 1M
expect 2 "--instance would be ignored with --cluster (the file says it)" --algo ring --cluster "$tmp/c.json" --instance p5.48xlarge --size 1M
expect 2 "give --instance NAME --nodes N, or --cluster FILE" --algo ring --nodes 2 --size 1M
expect 2 "unknown placement 'moon'" --algo ring --instance p4d.24xlarge --placement moon --size 1M
expect 2 "--ranks N or --instance NAME --nodes N (or --cluster FILE), not both" --algo ring --ranks 8 --cluster "$tmp/c.json" --size 1M
expect 2 "not both" --algo ring --ranks 8 --nodes 2 --size 1M
expect 2 "--gpus-per-node would be ignored without --ranks" --algo ring --instance p4d.24xlarge --gpus-per-node 4 --size 1M
cli_expect_finish "schedule CLI"
