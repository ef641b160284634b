#!/usr/bin/env python3
"""Accuracy of `topotune validate` on the real nccl-tests runs of
data/validation/nccl_tests_calibration.json (22 entries, each with its source), with ONE
parameter set (data/nccl_model.json).

For each entry: write it as an nccl-tests log (the format all_reduce_perf prints; the 2.4-era
entry in the older layout), run `topotune validate` on the cluster the run used, and collect the
median/max |busbw error| for sizes >= 1 MiB and below. Then leave-one-cluster-out: `topotune
calibrate` on all entries but one, `topotune validate --calibration` on the held-out one. Every
fit (the refit and each held-out one) has two stages (`fit`): every parameter but POOLED on the
all_reduce entries, then POOLED alone on those and the all_gather/reduce_scatter entries of the
second collection.

  python3 scripts/accuracy.py                 # table (markdown) + leave-one-out + acceptance
  python3 scripts/accuracy.py --no-loo        # table only
  python3 scripts/accuracy.py --refit OUT     # fit on all entries, write OUT (a model file)
  python3 scripts/accuracy.py --naive         # also a naive alpha-beta baseline (below)
  python3 scripts/accuracy.py --bands OUT     # the held-out error per group (error_bands.py)
                                              # to OUT; without it, data/error_bands.json is
                                              # compared with what this run measures
  python3 scripts/accuracy.py --fix net_window=1 --rows rows.json
                                              # an experiment: hold parameters at a value
                                              # instead of fitting them; every held-out row
                                              # (size, times, error, NCCL's choice) to a file,
                                              # all_reduce's then all_gather/reduce_scatter's

Per-entry inputs are facts about each run, not parameters: the cluster it ran on (a catalog
instance, or a cluster JSON under data/validation/clusters/<id>.json for clusters that are not
in the catalog, written as a user would from the entry's source), its NCCL version, and
NCCL_ALGO restrictions stated in its environment. Summary entries (a CSV or README table with
bandwidths only) get their times from the bandwidths as the entry's notes say
(time_us = bytes / (algbw * 1e3), algbw = busbw * n / (2(n-1)) where only busbw is kept); their
rows below 1 MiB are rounded to 0.01 GB/s in the source, so they are left out.
"""
import argparse, json, os, re, shutil, statistics, subprocess, sys, tempfile, threading

import error_bands

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VALIDATION = os.path.join(ROOT, 'data', 'validation')
DATA = os.environ.get('NCCL_TESTS_CALIBRATION',
                      os.path.join(VALIDATION, 'nccl_tests_calibration.json'))
# The second collection: all_gather / reduce_scatter runs (and 7 more all_reduce runs).
ADDED = os.path.join(VALIDATION, 'nccl_tests_added_2026-11-27.json')

# Entries that ran on a cluster another entry's file already describes (the same machines,
# another collective or GPU count): they share that file rather than copy it.
SHARED_CLUSTER = {
    'h100_10n8g_allgather_xxrjun_nccl2.29.2': 'h100_10n_8gpn_xxrjun_nccl2.29.2',
    'h100_10n8g_reducescatter_xxrjun_nccl2.29.2': 'h100_10n_8gpn_xxrjun_nccl2.29.2',
    'vultr_hgx_b200_2n8g_ib_allgather': 'vultr_hgx_b200_2n8g_ib_allreduce',
    'vultr_hgx_b200_2n8g_ib_reducescatter': 'vultr_hgx_b200_2n8g_ib_allreduce',
    'h100_10n1g_reducescatter_xxrjun_nccl2.29.2': 'h100_10n1g_allgather_xxrjun_nccl2.29.2',
}

# Entries reported apart, with why (not in any median).
APART = {
    'gcp_a4x_gb200_2n4g_imex_gkecustomdoc':
        'GB200 NVL72 hosts in one NVLink domain (IMEX), and the source does not say whether '
        'NVLink or the RDMA NICs carried the traffic: no cluster file can say which',
    'nris_olivia_gh200_4n4g_slingshot_nccl2.29.2_corruption':
        'pathological (the source reports data corruption and low bandwidth): a negative '
        'example for the verdict, not for accuracy',
    'aws_p4d_2n_hyperpod_noEFA_skypilot_summary':
        'EFA off and the transport not stated (NCCL sockets or libfabric TCP over the pod '
        'network), nor the interfaces or their rate: a cluster file would be a guess',
}

def collective(entry):
    """The entry's collective as nccl-tests names its binary (all_reduce by default)."""
    return entry.get('collective') or 'all_reduce'

