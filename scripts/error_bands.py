"""The NCCL model's held-out error grouped by what makes a cluster differ, for the planner's
error bands (data/error_bands.json, read by planning/error_band_table.h).

scripts/accuracy.py predicts every row of every calibration entry with a model fitted without
that entry (leave-one-out); this module groups those rows' |busbw error| by the entry's NIC
class (as the NCCL model classes it), NCCL-level node count, the row's message size and the
NCCL release the prediction assumed, and writes each group's median and 80th percentile with
the rows and entries behind it. The C++ side looks a predicted collective up from the most
specific group to the coarsest (FALLBACK) and uses the first with at least MIN_ENTRIES
entries: one cluster alone says little about a kind of cluster.
"""
import json
import os
import statistics
from typing import Callable, Dict, List, Optional, Sequence, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BANDS = os.path.join(ROOT, 'data', 'error_bands.json')
MIB = 1 << 20
MIN_ENTRIES = 2

# The lookup order, most specific first: the node count is dropped first (within a NIC class
# it scales the same model), then the release (it decides which of NCCL's code paths and
# tuning tables run), then the size; the last is the collective's overall figure over its rows
# >= 1 MiB (for all_reduce: the planner's kHeldOutCollectiveError).
FALLBACK = [['nic_class', 'nodes', 'size', 'nccl'], ['nic_class', 'size', 'nccl'],
            ['nic_class', 'size'], ['nic_class'], []]


def nodes_bucket(nodes: int) -> str:
    """'1', '2', '3-8', '>8' (NCCL-level nodes: an NVLink domain counts once)."""
    return '1' if nodes <= 1 else '2' if nodes == 2 else '3-8' if nodes <= 8 else '>8'


def size_bucket(size: int) -> str:
    """'<1MiB', '1-16MiB', '16-256MiB', '>=256MiB' of the collective's whole buffer."""
    if size < MIB:
        return '<1MiB'
    return '1-16MiB' if size < 16 * MIB else '16-256MiB' if size < 256 * MIB else '>=256MiB'


def release_bucket(version: str) -> str:
    """'<2.12', '2.12-2.18', '>=2.19' or 'unknown' (no version: the latest modeled release)."""
    if not version:
        return 'unknown'
    major, minor = (int(x) for x in version.split('.')[:2])
    if (major, minor) < (2, 12):
        return '<2.12'
    return '2.12-2.18' if (major, minor) < (2, 19) else '>=2.19'


def p80(values: Sequence[float]) -> Optional[float]:
    """The 80th percentile (linear interpolation); None under 5 values, where it means little."""
    if len(values) < 5:
        return None
    return statistics.quantiles(values, n=5, method='inclusive')[3]


def make_bands(groups: Dict[str, List[Tuple[dict, List[dict]]]], nic_class: Callable,
               version: Callable, cluster_args: Callable) -> dict:
    """The error-band document from each collective's held-out (entry, validate rows) pairs."""
    out = []
    wide = {}
    for collective, held in groups.items():
        keyed = []  # (key dict, entry id, |error| %)
        worst = (0.0, '')
        for entry, rows in held:
            nodes = cluster_args(entry)[1]
            base = {'nic_class': 'none' if nodes <= 1 else nic_class(entry),
                    'nodes': nodes_bucket(nodes), 'nccl': release_bucket(version(entry))}
            big = [abs(r['error_pct']) for r in rows if r['bytes'] >= MIB]
            if big and statistics.median(big) > worst[0]:
                worst = (statistics.median(big), entry['id'])
            for r in rows:
                keyed.append((dict(base, size=size_bucket(r['bytes'])), entry['id'],
                              abs(r['error_pct'])))
        wide[collective] = {'error': round(worst[0] / 100, 4), 'entry': worst[1]}
        for dims in FALLBACK:
            found = {}
            for key, entry_id, err in keyed:
                # Groups without a size keep to rows >= 1 MiB, as the accuracy gate does.
                if 'size' not in dims and key['size'] == '<1MiB':
                    continue
                k = tuple(key[d] for d in dims)
                found.setdefault(k, ([], set()))
                found[k][0].append(err)
                found[k][1].add(entry_id)
            for k in sorted(found):
                errs, ids = found[k]
                q = p80(errs)
                out.append({'collective': collective, **dict(zip(dims, k)),
                            'median': round(statistics.median(errs) / 100, 4),
                            'p80': None if q is None else round(q / 100, 4),
                            'rows': len(errs), 'entries': sorted(ids)})
    return {
        'schema': 'topotune.error_bands/1',
        'description': 'Leave-one-out |busbw error| of the NCCL model (fraction, not percent) '
                       'by collective, NIC class, NCCL-level nodes, message size and NCCL '
                       'release; a key left out of a group means any. Lookup: the first group '
                       'of `fallback` with at least `min_entries` entries; a NIC class with no '
                       'entry at all gets `wide` (the worst held-out entry median of the '
                       'collective) and a warning. Made by `python3 scripts/accuracy.py --bands '
                       'data/error_bands.json` from data/validation (scripts/error_bands.py).',
        'min_entries': MIN_ENTRIES,
        'fallback': FALLBACK,
        'wide': wide,
        'groups': out,
    }


def write(doc: dict, path: str) -> None:
    """Writes the document with one group per line (reviewable diffs)."""
    text = '{\n' + ''.join(' %s: %s,\n' % (json.dumps(k), json.dumps(v))
                           for k, v in doc.items() if k != 'groups')
    text += ' "groups": [\n'
    text += ',\n'.join('  ' + json.dumps(g) for g in doc['groups']) + '\n ]\n}\n'
    with open(path, 'w') as f:
        f.write(text)


def same(doc: dict, path: str) -> bool:
    """True when the file at `path` holds `doc` (its figures, groups and rules)."""
    try:
        with open(path) as f:
            stored = json.load(f)
    except (OSError, ValueError):
        return False
    return stored == json.loads(json.dumps(doc))
