#!/usr/bin/env python3
"""Accuracy of `topotune validate` on the real nccl-tests runs of
shared/validation/nccl_tests_calibration.json, with ONE parameter set (data/nccl_model.json).

For each entry: write it as an nccl-tests log (the format all_reduce_perf prints; the 2.4-era
entry in the older layout), run `topotune validate`, and collect the median/max |busbw error|
for sizes >= 1 MiB and below. Then a leave-one-out check: `topotune calibrate` on all entries
but one, `topotune validate --calibration` on the held-out one.

  python3 scripts/accuracy.py                 # table (markdown) + leave-one-out
  python3 scripts/accuracy.py --no-loo        # table only
  python3 scripts/accuracy.py --refit OUT     # fit on all entries, write OUT (a model file)
  python3 scripts/accuracy.py --naive         # also the naive alpha-beta baseline of issue 5

Per-entry inputs are facts about each run, not parameters: which catalog instance it ran on,
its NCCL version, and NCCL_ALGO restrictions stated in its environment.
"""
import argparse, json, os, re, statistics, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The validation logs live in shared/ beside the checkout (as CI lays it out).
DATA = os.environ.get('NCCL_TESTS_CALIBRATION',
                      os.path.join(os.path.dirname(ROOT), 'shared', 'validation',
                                   'nccl_tests_calibration.json'))

# Which catalog instance each run used (the entry's "instance" text, resolved).
INSTANCE = {
    'p5.48xlarge': 'p5.48xlarge',
    'p4d.24xlarge': 'p4d.24xlarge',
    'p3dn.24xlarge': 'p3dn.24xlarge',
    'DGX A100': 'dgx-a100',
}

def catalog_instance(entry):
    inst = entry['instance']
    if inst in INSTANCE:
        return INSTANCE[inst]
    if inst.startswith('DGX H100'):
        return 'dgx-h100'
    # "8-GPU A100-40GB SXM4 server": an HGX A100 NVSwitch board, the DGX A100 class (one node,
    # so its NICs play no part).
    if 'A100' in inst and entry['nodes'] == 1:
        return 'dgx-a100'
    return None

def nccl_algo(entry):
    """NCCL_ALGO the run's documented environment imposes ('' = none)."""
    env = entry.get('env') or {}
    if str(env.get('NCCL_TREE_THRESHOLD', '')) == '0':
        return 'ring'  # NCCL 2.4: tree threshold 0 = never tree
    m = re.search(r'NCCL_ALGO=([A-Za-z,^]+)', json.dumps(env))
    return m.group(1).lower() if m else ''

def gpus_per_thread(entry):
    m = re.search(r'-g (\d+)', json.dumps(entry.get('env') or {}))
    return int(m.group(1)) if m else 1

