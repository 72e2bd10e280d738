// The program of tiny.data (make_tiny.sh): three frames above main, without frame
// pointers, so only CFI can unwind them.
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) unsigned long leaf(unsigned long x) {
  for (int i = 0; i < 4000; i++) x = x * 6364136223846793005ULL + (unsigned long)i;
  return x;
}
__attribute__((noinline)) unsigned long mid(unsigned long x) { return leaf(x) ^ leaf(x + 1); }
__attribute__((noinline)) unsigned long top(unsigned long x) { return mid(x) + 3; }

int main(void) {
  struct timespec t0, t1;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
  do {
    sink += top(sink);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t1);
  } while ((t1.tv_sec - t0.tv_sec) * 1000000000L + (t1.tv_nsec - t0.tv_nsec) < 20000000L);
  return 0;
}
