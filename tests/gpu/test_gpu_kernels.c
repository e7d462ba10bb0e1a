/* test_gpu_kernels: kernel sources from $TALLY_KERNEL_DIR, a kernel that fails to compile,
 * and the kernel cache on disk.
 *
 *  1. control: a copy of the real sources (src/gpu, copied from the source tree) in
 *     TALLY_KERNEL_DIR, cache off: a reduction works and is exact;
 *  2. broken: the same copy with a syntax error appended at a known line to the source of
 *     the default SUM kernel (reduce.clh, else reduce_best.clh, else the first
 *     reduce*.clh): the reduction (or the open, if the backend compiles there) fails with
 *     TALLY_ECOMPILE, and tally_errmsg holds the NVRTC log: "error", the file's name and
 *     the line; a second call on the same context fails the same way;
 *  3. TALLY_KERNEL_DIR unset: a new context works again (the built-in sources);
 *  4. the disk cache in a private TALLY_CACHE_DIR: the first context writes entries, a
 *     second context works from them, a third works after every entry was overwritten
 *     with garbage (a corrupt entry is recompiled, never trusted), and a kernel source
 *     changed after it was cached is compiled again (the key hashes the source): the
 *     broken source still fails with the cache on.
 *
 * Exit 0: passed; 1: failures; 77: no CUDA device here (skipped). */
#include <dirent.h>
#include <ftw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gpu_util.h"

#ifndef TALLY_SOURCE_DIR
#error "TALLY_SOURCE_DIR (the source tree) must be defined by the build"
#endif

enum { N = 100003 };
static float data[N];

/* Copy every regular file of src into dst (created). 0 on success. */
static int copy_dir(const char *src, const char *dst, int *nfiles) {
  DIR *d = opendir(src);
  if (!d) return -1;
  if (mkdir(dst, 0700) != 0) {
    closedir(d);
    return -1;
  }
  struct dirent *e;
  int rc = 0;
  *nfiles = 0;
  while ((e = readdir(d)) != NULL) {
    char from[4600], to[4600];
    snprintf(from, sizeof from, "%s/%s", src, e->d_name);
    snprintf(to, sizeof to, "%s/%s", dst, e->d_name);
    struct stat st;
    if (stat(from, &st) != 0 || !S_ISREG(st.st_mode)) continue;
    size_t len;
    char *buf = tg_read_file(from, &len);
    if (!buf || tg_write_file(to, buf, len) != 0) rc = -1;
    free(buf);
    ++*nfiles;
  }
  closedir(d);
  return rc;
}

static int rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)sb, (void)flag, (void)ftw;
  return remove(path);
}
static void rm_tree(const char *path) { nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

/* The cache: count regular files, or overwrite each with garbage of its own length. */
static int cache_files, cache_garbled;
static int count_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)path, (void)ftw;
  if (flag == FTW_F && S_ISREG(sb->st_mode)) cache_files++;
  return 0;
}
static int garble_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw) {
  (void)ftw;
  if (flag != FTW_F || !S_ISREG(sb->st_mode)) return 0;
  size_t len = sb->st_size > 0 ? (size_t)sb->st_size : 64;
  char *junk = malloc(len);
  if (!junk) return 0;
  for (size_t i = 0; i < len; i++) junk[i] = (char)(i * 131 + 7);
  if (tg_write_file(path, junk, len) == 0) cache_garbled++;
  free(junk);
  return 0;
}

