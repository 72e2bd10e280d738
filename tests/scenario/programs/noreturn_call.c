// A call that is the last instruction of its function: ends_with_call() calls the
// noreturn spin_and_exit(), so its return address is the first byte of next_function(),
// which never runs. Built with -falign-functions=1 -fno-reorder-functions so that
// next_function() follows ends_with_call() directly (no padding between them).
#include <stdlib.h>
#include <unistd.h>

volatile unsigned long sink;

__attribute__((noinline, noreturn)) void spin_and_exit(unsigned long n) {
  for (unsigned long i = 0; i < n; ++i) sink += i;
  _exit(0);
}

__attribute__((noinline)) void ends_with_call(unsigned long n) {
  sink += 1;
  spin_and_exit(n);
}

__attribute__((noinline)) void next_function(void) { sink += 2; }

int main(int argc, char** argv) {
  unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 10) : 300000000UL;
  if (argc > 2) next_function();
  ends_with_call(n);
}
