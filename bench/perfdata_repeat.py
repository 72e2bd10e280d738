#!/usr/bin/env python3
"""Writes a larger (or smaller) perf.data from a real one, for scaling benchmarks.

Usage: perfdata_repeat.py IN OUT FACTOR

The data section of IN (a file-mode, uncompressed recording, as `perf record` writes
without -z) is written FACTOR times: repetition k shifts every time stamp (the SAMPLE
time field and the sample_id_all trailer of the other kernel records, found from the
attributes' sample_type) by k × the recording's span, so times keep increasing and the
models (threads, maps) are simply re-announced each repetition. Records perf synthesized
at record start (time 0: kernel and module maps, existing threads) and perf's own
header-like records (type >= 64, except FINISHED_ROUND) are written once only.
A fractional part writes a prefix of one more repetition, cut at a record boundary
(FACTOR < 1 gives a prefix of IN). The header's data size, the feature sections (copied
after the new data, offsets moved) and HEADER_SAMPLE_TIME's last time are fixed.

The output is streamed; IN's data section is read in chunks, once per repetition.
"""
import array
import os
import struct
import sys

CHUNK = 32 << 20
FEAT_SAMPLE_TIME = 21
REFUSED_FEATURES = {18: "AUXTRACE", 24: "DIR_FORMAT", 27: "COMPRESSED"}
REC_SAMPLE, REC_FINISHED_ROUND, REC_COMPRESSED, USER_TYPE_START = 9, 68, 81, 64
S_IP, S_TID, S_TIME, S_ID, S_CPU, S_STREAM_ID, S_IDENTIFIER = 1, 2, 4, 64, 128, 512, 1 << 16


def fail(msg):
    sys.exit(f"perfdata_repeat.py: {msg}")


def time_layout(st):
    """sample_type -> (offset of time in a SAMPLE body or None, sample_id trailer size,
    offset of time in the trailer or None)."""
    if not st & S_TIME:
        return None, None, None
    in_sample = (8 if st & S_IDENTIFIER else 0) + (8 if st & S_IP else 0) + (8 if st & S_TID else 0)
    trailer = 8 * sum(1 for b in (S_TID, S_TIME, S_ID, S_STREAM_ID, S_CPU, S_IDENTIFIER) if st & b)
    return in_sample, trailer, (8 if st & S_TID else 0)


