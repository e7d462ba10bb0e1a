/* The OpenCL backend's private declarations (issue 4: so far the loader and the kernel
 * build; the backend itself is not yet in the registry). */
#ifndef TALLY_OPENCL_H
#define TALLY_OPENCL_H

#include "cl_api.h"
#include "core/internal.h"

/* Build the dialect sources srcs (NULL-terminated names) with -D definitions defs for
 * device D of platform P. On failure log[] holds the reason or the compiler's log. */
tally_status tally__opencl_build_only(int platform, int device, const char *const *srcs,
                                      const char *defs, char *log, size_t loglen);

#endif
