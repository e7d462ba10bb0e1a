/* .npy input (format versions 1, 2 and 3): the header is a Python dict literal
 *   {'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }
 * followed by the data. The data stays in the mapped file; only byte-swapped (big-endian)
 * or misaligned data is copied. Fortran order becomes strides {1, rows}: no copy. */
#include "io.h"

#include "cli.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* A cursor over the header text; errors record what was expected and where. */
typedef struct {
  const char *start, *p, *end;
  const char *what; /* first error, or NULL */
  size_t at;
} cursor;

static int fail(cursor *c, const char *what) {
  if (!c->what) {
    c->what = what;
    c->at = (size_t)(c->p - c->start);
  }
  return -1;
}

static void skip_ws(cursor *c) {
  while (c->p < c->end && isspace((unsigned char)*c->p)) c->p++;
}

static int accept(cursor *c, char ch) {
  skip_ws(c);
  if (c->p < c->end && *c->p == ch) { c->p++; return 1; }
  return 0;
}

/* A quoted Python string without escapes (keys and dtype strings never need them). */
static int parse_string(cursor *c, char *out, size_t size) {
  skip_ws(c);
  if (c->p >= c->end || (*c->p != '\'' && *c->p != '"')) return fail(c, "expected a quoted string");
  char q = *c->p++;
  size_t n = 0;
  while (c->p < c->end && *c->p != q) {
    if (n + 1 >= size) return fail(c, "string too long");
    out[n++] = *c->p++;
  }
  if (c->p >= c->end) return fail(c, "unterminated string");
  c->p++;
  out[n] = '\0';
  return 0;
}

static int parse_bool(cursor *c, int *out) {
  skip_ws(c);
  size_t left = (size_t)(c->end - c->p);
  if (left >= 4 && memcmp(c->p, "True", 4) == 0) { *out = 1; c->p += 4; return 0; }
  if (left >= 5 && memcmp(c->p, "False", 5) == 0) { *out = 0; c->p += 5; return 0; }
  return fail(c, "expected True or False");
}

/* (), (n,), (r, c), ...: up to 8 dimensions are parsed; more than 2 are refused later. */
static int parse_shape(cursor *c, int64_t *dims, int *ndim) {
  *ndim = 0;
  if (!accept(c, '(')) return fail(c, "expected '(' to start the shape");
  for (;;) {
    if (accept(c, ')')) return 0;
    skip_ws(c);
    if (c->p >= c->end || !isdigit((unsigned char)*c->p)) return fail(c, "expected a dimension");
    int64_t v = 0;
    while (c->p < c->end && isdigit((unsigned char)*c->p)) {
      if (v > (INT64_MAX - 9) / 10) return fail(c, "dimension too large");
      v = v * 10 + (*c->p++ - '0');
    }
    if (c->p < c->end && *c->p == 'L') c->p++; /* Python 2 longs: (3L,) */
    if (*ndim >= 8) return fail(c, "too many dimensions");
    dims[(*ndim)++] = v;
    if (accept(c, ',')) continue;
    if (accept(c, ')')) return 0;
    return fail(c, "expected ',' or ')' in the shape");
  }
}

/* Skip a value we do not use, up to the ',' or '}' that ends it at nesting depth 0. */
static int skip_value(cursor *c) {
  int depth = 0;
  while (c->p < c->end) {
    char ch = *c->p;
    if (ch == '\'' || ch == '"') {
      char tmp[256];
      if (parse_string(c, tmp, sizeof tmp)) return -1;
      continue;
    }
    if (ch == '(' || ch == '[' || ch == '{') depth++;
    else if (ch == ')' || ch == ']' || ch == '}') {
      if (depth == 0) return 0;
      depth--;
    } else if (ch == ',' && depth == 0) return 0;
    c->p++;
  }
  return fail(c, "unterminated value");
}

typedef struct {
  char descr[64];
  int structured; /* descr was a list of fields */
  int fortran;
  int64_t dims[8];
  int ndim;
} npy_header;