def to_log(entry):
    """The entry as all_reduce_perf prints it."""
    old = (entry.get('nccl_version') or '').startswith('2.4')
    g = gpus_per_thread(entry)
    ppn = entry['gpus_per_node']
    out = ['# nThread 1 nGpus %d minBytes 8 maxBytes 17179869184 step: 2(factor) warmup iters: 5 '
           'iters: 20 validation: 1' % g, '#', '# Using devices']
    for r in range(entry['ranks']):
        out.append('#  Rank %2d Group  0 Pid %6d on node%-3d device %2d [0x00] GPU'
                   % (r, 1000 + r // g, r // ppn, r % ppn))
    if entry.get('nccl_version'):
        out.append('node0:1000:1000 [0] NCCL INFO NCCL version %s' % entry['nccl_version'])
    out.append('#')
    if old:
        out.append('#       size         count    type   redop     time   algbw   busbw  error'
                   '     time   algbw   busbw  error')
    else:
        out.append('#       size         count      type   redop    root     time   algbw   busbw '
                   '#wrong     time   algbw   busbw #wrong')
    out.append('#        (B)    (elements)                               (us)  (GB/s)  (GB/s)'
               '            (us)  (GB/s)  (GB/s)')
    for r in entry['rows']:
        mid = '%8s' % 'sum' if old else '%8s %7d' % ('sum', -1)
        wrong = '0e+00' if old else '0'
        out.append('%12d  %12d  %8s %s  %8.1f  %6.2f  %6.2f  %5s  %8.1f  %6.2f  %6.2f  %5s' % (
            r['bytes'], r['count'], r['type'], mid, r['oop_time_us'], r['oop_algbw'],
            r['oop_busbw'], wrong, r['ip_time_us'], r['ip_algbw'], r['ip_busbw'], wrong))
    out += ['# Out of bounds values : 0 OK', '# Avg bus bandwidth    : 0.0', '#']
    return '\n'.join(out) + '\n'

def topotune(args, build):
    exe = os.path.join(build, 'cli', 'topotune')
    r = subprocess.run([exe] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit('topotune %s failed: %s' % (' '.join(args), r.stderr.strip()))
    return r.stdout

def summary(text):
    big = re.search(r'sizes >= 1 MiB: +(\d+), median \|busbw error\| +([\d.]+)%, max +([\d.]+)%', text)
    small = re.search(r'sizes <  1 MiB: +(\d+), median \|busbw error\| +([\d.]+)%, max +([\d.]+)%', text)
    return (int(big.group(1)), float(big.group(2)), float(big.group(3)),
            int(small.group(1)), float(small.group(2)), float(small.group(3)))

def validate_args(entry, path, extra=()):
    args = ['validate', '--nccl-tests', path, '--instance', catalog_instance(entry),
            '--nodes', str(entry['nodes'])]
    if nccl_algo(entry):
        args += ['--nccl-algo', nccl_algo(entry)]
    return args + list(extra)

# Round-number starting point for every fit (refit and leave-one-out), so that a held-out
# entry never influences its own check through the starting values.
PRIOR = {
    'nvlink_efficiency': 0.8, 'nvls_efficiency': 0.6,
    'net_efficiency.efa_srd': 0.85, 'net_efficiency.efa_rdma': 0.8,
    'net_efficiency.infiniband': 0.9,
    'nic_latency_us.efa_srd': 30, 'nic_latency_us.efa_rdma': 15, 'nic_latency_us.infiniband': 3,
    'host_staging_efficiency': 0.8, 'host_staging_latency_us': 10, 'gdr_flush_latency_us': 10,
    'launch_overhead_per_gpu_us': 3,
    'chunk_bytes.LL': 65536, 'chunk_bytes.LL128': 262144, 'chunk_bytes.Simple': 2097152,
    'step_exposed.LL': 0.1, 'step_exposed.LL128': 0.3, 'step_exposed.Simple': 0.8,
    'nvlink_latency_scale': 1.0, 'net_latency_scale': 1.0,
}

def write_prior(tmp):
    path = os.path.join(tmp, 'prior.json')
    with open(path, 'w') as f:
        json.dump({'schema': 'topotune.nccl_model/1', 'description': 'round-number prior',
                   'parameters': {k: {'value': v, 'source': 'prior'} for k, v in PRIOR.items()}}, f)
    return path

def calibrate(entries, paths, out, prior, build):
    args = ['calibrate', '-o', out, '--start', prior]
    for e, p in zip(entries, paths):
        args += ['--nccl-tests', p]
    for e in entries:
        args += ['--instance', catalog_instance(e)]
    for e in entries:
        args += ['--nodes', str(e['nodes'])]
    for e in entries:
        args += ['--nccl-algo', nccl_algo(e) or 'all']
    return topotune(args, build)

def naive(entry):
    """Issue 5's naive alpha-beta: busbw = nominal NVLink (1 node) or per-node NIC rate,
    10 us per ring step. Returns the median |busbw error| for sizes >= 1 MiB."""
    with open(os.path.join(ROOT, 'data', 'instances', catalog_instance(entry) + '.json')) as f:
        inst = json.load(f)
    n, nodes = entry['ranks'], entry['nodes']
    if nodes == 1:
        bw = inst['intra']['nvlink_GBps_per_link']['value'] * inst['intra']['nvlinks_per_gpu']['value'] * 1e9
    else:
        bw = inst['network']['nics']['value'] * inst['network']['nic_Gbps']['value'] / 8 * 1e9
    errs = []
    for r in entry['rows']:
        if r['bytes'] < (1 << 20):
            continue
        t = 2 * (n - 1) * 10e-6 + r['bytes'] * 2 * (n - 1) / n / bw
        errs.append(abs(r['oop_time_us'] * 1e-6 / t - 1))
    return 100 * statistics.median(errs)

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--build', default=os.environ.get('BUILD_DIR', os.path.join(ROOT, 'build')))
    ap.add_argument('--data', default=DATA)
    ap.add_argument('--no-loo', action='store_true')
    ap.add_argument('--naive', action='store_true')
    ap.add_argument('--refit', metavar='OUT')
    ap.add_argument('--keep', metavar='DIR', help='keep the generated logs here')
    a = ap.parse_args()
    with open(a.data) as f:
        entries = [e for e in json.load(f) if catalog_instance(e)]
    tmp = a.keep or tempfile.mkdtemp(prefix='topotune-accuracy-')
    os.makedirs(tmp, exist_ok=True)
    paths = []
    for e in entries:
        p = os.path.join(tmp, e['id'] + '.log')
        with open(p, 'w') as f:
            f.write(to_log(e))
        paths.append(p)
    prior = write_prior(tmp)
    if a.refit:
        print(calibrate(entries, paths, a.refit, prior, a.build))
        return
    rows = []
    for i, e in enumerate(entries):
        s = summary(topotune(validate_args(e, paths[i]), a.build))
        loo = None
        if not a.no_loo:
            held = os.path.join(tmp, 'loo_%d.json' % i)
            rest = [k for k in range(len(entries)) if k != i]
            calibrate([entries[k] for k in rest], [paths[k] for k in rest], held, prior, a.build)
            loo = summary(topotune(validate_args(e, paths[i], ['--calibration', held]), a.build))
        rows.append((e, s, loo))
    hdr = '| entry | cluster | NCCL | sizes >= 1 MiB: median / max | < 1 MiB: median / max |'
    sep = '|---|---|---|---|---|'
    if a.naive:
        hdr += ' naive α-β >= 1 MiB |'
        sep += '---|'
    if not a.no_loo:
        hdr += ' leave-one-out >= 1 MiB / < 1 MiB |'
        sep += '---|'
    print(hdr)
    print(sep)
    for e, s, loo in rows:
        line = '| %s | %s x %d | %s | %.1f%% / %.1f%% | %s |' % (
            e['id'], catalog_instance(e), e['nodes'], (e.get('nccl_version') or '?').split('+')[0],
            s[1], s[2], '%.1f%% / %.1f%%' % (s[4], s[5]) if s[3] else 'n/a')
        if a.naive:
            line += ' %.1f%% |' % naive(e)
        if loo:
            line += ' %.1f%% / %s |' % (loo[1], '%.1f%%' % loo[4] if loo[3] else 'n/a')
        print(line)
    ok = all(s[1] <= 10 and (s[3] == 0 or s[4] <= 25) for _, s, _ in rows)
    print('\nacceptance (median <= 10%% for >= 1 MiB, <= 25%% below, every entry): %s'
          % ('PASS' if ok else 'FAIL'))
    sys.exit(0 if ok else 1)

if __name__ == '__main__':
    main()
