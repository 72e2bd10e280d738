/* lost_events fixture: faults 2048 pages, one sample each, into a one-page buffer. */
#include <stdlib.h>
int main(void) { size_t n = 8 << 20; char *p = malloc(n); for (size_t i = 0; i < n; i += 4096) p[i] = 1; return p[4096] - 1; }