def cluster_file(entry):
    """data/validation/clusters/<id>.json when the run's cluster is not a catalog instance."""
    path = os.path.join(VALIDATION, 'clusters',
                        SHARED_CLUSTER.get(entry['id'], entry['id']) + '.json')
    return path if os.path.exists(path) else None

def catalog_instance(entry):
    """The catalog instance of the entry's "instance" text (None: it needs a cluster file)."""
    inst = entry['instance']
    # GCP machine types: the entry's text names them ("a3-megagpu-8g (A3 Mega, GKE)", "GCP
    # a3-megagpu-8g (hosts ...)").
    for name in ('a3-highgpu-8g', 'a3-megagpu-8g'):
        if name in inst:
            return name
    for name in ('p5.48xlarge', 'p4d.24xlarge', 'p3dn.24xlarge'):
        if inst.startswith(name):
            return name
    if inst == 'DGX A100':
        return 'dgx-a100'
    if inst.startswith('DGX H100'):
        return 'dgx-h100'
    if inst.startswith('DGX H200'):
        return 'dgx-h200'
    # "8-GPU A100-40GB SXM4 server": an HGX A100 NVSwitch board, the DGX A100 class (one node,
    # so its NICs play no part).
    if 'A100' in inst and entry['nodes'] == 1:
        return 'dgx-a100'
    return None

def cluster_args(entry):
    """--cluster FILE or --instance NAME, and the NCCL-level node count of the cluster."""
    path = cluster_file(entry)
    if path:
        with open(path) as f:
            nodes = json.load(f)['nodes']
        return ['--cluster', path], nodes
    inst = catalog_instance(entry)
    if not inst:
        sys.exit('%s: no catalog instance and no %s' % (entry['id'], path))
    return ['--instance', inst], entry['nodes']

def instance_json(entry):
    path = cluster_file(entry)
    if path:
        with open(path) as f:
            inst = json.load(f)['instance']
        if isinstance(inst, dict):
            return inst
    else:
        inst = catalog_instance(entry)
    with open(os.path.join(ROOT, 'data', 'instances', inst + '.json')) as f:
        return json.load(f)

def nccl_version(entry):
    """The NCCL version the log prints ('' when it does not)."""
    m = re.match(r'(\d+\.\d+\.\d+)', entry.get('nccl_version') or '')
    return m.group(1) if m else ''

def context_version(entry):
    """The version the run's documented setup names when the log does not print one (the
    entry's `nccl_version_context`, with its evidence): passed as --nccl-version, as a user who
    knows the image would. '' when there is none (then the latest modeled release)."""
    if nccl_version(entry):
        return ''
    return (entry.get('nccl_version_context') or {}).get('version', '')

def version_label(entry):
    if nccl_version(entry):
        return nccl_version(entry)
    return context_version(entry) + ' (setup)' if context_version(entry) else '?'

def version_for_bands(entry):
    """The release the entry's prediction assumed: the log's, else its setup's, else '' (the
    latest modeled release, as a plan given no --nccl-version assumes)."""
    return nccl_version(entry) or context_version(entry)

def nic_class(entry):
    """The NCCL model's NIC class of the entry's cluster, as algorithms/nccl/nccl_system.cc
    (nccl_system_from_cluster) derives it: InfiniBand and RoCE are 'infiniband' (NCCL's IB
    verbs transport), 'tcp', and EFA is 'efa_rdma' from EFA v2 (or, generation unknown, on
    Hopper and newer) else 'efa_srd'."""
    net = instance_json(entry).get('network') or {}
    value = lambda k: net[k]['value'] if isinstance(net.get(k), dict) else net.get(k)
    transport = value('transport')
    if transport in ('infiniband', 'roce'):
        return 'infiniband'
    if transport == 'tcp':
        return 'tcp'
    if transport in ('gpudirect_tcpx', 'gpudirect_tcpxo'):
        return transport[len('gpudirect_'):]
    arch = instance_json(entry)['gpu']['arch']
    arch = arch['value'] if isinstance(arch, dict) else arch
    rdma = value('efa_version') >= 2 if value('efa_version') is not None else \
        arch not in ('volta', 'turing', 'ampere')
    return 'efa_rdma' if rdma else 'efa_srd'

def nccl_algo(entry):
    """NCCL_ALGO the run's documented environment imposes ('' = none)."""
    env = entry.get('env') or {}
    if str(env.get('NCCL_TREE_THRESHOLD', '')) == '0':
        return 'ring'  # NCCL 2.4: tree threshold 0 = never tree
    if env.get('NCCL_ALGO'):  # the variable as a key ("NCCL_ALGO": "RING")
        return str(env['NCCL_ALGO']).lower()
    m = re.search(r'NCCL_ALGO=([A-Za-z,^]+)', json.dumps(env))
    return m.group(1).lower().strip(',') if m else ''

