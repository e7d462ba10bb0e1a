/* The sanitizer build (TALLY_TEST_SANITIZED, set per test target by CMake) leaves OpenCL
 * to the plain build: the device compiler (PoCL's LLVM) runs inside the process and is not
 * ours to sanitize. */
#ifndef TALLY_TEST_SANITIZED_H
#define TALLY_TEST_SANITIZED_H

#include <stdio.h>
#include <string.h>

/* 1 (after a SKIP line) when `device` is OpenCL and this is the sanitizer build. */
static inline int tt_skip_sanitized_opencl(const char *device) {
#ifdef TALLY_TEST_SANITIZED
  if (strncmp(device, "opencl", 6) == 0) {
    printf("SKIP: the sanitizer build leaves OpenCL to the plain build (the device compiler "
           "runs inside the process and is not ours to sanitize)\n");
    return 1;
  }
#endif
  (void)device;
  return 0;
}

#endif
