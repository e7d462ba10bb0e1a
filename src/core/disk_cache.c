/* The disk cache of compiled GPU kernels, shared by the backends: where it lives
 * ($TALLY_CACHE_DIR, "off" to disable; else $XDG_CACHE_HOME/tally; else ~/.cache/tally),
 * whole-file reads, and writes that appear atomically (a temporary file, then rename), so
 * processes filling one cache side by side never see half a file. */
#include "disk_cache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tally__cache_dir(char *dir, size_t len) {
  const char *env = getenv("TALLY_CACHE_DIR");
  if (env && strcmp(env, "off") == 0) return 0;
  if (env && *env) snprintf(dir, len, "%s", env);
  else if (getenv("XDG_CACHE_HOME") && *getenv("XDG_CACHE_HOME"))
    snprintf(dir, len, "%s/tally", getenv("XDG_CACHE_HOME"));
  else if (getenv("HOME") && *getenv("HOME"))
    snprintf(dir, len, "%s/.cache/tally", getenv("HOME"));
  else return 0;
  /* Create the directory (and its parent) if needed; failure just means no disk cache. */
  char parent[1024];
  snprintf(parent, sizeof parent, "%s", dir);
  char *slash = strrchr(parent, '/');
  if (slash && slash != parent) { *slash = '\0'; mkdir(parent, 0700); }
  mkdir(dir, 0700);
  struct stat st;
  return stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
}

void *tally__cache_read(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long sz = ftell(f);
  fseek(f, 0, SEEK_SET);
  void *m = sz > 0 ? malloc((size_t)sz) : NULL;
  if (m && fread(m, 1, (size_t)sz, f) != (size_t)sz) { free(m); m = NULL; }
  fclose(f);
  if (m) *size = (size_t)sz;
  return m;
}

void tally__cache_write(const char *path, const void *data, size_t size) {
  char tmp[1100];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f) return;
  int ok = fwrite(data, 1, size, f) == size;
  ok &= fclose(f) == 0;
  if (ok) rename(tmp, path);
  else remove(tmp);
}

uint64_t tally__fnv1a(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) { h ^= p[i]; h *= 0x100000001b3ULL; }
  return h;
}

