/* Choosing a reader by file name, mapping files, and releasing what readers keep. */
#include "io.h"

#include "cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int ends_with(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && strcasecmp(s + n - m, suffix) == 0;
}

int io_load(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize) {
  memset(d, 0, sizeof *d);
  d->path = path;
  if (ends_with(path, ".npy")) return io_load_npy(path, opt, d, err, errsize);
  if (ends_with(path, ".csv") || ends_with(path, ".txt") || ends_with(path, ".tsv"))
    return io_load_text(path, opt, d, err, errsize);
  return io_load_raw(path, opt, d, err, errsize);
}

void io_release(io_data *d) {
  if (d->map) munmap(d->map, d->map_size);
  free(d->buf);
  d->map = NULL;
  d->buf = NULL;
  d->data = NULL;
}

int io_map_file(const char *path, void **map, size_t *size, char *err, size_t errsize) {
  *map = NULL;
  *size = 0;
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, errsize, "%s: %s", path, strerror(errno));
    return CLI_EXIT_FAIL;
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    snprintf(err, errsize, "%s: %s", path, strerror(errno));
    close(fd);
    return CLI_EXIT_FAIL;
  }
  const char *bad = S_ISDIR(st.st_mode) ? "is a directory"
                    : !S_ISREG(st.st_mode) ? "is not a regular file (pipes and devices cannot be mapped)"
                    : st.st_size == 0     ? "the file is empty"
                                          : NULL;
  if (bad) {
    snprintf(err, errsize, "%s: %s", path, bad);
    close(fd);
    return CLI_EXIT_FAIL;
  }
  void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  int e = errno;
  close(fd);
  if (p == MAP_FAILED) {
    snprintf(err, errsize, "%s: cannot map the file: %s", path, strerror(e));
    return CLI_EXIT_FAIL;
  }
  /* Reductions and parsing both read the file front to back, once. */
  madvise(p, (size_t)st.st_size, MADV_SEQUENTIAL);
  *map = p;
  *size = (size_t)st.st_size;
  return 0;
}

int io_parse_dtype(const char *name, tally_dtype *t, char *err, size_t errsize) {
  if (tally_dtype_from_name(name, t) != TALLY_OK) {
    snprintf(err, errsize, "--dtype %s: unknown dtype (known: bool, i8, i16, i32, i64, u8, "
             "u16, u32, u64, f16, bf16, f32, f64)", name);
    return CLI_EXIT_USAGE;
  }
  return 0;
}