def gpus_per_thread(entry):
    m = re.search(r'-g (\d+)', json.dumps(entry.get('env') or {}))
    return int(m.group(1)) if m else 1

def busbw_factor(entry):
    """nccl-tests' busbw / algbw: 2(n-1)/n for all_reduce (AllReduceGetBw), (n-1)/n for
    all_gather and reduce_scatter (AllGatherGetBw, ReduceScatterGetBw; NVIDIA/nccl-tests
    src/all_gather.cu, src/reduce_scatter.cu at v2.17.6)."""
    n = entry['ranks']
    return (2 if collective(entry) == 'all_reduce' else 1) * (n - 1) / n

def rows_with_times(entry):
    """The entry's rows, each with out-of-place and in-place times (derived for summaries)."""
    factor = busbw_factor(entry)
    out = []
    for r in entry['rows']:
        r = dict(r)
        if r.get('oop_time_us') is None:
            if r['bytes'] < (1 << 20):
                continue  # rounded to 0.01 GB/s in the source: no usable time
            for side in ('oop', 'ip'):
                alg = r.get(side + '_algbw')
                if alg is None and r.get(side + '_busbw') is not None:
                    alg = r[side + '_busbw'] / factor
                if alg is None:
                    alg = r['oop_algbw'] if r.get('oop_algbw') is not None else \
                        r['oop_busbw'] / factor
                r[side + '_algbw'] = alg
                r[side + '_busbw'] = alg * factor
                r[side + '_time_us'] = r['bytes'] / (alg * 1e3)
            r['type'] = r.get('type') or 'float'  # a CSV without it: nccl-tests' default
            width = 8 if r['type'] == 'double' else 4
            # all_gather / reduce_scatter print one rank's count beside the whole size
            r['count'] = r['bytes'] // width // (1 if collective(entry) == 'all_reduce'
                                                  else entry['ranks'])
        out.append(r)
    return out

