// A minimal JIT for x86_64 (PerfAgreement.JitdumpWithoutInject): copies a spin loop
// into anonymous executable memory, writes <dir>/jit-<pid>.dump (header + one
// JIT_CODE_LOAD named "jit_spin_loop", layout in src/symbolize/jitdump.h) and maps
// that file PROT_EXEC once as JIT runtimes do (the marker perf.data records), then runs
// the loop for about 0.3 s. Usage: jitdump_spin DIR
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

// mov ecx, 0x1000000; 1: dec rcx; jnz 1b; ret
static const unsigned char kCode[] = {0xb9, 0x00, 0x00, 0x00, 0x01, 0x48, 0xff, 0xc9, 0x75, 0xfb, 0xc3};

static double Now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void Put(FILE* f, const void* p, size_t n) {
  if (fwrite(p, 1, n, f) != n) exit(3);
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  unsigned char* code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (code == MAP_FAILED) return 1;
  memcpy(code, kCode, sizeof kCode);
  if (mprotect(code, 4096, PROT_READ | PROT_EXEC) != 0) return 1;

  char path[4096];
  snprintf(path, sizeof path, "%s/jit-%d.dump", argv[1], (int)getpid());
  FILE* f = fopen(path, "w+b");
  if (!f) return 1;
  struct {
    uint32_t magic, version, total_size, elf_mach, pad1, pid;
    uint64_t timestamp, flags;
  } header = {0x4A695444, 1, 40, 62, 0, (uint32_t)getpid(), 0, 0};
  Put(f, &header, sizeof header);
  const char name[] = "jit_spin_loop";
  struct {
    uint32_t id, total_size;
    uint64_t timestamp;
    uint32_t pid, tid;
    uint64_t vma, code_addr, code_size, code_index;
  } load = {0, (uint32_t)(56 + sizeof name + sizeof kCode), 0, (uint32_t)getpid(), (uint32_t)getpid(),
            (uint64_t)(uintptr_t)code, (uint64_t)(uintptr_t)code, sizeof kCode, 1};
  Put(f, &load, sizeof load);
  Put(f, name, sizeof name);
  Put(f, kCode, sizeof kCode);
  fflush(f);
  // The marker: one executable mapping of the dump itself.
  void* marker = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fileno(f), 0);
  if (marker == MAP_FAILED) return 1;

  void (*spin)(void) = (void (*)(void))code;
  double end = Now() + 0.3;
  while (Now() < end) spin();
  munmap(marker, 4096);
  fclose(f);
  return 0;
}
