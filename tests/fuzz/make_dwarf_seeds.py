#!/usr/bin/env python3
"""Regenerates tests/fuzz/corpus/dwarf/seeds: small ELF files with DWARF for the dwarf
target (fuzz_entries.h FuzzDwarf), built from the C and C++ sources below with the
system gcc/g++ (-O2 -g, so that functions are inlined into each other), DWARF 4 and 5,
one file with two compile units, one with type units, and zlib/zstd compressed debug
sections (objcopy). Each is linked without libc (-nostdlib -static) and cut down with
`objcopy --only-keep-debug` to the debug sections DwarfIndex reads: 2-5 KB each.
"""
import os, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

C_SRC = r'''
static inline unsigned mix(unsigned x) { return x * 2654435761u ^ (x >> 13); }
static inline unsigned step(unsigned a, unsigned x) { return a + mix(x) * 3; }
__attribute__((noinline)) unsigned sum(const unsigned *v, int n) {
  unsigned a = 0;
  for (int i = 0; i < n; ++i) a = step(a, v[i]);
  return a;
}
int main(int argc, char **argv) {
  unsigned v[4] = {1, 2, 3, (unsigned)argc};
  return (int)sum(v, 4) + (int)step(0, (unsigned)(long)argv);
}
'''

C_SRC2 = r'''
static inline unsigned twice(unsigned x) { return x * 2 + 1; }
__attribute__((noinline)) unsigned other(unsigned x) { return twice(twice(x)) ^ x; }
'''

CXX_SRC = r'''
namespace ns {
template <typename T> struct Acc {
  T total{};
  void add(T x) { total += mix(x); }
  static T mix(T x) { return x * 2654435761u ^ (x >> 13); }
};
}  // namespace ns
template <typename F> __attribute__((noinline)) unsigned apply(F f, const unsigned *v, int n) {
  ns::Acc<unsigned> acc;
  for (int i = 0; i < n; ++i) acc.add(f(v[i]));
  return acc.total;
}
int main(int argc, char **) {
  unsigned v[4] = {1, 2, 3, (unsigned)argc};
  return (int)apply([argc](unsigned x) { return x + argc; }, v, 4);
}
'''

# Sections DwarfIndex never reads (dwarf_index.cc UnreadByTheIndex) and the leftovers.
DROP = ['.comment', '.debug_frame', '.debug_aranges', '.debug_loclists', '.debug_loc']

# name: (sources as (suffix, text), compiler, flags, objcopy compression or None)
SEEDS = {
    'c_dwarf4': ([('c', C_SRC)], 'gcc', ['-gdwarf-4'], None),
    'c_dwarf5': ([('c', C_SRC)], 'gcc', ['-gdwarf-5'], None),
    'c_two_cus_dwarf5': ([('c', C_SRC), ('c', C_SRC2)], 'gcc', ['-gdwarf-5'], None),
    'cxx_dwarf4': ([('cc', CXX_SRC)], 'g++', ['-gdwarf-4'], None),
    'cxx_dwarf5': ([('cc', CXX_SRC)], 'g++', ['-gdwarf-5'], None),
    'cxx_type_units_dwarf4': ([('cc', CXX_SRC)], 'g++', ['-gdwarf-4', '-fdebug-types-section'], None),
    'cxx_dwarf5_zlib': ([('cc', CXX_SRC)], 'g++', ['-gdwarf-5'], 'zlib'),
    'cxx_dwarf5_zstd': ([('cc', CXX_SRC)], 'g++', ['-gdwarf-5'], 'zstd'),
    'c_dwarf4_zlib': ([('c', C_SRC)], 'gcc', ['-gdwarf-4'], 'zlib'),
}


def main():
    out = os.path.join(HERE, 'corpus', 'dwarf', 'seeds')
    os.makedirs(out, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        for name, (sources, cc, flags, compress) in SEEDS.items():
            paths = []
            for i, (suffix, text) in enumerate(sources):
                p = os.path.join(tmp, f'{name}_{i}.{suffix}')
                with open(p, 'w') as f:
                    f.write(text)
                paths.append(p)
            exe = os.path.join(tmp, name)
            # -fdebug-prefix-map: the same bytes whatever the temp dir is called.
            subprocess.run([cc, '-O2', '-g', *flags, '-fno-asynchronous-unwind-tables', '-fno-exceptions',
                            f'-fdebug-prefix-map={tmp}=/src', '-nostdlib', '-static', '-Wl,--build-id=none',
                            '-e', 'main', '-o', exe, *paths], check=True)
            cmd = ['objcopy', '--only-keep-debug']
            for s in DROP:
                cmd += ['-R', s]
            if compress:
                cmd.append(f'--compress-debug-sections={compress}')
            subprocess.run(cmd + [exe, os.path.join(out, name)], check=True)
            print(name, os.path.getsize(os.path.join(out, name)))


if __name__ == '__main__':
    sys.exit(main())
