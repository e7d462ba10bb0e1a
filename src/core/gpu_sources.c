/* GPU kernel sources (src/gpu/, the shared dialect): the copies built into the library, or
 * $TALLY_KERNEL_DIR's, assembled after a backend's prelude. Shared by CUDA and OpenCL. */
#include "gpu_sources.h"

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

/* Line `abs` (1-based) of an assembled text as "file:line" in buf, from the #line 1
 * "file" markers tally__gpu_assemble wrote; 0 when it falls before the first marker. */
static int source_line(const char *text, long abs, char *buf, size_t len) {
  const char *file = NULL, *p = text;
  size_t flen = 0;
  long line = 1, marker = 0; /* the assembled line of the last marker */
  for (; *p && line < abs; p++) {
    if (p == text || p[-1] == '\n') {
      if (strncmp(p, "#line 1 \"", 9) == 0) {
        file = p + 9;
        flen = strcspn(file, "\"");
        marker = line;
      }
    }
    if (*p == '\n') line++;
  }
  if (!file || line != abs) return 0;
  snprintf(buf, len, "%.*s:%ld", (int)flen, file, abs - marker);
  return 1;
}

void tally__gpu_map_log(const char *text, char *log, size_t len) {
  static const char *const tags[] = {"<kernel>:", "<source>:", "<stdin>:"};
  char *out = malloc(len);
  if (!out) return;
  size_t o = 0;
  for (const char *p = log; *p && o + 1 < len;) {
    size_t t = 0;
    while (t < sizeof tags / sizeof *tags && strncmp(p, tags[t], strlen(tags[t])) != 0) t++;
    char *end;
    long abs = t < sizeof tags / sizeof *tags ? strtol(p + strlen(tags[t]), &end, 10) : 0;
    char where[160];
    if (abs > 0 && source_line(text, abs, where, sizeof where)) {
      o += (size_t)snprintf(out + o, len - o, "%s", where);
      p = end;
    } else {
      out[o++] = *p++;
    }
  }
  out[o < len ? o : len - 1] = '\0';
  snprintf(log, len, "%s", out);
  free(out);
}

/* Whether defs already holds "-DNAME" (followed by '=', a space or its end). */
static int defines(const char *defs, const char *name, size_t len) {
  for (const char *p = strstr(defs, "-D"); p; p = strstr(p + 2, "-D"))
    if (strncmp(p + 2, name, len) == 0 && (p[2 + len] == '=' || p[2 + len] == ' ' || !p[2 + len]))
      return 1;
  return 0;
}

void tally__gpu_defs_extra(char *defs, size_t cap) {
  const char *more = getenv("TALLY_KERNEL_DEFS");
  if (!more || !*more) return;
  /* Only -DNAME or -DNAME=VALUE words (letters, digits, _ and - in values), and no NAME
   * the plan sets itself: BLOCK, LBINS, MERGE_ATOMIC and the like size the launch and its
   * buffers on the host, so overriding them would write out of bounds, not just time
   * something else. */
  for (const char *p = more; *p;) {
    while (*p == ' ') p++;
    if (!*p) break;
    if (p[0] != '-' || p[1] != 'D') return;
    const char *name = p + 2;
    size_t len = strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
    if (len == 0 || (name[0] >= '0' && name[0] <= '9') || defines(defs, name, len)) return;
    p = name + len;
    if (*p == '=') p += 1 + strspn(p + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-");
    if (*p && *p != ' ') return;
  }
  size_t used = strlen(defs);
  if (used + 1 + strlen(more) < cap) /* whole, or not at all: a cut -D would mislead */
    snprintf(defs + used, cap - used, " %s", more);
}