static int parse_header(cursor *c, npy_header *h) {
  int seen_descr = 0, seen_fortran = 0, seen_shape = 0;
  if (!accept(c, '{')) return fail(c, "expected '{'");
  for (;;) {
    if (accept(c, '}')) break;
    char key[64];
    if (parse_string(c, key, sizeof key)) return -1;
    if (!accept(c, ':')) return fail(c, "expected ':' after a key");
    if (strcmp(key, "descr") == 0) {
      skip_ws(c);
      if (c->p < c->end && *c->p == '[') {
        h->structured = 1;
        if (skip_value(c)) return -1;
      } else if (parse_string(c, h->descr, sizeof h->descr)) {
        return -1;
      }
      seen_descr = 1;
    } else if (strcmp(key, "fortran_order") == 0) {
      if (parse_bool(c, &h->fortran)) return -1;
      seen_fortran = 1;
    } else if (strcmp(key, "shape") == 0) {
      if (parse_shape(c, h->dims, &h->ndim)) return -1;
      seen_shape = 1;
    } else if (skip_value(c)) {
      return -1;
    }
    if (accept(c, ',')) continue;
    if (accept(c, '}')) break;
    return fail(c, "expected ',' or '}' after a value");
  }
  if (!seen_descr) return fail(c, "no 'descr' key");
  if (!seen_fortran) return fail(c, "no 'fortran_order' key");
  if (!seen_shape) return fail(c, "no 'shape' key");
  return 0;
}

static const char *kind_name(char kind) {
  switch (kind) {
  case 'c': return "complex";
  case 'O': return "Python objects";
  case 'S': case 'a': return "byte strings";
  case 'U': return "unicode strings";
  case 'V': return "raw bytes or structured";
  case 'M': return "datetime";
  case 'm': return "timedelta";
  case 'f': return "float of this size";
  case 'b': case 'i': case 'u': return "integer of this size";
  default: return "unknown kind";
  }
}

/* The tally dtype of a descr like '<f8'; *swap set when the bytes must be reversed. */
static int map_descr(const char *descr, tally_dtype *t, int *swap) {
  const uint16_t one = 1;
  const int host_little = *(const uint8_t *)&one == 1;
  const char *s = descr;
  char order = '=';
  if (*s == '<' || *s == '>' || *s == '|' || *s == '=') order = *s++;
  char kind = *s ? *s++ : '\0';
  char *end;
  long size = strtol(s, &end, 10);
  if (s == end || *end) return -1;
  static const struct { char kind; long size; tally_dtype t; } table[] = {
      {'b', 1, TALLY_BOOL}, {'i', 1, TALLY_I8},  {'i', 2, TALLY_I16}, {'i', 4, TALLY_I32},
      {'i', 8, TALLY_I64},  {'u', 1, TALLY_U8},  {'u', 2, TALLY_U16}, {'u', 4, TALLY_U32},
      {'u', 8, TALLY_U64},  {'f', 2, TALLY_F16}, {'f', 4, TALLY_F32}, {'f', 8, TALLY_F64},
  };
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    if (table[i].kind == kind && table[i].size == size) {
      *t = table[i].t;
      *swap = size > 1 && ((order == '>' && host_little) || (order == '<' && !host_little));
      return 0;
    }
  }
  return -1;
}

static void swap_copy(void *dst, const void *src, int64_t n, size_t esize) {
  const uint8_t *s = src;
  uint8_t *d = dst;
  for (int64_t i = 0; i < n; i++, s += esize, d += esize)
    for (size_t b = 0; b < esize; b++) d[b] = s[esize - 1 - b];
}

static void shape_text(char *buf, size_t size, const npy_header *h) {
  size_t k = (size_t)snprintf(buf, size, "(");
  for (int i = 0; i < h->ndim && k < size; i++)
    k += (size_t)snprintf(buf + k, size - k, "%s%" PRId64, i ? ", " : "", h->dims[i]);
  if (k < size) snprintf(buf + k, size - k, h->ndim == 1 ? ",)" : ")");
}

