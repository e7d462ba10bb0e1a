/* Shared pieces of the GPU tests: opening the CUDA device (exit 77 where it cannot be
 * opened), the CUDA driver API loaded with dlopen (never linked: the build must work
 * without libcuda), and a check macro that counts failures. Public API only. */
#ifndef TG_GPU_UTIL_H
#define TG_GPU_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "tally.h"

#define TG_SKIP 77

/* ---------------------------------------------------------------- checks */

extern int tg_checks, tg_failures;

#define TG_CHECK(cond, ...)                              \
  do {                                                   \
    tg_checks++;                                         \
    if (!(cond)) {                                       \
      tg_failures++;                                     \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);        \
      printf(__VA_ARGS__);                               \
      printf("\n");                                      \
      fflush(stdout);                                    \
    }                                                    \
  } while (0)

/* Print PASSED/FAILED with the counts; the exit status (0 or 1). */
int tg_done(const char *name);

/* ---------------------------------------------------------------- the device */

/* Open `device` ("cuda", "cuda:0"). On TALLY_EDRIVER, TALLY_ENODEV or TALLY_EUNSUPPORTED
 * print "SKIP: ..." and return TG_SKIP; on any other failure print FAIL and return 1;
 * on success return 0. */
int tg_open(const char *device, tally_context **ctx);

/* ---------------------------------------------------------------- the driver API */

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef unsigned long long CUdeviceptr;

typedef struct {
  void *lib;
  CUresult (*Init)(unsigned flags);
  CUresult (*DeviceGet)(CUdevice *dev, int ordinal);
  CUresult (*DevicePrimaryCtxRetain)(CUcontext *ctx, CUdevice dev);
  CUresult (*DevicePrimaryCtxRelease)(CUdevice dev);
  CUresult (*CtxPushCurrent)(CUcontext ctx);
  CUresult (*CtxPopCurrent)(CUcontext *ctx);
  CUresult (*CtxGetCurrent)(CUcontext *ctx);
  CUresult (*CtxSynchronize)(void);
  CUresult (*MemAlloc)(CUdeviceptr *p, size_t bytes);
  CUresult (*MemFree)(CUdeviceptr p);
  CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void *src, size_t bytes);
  CUresult (*MemcpyDtoH)(void *dst, CUdeviceptr src, size_t bytes);
  CUresult (*MemGetInfo)(size_t *free_bytes, size_t *total_bytes);
  CUresult (*GetErrorName)(CUresult r, const char **name);
} tg_cu;

/* dlopen libcuda.so.1 and resolve the entry points above, then cuInit(0). Returns 0, or
 * -1 with a message in why[]. */
int tg_cu_load(tg_cu *cu, char *why, size_t why_size);
/* "CUDA_ERROR_OUT_OF_MEMORY (2)" for r (a static buffer per call site is not needed:
 * the name is the driver's own string, or "CUresult N"). */
const char *tg_cu_name(const tg_cu *cu, CUresult r);

/* Fill p with `n` bytes of the pattern 0xA5 ("poison"). */
void tg_poison(void *p, size_t n);

/* Read a whole file into a malloc'd, NUL-terminated buffer; NULL on failure. */
char *tg_read_file(const char *path, size_t *len);
/* Write len bytes to path; 0 on success. */
int tg_write_file(const char *path, const void *data, size_t len);

#endif
