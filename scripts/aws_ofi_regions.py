#!/usr/bin/env python3
"""Writes algorithms/nccl/aws_ofi_regions.cc: the region tuner's vertex lists of aws-ofi-nccl.

The AWS net plugin's tuner (src/tuner/nccl_ofi_regions.cpp, functions region_init_internal_*)
holds, per platform, GPUs per node and collective, a list of polygons in (log2 bytes, log2
ranks) space, each naming an (algorithm, protocol). Those figures are facts of that release;
this script restates them in topotune's own form so that they are copied by a program, not by
hand, and can be checked against the source again:

  python3 scripts/aws_ofi_regions.py SOURCE.cpp [OUT.cc]

SOURCE.cpp is nccl_ofi_regions.cpp of the release named in RELEASE (e.g. `git show
v1.21.1:src/tuner/nccl_ofi_regions.cpp` in a clone of aws/aws-ofi-nccl); OUT.cc is laid out by
clang-format when it is on PATH. Nothing reads the source at build or test time: the generated
file is committed. Every region's vertex count is checked against the source's num_vertices.
"""
import re
import shutil
import subprocess
import sys

RELEASE = 'v1.21.1'
PLATFORMS = {'p5_p5e': 'P5', 'p5en': 'P5en', 'p6': 'P6', 'p6_b300': 'P6B300'}
COLLECTIVES = {'ncclFuncAllReduce': 'Allreduce', 'ncclFuncAllGather': 'Allgather',
               'ncclFuncReduceScatter': 'ReduceScatter'}
ALGOS = {'NCCL_ALGO_TREE': 'Tree', 'NCCL_ALGO_RING': 'Ring', 'NCCL_ALGO_NVLS': 'Nvls',
         'NCCL_ALGO_NVLS_TREE': 'NvlsTree', 'NCCL_ALGO_PAT': 'Pat'}
PROTOS = {'NCCL_PROTO_LL': 'LL', 'NCCL_PROTO_LL128': 'LL128', 'NCCL_PROTO_SIMPLE': 'Simple'}
NUMBER = r'(?:\d+(?:\.\d+)?|TUNER_MAX_SIZE|TUNER_MAX_RANKS|\w+\.[xy])'


def coord(text):
    text = text.strip()
    if text == 'TUNER_MAX_SIZE':
        return 'kMaxSize'
    if text == 'TUNER_MAX_RANKS':
        return 'kMaxRanks'
    if re.fullmatch(r'\w+\.[xy]', text):
        return text
    if re.fullmatch(r'\d+', text):
        return text
    raise ValueError('unexpected coordinate ' + text)


def split_top(text):
    """Splits a brace list body at its top-level commas."""
    out, depth, cur = [], 0, ''
    for ch in text:
        if ch == '{':
            depth += 1
        elif ch == '}':
            depth -= 1
        if ch == ',' and depth == 0:
            out.append(cur)
            cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur)
    return [s.strip() for s in out if s.strip()]


def braced(text, start):
    """The text from `start` up to the brace that closes the one just before `start`."""
    depth = 1
    for i in range(start, len(text)):
        if text[i] == '{':
            depth += 1
        elif text[i] == '}':
            depth -= 1
            if depth == 0:
                return text[start:i]
    raise ValueError('unbalanced braces')


def vertex(text, extended):
    if text in extended:
        return text
    m = re.fullmatch(r'\{\s*(' + NUMBER + r')\s*,\s*(' + NUMBER + r')\s*\}', text)
    if not m:
        raise ValueError('unexpected vertex ' + text)
    return '{%s, %s}' % (coord(m.group(1)), coord(m.group(2)))


def parse_block(body):
    """One `collType = ...; [extended points]; regions[] = {...};` block."""
    coll = COLLECTIVES[re.search(r'collType = (\w+);', body).group(1)]
    extended = {}
    for m in re.finditer(r'nccl_ofi_tuner_point_t (\w+) =\s*extend_region\(\s*'
                         r'\(nccl_ofi_tuner_point_t\)\{([^}]*)\},\s*'
                         r'\(nccl_ofi_tuner_point_t\)\{([^}]*)\},\s*'
                         r'\(nccl_ofi_tuner_point_t\)\{TUNER_MAX_SIZE, TUNER_MAX_RANKS\}\);', body):
        a = [coord(c) for c in m.group(2).split(',')]
        b = [coord(c) for c in m.group(3).split(',')]
        extended[m.group(1)] = (a, b)
    if body.count('extend_region(') != len(extended):
        raise ValueError('an extend_region call not understood in ' + coll)
    regions = []
    for m in re.finditer(r'\.algorithm = (\w+),\s*\.protocol = (\w+),\s*\.num_vertices = (\d+),'
                         r'\s*\.vertices = \{', body):
        items = split_top(braced(body, m.end()))
        if len(items) != int(m.group(3)):
            raise ValueError('%s: %d vertices, num_vertices %s' % (coll, len(items), m.group(3)))
        regions.append((ALGOS[m.group(1)], PROTOS[m.group(2)],
                        [vertex(v, extended) for v in items]))
    if not regions:
        raise ValueError('no region in a block of ' + coll)
    return coll, extended, regions


