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
cli_expect_finish "schedule CLI"
