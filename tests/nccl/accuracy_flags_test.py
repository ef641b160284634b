#!/usr/bin/env python3
"""scripts/accuracy.py's experiment flags on a three-entry subset of the validation data:
--fix holds a parameter at its value in every leave-one-out fit (and a fold whose held-out
entry alone determines another parameter still fits, without that one), --rows writes every
held-out row, and bad values end in a one-line message with exit 2.
usage: accuracy_flags_test.py SOURCE_DIR BUILD_DIR"""
import json
import os
import subprocess
import sys
import tempfile

SOURCE, BUILD = sys.argv[1], sys.argv[2]
SCRIPT = os.path.join(SOURCE, 'scripts', 'accuracy.py')
# dgx_h100 is the only entry launched with -g 8 (launch_overhead_per_gpu_us): its fold exercises
# the refit without a parameter nothing else determines.
SUBSET = ('aws_p5_2n_awsome_readme', 'aws_p5_2n_eks_nccl2.22.3_ofi1.9.2',
          'dgx_h100_1n_dgxc_benchmarking')
FIXED_WINDOW = 0.37  # neither the prior (1.0) nor a value the fit reaches


def accuracy(args):
    return subprocess.run([sys.executable, SCRIPT, '--build', BUILD] + args,
                          capture_output=True, text=True, timeout=600)


with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(SOURCE, 'data', 'validation', 'nccl_tests_calibration.json')) as f:
        entries = [e for e in json.load(f) if e['id'] in SUBSET]
    assert len(entries) == len(SUBSET), [e['id'] for e in entries]
    data = os.path.join(d, 'subset.json')
    with open(data, 'w') as f:
        json.dump(entries, f)

    for bad, message in [('net_window=x', 'VALUE must be a number'),
                         ('net_window=-1', 'VALUE must be finite and >= 0'),
                         ('net_window=inf', 'VALUE must be finite and >= 0'),
                         ('net_windw=1', 'not a fitted parameter')]:
        r = accuracy(['--data', data, '--no-loo', '--fix', bad])
        assert r.returncode == 2 and message in r.stderr, (bad, r.returncode, r.stderr)
    r = accuracy(['--data', os.path.join(d, 'missing.json')])
    assert r.returncode == 2 and 'missing.json' in r.stderr, r.stderr
    r = accuracy(['--data', data, '--no-loo', '--rows', os.path.join(d, 'r.json')])
    assert r.returncode == 2 and 'cannot go with --no-loo' in r.stderr, r.stderr
    r = accuracy(['--data', data, '--rows', os.path.join(d, 'no', 'such', 'r.json')])
    assert r.returncode == 2 and 'not writable' in r.stderr, r.stderr

    keep, rows = os.path.join(d, 'keep'), os.path.join(d, 'rows.json')
    r = accuracy(['--data', data, '--keep', keep, '--rows', rows,
                  '--fix', 'net_window=%g' % FIXED_WINDOW])
    # 0: the subset passes the CI gate, 1: it misses it; anything else is a failure to run
    assert r.returncode in (0, 1) and 'leave-one-out' in r.stdout, (r.returncode, r.stderr)
    for e in entries:
        with open(os.path.join(keep, 'loo_%s.json' % e['id'])) as f:
            window = json.load(f)['parameters']['net_window']['value']
        assert window == FIXED_WINDOW, (e['id'], window)
    with open(rows) as f:
        held_out = json.load(f)
    assert sorted({r['entry'] for r in held_out}) == sorted(SUBSET), held_out[:3]
    assert all(r['nccl'] and r['measured_us'] > 0 and r['predicted_us'] > 0 for r in held_out)
    for r in held_out:  # validate's busbw error: predicted over measured busbw, in time terms
        assert abs(r['error_pct'] - 100 * (r['measured_us'] / r['predicted_us'] - 1)) < 0.1, r
print('accuracy.py flags: ok')