def parse(source):
    tables = []  # (platform, gpus per node, collective, extended, regions)
    for name, plat in PLATFORMS.items():
        m = re.search(r'static ncclResult_t region_init_internal_%s\(.*?\n\}\n' % name, source,
                      re.S)
        if not m:
            raise ValueError('no region_init_internal_' + name)
        fn = m.group(0)
        # Branches by GPUs per node: `nRanks == 8 * nNodes`, `2 * nNodes`, `nNodes`.
        marks = [(mm.start(), int(mm.group(1) or 1))
                 for mm in re.finditer(r'if \(nRanks == (?:(\d+) \* )?nNodes\)', fn)]
        for i, (start, gpn) in enumerate(marks):
            end = marks[i + 1][0] if i + 1 < len(marks) else len(fn)
            branch = fn[start:end]
            starts = [mm.start() for mm in re.finditer(r'collType = ', branch)]
            for j, s in enumerate(starts):
                e = starts[j + 1] if j + 1 < len(starts) else len(branch)
                coll, extended, regions = parse_block(branch[s:e])
                tables.append((plat, gpn, coll, extended, regions))
    return tables


def emit(tables):
    out = []
    w = out.append
    w('// Generated by scripts/aws_ofi_regions.py from aws/aws-ofi-nccl %s' % RELEASE)
    w('// src/tuner/nccl_ofi_regions.cpp (region_init_internal_p5_p5e, _p5en, _p6, _p6_b300):')
    w('// the vertex lists, restated; do not edit by hand, rerun the script on the source.')
    w('')
    w('#include "algorithms/nccl/aws_ofi_regions.h"')
    w('')
    w('#include <utility>')
    w('#include <vector>')
    w('')
    w('namespace topotune::algo {')
    w('namespace {')
    w('')
    w('constexpr double kMaxSize = 100.0 * 1024 * 1024 * 1024;  // TUNER_MAX_SIZE')
    w('constexpr double kMaxRanks = 1024.0 * 1024;              // TUNER_MAX_RANKS')
    w('using A = NcclAlgo;')
    w('using P = NcclProto;')
    w('')
    w('AwsRegion region(A a, P p, std::vector<AwsPoint> v) {')
    w('  for (AwsPoint& q : v) q = aws_log2(q);')
    w('  return {a, p, std::move(v)};')
    w('}')
    w('')
    w('AwsPoint ext(AwsPoint a, AwsPoint b) { return aws_extend(a, b, {kMaxSize, kMaxRanks}); }')
    w('')
    names = []
    for plat, gpn, coll, extended, regions in tables:
        fn = '%s_%dgpn_%s' % (plat.lower(), gpn, coll.lower())
        names.append((plat, gpn, coll, fn))
        w('std::vector<AwsRegion> %s() {' % fn)
        for n, (a, b) in extended.items():
            w('  const AwsPoint %s = ext({%s, %s}, {%s, %s});' % (n, a[0], a[1], b[0], b[1]))
        w('  return {')
        for algo, proto, verts in regions:
            w('      region(A::%s, P::%s,' % (algo, proto))
            w('             {%s}),' % ',\n              '.join(verts))
        w('  };')
        w('}')
        w('')
    w('}  // namespace')
    w('')
    w('const std::vector<AwsRegion>& aws_regions(AwsTunerPlatform platform, int gpus_per_node,')
    w('                                          sched::Collective c) {')
    w('  static const std::vector<AwsRegion> kNone;')
    for plat, gpn, coll, fn in names:
        w('  static const std::vector<AwsRegion> k_%s = %s();' % (fn, fn))
    for plat, gpn, coll, fn in names:
        w('  if (platform == AwsTunerPlatform::%s && gpus_per_node == %d &&' % (plat, gpn))
        w('      c == sched::Collective::%s) {' % coll)
        w('    return k_%s;' % fn)
        w('  }')
    w('  return kNone;')
    w('}')
    w('')
    w('}  // namespace topotune::algo')
    return '\n'.join(out) + '\n'


def main():
    if len(sys.argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1]) as f:
            tables = parse(f.read())
    except (OSError, ValueError) as e:  # nothing written: the source is read and parsed first
        print('aws_ofi_regions.py: error: %s: %s' % (sys.argv[1], e), file=sys.stderr)
        return 2
    text = emit(tables)
    if len(sys.argv) == 3:
        with open(sys.argv[2], 'w') as f:
            f.write(text)
        # The repository's .clang-format lays it out (scripts/check_format.sh checks it).
        if shutil.which('clang-format'):
            subprocess.run(['clang-format', '-i', sys.argv[2]], check=True)
    else:
        sys.stdout.write(text)
    for plat, gpn, coll, extended, regions in tables:
        print('%-7s %d GPU/node %-13s %d regions' % (plat, gpn, coll, len(regions)),
              file=sys.stderr)
    return 0


if __name__ == '__main__':
    sys.exit(main())
