/* Output files of the CLI (io_write.c): .npy arrays and PNG images. Both return 0, or -1
 * with a message starting with the path in err. */
#ifndef TALLY_CLI_IO_WRITE_H
#define TALLY_CLI_IO_WRITE_H

#include "tally.h"

#include <stddef.h>
#include <stdint.h>

/* A 1-D or 2-D C-order array of dtype t (bf16 has no numpy dtype: convert it first). */
int io_write_npy(const char *path, tally_dtype t, int ndim, const int64_t *shape,
                 const void *data, char *err, size_t errsize);
/* An 8-bit RGB image of w x h pixels, rows top to bottom. */
int io_write_png(const char *path, int w, int h, const unsigned char *rgb, char *err,
                 size_t errsize);

#endif