/* Open cuda:0 and sum `data`: the status, with the message in msg. */
static tally_status open_and_sum(char *msg, size_t len, int twice) {
  tally_context *ctx;
  msg[0] = 0;
  tally_status s = tally_open("cuda:0", &ctx);
  if (s != TALLY_OK) {
    snprintf(msg, len, "%s", tally_errmsg(NULL));
    return s;
  }
  float sum = -1;
  tally_array in = tally_array_1d(data, TALLY_F32, N), out = tally_array_1d(&sum, TALLY_F32, 1);
  /* on the GPU, whatever the host (AUTO would reduce a host array on the host's CPU, with no
   * kernel compiled: this test's first version did so from 2026-11-26, unnoticed a day) */
  tally_options opt;
  tally_options_init(&opt);
  opt.host_input = TALLY_HOST_INPUT_DEVICE;
  s = tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &opt);
  if (s == TALLY_OK) {
    double want = 0;
    for (int i = 0; i < N; i++) want += data[i];
    TG_CHECK(sum == (float)want, "SUM: %.9g, expected %.9g", sum, want);
  } else {
    snprintf(msg, len, "%s", tally_errmsg(ctx));
  }
  if (twice && s != TALLY_OK) { /* the same context again: the same failure, no crash */
    tally_status s2 = tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, &opt);
    TG_CHECK(s2 == s, "a second reduce on the same context: %s, the first gave %s",
             tally_status_name(s2), tally_status_name(s));
  }
  tally_close(ctx);
  return s;
}

/* Does the message name file and line, as NVRTC writes it (file(line)) or as file:line? */
static int names_line(const char *msg, const char *file, int line) {
  char a[128], b[128], c[128];
  snprintf(a, sizeof a, "%s(%d)", file, line);
  snprintf(b, sizeof b, "%s:%d", file, line);
  snprintf(c, sizeof c, "%s\", line %d", file, line);
  return strstr(msg, a) || strstr(msg, b) || strstr(msg, c);
}

/* The file to break: reduce.clh, else reduce_best.clh, else the first reduce*.clh. */
static char victim[256];
static int pick_victim(const char *dir) {
  const char *pref[] = {"reduce.clh", "reduce_best.clh"};
  char path[4600];
  struct stat st;
  for (int i = 0; i < 2; i++) {
    snprintf(path, sizeof path, "%s/%s", dir, pref[i]);
    if (stat(path, &st) == 0) {
      snprintf(victim, sizeof victim, "%s", pref[i]);
      return 0;
    }
  }
  DIR *d = opendir(dir);
  struct dirent *e;
  victim[0] = 0;
  while (d && (e = readdir(d)) != NULL) {
    size_t l = strlen(e->d_name);
    if (strncmp(e->d_name, "reduce", 6) == 0 && l > 4 && strcmp(e->d_name + l - 4, ".clh") == 0 &&
        (!victim[0] || strcmp(e->d_name, victim) < 0))
      snprintf(victim, sizeof victim, "%s", e->d_name);
  }
  if (d) closedir(d);
  return victim[0] ? 0 : -1;
}

