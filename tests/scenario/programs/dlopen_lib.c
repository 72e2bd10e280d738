// dlopen_lib.c: the shared library dlopen_main loads. lib_spin() runs two hot
// functions, lib_crc_step and lib_fib, for the given number of seconds.
#include <time.h>

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((noinline)) unsigned lib_crc_step(unsigned crc, int n) {
  for (int i = 0; i < n; i++) crc = (crc >> 1) ^ (0xEDB88320u & -(crc & 1u));
  return crc;
}

__attribute__((noinline)) long lib_fib(int n) {
  long a = 0, b = 1;
  for (int i = 0; i < n; i++) {
    long t = a + b;
    a = b;
    b = t ^ i;
  }
  return a;
}

double lib_spin(double seconds) {
  double start = Now(), acc = 0;
  while (Now() - start < seconds) {
    acc += lib_crc_step((unsigned)acc + 1, 400000);
    acc += (double)(lib_fib(300000) & 0xff);
  }
  return acc;
}