int io_load_npy(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize) {
  if (opt->has_shape || opt->column) {
    snprintf(err, errsize, "%s: %s does not apply to .npy input (the file has its own shape)",
             path, opt->has_shape ? "--shape" : "--column");
    return CLI_EXIT_USAGE;
  }
  int rc = io_map_file(path, &d->map, &d->map_size, err, errsize);
  if (rc) return rc;
  const uint8_t *m = d->map;
  size_t size = d->map_size;
  if (size < 10 || memcmp(m, "\x93NUMPY", 6) != 0) {
    snprintf(err, errsize, "%s: not a .npy file (the magic string \\x93NUMPY is missing)", path);
    return CLI_EXIT_FAIL;
  }
  int major = m[6], minor = m[7];
  size_t hstart, hlen;
  if (major == 1) {
    hstart = 10;
    hlen = (size_t)m[8] | (size_t)m[9] << 8;
  } else if (major == 2 || major == 3) {
    if (size < 12) {
      snprintf(err, errsize, "%s: truncated .npy file (%zu bytes, no room for the header length)",
               path, size);
      return CLI_EXIT_FAIL;
    }
    hstart = 12;
    hlen = (size_t)m[8] | (size_t)m[9] << 8 | (size_t)m[10] << 16 | (size_t)m[11] << 24;
  } else {
    snprintf(err, errsize, "%s: .npy format version %d.%d is not supported (1.0, 2.0, 3.0 are)",
             path, major, minor);
    return CLI_EXIT_FAIL;
  }
  if (hlen > size - hstart) {
    snprintf(err, errsize, "%s: truncated .npy file: the header says %zu bytes, the file has %zu "
             "after the preamble", path, hlen, size - hstart);
    return CLI_EXIT_FAIL;
  }

  npy_header h;
  memset(&h, 0, sizeof h);
  cursor c = {(const char *)m + hstart, (const char *)m + hstart, (const char *)m + hstart + hlen,
              NULL, 0};
  if (parse_header(&c, &h)) {
    snprintf(err, errsize, "%s: bad .npy header: %s at byte %zu of the header", path, c.what,
             c.at);
    return CLI_EXIT_FAIL;
  }
  if (h.structured) {
    snprintf(err, errsize, "%s: structured dtype (a list of fields) is not supported", path);
    return CLI_EXIT_FAIL;
  }
  tally_dtype t;
  int swap;
  if (map_descr(h.descr, &t, &swap)) {
    const char *k = h.descr;
    if (*k == '<' || *k == '>' || *k == '|' || *k == '=') k++;
    snprintf(err, errsize, "%s: dtype '%s' (%s) is not supported (supported: b1, i1, i2, i4, i8, "
             "u1, u2, u4, u8, f2, f4, f8)", path, h.descr, kind_name(*k));
    return CLI_EXIT_FAIL;
  }
  char shape[160];
  shape_text(shape, sizeof shape, &h);
  if (h.ndim > 2) {
    snprintf(err, errsize, "%s: %d-D arrays are not supported (shape %s): 1-D and 2-D are", path,
             h.ndim, shape);
    return CLI_EXIT_FAIL;
  }
  if (opt->dtype) {
    tally_dtype want;
    if ((rc = io_parse_dtype(opt->dtype, &want, err, errsize))) return rc;
    if (want != t) {
      snprintf(err, errsize, "%s: --dtype %s, but the file holds %s ('%s'); --dtype is for raw "
               "and text input", path, opt->dtype, tally_dtype_name(t), h.descr);
      return CLI_EXIT_USAGE;
    }
  }

  size_t esize = tally_dtype_size(t);
  int64_t rows = h.ndim >= 1 ? h.dims[0] : 1; /* shape () is one scalar */
  int64_t cols = h.ndim == 2 ? h.dims[1] : 1;
  int64_t n, need;
  if (__builtin_mul_overflow(rows, cols, &n) || __builtin_mul_overflow(n, (int64_t)esize, &need)) {
    snprintf(err, errsize, "%s: shape %s is too large", path, shape);
    return CLI_EXIT_FAIL;
  }
  size_t offset = hstart + hlen;
  if ((uint64_t)need > size - offset) {
    snprintf(err, errsize, "%s: truncated .npy file: shape %s of '%s' needs %" PRId64
             " bytes of data, the file has %zu", path, shape, h.descr, need, size - offset);
    return CLI_EXIT_FAIL;
  }

  d->format = "npy";
  d->dtype = t;
  d->n = n;
  d->ndim = h.ndim == 2 ? 2 : 1;
  d->shape[0] = d->ndim == 2 ? rows : n;
  d->shape[1] = d->ndim == 2 ? cols : 1;
  if (d->ndim == 2 && h.fortran) {
    d->strides[0] = 1;
    d->strides[1] = rows;
  }
  const uint8_t *src = m + offset;
  if (swap || offset % esize != 0) {
    /* Big-endian data is converted, and misaligned data (hand-made headers) moved, into
     * an owned buffer of the same layout. */
    d->buf = malloc(need ? (size_t)need : 1);
    if (!d->buf) {
      snprintf(err, errsize, "%s: out of memory converting %" PRId64 " bytes", path, need);
      return CLI_EXIT_FAIL;
    }
    if (swap) swap_copy(d->buf, src, n, esize);
    else memcpy(d->buf, src, (size_t)need);
    munmap(d->map, d->map_size);
    d->map = NULL;
    d->data = d->buf;
  } else {
    d->data = (void *)src;
  }
  return 0;
}
