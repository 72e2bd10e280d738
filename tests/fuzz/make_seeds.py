#!/usr/bin/env python3
"""Regenerates tests/fuzz/corpus/<target>/seeds from ../shared/corpus (licences:
../shared/corpus/MANIFEST.md, all permissive) plus tiny hand-written text inputs.

feature seeds: [feature number, 0] + each feature section of the seed perf.data files.
sample seeds:  the 43-byte attr prefix of fuzz_entries.h FuzzSample + each SAMPLE body.
"""
import os, shutil, struct, sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, '..', '..', '..', 'shared', 'corpus')
FILES = [
    'autofdo/ro_sample.perf',
    'perf_data_converter/perf.data.piped.header_features-4.16',
    'perf_data_converter/perf.data.ctx_switch_namespaces-4.14',
    'perf_data_converter/perf.data.group_desc-4.14',
    'perf_data_converter/perf.data.branch-4.14',
    'linux-perf-data/sleep.compressed.pipe.data',
    'linux-perf-data/sleep.compressed2.data',
    'linux-perf-data/sleep.data',
    'eclipse-linuxtools/swtbot-fibTest/perf_new.data',
    'eclipse-linuxtools/perf.data',
]


def out_dir(target):
    d = os.path.join(HERE, 'corpus', target, 'seeds')
    os.makedirs(d, exist_ok=True)
    return d


def features(data):
    """(feature, payload) of a little-endian PERFILE2 file."""
    if data[:8] != b'PERFILE2' or struct.unpack_from('<Q', data, 8)[0] != 104:
        return []
    doff, dsize = struct.unpack_from('<QQ', data, 40)
    bits = struct.unpack_from('<4Q', data, 72)
    feats = [b for b in range(256) if (bits[b // 64] >> (b % 64)) & 1]
    out = []
    for i, f in enumerate(feats):
        off, size = struct.unpack_from('<QQ', data, doff + dsize + 16 * i)
        if off + size <= len(data):
            out.append((f, data[off:off + size]))
    return out


def samples(data):
    """(sample_type, read_format, branch_sample_type, regs_user, body) of the first samples."""
    if data[:8] != b'PERFILE2' or struct.unpack_from('<Q', data, 8)[0] != 104:
        return []
    attr_size, aoff, asize, doff, dsize = struct.unpack_from('<QQQQQ', data, 16)
    st, rf = struct.unpack_from('<QQ', data, aoff + 24)
    bst, regs = struct.unpack_from('<QQ', data, aoff + 72) if attr_size >= 96 else (0, 0)
    out, pos = [], doff
    while pos + 8 <= doff + dsize and len(out) < 4:
        typ, misc, size = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            break
        if typ == 9:
            out.append((st, rf, bst, regs, misc, data[pos + 8:pos + size]))
        pos += size
    return out


def main():
    for target in ('reader', 'report'):
        for f in FILES:
            src = os.path.join(CORPUS, f)
            if os.path.exists(src):
                shutil.copy(src, os.path.join(out_dir(target), f.replace('/', '__')))
    for f in FILES:
        src = os.path.join(CORPUS, f)
        if not os.path.exists(src):
            continue
        data = open(src, 'rb').read()
        name = f.replace('/', '__')
        for feat, payload in features(data):
            open(os.path.join(out_dir('feature'), f'{name}.f{feat}'), 'wb').write(bytes([feat, 0]) + payload)
        for i, (st, rf, bst, regs, misc, body) in enumerate(samples(data)):
            prefix = bytes([2]) + struct.pack('<QQQQQH', st, rf, bst, regs, 0, misc)
            open(os.path.join(out_dir('sample'), f'{name}.s{i}'), 'wb').write(prefix + body)
    texts = {
        'perf_map': {
            'basic': '7f0000001000 40 Lfoo bar\n0x7f0000001040 0x10 baz\n\n7f0000002000 8 x\r\n',
            'bad': 'zz 10 foo\n1000\n1000 \n1000 20\nffffffffffffffff 10 wrap\n',
        },
        'kallsyms': {
            'basic': ('ffffffff81000000 T _text\nffffffff81000100 t foo\nffffffff81000200 W weak\n'
                      'ffffffff81001000 D data\nffffffffc0a01000 t xfs_mod\t[xfs]\n'
                      'ffffffffc0a02000 T xfs_other\t[xfs]\n'),
            'zero': '0000000000000000 T _text\n0000000000000000 t foo\n',
        },
    }
    for target, files in texts.items():
        for name, text in files.items():
            open(os.path.join(out_dir(target), name), 'w').write(text)


if __name__ == '__main__':
    sys.exit(main())
