/* Text input (.csv, .txt, .tsv): one row of numbers per line.
 *
 * The delimiter is taken from the first line that holds anything: a tab if it has one
 * (or the name ends in .tsv), else a semicolon, else a comma, else runs of blanks; a line
 * of numbers aligned with both tabs and spaces is split at runs of blanks. That first
 * line is a header only if none of its fields is a number. Empty lines and lines starting
 * with '#' are skipped; a field may be wrapped in double quotes (no delimiters inside
 * them). Every row must have as many fields as the first line; only the selected columns
 * are parsed. One selected column gives a 1-D array, several give a row-major 2-D array
 * [rows, columns]. Integer dtypes are parsed exactly. */
#include "io.h"

#include "cli.h"
#include "progress.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

typedef struct {
  const char *p, *end;
  char delim; /* ',', ';', '\t', or ' ' for runs of blanks */
  int done;
} field_iter;

static int is_blank(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

/* The next field of a line: [*fs, *fe), trimmed of blanks. Returns 0 at the end. */
static int next_field(field_iter *it, const char **fs, const char **fe) {
  if (it->done) return 0;
  const char *p = it->p;
  if (it->delim == ' ') {
    while (p < it->end && is_blank(*p)) p++;
    if (p == it->end) { it->done = 1; return 0; }
    *fs = p;
    while (p < it->end && !is_blank(*p)) p++;
    *fe = p;
    it->p = p;
    return 1;
  }
  const char *q = memchr(p, it->delim, (size_t)(it->end - p));
  if (!q) { q = it->end; it->done = 1; }
  it->p = q + (q < it->end);
  while (p < q && is_blank(*p)) p++;
  while (q > p && is_blank(q[-1])) q--;
  *fs = p;
  *fe = q;
  return 1;
}

static void strip_quotes(const char **fs, const char **fe) {
  if (*fe - *fs >= 2 && **fs == '"' && (*fe)[-1] == '"') { (*fs)++; (*fe)--; }
}

/* A NUL-terminated copy of a field: in a small buffer, or on the heap when long. */
typedef struct { char small[128]; char *heap; const char *s; } field_text;

static const char *field_str(field_text *ft, const char *fs, const char *fe) {
  size_t n = (size_t)(fe - fs);
  char *dst = ft->small;
  if (n >= sizeof ft->small) {
    free(ft->heap);
    ft->heap = malloc(n + 1);
    if (!ft->heap) return NULL;
    dst = ft->heap;
  }
  memcpy(dst, fs, n);
  dst[n] = '\0';
  ft->s = dst;
  return dst;
}

static int parses_as_double(const char *s) {
  char *end;
  if (!*s) return 0;
  (void)strtod(s, &end);
  return *end == '\0';
}

static int all_digits(const char *s, const char *e) {
  if (s == e) return 0;
  for (; s < e; s++)
    if (!isdigit((unsigned char)*s)) return 0;
  return 1;
}

/* Parse s as dtype t into out; NULL on success, else why not (after the quoted field). */
static const char *parse_value(const char *s, tally_dtype t, void *out) {
  char *end;
  errno = 0;
  switch (t) {
  case TALLY_F64: {
    double v = strtod(s, &end);
    if (end == s || *end) return "is not a number";
    memcpy(out, &v, 8);
    return NULL;
  }
  case TALLY_F32: case TALLY_F16: case TALLY_BF16: {
    /* f16/bf16 go through f32: a double rounding, off only for decimal strings that fall
     * within 2^-13 of an ulp of an f16 halfway point. */
    float v = strtof(s, &end);
    if (end == s || *end) return "is not a number";
    if (t == TALLY_F32) memcpy(out, &v, 4);
    else {
      uint16_t h = t == TALLY_F16 ? tally_f32_to_f16(v) : tally_f32_to_bf16(v);
      memcpy(out, &h, 2);
    }
    return NULL;
  }
  case TALLY_BOOL: {
    static const char *const no[] = {"0", "false", "False", "FALSE"};
    static const char *const yes[] = {"1", "true", "True", "TRUE"};
    for (int i = 0; i < 4; i++) {
      if (strcmp(s, no[i]) == 0) { *(uint8_t *)out = 0; return NULL; }
      if (strcmp(s, yes[i]) == 0) { *(uint8_t *)out = 1; return NULL; }
    }
    return parses_as_double(s) ? "is not a bool (0, 1, true or false)" : "is not a number";
  }
  case TALLY_I8: case TALLY_I16: case TALLY_I32: case TALLY_I64: {
    long long v = strtoll(s, &end, 10);
    if (end == s || *end) return parses_as_double(s) ? "is not an integer" : "is not a number";
    int bits = (int)tally_dtype_size(t) * 8;
    long long hi = bits == 64 ? INT64_MAX : (1LL << (bits - 1)) - 1, lo = -hi - 1;
    if (errno == ERANGE || v < lo || v > hi) return "is out of range";
    if (bits == 8) *(int8_t *)out = (int8_t)v;
    else if (bits == 16) { int16_t x = (int16_t)v; memcpy(out, &x, 2); }
    else if (bits == 32) { int32_t x = (int32_t)v; memcpy(out, &x, 4); }
    else { int64_t x = v; memcpy(out, &x, 8); }
    return NULL;
  }
  default: { /* unsigned */
    const char *digits = s + (*s == '+');
    if (!isdigit((unsigned char)*digits)) {
      /* strtoull would accept "-5" and wrap it: negative numbers are out of range. */
      if (*s == '-' && strtoll(s, &end, 10) && *end == '\0') return "is out of range";
      return parses_as_double(s) ? "is not an integer" : "is not a number";
    }
    unsigned long long v = strtoull(s, &end, 10);
    if (*end) return parses_as_double(s) ? "is not an integer" : "is not a number";
    int bits = (int)tally_dtype_size(t) * 8;
    unsigned long long hi = bits == 64 ? UINT64_MAX : (1ULL << bits) - 1;
    if (errno == ERANGE || v > hi) return "is out of range";
    if (bits == 8) *(uint8_t *)out = (uint8_t)v;
    else if (bits == 16) { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); }
    else if (bits == 32) { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); }
    else { uint64_t x = v; memcpy(out, &x, 8); }
    return NULL;
  }
  }
}

