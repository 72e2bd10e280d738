// jit.c: a tiny "JIT" (x86-64 only). It mmaps an anonymous PROT_EXEC region, emits two
// small loops into it, describes them in /tmp/perf-<pid>.map ("<start> <size> <name>",
// hex) as JITs do for perf, and runs them. The samples in the region resolve only
// through that map file: jit_sum_loop and jit_xorshift_loop.
// Usage: jit [seconds]   (default 0.4). The caller deletes /tmp/perf-<pid>.map.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

// rax = 0; do { rax += rdi; } while (--rdi); return rax;
static const unsigned char kSumLoop[] = {
    0x31, 0xc0,              // xor eax, eax
    0x48, 0x01, 0xf8,        // add rax, rdi      <- loop
    0x48, 0xff, 0xcf,        // dec rdi
    0x75, 0xf8,              // jnz loop
    0xc3,                    // ret
};
// rax = rdi; do { rdx = rax; rdx >>= 13; rax ^= rdx; } while (--rdi); return rax;
static const unsigned char kXorshiftLoop[] = {
    0x48, 0x89, 0xf8,        // mov rax, rdi
    0x48, 0x89, 0xc2,        // mov rdx, rax      <- loop
    0x48, 0xc1, 0xea, 0x0d,  // shr rdx, 13
    0x48, 0x31, 0xd0,        // xor rax, rdx
    0x48, 0xff, 0xcf,        // dec rdi
    0x75, 0xf1,              // jnz loop
    0xc3,                    // ret
};
enum { kXorshiftOffset = 64 };

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char** argv) {
  double seconds = argc > 1 ? atof(argv[1]) : 0.4;
  unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                             MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memcpy(code, kSumLoop, sizeof kSumLoop);
  memcpy(code + kXorshiftOffset, kXorshiftLoop, sizeof kXorshiftLoop);

  char path[64];
  snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
  FILE* map = fopen(path, "w");
  if (!map) return 1;
  fprintf(map, "%lx %zx jit_sum_loop\n", (unsigned long)code, sizeof kSumLoop);
  fprintf(map, "%lx %zx jit_xorshift_loop\n", (unsigned long)(code + kXorshiftOffset),
          sizeof kXorshiftLoop);
  fclose(map);

  unsigned long (*sum)(unsigned long) = (unsigned long (*)(unsigned long))code;
  unsigned long (*xorshift)(unsigned long) =
      (unsigned long (*)(unsigned long))(code + kXorshiftOffset);
  volatile unsigned long sink = 0;
  double start = Now();
  while (Now() - start < seconds) {
    sink += sum(2000000);
    sink += xorshift(1000000);
  }
  printf("jit: %lu\n", (unsigned long)sink);
  return 0;
}