/* Write dir/<victim> as the original with a syntax error appended; its line number. */
static int break_reduce(const char *dir) {
  char path[4600];
  snprintf(path, sizeof path, "%s/%s", dir, victim);
  size_t len;
  char *orig = tg_read_file(path, &len);
  if (!orig) return -1;
  int line = 1;
  for (size_t i = 0; i < len; i++) line += orig[i] == '\n';
  const char *nl = len && orig[len - 1] != '\n' ? "\n" : "";
  if (*nl) line++;
  const char *bad = "int tally_test_broken_on_purpose = ;\n";
  char *buf = malloc(len + 2 + strlen(bad));
  if (!buf) {
    free(orig);
    return -1;
  }
  snprintf(buf, len + 2 + strlen(bad), "%s%s%s", orig, nl, bad);
  int rc = tg_write_file(path, buf, strlen(buf));
  free(orig);
  free(buf);
  return rc == 0 ? line : -1;
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  tally_context *probe;
  int rc = tg_open("cuda:0", &probe);
  if (rc) return rc;
  tally_close(probe);
  for (int i = 0; i < N; i++) data[i] = (float)(i % 13) * 0.5f + 0.25f;

  const char *src = TALLY_SOURCE_DIR "/src/gpu";
  const char *tmp = getenv("TMPDIR");
  char root[4096], good[4200], bad[4200], cache[4200], stale[4200], msg[2048];
  snprintf(root, sizeof root, "%s/tally-kernels-XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(root)) {
    printf("FAIL: mkdtemp(%s)\n", root);
    return 1;
  }
  snprintf(good, sizeof good, "%s/good", root);
  snprintf(bad, sizeof bad, "%s/bad", root);
  snprintf(stale, sizeof stale, "%s/stale", root);
  snprintf(cache, sizeof cache, "%s/cache", root);
  int nfiles = 0;
  if (copy_dir(src, good, &nfiles) != 0 || nfiles == 0 || copy_dir(src, bad, &nfiles) != 0 ||
      copy_dir(src, stale, &nfiles) != 0) {
    printf("FAIL: cannot copy the kernel sources from %s to %s\n", src, root);
    rm_tree(root);
    return 1;
  }
  printf("kernel sources: %d files from %s\n", nfiles, src);
  if (pick_victim(good) != 0) {
    printf("FAIL: %s has no reduce*.clh to break\n", src);
    rm_tree(root);
    return 1;
  }
  int line = break_reduce(bad);
  TG_CHECK(line > 0, "cannot write a broken %s/%s", bad, victim);

  /* 1. The copy compiles. */
  setenv("TALLY_CACHE_DIR", "off", 1);
  setenv("TALLY_KERNEL_DIR", good, 1);
  tally_status s = open_and_sum(msg, sizeof msg, 0);
  TG_CHECK(s == TALLY_OK, "control: kernels from a copy of %s: %s: %s", src, tally_status_name(s), msg);

  /* 2. The broken copy reports the compiler's log. */
  if (line > 0) {
    setenv("TALLY_KERNEL_DIR", bad, 1);
    s = open_and_sum(msg, sizeof msg, 1);
    printf("broken %s (error at line %d): %s\n--- message ---\n%s\n---------------\n", victim, line,
           tally_status_name(s), msg);
    TG_CHECK(s == TALLY_ECOMPILE, "broken %s: %s, expected TALLY_ECOMPILE", victim, tally_status_name(s));
    TG_CHECK(strstr(msg, "error") != NULL, "the message does not contain the compiler's \"error\"");
    TG_CHECK(strstr(msg, victim) != NULL, "the message does not name %s", victim);
    TG_CHECK(names_line(msg, victim, line), "the message does not name %s line %d", victim, line);
  }

  /* 3. The built-in sources again. */
  unsetenv("TALLY_KERNEL_DIR");
  s = open_and_sum(msg, sizeof msg, 0);
  TG_CHECK(s == TALLY_OK, "TALLY_KERNEL_DIR unset: %s: %s", tally_status_name(s), msg);

  /* 4. The disk cache. */
  setenv("TALLY_CACHE_DIR", cache, 1);
  s = open_and_sum(msg, sizeof msg, 0);
  TG_CHECK(s == TALLY_OK, "cache, first context: %s: %s", tally_status_name(s), msg);
  cache_files = 0;
  nftw(cache, count_one, 16, FTW_PHYS);
  printf("cache %s: %d files after the first context\n", cache, cache_files);
  TG_CHECK(cache_files > 0, "TALLY_CACHE_DIR=%s: no file written", cache);
  s = open_and_sum(msg, sizeof msg, 0);
  TG_CHECK(s == TALLY_OK, "cache, second context (from the cache): %s: %s", tally_status_name(s), msg);
  cache_garbled = 0;
  nftw(cache, garble_one, 16, FTW_PHYS);
  s = open_and_sum(msg, sizeof msg, 0);
  TG_CHECK(s == TALLY_OK, "cache with %d entries overwritten by garbage: %s: %s", cache_garbled,
           tally_status_name(s), msg);
  if (line > 0) {
    setenv("TALLY_KERNEL_DIR", stale, 1);
    s = open_and_sum(msg, sizeof msg, 0);
    TG_CHECK(s == TALLY_OK, "cache, sources from %s: %s: %s", stale, tally_status_name(s), msg);
    TG_CHECK(break_reduce(stale) == line, "cannot break %s/%s", stale, victim);
    s = open_and_sum(msg, sizeof msg, 0);
    TG_CHECK(s == TALLY_ECOMPILE,
             "%s broken after its kernels were cached: %s, expected TALLY_ECOMPILE (a stale "
             "cache entry was used: the key must hash the source)",
             victim, tally_status_name(s));
    unsetenv("TALLY_KERNEL_DIR");
  }

  rm_tree(root);
  return tg_done("test_gpu_kernels");
}
