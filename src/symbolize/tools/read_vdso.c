/* perflens-read-vdso32 / perflens-read-vdsox32: built with -m32 / -mx32, writes this
 * process's [vdso] image (the r-xp "[vdso]" line of /proc/self/maps) to stdout, so that
 * a 64-bit perflens can read the compat vdso (perf's perf-read-vdso.c does the same).
 * Exit status: 0 on success, 1 when no [vdso] is mapped, 2 on a write error. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int find_vdso(unsigned long *start, unsigned long *end) {
  FILE *maps = fopen("/proc/self/maps", "r");
  char line[512];
  int found = 0;
  if (maps == NULL) return 0;
  while (!found && fgets(line, sizeof(line), maps) != NULL) {
    char perms[8] = "";
    size_t len = strlen(line);
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ' ')) line[--len] = '\0';
    if (sscanf(line, "%lx-%lx %7s", start, end, perms) != 3) continue;
    if (len >= 6 && strcmp(line + len - 6, "[vdso]") == 0 && strncmp(perms, "r-x", 3) == 0) found = 1;
  }
  fclose(maps);
  return found && *end > *start;
}

int main(void) {
  unsigned long start = 0, end = 0;
  const char *p;
  size_t left;
  if (!find_vdso(&start, &end)) {
    fprintf(stderr, "no [vdso] in /proc/self/maps\n");
    return 1;
  }
  p = (const char *)start;
  left = end - start;
  while (left > 0) {
    ssize_t n = write(STDOUT_FILENO, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return 2;
    p += n;
    left -= (size_t)n;
  }
  return 0;
}