/* 1-based character column of position p in the line starting at ls (UTF-8 aware). */
static long char_column(const char *ls, const char *p) {
  long col = 1;
  for (; ls < p; ls++)
    if (((unsigned char)*ls & 0xc0) != 0x80) col++;
  return col;
}

/* A line: [s, e), without its newline (and carriage return). */
typedef struct {
  const char *s, *e, *next;
  long number;
} line;

static void first_line(line *l, const char *start) { l->next = start; l->number = 0; }

/* Advance to the next line holding data (skipping empty and '#' lines); 0 at the end. */
static int next_line(line *l, const char *end) {
  while (l->next < end) {
    const char *s = l->next;
    const char *nl = memchr(s, '\n', (size_t)(end - s));
    const char *e = nl ? nl : end;
    l->next = nl ? nl + 1 : end;
    l->number++;
    if (e > s && e[-1] == '\r') e--;
    const char *q = s;
    while (q < e && is_blank(*q)) q++;
    if (q == e || *q == '#') continue;
    l->s = s;
    l->e = e;
    return 1;
  }
  return 0;
}

typedef struct {
  const char *path;
  char *err;
  size_t errsize;
  char delim;
  int ncols;             /* fields on the first line */
  int has_header;
  const char **name_s;   /* header names, when has_header */
  const char **name_e;
  int *outpos;           /* per file column: position among the selected, or -1 */
  int nsel;
} text_state;

