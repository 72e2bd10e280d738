#!/bin/sh
# Rebuilds the committed test binaries of tests/symbolize/inline_frames_test.cc (gcc 12.2,
# Debian 12). The expected values in that test were read with
# `eu-addr2line -a -i -f -e BIN ADDR` (elfutils 0.188); rebuild only together with them.
set -e
cd "$(dirname "$0")"
MAP=-fdebug-prefix-map=$PWD=/src/inline
g++ -O2 -g $MAP -Wl,--build-id inline_cxx.cc -o inline_cxx              # DWARF 5 (gcc 12 default)
gcc -O2 -g $MAP -Wl,--build-id inline_c.c -o inline_c_dwarf5
gcc -O2 -gdwarf-4 $MAP -Wl,--build-id inline_c.c -o inline_c_dwarf4
gcc -O2 -Wl,--build-id inline_c.c -o inline_c_nodebug                  # no DWARF at all
