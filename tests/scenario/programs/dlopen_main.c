// dlopen_main.c: loads the shared library named by argv[1] with dlopen and spends
// its time in the library's lib_spin() (found with dlsym).
// Usage: dlopen_main ./libspin.so [seconds]
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  void* lib = dlopen(argv[1], RTLD_NOW);
  if (!lib) {
    fprintf(stderr, "dlopen: %s\n", dlerror());
    return 1;
  }
  double (*spin)(double) = (double (*)(double))dlsym(lib, "lib_spin");
  if (!spin) return 1;
  double r = spin(argc > 2 ? atof(argv[2]) : 0.4);
  printf("dlopen_main: %g\n", r);
  dlclose(lib);
  return 0;
}