/* Resolve --column (an index, a header name, or a comma-separated list of those). */
static int select_columns(text_state *st, const char *spec) {
  st->outpos = malloc((size_t)st->ncols * sizeof *st->outpos);
  if (!st->outpos) {
    snprintf(st->err, st->errsize, "%s: out of memory", st->path);
    return CLI_EXIT_FAIL;
  }
  for (int j = 0; j < st->ncols; j++) st->outpos[j] = spec ? -1 : j;
  st->nsel = spec ? 0 : st->ncols;
  if (!spec) return 0;
  const char *p = spec;
  for (;;) {
    const char *q = strchr(p, ',');
    if (!q) q = p + strlen(p);
    int len = (int)(q - p);
    int col = -1;
    if (all_digits(p, q)) {
      long long v = strtoll(p, NULL, 10);
      if (v >= st->ncols) {
        snprintf(st->err, st->errsize, "%s: --column %.*s: the file has %d column%s (0..%d)",
                 st->path, len, p, st->ncols, st->ncols == 1 ? "" : "s", st->ncols - 1);
        return CLI_EXIT_FAIL;
      }
      col = (int)v;
    } else if (!st->has_header) {
      snprintf(st->err, st->errsize, "%s: --column %.*s: the file has no header line to name "
               "columns (give a 0-based index)", st->path, len, p);
      return CLI_EXIT_FAIL;
    } else {
      for (int j = 0; j < st->ncols && col < 0; j++)
        if (st->name_e[j] - st->name_s[j] == len && memcmp(st->name_s[j], p, (size_t)len) == 0)
          col = j;
      if (col < 0) {
        int k = snprintf(st->err, st->errsize, "%s: --column %.*s: no such column (columns:",
                         st->path, len, p);
        for (int j = 0; j < st->ncols && k > 0 && (size_t)k < st->errsize; j++)
          k += snprintf(st->err + k, st->errsize - (size_t)k, "%s %.*s", j ? "," : "",
                        (int)(st->name_e[j] - st->name_s[j]), st->name_s[j]);
        if (k > 0 && (size_t)k < st->errsize) snprintf(st->err + k, st->errsize - (size_t)k, ")");
        return CLI_EXIT_FAIL;
      }
    }
    if (st->outpos[col] >= 0) {
      snprintf(st->err, st->errsize, "%s: --column %s: column %d is selected twice", st->path,
               spec, col);
      return CLI_EXIT_USAGE;
    }
    st->outpos[col] = st->nsel++;
    if (!*q) break;
    p = q + 1;
  }
  return 0;
}

/* A field that counts as a value on the first line: a number, or a bool word for bool. */
static int is_value(field_text *ft, const char *fs, const char *fe, tally_dtype t) {
  const char *s = field_str(ft, fs, fe);
  if (!s) return 0;
  uint8_t b;
  return parses_as_double(s) || (t == TALLY_BOOL && !parse_value(s, t, &b));
}

/* Tabs delimit, unless the line is numbers aligned with a mix of tabs and spaces
 * ("1   2<TAB>3"): then any run of blanks does. */
static char tab_or_blanks(const line *l, tally_dtype t) {
  field_iter it = {l->s, l->e, '\t', 0};
  const char *fs, *fe;
  int inner_blank = 0;
  while (next_field(&it, &fs, &fe))
    for (const char *q = fs; q < fe; q++) inner_blank |= *q == ' ';
  if (!inner_blank) return '\t';
  field_iter ws = {l->s, l->e, ' ', 0};
  field_text ft = {.heap = NULL};
  int all_values = 1;
  while (all_values && next_field(&ws, &fs, &fe)) all_values = is_value(&ft, fs, fe, t);
  free(ft.heap);
  return all_values ? ' ' : '\t';
}

/* Look at the first line: delimiter, number of fields, header names. */
static int read_first_line(text_state *st, const line *l, int tsv, tally_dtype t) {
  size_t len = (size_t)(l->e - l->s);
  st->delim = ' ';
  if (tsv) st->delim = '\t';
  else if (memchr(l->s, '\t', len)) st->delim = tab_or_blanks(l, t);
  else if (memchr(l->s, ';', len)) st->delim = ';';
  else if (memchr(l->s, ',', len)) st->delim = ',';

  field_iter it = {l->s, l->e, st->delim, 0};
  const char *fs, *fe;
  int n = 0, numeric = 0, cap = 0;
  field_text ft = {.heap = NULL};
  while (next_field(&it, &fs, &fe)) {
    strip_quotes(&fs, &fe);
    if (n == cap) {
      cap = cap ? 2 * cap : 16;
      const char **ns = realloc(st->name_s, (size_t)cap * sizeof *ns);
      if (ns) st->name_s = ns;
      const char **ne = realloc(st->name_e, (size_t)cap * sizeof *ne);
      if (ne) st->name_e = ne;
      if (!ns || !ne) {
        free(ft.heap);
        snprintf(st->err, st->errsize, "%s: out of memory", st->path);
        return CLI_EXIT_FAIL;
      }
    }
    st->name_s[n] = fs;
    st->name_e[n] = fe;
    n++;
    if (is_value(&ft, fs, fe, t)) numeric = 1;
  }
  free(ft.heap);
  st->ncols = n;
  st->has_header = !numeric;
  return 0;
}