def to_log(entry):
    """The entry as its nccl-tests binary prints it (all_reduce_perf, all_gather_perf, ...):
    the size column is the whole buffer and count one rank's elements for all_gather and
    reduce_scatter, and since nccl-tests 2.17 the log names its binary first."""
    old = nccl_version(entry).startswith('2.4')
    g = gpus_per_thread(entry)
    ppn = entry['gpus_per_node']
    out = ['# Collective test starting: %s_perf' % collective(entry)] \
        if collective(entry) != 'all_reduce' else []
    out += ['# nThread 1 nGpus %d minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 '
           'iters: 20 validation: 1' % g, '#', '# Using devices']
    for r in range(entry['ranks']):
        out.append('#  Rank %2d Group  0 Pid %6d on node%-3d device %2d [0x00] %s'
                   % (r, 1000 + r // g, r // ppn, r % ppn, entry.get('gpu') or 'GPU'))
    if nccl_version(entry):
        out.append('node0:1000:1000 [0] NCCL INFO NCCL version %s' % nccl_version(entry))
    out.append('#')
    if old:
        out.append('#       size         count    type   redop     time   algbw   busbw  error'
                   '     time   algbw   busbw  error')
    else:
        out.append('#       size         count      type   redop    root     time   algbw   busbw '
                   '#wrong     time   algbw   busbw #wrong')
    out.append('#        (B)    (elements)                               (us)  (GB/s)  (GB/s)'
               '            (us)  (GB/s)  (GB/s)')
    for r in rows_with_times(entry):
        op = r.get('redop') or 'sum'
        mid = '%8s' % op if old else '%8s %7d' % (op, -1)
        wrong = '0e+00' if old else '0'
        out.append('%12d  %12d  %8s %s  %8.1f  %6.2f  %6.2f  %5s  %8.1f  %6.2f  %6.2f  %5s' % (
            r['bytes'], r['count'], r['type'], mid, r['oop_time_us'], r['oop_algbw'],
            r['oop_busbw'], wrong, r['ip_time_us'], r['ip_algbw'], r['ip_busbw'], wrong))
    out += ['# Out of bounds values : 0 OK', '# Avg bus bandwidth    : 0.0', '#']
    return '\n'.join(out) + '\n'

def run_topotune(args, build):
    return subprocess.run([os.path.join(build, 'cli', 'topotune')] + args,
                          capture_output=True, text=True)

def checked(r, args):
    """The stdout of a topotune run; the script stops with its message when it failed."""
    if r.returncode != 0:
        sys.exit('topotune %s failed: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout

def topotune(args, build):
    return checked(run_topotune(args, build), args)

def summary(text):
    big = re.search(r'sizes >= 1 MiB: +(\d+), median \|busbw error\| +([\d.]+)%, max +([\d.]+)%', text)
    small = re.search(r'sizes <  1 MiB: +(\d+), median \|busbw error\| +([\d.]+)%, max +([\d.]+)%', text)
    return (int(big.group(1)), float(big.group(2)), float(big.group(3)),
            int(small.group(1)), float(small.group(2)), float(small.group(3)))

def validate_args(entry, path, extra=()):
    where, nodes = cluster_args(entry)
    args = ['validate', '--nccl-tests', path] + where + ['--nodes', str(nodes)]
    if nccl_algo(entry):
        args += ['--nccl-algo', nccl_algo(entry)]
    if context_version(entry):
        args += ['--nccl-version', context_version(entry)]
    return args + list(extra)

# Round-number starting point for every fit (refit and leave-one-out), so that a held-out
# entry never influences its own check through the starting values.
PRIOR = {
    'nvlink_efficiency': 0.8, 'nvls_efficiency': 0.6, 'nvls_tree_efficiency': 0.6,
    'net_efficiency.efa_srd': 0.85, 'net_efficiency.efa_rdma': 0.9,
    'net_efficiency.infiniband': 0.9,
    'nic_latency_us.efa_srd': 30, 'nic_latency_us.efa_rdma': 15, 'nic_latency_us.infiniband': 3,
    # GCP's GPUDirect-TCPXO: the round numbers assumed for NCCL's sockets (data/
    # nccl_model.json, net_efficiency.tcp / nic_latency_us.tcp); TCPX is assumed, not fitted.
    'net_efficiency.tcpxo': 0.6, 'nic_latency_us.tcpxo': 50,
    # RoCE: the InfiniBand prior (the same verbs code; the fabric and plugins differ). Its
    # bandwidth efficiency is InfiniBand's (net_efficiency_of).
    'nic_latency_us.roce': 3, 'ring_net_step_us.roce': 8.0,
    'engine.ring.Simple': 0.6, 'engine.tree.Simple': 1.0, 'engine.ring.LL128': 1.0,
    'engine.tree.LL128': 1.0, 'engine.LL': 1.0,
    'base_latency_scale': 1.0, 'nvlink_latency_scale': 1.0, 'net_latency_scale': 1.0,
    'nvls_latency_us': 10, 'nvls_chunk_latency_us': 1.0, 'net_window': 1.0,
    'host_staging_efficiency': 0.7, 'host_staging_latency_us': 10, 'launch_overhead_per_gpu_us': 3,
    'ring_net_step_us.efa_rdma': 8.0,
    'ring_net_step_us.infiniband': 8.0,
}

def write_prior(tmp):
    path = os.path.join(tmp, 'prior.json')
    with open(path, 'w') as f:
        json.dump({'schema': 'topotune.nccl_model/2', 'description': 'round-number prior',
                   'parameters': {k: {'value': v, 'source': 'prior'} for k, v in PRIOR.items()}}, f)
    return path

# Parameters held at their PRIOR value instead of fitted (--fix); empty: fit every one.
FIXED = set()

# Fitted on the runs of all three collectives, every other parameter held at its fit on the
# all_reduce runs: the time of an LL128 ring step at a network GPU shows where NCCL runs
# multi-node LL128 rings on Hopper and later, which all_gather and reduce_scatter always do and
# all_reduce rarely does (it takes NVLS, NVLSTree or Tree there): fitted on the all_reduce runs
# alone it would rest on two rows of one cluster. One per NIC class whose runs pin it down (the
# proxy drives each class's own network plugin): EFA with RDMA write (p5), InfiniBand and RoCE.
# RoCE's hop latency too: no allreduce run of the 22 is on RoCE (its runs are GCP's all_gathers).
POOLED = ('ring_net_step_us.efa_rdma', 'ring_net_step_us.infiniband', 'nic_latency_us.roce',
          'ring_net_step_us.roce')

def calibrate(entries, paths, out, start, build, params=None):
    """Fits `params` (None: every parameter; never the --fix ones) on the runs, from `start`."""
    args = ['calibrate', '-o', out, '--start', start]
    explicit = FIXED or params is not None
    if explicit:
        args += ['--params', ','.join(k for k in (PRIOR if params is None else params)
                                      if k not in FIXED)]
    for e, p in zip(entries, paths):
        args += ['--nccl-tests', p]
    for e in entries:
        where = cluster_args(e)[0]
        args += ['--instance', where[1] if where[0] == '--instance' else '']
    for e in entries:
        where = cluster_args(e)[0]
        args += ['--cluster', where[1] if where[0] == '--cluster' else '']
    for e in entries:
        args += ['--nodes', str(cluster_args(e)[1])]
    for e in entries:
        args += ['--nccl-algo', nccl_algo(e) or 'all']
    for e in entries:
        args += ['--nccl-version', context_version(e)]
    r = run_topotune(args, build)
    # With an explicit --params, calibrate refuses a parameter no run of this subset depends
    # on (a held-out entry may be the only one): fit without it, as the default does.
    while explicit and r.returncode != 0:
        m = re.search(r"cannot determine '([^']+)'", r.stderr)
        if not m:
            break
        i = args.index('--params') + 1
        params = args[i].split(',')
        if m.group(1) not in params:  # dropping nothing would rerun the same fit forever
            break
        args[i] = ','.join(k for k in params if k != m.group(1))
        if not args[i]:  # nothing left that these runs determine: the start stands
            shutil.copyfile(start, out)
            return ''
        r = run_topotune(args, build)
    return checked(r, args)

def naive(entry):
    """A naive alpha-beta baseline: busbw = nominal NVLink (1 node) or per-node NIC rate,
    10 us per ring step. Returns the median |busbw error| for sizes >= 1 MiB."""
    inst = instance_json(entry)
    n, nodes = entry['ranks'], cluster_args(entry)[1]
    if nodes == 1:
        bw = inst['intra']['nvlink_GBps_per_link']['value'] * inst['intra']['nvlinks_per_gpu']['value'] * 1e9
    else:
        bw = inst['network']['nics']['value'] * inst['network']['nic_Gbps']['value'] / 8 * 1e9
    errs = []
    for r in rows_with_times(entry):
        if r['bytes'] < (1 << 20):
            continue
        t = 2 * (n - 1) * 10e-6 + r['bytes'] * busbw_factor(entry) / bw
        errs.append(abs(r['oop_time_us'] * 1e-6 / t - 1))
    return 100 * statistics.median(errs)

# Acceptance: the leave-one-cluster-out median |busbw error| for sizes >= 1 MiB,
# over all entries' rows, at most TARGET_OVERALL; every entry's own median at most
# TARGET_ENTRY. The script exits 1 when GATE_* (what CI enforces) fail; GATE_* equal the
# targets only once the model reaches them (see README "Accuracy").
TARGET_OVERALL, TARGET_ENTRY = 7.0, 15.0
GATE_OVERALL, GATE_ENTRY = 8.0, 90.0  # where the model stands: README "Accuracy"
# all_gather / reduce_scatter (data/validation/nccl_tests_added_2026-11-27.json): the
# leave-one-out median over their rows >= 1 MiB; the gate is where the model stands (with a
# little margin): 8.0 % reaches the target, and the gate keeps half a point for floating-point
# differences between machines in the fits.
TARGET_AGRS, GATE_AGRS = 8.0, 8.5  # measured 8.0 % (docs/nccl-model.md)

# The all_reduce fits (first stage) by the ids they were fitted on: every all_gather/
# reduce_scatter leave-one-out shares one. One lock per key, so that parallel folds with
# different all_reduce runs fit at once and those with the same one fit it once.
_first_stage, _first_stage_locks, _locks_lock = {}, {}, threading.Lock()

def fit(ar, agrs, out, tmp, prior, build):
    """One parameter set for the three collectives, written to `out`: every parameter but
    POOLED on the all_reduce runs `ar`, then POOLED on those and the all_gather/reduce_scatter
    runs `agrs` (each a pair: entries, their logs). Returns calibrate's report of the last fit."""
    key = tuple(e['id'] for e in ar[0])
    with _locks_lock:  # the lock and the file name of this key's first stage
        lock, index = _first_stage_locks.setdefault(
            key, (threading.Lock(), len(_first_stage_locks)))
    with lock:
        if key not in _first_stage:
            path = os.path.join(tmp, 'allreduce_fit_%d.json' % index)
            report = calibrate(ar[0], ar[1], path, prior, build,
                               [k for k in PRIOR if k not in POOLED])
            _first_stage[key] = (path, report)
        first, report = _first_stage[key]
    if all(k in FIXED for k in POOLED):
        shutil.copyfile(first, out)
        return report
    return calibrate(ar[0] + agrs[0], ar[1] + agrs[1], out, first, build, list(POOLED))

def loo_one(ar, agrs, tmp, prior, build, held):
    """Fits without one entry and validates it. `ar`, `agrs`: (entries, logs) of the all_reduce
    and the all_gather/reduce_scatter runs; `held`: ('ar' or 'agrs', index) of the one left
    out, or (None, (entry, log)) for a run in neither group (the fit uses them all)."""
    group, k = held
    def without(runs, name):
        if group != name:
            return runs
        return ([e for j, e in enumerate(runs[0]) if j != k],
                [p for j, p in enumerate(runs[1]) if j != k])
    if group is None:
        entry, path = k
    else:
        runs = ar if group == 'ar' else agrs
        entry, path = runs[0][k], runs[1][k]
    out = os.path.join(tmp, 'loo_%s.json' % entry['id'])
    fit(without(ar, 'ar'), without(agrs, 'agrs'), out, tmp, prior, build)
    text = topotune(validate_args(entry, path, ['--calibration', out]), build)
    rows = table_rows(entry, text)
    return summary(text), large_errors(rows), rows

def table_rows(entry, text):
    """Every row of validate's table as a dict (--rows writes them)."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 7 and f[0].isdigit():
            out.append({'entry': entry['id'], 'bytes': int(f[0]), 'measured_us': float(f[2]),
                        'predicted_us': float(f[3]), 'error_pct': float(f[6]),
                        'nccl': f[7] if len(f) > 7 else ''})
    return out

def large_errors(rows):
    """|busbw error| (%) of every row >= 1 MiB of table_rows."""
    return [abs(r['error_pct']) for r in rows if r['bytes'] >= (1 << 20)]

def load_added(tmp):
    """The second collection's entries by group (all_gather/reduce_scatter, all_reduce) with
    their logs written to `tmp`; the entries reported apart are left out of both."""
    with open(ADDED) as f:
        added = json.load(f)
    groups = {'agrs': ([], []), 'ar': ([], [])}
    for e in added:
        if e['id'] in APART:
            continue
        p = os.path.join(tmp, e['id'] + '.log')
        with open(p, 'w') as f:
            f.write(to_log(e))
        g = groups['ar' if collective(e) == 'all_reduce' else 'agrs']
        g[0].append(e)
        g[1].append(p)
    return groups

def added_report(a, entries, paths, tmp, prior, groups):
    """Reports the second collection beside the all_reduce table; returns whether the
    all_gather/reduce_scatter gate passes. Fits use the 22 all_reduce entries and the
    all_gather/reduce_scatter ones as `fit` does (one parameter set for the three collectives);
    the held-out entry is never in its own fit. The added all_reduce entries are in no fit."""
    print('\n### all_gather / reduce_scatter (%s) and the added all_reduce runs\n'
          % os.path.relpath(ADDED, ROOT))
    print('| entry | collective | cluster | NCCL | >= 1 MiB: median / max | < 1 MiB: median / max |'
          '%s' % ('' if a.no_loo else ' leave-one-out >= 1 MiB / < 1 MiB |'))
    print('|---|---|---|---|---|---|%s' % ('' if a.no_loo else '---|'))
    rows = {'agrs': [], 'ar': []}
    a.agrs_rows = []  # (entry, validate's table rows) of every held-out all_gather/reduce_scatter
    for name, (group, gpaths) in groups.items():
        def loo(i):
            held = ('agrs', i) if name == 'agrs' else (None, (group[i], gpaths[i]))
            return loo_one((entries, paths), groups['agrs'], tmp, prior, a.build, held)
        held = [None] * len(group)
        if not a.no_loo:
            from concurrent.futures import ThreadPoolExecutor
            with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool_exec:
                held = list(pool_exec.map(loo, range(len(group))))
        for i, e in enumerate(group):
            s = summary(topotune(validate_args(e, gpaths[i]), a.build))
            where, nodes = cluster_args(e)
            line = '| %s | %s | %s x %d | %s | %.1f%% / %.1f%% | %s |' % (
                e['id'], collective(e), where[1] if where[0] == '--instance' else 'cluster JSON',
                nodes, version_label(e), s[1], s[2],
                '%.1f%% / %.1f%%' % (s[4], s[5]) if s[3] else 'n/a')
            if held[i]:
                l = held[i][0]
                line += ' %.1f%% / %s |' % (l[1], '%.1f%%' % l[4] if l[3] else 'n/a')
                rows[name] += held[i][1]
                if name == 'agrs':
                    a.agrs_rows.append((e, held[i][2]))
            print(line)
    for id_, why in APART.items():
        print('| %s | apart: %s |' % (id_, why))
    if a.no_loo:
        return True
    agrs_median = statistics.median(rows['agrs'])
    print('\nall_gather/reduce_scatter leave-one-out: median |busbw error| over all %d rows '
          '>= 1 MiB %.1f%%' % (len(rows['agrs']), agrs_median))
    # The small sizes are latency: reported (not gated) so that a change to hop or step costs
    # shows what it does where the median above does not look.
    small = [abs(r['error_pct']) for _, table in a.agrs_rows for r in table
             if r['bytes'] < (1 << 20)]
    if small:
        print('all_gather/reduce_scatter leave-one-out: median |busbw error| over all %d rows '
              '< 1 MiB %.1f%% (not gated)' % (len(small), statistics.median(small)))
    print('added all_reduce (in no fit): median |busbw error| over all %d rows >= 1 MiB %.1f%% '
          '(not gated)' % (len(rows['ar']), statistics.median(rows['ar'])))
    passed = agrs_median <= GATE_AGRS
    print('all_gather/reduce_scatter target (<= %.0f%%): %s' % (
        TARGET_AGRS, 'PASS' if agrs_median <= TARGET_AGRS else 'FAIL'))
    if GATE_AGRS != TARGET_AGRS:
        margin = ('a margin over the target, which is met' if agrs_median <= TARGET_AGRS
                  else 'below the target')
        print('all_gather/reduce_scatter CI gate (<= %.1f%%, %s): %s'
              % (GATE_AGRS, margin, 'PASS' if passed else 'FAIL'))
    return passed

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.environ.get('BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--data', default=DATA)
    ap.add_argument('--no-loo', action='store_true')
    ap.add_argument('--naive', action='store_true')
    ap.add_argument('--refit', metavar='OUT')
    ap.add_argument('--jobs', type=int, default=2, help='leave-one-out refits in parallel')
    ap.add_argument('--keep', metavar='DIR', help='keep the generated logs here')
    ap.add_argument('--fix', metavar='NAME=VALUE', action='append', default=[],
                    help='hold a parameter at VALUE instead of fitting it (repeatable)')
    ap.add_argument('--rows', metavar='FILE', help='write every leave-one-out row here (JSON)')
    ap.add_argument('--bands', metavar='OUT',
                    help='write the held-out error per group here (default: check %s)'
                    % os.path.relpath(error_bands.BANDS, ROOT))
    a = ap.parse_args()
    for kv in a.fix:
        name, _, value = kv.partition('=')
        if name not in PRIOR:
            ap.error('--fix %s: not a fitted parameter (one of %s)' % (kv, ', '.join(PRIOR)))
        try:
            PRIOR[name] = float(value)
        except ValueError:
            ap.error('--fix %s: VALUE must be a number' % kv)
        if not 0 <= PRIOR[name] < float('inf'):  # what a model file accepts (and not NaN)
            ap.error('--fix %s: VALUE must be finite and >= 0' % kv)
        FIXED.add(name)
    if a.rows and a.no_loo:
        ap.error('--rows writes the leave-one-out rows: it cannot go with --no-loo')
    if a.bands and (a.no_loo or a.fix or a.data != DATA):
        ap.error('--bands needs the leave-one-out of the checked-in data, nothing fixed')
    if a.rows and not os.access(os.path.dirname(os.path.abspath(a.rows)), os.W_OK):
        ap.error('--rows %s: its folder does not exist or is not writable' % a.rows)
    try:
        with open(a.data) as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        ap.error('--data %s: %s' % (a.data, e))
    tmp = a.keep or tempfile.mkdtemp(prefix='topotune-accuracy-')
    os.makedirs(tmp, exist_ok=True)
    paths = []
    for e in entries:
        p = os.path.join(tmp, e['id'] + '.log')
        with open(p, 'w') as f:
            f.write(to_log(e))
        paths.append(p)
    prior = write_prior(tmp)
    # The second collection's all_gather/reduce_scatter runs take part in every fit (POOLED);
    # with other --data there are none.
    checked_in = os.path.abspath(a.data) == os.path.abspath(DATA)
    groups = load_added(tmp) if checked_in else {'agrs': ([], []), 'ar': ([], [])}
    agrs = groups['agrs']
    if a.refit:
        description = None
        if os.path.exists(a.refit):  # keep the data file's own description across refits
            with open(a.refit) as f:
                description = json.load(f).get('description')
        print(fit((entries, paths), agrs, a.refit, tmp, prior, a.build))
        if description:
            with open(a.refit) as f:
                model = json.load(f)
            model['description'] = description
            with open(a.refit, 'w') as f:
                json.dump(model, f, indent=2)
                f.write('\n')
        return
    fitted = [summary(topotune(validate_args(e, paths[i]), a.build)) for i, e in enumerate(entries)]
    loo = [None] * len(entries)
    if not a.no_loo:
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
            loo = list(pool.map(lambda i: loo_one((entries, paths), agrs, tmp, prior, a.build,
                                                  ('ar', i)), range(len(entries))))
    hdr = '| entry | cluster | NCCL | >= 1 MiB: median / max | < 1 MiB: median / max |'
    sep = '|---|---|---|---|---|'
    if a.naive:
        hdr += ' naive α-β >= 1 MiB |'
        sep += '---|'
    if not a.no_loo:
        hdr += ' leave-one-out >= 1 MiB / < 1 MiB |'
        sep += '---|'
    print(hdr)
    print(sep)
    for i, e in enumerate(entries):
        s = fitted[i]
        where, nodes = cluster_args(e)
        name = where[1] if where[0] == '--instance' else 'cluster JSON'
        line = '| %s | %s x %d | %s | %.1f%% / %.1f%% | %s |' % (
            e['id'], name, nodes, version_label(e), s[1], s[2],
            '%.1f%% / %.1f%%' % (s[4], s[5]) if s[3] else 'n/a')
        if a.naive:
            line += ' %.1f%% |' % naive(e)
        if loo[i]:
            l = loo[i][0]
            line += ' %.1f%% / %s |' % (l[1], '%.1f%%' % l[4] if l[3] else 'n/a')
        print(line)
    print('\nfitted (one parameter set, all entries): median of entry medians >= 1 MiB %.1f%%'
          % statistics.median(s[1] for s in fitted))
    if a.no_loo:
        return
    rows = [x for l in loo for x in l[1]]
    overall = statistics.median(rows)
    worst = max(loo, key=lambda l: l[0][1])[0][1]
    worst_id = entries[max(range(len(entries)), key=lambda i: loo[i][0][1])]['id']
    print('leave-one-out: median |busbw error| over all %d rows >= 1 MiB %.1f%%; worst entry '
          'median %.1f%% (%s)' % (len(rows), overall, worst, worst_id))
    target = overall <= TARGET_OVERALL and worst <= TARGET_ENTRY
    gate = overall <= GATE_OVERALL and worst <= GATE_ENTRY
    print('target (overall <= %.0f%%, every entry <= %.0f%%): %s'
          % (TARGET_OVERALL, TARGET_ENTRY, 'PASS' if target else 'FAIL'))
    if (GATE_OVERALL, GATE_ENTRY) != (TARGET_OVERALL, TARGET_ENTRY):
        print('CI gate (overall <= %.1f%%, every entry <= %.1f%%; below the target, see README): %s'
              % (GATE_OVERALL, GATE_ENTRY, 'PASS' if gate else 'FAIL'))
    if checked_in and not a.fix:
        # The planner's error band and channel margin (planning/held_out_error.h) are this
        # figure: keep them equal.
        header = open(os.path.join(ROOT, 'planning', 'held_out_error.h'), encoding='utf-8').read()
        band = float(re.search(r'kHeldOutCollectiveError = ([0-9.]+);', header).group(1)) * 100
        same = abs(band - round(overall, 1)) < 0.05
        print('planner error band (planning/held_out_error.h kHeldOutCollectiveError): %.1f%%, '
              'measured here %.1f%%: %s' % (band, overall, 'matches' if same else
                                             'MISMATCH: update kHeldOutCollectiveError'))
        gate = gate and same
    if checked_in:
        gate = added_report(a, entries, paths, tmp, prior, groups) and gate
        if not a.fix:
            gate = check_bands(a, [(e, loo[i][2]) for i, e in enumerate(entries)]) and gate
    if a.rows:  # the all_reduce entries' held-out rows, then the all_gather/reduce_scatter ones
        with open(a.rows, 'w') as f:
            json.dump([r for l in loo for r in l[2]] +
                      [r for _, held in getattr(a, 'agrs_rows', []) for r in held], f, indent=1)
    sys.exit(0 if gate else 1)

def check_bands(a, ar_rows):
    """Writes the error bands (--bands) or checks the checked-in file still says what this
    run measures; True when it does (or was written)."""
    doc = error_bands.make_bands({'all_reduce': ar_rows, 'all_gather/reduce_scatter': a.agrs_rows},
                                 nic_class, version_for_bands, cluster_args)
    if a.bands:
        error_bands.write(doc, a.bands)
        print('error bands: %d groups written to %s' % (len(doc['groups']), a.bands))
        return True
    same = error_bands.same(doc, error_bands.BANDS)
    print('error bands (%s): %s' % (os.path.relpath(error_bands.BANDS, ROOT),
                                    'match' if same else 'STALE: rerun with --bands %s'
                                    % os.path.relpath(error_bands.BANDS, ROOT)))
    return same

if __name__ == '__main__':
    main()
