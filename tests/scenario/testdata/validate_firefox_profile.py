#!/usr/bin/python3
"""Structural check of a Firefox Profiler processed profile, version 49 (the shape
src/export/firefox.h documents, from the profiler's src/types/profile.js at that
version): what the profiler indexes without checking.

Usage: validate_firefox_profile.py PROFILE
Exit 0 printing "valid: N samples in T threads" (N sums the weights when a thread has
them); 1 and the problems otherwise. Checks: the top level, meta and categories (a grey
one must exist); per thread every table's columns have `length` entries; every index is
in range (stack prefix below its own index or null, stack frame, frame func, func name
and resource, resource lib and name, sample stack, category and subcategory); sample
times are numbers, non-decreasing; strings are strings; pid is a string.
"""
import json
import sys

TABLES = {
    "samples": ["stack", "time"],
    "stackTable": ["prefix", "frame", "category", "subcategory"],
    "frameTable": ["address", "inlineDepth", "category", "subcategory", "func", "nativeSymbol",
                   "innerWindowID", "implementation", "line", "column"],
    "funcTable": ["name", "isJS", "relevantForJS", "resource", "fileName", "lineNumber", "columnNumber"],
    "resourceTable": ["lib", "name", "host", "type"],
    "nativeSymbols": ["libIndex", "address", "name", "functionSize"],
    "markers": ["data", "name", "startTime", "endTime", "phase", "category"],
}
THREAD_FIELDS = ["name", "pid", "tid", "processType", "processStartupTime", "registerTime", "pausedRanges",
                 "isMainThread", "stringArray"] + list(TABLES)


def is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def is_number(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def check(profile):
    problems = []

    def expect(cond, msg):
        if not cond:
            problems.append(msg)
        return cond

    for key in ("meta", "libs", "threads"):
        if not expect(key in profile, f"no top-level {key}"):
            return problems, 0
    meta = profile["meta"]
    expect(meta.get("preprocessedProfileVersion") == 49, "meta.preprocessedProfileVersion is not 49")
    for key in ("interval", "startTime", "version", "processType", "product", "markerSchema", "categories"):
        expect(key in meta, f"no meta.{key}")
    expect(is_number(meta.get("interval")) and meta.get("interval", 0) > 0, "meta.interval is not a positive number")
    categories = meta.get("categories", [])
    for c in categories:
        expect(isinstance(c.get("name"), str) and isinstance(c.get("color"), str)
               and isinstance(c.get("subcategories"), list) and len(c["subcategories"]) >= 1,
               f"bad category {c}")
    expect(any(c.get("color") == "grey" for c in categories), "no grey category (the default one)")
    nr_libs = len(profile["libs"])
    for lib in profile["libs"]:
        for key in ("name", "path", "debugName", "debugPath", "breakpadId"):
            expect(isinstance(lib.get(key), str), f"lib without string {key}")

    def category_ok(cat, sub, nullable):
        if cat is None:
            return nullable and sub is None
        return (is_int(cat) and 0 <= cat < len(categories) and
                (sub is None and nullable or is_int(sub) and 0 <= sub < len(categories[cat]["subcategories"])))

    total = 0
    for ti, t in enumerate(profile["threads"]):
        where = f"thread {ti}"
        missing = [k for k in THREAD_FIELDS if k not in t]
        if not expect(not missing, f"{where}: no {missing}"):
            continue
        expect(isinstance(t["pid"], str), f"{where}: pid is not a string")
        expect(is_int(t["tid"]) or isinstance(t["tid"], str), f"{where}: tid is not a number or string")
        strings = t["stringArray"]
        expect(all(isinstance(s, str) for s in strings), f"{where}: stringArray holds a non-string")
        ok = True
        for table, columns in TABLES.items():
            tab = t[table]
            n = tab.get("length")
            if not expect(is_int(n) and n >= 0, f"{where}.{table}: bad length {n!r}"):
                ok = False
                continue
            for col in columns:
                ok &= expect(isinstance(tab.get(col), list) and len(tab[col]) == n,
                             f"{where}.{table}.{col}: not {n} entries")
            for col, values in tab.items():
                if isinstance(values, list):
                    ok &= expect(len(values) == n, f"{where}.{table}.{col}: {len(values)} entries, length {n}")
        if not ok:
            continue
        st, ft, fn, rt, sm = t["stackTable"], t["frameTable"], t["funcTable"], t["resourceTable"], t["samples"]
        for i in range(st["length"]):
            p = st["prefix"][i]
            expect(p is None or is_int(p) and 0 <= p < i, f"{where}: stack {i} prefix {p!r}")
            f = st["frame"][i]
            expect(is_int(f) and 0 <= f < ft["length"], f"{where}: stack {i} frame {f!r}")
            expect(category_ok(st["category"][i], st["subcategory"][i], False), f"{where}: stack {i} category")
        for i in range(ft["length"]):
            f = ft["func"][i]
            expect(is_int(f) and 0 <= f < fn["length"], f"{where}: frame {i} func {f!r}")
            expect(category_ok(ft["category"][i], ft["subcategory"][i], True), f"{where}: frame {i} category")
            a = ft["address"][i]
            expect(is_int(a) and a >= -1, f"{where}: frame {i} address {a!r}")
        for i in range(fn["length"]):
            s = fn["name"][i]
            expect(is_int(s) and 0 <= s < len(strings), f"{where}: func {i} name {s!r}")
            r = fn["resource"][i]
            expect(is_int(r) and -1 <= r < rt["length"], f"{where}: func {i} resource {r!r}")
            expect(isinstance(fn["isJS"][i], bool) and isinstance(fn["relevantForJS"][i], bool),
                   f"{where}: func {i} isJS/relevantForJS not booleans")
        for i in range(rt["length"]):
            lib = rt["lib"][i]
            expect(lib is None or is_int(lib) and 0 <= lib < nr_libs, f"{where}: resource {i} lib {lib!r}")
            s = rt["name"][i]
            expect(is_int(s) and 0 <= s < len(strings), f"{where}: resource {i} name {s!r}")
        last = None
        for i in range(sm["length"]):
            s = sm["stack"][i]
            expect(s is None or is_int(s) and 0 <= s < st["length"], f"{where}: sample {i} stack {s!r}")
            tm = sm["time"][i]
            if expect(is_number(tm), f"{where}: sample {i} time {tm!r}"):
                expect(last is None or tm >= last, f"{where}: sample {i} time {tm} before {last}")
                last = tm
        weight = sm.get("weight")
        if weight is None:
            total += sm["length"]
        elif expect(isinstance(weight, list) and all(is_number(w) for w in weight), f"{where}: bad weight column"):
            total += sum(weight)
    return problems, total


def main():
    try:
        with open(sys.argv[1], encoding="utf-8", errors="strict") as f:
            profile = json.load(f)
    except ValueError as e:
        print(f"invalid JSON: {e}", file=sys.stderr)
        return 1
    problems, total = check(profile)
    if problems:
        for p in problems[:50]:
            print(p, file=sys.stderr)
        return 1
    print(f"valid: {total} samples in {len(profile['threads'])} threads")
    return 0


if __name__ == "__main__":
    sys.exit(main())