static int bad_field(text_state *st, const line *l, const char *fs, const char *fe,
                     const char *why, tally_dtype t) {
  int len = (int)(fe - fs), show = len > 60 ? 60 : len;
  int range = strcmp(why, "is out of range") == 0;
  snprintf(st->err, st->errsize, "%s:%ld:%ld: '%.*s%s' %s%s%s", st->path, l->number,
           char_column(l->s, fs), show, fs, len > show ? "..." : "", why, range ? " for " : "",
           range ? tally_dtype_name(t) : "");
  return CLI_EXIT_FAIL;
}

int io_load_text(const char *path, const io_options *opt, io_data *d, char *err, size_t errsize) {
  if (opt->has_shape) {
    snprintf(err, errsize, "%s: --shape applies to raw binary input only (text rows give the "
             "shape)", path);
    return CLI_EXIT_USAGE;
  }
  tally_dtype t = TALLY_F64;
  int rc;
  if (opt->dtype && (rc = io_parse_dtype(opt->dtype, &t, err, errsize))) return rc;
  void *map;
  size_t size;
  if ((rc = io_map_file(path, &map, &size, err, errsize))) return rc;

  const char *start = map, *end = start + size;
  if (size >= 3 && memcmp(start, "\xef\xbb\xbf", 3) == 0) start += 3; /* UTF-8 byte order mark */
  size_t plen = strlen(path);
  int tsv = plen >= 4 && strcasecmp(path + plen - 4, ".tsv") == 0;

  text_state st = {path, err, errsize, ' ', 0, 0, NULL, NULL, NULL, 0};
  line l, first;
  first_line(&l, start);
  progress pg;
  progress_start(&pg, "parsing", (int64_t)size, PROGRESS_PARSE_BYTES);
  char *out = NULL;
  size_t esize = tally_dtype_size(t), cap = 0, rows = 0;
  field_text ft = {.heap = NULL};

  if (!next_line(&l, end)) {
    snprintf(err, errsize, "%s: no data (only empty lines or comments)", path);
    rc = CLI_EXIT_FAIL;
    goto done;
  }
  first = l;
  if ((rc = read_first_line(&st, &l, tsv, t))) goto done;
  if ((rc = select_columns(&st, opt->column))) goto done;
  if (st.has_header && !next_line(&l, end)) {
    snprintf(err, errsize, "%s: no data after the header line", path);
    rc = CLI_EXIT_FAIL;
    goto done;
  }

  size_t row_bytes = (size_t)st.nsel * esize;
  const char *next_report = l.s;
  do {
    if (rows == cap) {
      cap = cap ? cap * 2 : 4096;
      char *grown = realloc(out, cap * row_bytes);
      if (!grown) {
        snprintf(err, errsize, "%s: out of memory after %zu rows", path, rows);
        rc = CLI_EXIT_FAIL;
        goto done;
      }
      out = grown;
    }
    char *row = out + rows * row_bytes;
    field_iter it = {l.s, l.e, st.delim, 0};
    const char *fs, *fe;
    int j = 0;
    while (next_field(&it, &fs, &fe)) {
      if (j < st.ncols && st.outpos[j] >= 0) {
        strip_quotes(&fs, &fe);
        const char *s = field_str(&ft, fs, fe);
        if (!s) {
          snprintf(err, errsize, "%s: out of memory", path);
          rc = CLI_EXIT_FAIL;
          goto done;
        }
        const char *why = parse_value(s, t, row + (size_t)st.outpos[j] * esize);
        if (why) { rc = bad_field(&st, &l, fs, fe, why, t); goto done; }
      }
      j++;
    }
    if (j != st.ncols) {
      snprintf(err, errsize, "%s:%ld: %d field%s, but line %ld has %d", path, l.number, j,
               j == 1 ? "" : "s", first.number, st.ncols);
      rc = CLI_EXIT_FAIL;
      goto done;
    }
    rows++;
    if (l.s >= next_report) { /* about every MiB */
      progress_update(l.s - (const char *)map, (int64_t)size, &pg);
      next_report = l.s + (1 << 20);
    }
  } while (next_line(&l, end));

  d->format = "text";
  d->dtype = t;
  d->buf = out;
  d->data = out;
  d->n = (int64_t)rows * st.nsel;
  d->ndim = st.nsel == 1 ? 1 : 2;
  d->shape[0] = (int64_t)rows;
  d->shape[1] = st.nsel;
  out = NULL;
  rc = 0;

done:
  progress_finish(&pg);
  free(ft.heap);
  free(out);
  free(st.name_s);
  free(st.name_e);
  free(st.outpos);
  munmap(map, size);
  return rc;
}
