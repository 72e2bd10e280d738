#!/usr/bin/env python3
"""Regenerates tests/fuzz/corpus/<target>/seeds from ../shared/corpus (licences:
../shared/corpus/MANIFEST.md, all permissive) plus tiny hand-written text inputs.

feature seeds: [feature number, 0] + each feature section of the seed perf.data files.
sample seeds:  the 43-byte attr prefix of fuzz_entries.h FuzzSample + each SAMPLE body.
decompress seeds: zip bombs (needs the zstd command): the header records of
  sleep.compressed.pipe.data followed by COMPRESSED records, each one zstd frame of
  32 MiB of SAMPLE records padded to 4 KiB, 288 MiB in all (past the reader's default
  256 MiB cap): without FINISHED_ROUND (the ordering queue fills up) and with one every
  1,000 samples.
jitdump seeds: jit-PID.dump files written here (both byte orders, and damaged records).
The json, call_graph, script, dump and header targets read the report seeds
(tests/fuzz/run.sh, tests/hardening/fuzz_regression_test.cc).
"""
import os, shutil, struct, subprocess, sys

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


def records(data, pos):
    """(type, misc, size, offset) of the records from `pos` on (little-endian)."""
    out = []
    while pos + 8 <= len(data):
        typ, misc, size = struct.unpack_from('<IHH', data, pos)
        if size < 8:
            break
        out.append((typ, misc, size, pos))
        pos += size
    return out


def bombs():
    src = os.path.join(CORPUS, 'linux-perf-data/sleep.compressed.pipe.data')
    if not os.path.exists(src) or not shutil.which('zstd'):
        return
    data = open(src, 'rb').read()
    recs = records(data, 16)
    head_end = next(off for typ, _, _, off in recs if typ == 81)  # first COMPRESSED
    comp = next(r for r in recs if r[0] == 81)
    # perf's frames are not terminated; zstd -dc prints what decodes before complaining.
    inner = subprocess.run(['zstd', '-dcq'], input=data[comp[3] + 8:comp[3] + comp[2]],
                           capture_output=True).stdout
    sample = next(inner[o:o + s] for t, _, s, o in records(inner, 0) if t == 9)
    padded = sample[:6] + struct.pack('<H', 4096) + sample[8:] + bytes(4096 - len(sample))
    round_rec = struct.pack('<IHH', 68, 0, 8)
    for name, with_rounds in (('bomb_queued_samples', False), ('bomb_with_rounds', True)):
        unit = (padded * 1000 + round_rec) if with_rounds else padded * 1000
        frame_bytes = unit * (32 * 1024 * 1024 // len(unit))
        frame = subprocess.run(['zstd', '-19', '-cq'], input=frame_bytes, capture_output=True, check=True).stdout
        assert len(frame) + 8 <= 0xffff, len(frame)
        rec = struct.pack('<IHH', 81, 0, 8 + len(frame)) + frame
        out = data[:head_end] + rec * 9
        open(os.path.join(out_dir('decompress'), name), 'wb').write(out)


def jitdumps():
    """jit-PID.dump seeds (layout: src/symbolize/jitdump.h)."""
    def hdr(e):
        return struct.pack(e + 'IIIIIIQQ', 0x4A695444, 1, 40, 62, 0, 77, 1000, 0)

    def rec(e, rid, body):
        return struct.pack(e + 'IIQ', rid, 16 + len(body), 1) + body

    def load(e, addr, size, idx, name, code=None):
        code = b'\xcc' * size if code is None else code
        return rec(e, 0, struct.pack(e + 'IIQQQQ', 1, 1, addr, addr, size, idx) + name + b'\0' + code)

    def move(e, old, new, size, idx):
        return rec(e, 1, struct.pack(e + 'IIQQQQQ', 1, 1, new, old, new, size, idx))

    for e, name in (('<', 'basic-le'), ('>', 'basic-be')):
        data = (hdr(e) + load(e, 0x7f0000001000, 0x40, 1, b'Interp::add') + load(e, 0x7f0000002000, 0x10, 2, b'x') +
                move(e, 0x7f0000001000, 0x7f0000009000, 0x40, 1) + rec(e, 3, b''))
        open(os.path.join(out_dir('jitdump'), name), 'wb').write(data)
    bad = (hdr('<') + load('<', 0x1000, 0x10, 1, b'nonul', code=b'') +
           load('<', 0x2000, 0xfffffffffffffff0, 2, b'big', code=b'') + move('<', 5, 6, 7, 99) +
           struct.pack('<IIQ', 0, 0xffffffff, 0))
    open(os.path.join(out_dir('jitdump'), 'bad'), 'wb').write(bad)


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
    jitdumps()
    bombs()


if __name__ == '__main__':
    sys.exit(main())
