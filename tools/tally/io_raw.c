/* Raw binary input: native-endian elements of --dtype, 1-D or (with --shape R,C) row-major
 * 2-D. The file is mapped, not read. */
#include "io.h"

#include "cli.h"

#include <inttypes.h>
#include <stdio.h>

int io_load_raw(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize) {
  if (opt->column) {
    snprintf(err, errsize, "%s: --column applies to text input only", path);
    return CLI_EXIT_USAGE;
  }
  /* The file first: a missing file or a directory is the better message. */
  int rc = io_map_file(path, &d->map, &d->map_size, err, errsize);
  if (rc) return rc;
  if (!opt->dtype) {
    snprintf(err, errsize, "%s: raw binary input needs --dtype (only names ending in .npy, "
             ".csv, .txt or .tsv are read without it)", path);
    return CLI_EXIT_USAGE;
  }
  tally_dtype t;
  if ((rc = io_parse_dtype(opt->dtype, &t, err, errsize))) return rc;

  size_t esize = tally_dtype_size(t);
  if (d->map_size % esize != 0) {
    snprintf(err, errsize, "%s: size %zu bytes is not a multiple of the %zu-byte size of %s",
             path, d->map_size, esize, tally_dtype_name(t));
    return CLI_EXIT_FAIL;
  }
  int64_t n = (int64_t)(d->map_size / esize);
  d->format = "raw";
  d->dtype = t;
  d->data = d->map; /* page-aligned, so aligned for every dtype */
  d->n = n;
  if (opt->has_shape) {
    int64_t want;
    if (__builtin_mul_overflow(opt->shape[0], opt->shape[1], &want) || want != n) {
      snprintf(err, errsize, "%s: --shape %" PRId64 ",%" PRId64 " does not match the file's %"
               PRId64 " elements of %s", path, opt->shape[0], opt->shape[1], n,
               tally_dtype_name(t));
      return CLI_EXIT_FAIL;
    }
    d->ndim = 2;
    d->shape[0] = opt->shape[0];
    d->shape[1] = opt->shape[1];
  } else {
    d->ndim = 1;
    d->shape[0] = n;
    d->shape[1] = 1;
  }
  return 0;
}
