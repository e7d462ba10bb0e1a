/* GPU kernel sources (src/gpu/, the shared dialect): the copies built into the library, or
 * $TALLY_KERNEL_DIR's, assembled after a backend's prelude. Shared by CUDA and OpenCL. */
#include "gpu_sources.h"

#include "internal.h"
#include "part.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *tally__gpu_source_text(const char *name, char *why, size_t len) {
  const char *dir = getenv("TALLY_KERNEL_DIR");
  if (dir && *dir) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) {
      snprintf(why, len, "$TALLY_KERNEL_DIR: cannot open %s: %s", path, strerror(errno));
      return NULL;
    }
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = sz >= 0 ? malloc((size_t)sz + 1) : NULL;
    if (!text || fread(text, 1, (size_t)sz, f) != (size_t)sz) {
      snprintf(why, len, "$TALLY_KERNEL_DIR: cannot read %s", path);
      free(text);
      fclose(f);
      return NULL;
    }
    fclose(f);
    text[sz] = '\0';
    return text;
  }
  for (const tally__gpu_source *s = tally__gpu_sources; s->name; s++)
    if (strcmp(s->name, name) == 0) {
      char *t = strdup(s->text);
      if (!t) snprintf(why, len, "out of memory copying kernel source %s", name);
      return t;
    }
  snprintf(why, len, "kernel source %s is not built into this library", name);
  return NULL;
}

char *tally__gpu_assemble(const char *prelude_name, const char *const *srcs, char *why, size_t len) {
  size_t cap = 1 << 16, used = 0;
  char *all = malloc(cap);
  if (!all) { snprintf(why, len, "out of memory"); return NULL; }
  all[0] = '\0';
  const char *prelude[] = {prelude_name, NULL};
  for (int pass = 0; pass < 2; pass++) {
    for (const char *const *n = pass == 0 ? prelude : srcs; *n; n++) {
      char *text = tally__gpu_source_text(*n, why, len);
      if (!text) { free(all); return NULL; }
      size_t need = used + strlen(text) + strlen(*n) + 64;
      if (need > cap) {
        while (cap < need) cap *= 2;
        char *m = realloc(all, cap);
        if (!m) { free(text); free(all); snprintf(why, len, "out of memory"); return NULL; }
        all = m;
      }
      used += (size_t)sprintf(all + used, "#line 1 \"%s\"\n%s\n", *n, text);
      free(text);
    }
  }
  return all;
}


void tally__gpu_defs(const void *problem, int fam_, int contig, int block, char *defs, size_t len) {
  const tally__problem *p = problem;
  tally__family fam = (tally__family)fam_;
  bool is_int = tally__dtype_kind(p->dtype) != TALLY__KIND_FLOAT;
  int two_d = !p->offsets && p->rows > 1;
  snprintf(defs, len,
           "-DDT=%d -DFAM=%d -DIGN=%d -DFAST=%d -DEXACT=%d -DSQUARE=%d -DHAS_Y=%d -DCONTIG=%d "
           "-DTWO_D=%d -DORDERED=%d -DBLOCK=%d",
           (int)p->dtype, (int)fam, p->opt.nan == TALLY_NAN_IGNORE && !is_int,
           /* Flags that change nothing are 0, so that no kernel is compiled twice: FAST
            * matters only for f64 sums and dots (narrower floats are summed in f64 either
            * way), EXACT only for integer sums and dots, SQUARE only for dots. */
           p->opt.accuracy == TALLY_ACCURACY_FAST && p->dtype == TALLY_F64 &&
               (fam == TALLY__FAM_SUM || fam == TALLY__FAM_DOT),
           is_int && (p->op == TALLY_MEAN || p->op == TALLY_NORM2) &&
               (fam == TALLY__FAM_SUM || fam == TALLY__FAM_DOT),
           (p->op == TALLY_SUMSQ || p->op == TALLY_NORM2) && fam == TALLY__FAM_DOT,
           tally__op_binary(p->op), contig, two_d, fam == TALLY__FAM_AFFINE, block);
}

/* The element span [lo, hi] (offsets from element 0, in elements) that input `which`
 * (0: in, 1: in2) of p touches. */
void tally__input_span(const void *problem, int which, int64_t *lo, int64_t *hi) {
  const tally__problem *p = problem;
  int64_t a = 0, b = 0;
#define ADD(count, stride)                                        \
  do {                                                            \
    int64_t e_ = ((count) > 0 ? (count) - 1 : 0) * (stride);      \
    if (e_ < 0) a += e_; else b += e_;                            \
  } while (0)
  if (p->offsets) {
    int64_t o0 = p->offsets[0], o1 = p->offsets[p->nslices];
    int64_t e0 = o0 * p->cstride[which], e1 = (o1 > o0 ? o1 - 1 : o0) * p->cstride[which];
    a = e0 < e1 ? e0 : e1;
    b = e0 < e1 ? e1 : e0;
  } else {
    ADD(p->nslices, p->slice_stride[which]);
    ADD(p->rows, p->rstride[which]);
    ADD(p->cols, p->cstride[which]);
  }
#undef ADD
  *lo = a;
  *hi = b;
}