def main():
    if len(sys.argv) != 4:
        fail("usage: perfdata_repeat.py IN OUT FACTOR")
    src, dst, factor = sys.argv[1], sys.argv[2], float(sys.argv[3])
    if factor <= 0:
        fail("FACTOR must be > 0")
    f = open(src, "rb")
    hdr = bytearray(f.read(104))
    magic, hsize, attr_size = struct.unpack_from("<8sQQ", hdr, 0)
    if magic != b"PERFILE2":
        fail(f"{src}: not a little-endian perf.data v2 file")
    if hsize != 104:
        fail(f"{src}: pipe-mode recording (header size {hsize}); record with -o FILE")
    attrs_off, attrs_size, data_off, data_size = struct.unpack_from("<QQQQ", hdr, 24)
    features = int.from_bytes(hdr[72:104], "little")
    for bit, name in REFUSED_FEATURES.items():
        if features >> bit & 1:
            fail(f"{src}: has feature {name}; not supported")

    # Attributes: sample_type per id (several attributes: the ids tell them apart).
    types, id_to_type = set(), {}
    # attr_size counts the attribute and its ids section ({offset, size}) after it.
    for i in range(attrs_size // attr_size):
        f.seek(attrs_off + i * attr_size)
        raw = f.read(attr_size)
        st, = struct.unpack_from("<Q", raw, 24)
        flags, = struct.unpack_from("<Q", raw, 40)
        ids_off, ids_size = struct.unpack_from("<QQ", raw, attr_size - 16)
        types.add((st, flags >> 18 & 1))
        f.seek(ids_off)
        for (ident,) in struct.iter_unpack("<Q", f.read(ids_size)):
            id_to_type[ident] = st
    single = len(types) == 1
    if not single and not all(st & S_IDENTIFIER for st, _ in types):
        fail(f"{src}: attributes with different sample_type and no IDENTIFIER")
    sample_id_all = all(sia for _, sia in types)
    layouts = {st: time_layout(st) for st, _ in types}

    # Pass 1: record boundaries, chunks, time positions (in 8-byte words from the chunk
    # start: records are 8-byte aligned), records to write once, span.
    frac = factor - int(factor)
    cut = max(1, int(data_size * frac))  # bytes of the partial repetition
    cut_at = None if frac > 0 else 0  # record boundary ending the partial repetition
    chunks = []  # (start, end, time word indexes, once-only (start, end) ranges)
    t_min, t_max = None, 0
    s_max, s_max_cut = 0, 0  # last SAMPLE times, for HEADER_SAMPLE_TIME
    n_samples, n_samples_cut = 0, 0
    f.seek(data_off)
    pos, end = 0, data_size
    buf, buf_start = b"", 0
    chunk_start, words, once = 0, array.array("q"), []
    while pos < end:
        if pos + 8 > buf_start + len(buf):
            f.seek(data_off + pos)
            buf, buf_start = f.read(min(CHUNK, end - pos)), pos
        rtype, _misc, rsize = struct.unpack_from("<IHH", buf, pos - buf_start)
        if rsize < 8 or pos + rsize > end:
            fail(f"{src}: bad record at data offset {pos}")
        if pos + rsize > buf_start + len(buf):
            f.seek(data_off + pos)
            buf, buf_start = f.read(min(max(CHUNK, rsize), end - pos)), pos
        if rtype == REC_COMPRESSED:
            fail(f"{src}: compressed records (recorded with -z)")
        off = pos - buf_start
        if rtype == REC_SAMPLE:
            n_samples += 1
            if cut_at is None:
                n_samples_cut += 1
        tpos = None  # byte offset of the time field within the record
        if rtype < USER_TYPE_START:
            st = None
            if single:
                st = next(iter(types))[0]
            elif rtype == REC_SAMPLE:
                st = id_to_type.get(struct.unpack_from("<Q", buf, off + 8)[0])
            elif sample_id_all:
                st = id_to_type.get(struct.unpack_from("<Q", buf, off + rsize - 8)[0])
            if st is not None:
                in_sample, trailer, in_trailer = layouts[st]
                if in_sample is not None:
                    if rtype == REC_SAMPLE:
                        tpos = 8 + in_sample
                    elif sample_id_all and rsize >= 8 + trailer:
                        tpos = rsize - trailer + in_trailer
        t = struct.unpack_from("<Q", buf, off + tpos)[0] if tpos is not None else 0
        if t:
            t_min = t if t_min is None else min(t_min, t)
            t_max = max(t_max, t)
            if rtype == REC_SAMPLE:
                s_max = max(s_max, t)
                if cut_at is None:  # still inside the partial repetition's prefix
                    s_max_cut = max(s_max_cut, t)
            words.append((pos - chunk_start + tpos) // 8)
        elif rtype != REC_FINISHED_ROUND:
            # Synthesized at record start or perf's own: write once.
            if once and once[-1][1] == pos:
                once[-1] = (once[-1][0], pos + rsize)
            else:
                once.append((pos, pos + rsize))
        pos += rsize
        if cut_at is None and pos >= cut:
            cut_at = pos
        if pos - chunk_start >= CHUNK or pos == end:
            chunks.append((chunk_start, pos, words, once))
            chunk_start, words, once = pos, array.array("q"), []
    if t_min is None:
        fail(f"{src}: no time stamps (sample_type without TIME)")
    span = t_max - t_min + 1

    full = int(factor)
    out = open(dst + ".tmp", "wb")
    out.write(b"\0" * data_off)  # header and attributes: copied at the end
    written = 0

    def write_pass(rep, limit):
        nonlocal written
        shift = rep * span
        for start, stop, wds, once_ranges in chunks:
            if start >= limit:
                break
            f.seek(data_off + start)
            raw = f.read(stop - start)
            if rep:
                if len(raw) % 8 == 0 and wds:
                    a = array.array("Q", raw)
                    if sys.byteorder != "little":
                        a.byteswap()
                    for w in wds:
                        a[w] += shift
                    if sys.byteorder != "little":
                        a.byteswap()
                    raw = a.tobytes()
                elif wds:
                    b = bytearray(raw)
                    for w in wds:
                        struct.pack_into("<Q", b, w * 8, struct.unpack_from("<Q", b, w * 8)[0] + shift)
                    raw = bytes(b)
            # Skip once-only records on repetitions, stop at the cut on the partial one.
            pieces, p = [], 0
            for a0, a1 in (once_ranges if rep else []):
                pieces.append((p, a0 - start))
                p = a1 - start
            pieces.append((p, stop - start))
            for p0, p1 in pieces:
                p1 = min(p1, limit - start)
                if p1 > p0:
                    out.write(raw[p0:p1])
                    written += p1 - p0

    for rep in range(full):
        write_pass(rep, data_size)
    if cut_at:
        write_pass(full, cut_at)
    last_time = max(s_max + (full - 1) * span if full else 0,
                    s_max_cut + full * span if cut_at else 0)

    # Feature sections: the table sits right after the data, each entry's offset moves.
    old_end, new_end = data_off + data_size, data_off + written
    delta = new_end - old_end
    nfeat = bin(features).count("1")
    f.seek(old_end)
    table = bytearray(f.read(16 * nfeat))
    rest = f.read()
    bits = [b for b in range(256) if features >> b & 1]
    sample_time_at = None
    for i, bit in enumerate(bits):
        o, s = struct.unpack_from("<QQ", table, 16 * i)
        if o < old_end:
            fail(f"{src}: feature {bit} lies before the data section end")
        struct.pack_into("<Q", table, 16 * i, o + delta)
        if bit == FEAT_SAMPLE_TIME and s >= 16:
            sample_time_at = o - old_end - 16 * nfeat
    rest = bytearray(rest)
    if sample_time_at is not None:
        struct.pack_into("<Q", rest, sample_time_at + 8, last_time)
    out.write(table)
    out.write(rest)

    # Header and everything before the data (ids, attributes) unchanged but data size.
    f.seek(0)
    head = bytearray(f.read(data_off))
    struct.pack_into("<Q", head, 48, written)
    out.seek(0)
    out.write(head)
    out.close()
    os.replace(dst + ".tmp", dst)
    samples = full * n_samples + (n_samples_cut if cut_at else 0)
    print(f"{dst}: {factor}x of {src}: data {data_size} -> {written} bytes, "
          f"{full} repetitions{' + a prefix' if cut_at else ''}, span {span / 1e9:.3f} s, "
          f"{samples} samples")


if __name__ == "__main__":
    main()
