/* The CUB peer's runner; see cub_peer.h. */
#include "cub_peer.h"

#include "subproc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void cub_peer_find(cub_peer *p) {
  memset(p, 0, sizeof *p);
  const char *env = getenv("TALLY_CUB_PEER");
  if (env && *env) {
    snprintf(p->path, sizeof p->path, "%s", env);
    if (access(p->path, X_OK) == 0) p->present = 1;
    else snprintf(p->why, sizeof p->why, "TALLY_CUB_PEER=%.200s: not an executable file", env);
    return;
  }
  char self[1000];
  ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
  if (len > 0) {
    self[len] = 0;
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = 0;
      snprintf(p->path, sizeof p->path, "%s/cub_peer", self);
      if (access(p->path, X_OK) == 0) {
        p->present = 1;
        return;
      }
    }
  }
#ifdef TALLY_CUB_PEER_PATH
  snprintf(p->path, sizeof p->path, "%s", TALLY_CUB_PEER_PATH);
  if (access(p->path, X_OK) == 0) {
    p->present = 1;
    return;
  }
#endif
  p->path[0] = 0;
  snprintf(p->why, sizeof p->why,
           "cub_peer not found (it is built where CMake finds nvcc; or set TALLY_CUB_PEER)");
}

int cub_peer_supported(tally_op op, tally_dtype t) {
  int op_ok = op == TALLY_SUM || op == TALLY_MIN || op == TALLY_MAX || op == TALLY_ARGMIN ||
              op == TALLY_ARGMAX;
  int t_ok = t == TALLY_F32 || t == TALLY_F64 || t == TALLY_I32 || t == TALLY_I64;
  return op_ok && t_ok;
}

/* "1024,2048,..." into a new string, or NULL. */
static char *size_list(const int64_t *sizes, int nsizes) {
  size_t cap = (size_t)nsizes * 24 + 1, len = 0;
  char *list = malloc(cap);
  if (!list) return NULL;
  list[0] = 0;
  for (int i = 0; i < nsizes; i++)
    len += (size_t)snprintf(list + len, cap - len, "%s%" PRId64, i ? "," : "", sizes[i]);
  return list;
}

static void read_point(const char *line, cub_point *pt) {
  double v;
  if (bench_json_number(line, "median_call_us", &v) == 0) pt->call_us = v;
  if (bench_json_number(line, "median_kernel_us", &v) == 0) pt->kernel_us = v;
  if (bench_json_text(line, "result", pt->result, sizeof pt->result) != 0) pt->result[0] = 0;
  char idx[32];
  if (bench_json_text(line, "index", idx, sizeof idx) == 0) pt->index = strtoll(idx, NULL, 10);
  if (bench_json_string(line, "device", pt->device, sizeof pt->device) != 0) pt->device[0] = 0;
  if (bench_json_string(line, "cub_version", pt->version, sizeof pt->version) != 0)
    pt->version[0] = 0;
}

int cub_peer_run(const cub_peer *p, cub_mode mode, tally_op op, tally_dtype t,
                 const int64_t *sizes, int nsizes, int reps, uint64_t seed,
                 int64_t flush_bytes, int device, cub_point *out, char *why, size_t whysize) {
  for (int i = 0; i < nsizes; i++) {
    memset(&out[i], 0, sizeof out[i]);
    out[i].call_us = out[i].kernel_us = -1;
    out[i].index = -1;
  }
  snprintf(why, whysize, "%s", p->present ? "it could not be started" : p->why);
  if (!p->present) return -1;
  char *list = size_list(sizes, nsizes);
  if (!list) return -1;
  char reps_s[32], seed_s[32], dev_s[32], flush_s[32];
  snprintf(reps_s, sizeof reps_s, "%d", reps);
  snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
  snprintf(dev_s, sizeof dev_s, "%d", device);
  snprintf(flush_s, sizeof flush_s, "%" PRId64, flush_bytes);
  char *argv[24];
  int k = 0;
  argv[k++] = (char *)p->path;
  if (mode == CUB_REDUCE || mode == CUB_SCAN || mode == CUB_HIST || mode == CUB_HIST_SKEW) {
    if (mode == CUB_HIST || mode == CUB_HIST_SKEW) {
      argv[k++] = "--hist";
      if (mode == CUB_HIST_SKEW) argv[k++] = "--skew";
    } else if (mode == CUB_SCAN) {
      argv[k++] = "--scan";
      argv[k++] = "--op";
      argv[k++] = (char *)tally_op_name(op);
    } else {
      argv[k++] = "--op";
      argv[k++] = (char *)tally_op_name(op);
    }
    argv[k++] = "--dtype";
    argv[k++] = (char *)tally_dtype_name(t);
  } else {
    argv[k++] = mode == CUB_PROBE ? "--probe" : mode == CUB_H2D ? "--h2d" : "--copy";
    argv[k++] = "--dtype";
    argv[k++] = "u8"; /* sizes are bytes */
  }
  argv[k++] = "--sizes";
  argv[k++] = list;
  argv[k++] = "--reps";
  argv[k++] = reps_s;
  argv[k++] = "--seed";
  argv[k++] = seed_s;
  argv[k++] = "--device";
  argv[k++] = dev_s;
  if (flush_bytes >= 0) {
    argv[k++] = "--flush-bytes";
    argv[k++] = flush_s;
  }
  argv[k++] = "--json";
  argv[k] = NULL;
  pid_t pid;
  FILE *f = bench_spawn(argv, BENCH_STDERR_MERGE, &pid);
  free(list);
  if (!f) return -1;
  char *line = NULL;
  size_t lcap = 0;
  why[0] = 0;
  while (getline(&line, &lcap, f) > 0) {
    line[strcspn(line, "\r\n")] = 0;
    double n;
    if (line[0] != '{' || bench_json_number(line, "n", &n) != 0) {
      if (line[0]) snprintf(why, whysize, "%s", line); /* its complaint */
      continue;
    }
    for (int i = 0; i < nsizes; i++)
      if ((double)sizes[i] == n && out[i].call_us < 0) read_point(line, &out[i]);
  }
  free(line);
  fclose(f);
  int rc = bench_reap(pid);
  if (rc != 0 && !why[0]) snprintf(why, whysize, "%.200s exited with status %d", p->path, rc);
  return rc;
}

void cub_peer_check(cub_peer *p, int device, const char *expect) {
  if (!p->present) return;
  int64_t size = 16;
  cub_point pt;
  char why[256];
  int rc = cub_peer_run(p, CUB_PROBE, TALLY_SUM, TALLY_U8, &size, 1, 1, 1, 0, device, &pt, why,
                        sizeof why);
  if (rc != 0 || pt.call_us < 0) {
    p->present = 0;
    snprintf(p->why, sizeof p->why, "%s", rc == 0 ? "cub_peer printed no figure" : why);
  } else if (expect && strcmp(pt.device, expect) != 0) {
    p->present = 0;
    snprintf(p->why, sizeof p->why, "cub_peer sees %.100s as CUDA device %d, not %.100s",
             pt.device, device, expect);
  }
  snprintf(p->device, sizeof p->device, "%s", pt.device);
  snprintf(p->version, sizeof p->version, "%s", pt.version);
}
