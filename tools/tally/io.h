/* Input readers of the CLI: .npy (mapped), raw binary (mapped) and text/CSV (parsed).
 *
 * Every reader fills an io_data: a 1-D or 2-D array described the way tally_array wants
 * it, plus what must be released afterwards. Readers never print errors: they write one
 * message, starting with the file name, into the caller's buffer and return an exit code
 * (CLI_EXIT_USAGE when the command line is at fault, CLI_EXIT_FAIL otherwise). */
#ifndef TALLY_CLI_IO_H
#define TALLY_CLI_IO_H

#include "tally.h"

#include <stddef.h>
#include <stdint.h>

/* What the command line says about the input. */
typedef struct {
  const char *dtype;  /* --dtype: required for raw input, the parsed type for text; or NULL */
  int has_shape;      /* --shape given */
  int64_t shape[2];   /* --shape R,C (raw input only) */
  const char *column; /* --column: index or header name, or a comma-separated list; or NULL */
} io_options;

typedef struct {
  const char *path;
  tally_dtype dtype;
  int ndim;           /* 1 or 2 */
  int64_t shape[2];   /* shape[1] is 1 for 1-D */
  int64_t strides[2]; /* in elements, as tally_array: {0,0} means contiguous row-major */
  int64_t n;          /* number of elements */
  void *data;         /* element 0 */
  const char *format; /* "npy", "raw" or "text" */
  /* What to release: a mapping of the file, or an owned buffer (converted data). */
  void *map;
  size_t map_size;
  void *buf;
} io_data;

/* Read the file at path; the format is chosen by the file name (.npy; .csv, .txt, .tsv;
 * anything else is raw binary). Returns 0, or an exit code with a message in err. */
int io_load(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize);
/* Release what io_load kept, after success or failure; d may be zero-filled. */
void io_release(io_data *d);

/* ------------------------------------------------------------ shared by the readers */

/* Map a whole regular, non-empty file read-only (and advise sequential access). */
int io_map_file(const char *path, void **map, size_t *size, char *err, size_t errsize);
/* The dtype named by --dtype; errors name the option. */
int io_parse_dtype(const char *name, tally_dtype *t, char *err, size_t errsize);

int io_load_npy(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize);
int io_load_raw(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize);
int io_load_text(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize);

#endif
