/* Run-time ISA detection and the CPU's name. */
#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *tally__isa_name(tally__isa isa) {
  static const char *const names[] = {"scalar", "avx2", "avx512"};
  return (unsigned)isa < TALLY__ISA_COUNT_ ? names[isa] : "unknown";
}

int tally__isa_parse(const char *name) {
  for (int i = 0; i < TALLY__ISA_COUNT_; i++)
    if (strcmp(name, tally__isa_name((tally__isa)i)) == 0) return i;
  return -1;
}

tally__isa tally__isa_detect(void) {
#if defined(__x86_64__) && defined(__GNUC__)
  /* __builtin_cpu_supports also checks that the OS saves the wide registers. */
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl") &&
      __builtin_cpu_supports("fma") && __builtin_cpu_supports("f16c") &&
      __builtin_cpu_supports("bmi2"))
    return TALLY__ISA_AVX512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi2"))
    return TALLY__ISA_AVX2;
#endif
  return TALLY__ISA_SCALAR;
}

int tally__cpu_is_amd(void) {
  /* $TALLY_CPU_AMD=0 or 1 takes the other vendor's choices (tests run both on one machine) */
  const char *e = getenv("TALLY_CPU_AMD");
  if (e && (e[0] == '0' || e[0] == '1') && !e[1]) return e[0] == '1';
#if defined(__x86_64__) && defined(__GNUC__)
  __builtin_cpu_init();
  return __builtin_cpu_is("amd");
#else
  return 0;
#endif
}

void tally__cpu_model(char *buf, size_t len) {
  if (!len) return;
  buf[0] = '\0';
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f) return;
  char line[512];
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0) {
      char *colon = strchr(line, ':');
      if (colon) {
        colon++;
        while (*colon == ' ' || *colon == '\t') colon++;
        colon[strcspn(colon, "\n")] = '\0';
        snprintf(buf, len, "%s", colon);
      }
      break;
    }
  }
  fclose(f);
}
