/* Faults in a global array and in a malloc'd block (page-faults -d: sample addresses in
 * a data symbol and in //anon), writes a few lines (syscalls:sys_enter_write) and
 * sleeps between them (context switches). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char table[64 << 12];

static void __attribute__((noinline)) touch(char *p, size_t n) {
  for (size_t i = 0; i < n; i += 4096) p[i] = (char)i;
}

static void __attribute__((noinline)) say(int i) {
  char line[] = "line 0\n";
  line[5] = (char)('0' + i);
  write(1, line, sizeof line - 1);
}

int main(void) {
  touch(table, sizeof table);
  char *heap = malloc(64 << 12);
  touch(heap, 64 << 12);
  for (int i = 0; i < 4; i++) {
    say(i);
    usleep(2000);
  }
  free(heap);
  return 0;
}
