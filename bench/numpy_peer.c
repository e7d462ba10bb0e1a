/* The numpy peer's runner; see numpy_peer.h. */
#include "numpy_peer.h"

#include "subproc.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* numpy's version if python imports it, else "" */
static void numpy_version(const char *python, char *ver, size_t size) {
  char *argv[] = {(char *)python, "-c", "import numpy; print(numpy.__version__)", NULL};
  pid_t pid;
  ver[0] = 0;
  FILE *f = bench_spawn(argv, BENCH_STDERR_NULL, &pid);
  if (!f) return;
  char line[64] = "";
  if (!fgets(line, sizeof line, f)) line[0] = 0;
  fclose(f);
  if (bench_reap(pid) != 0) return;
  line[strcspn(line, "\r\n")] = 0;
  snprintf(ver, size, "%s", line);
}

static int find_script(char *out, size_t size) {
  const char *dirs[3] = {getenv("TALLY_PEERS_DIR"), NULL, NULL};
#ifdef TALLY_PEERS_DIR
  dirs[1] = TALLY_PEERS_DIR;
#endif
#ifdef TALLY_SOURCE_DIR
  dirs[2] = TALLY_SOURCE_DIR "/bench/peers";
#endif
  for (int i = 0; i < 3; i++) {
    if (!dirs[i] || !*dirs[i]) continue;
    snprintf(out, size, "%s/numpy_peer.py", dirs[i]);
    if (access(out, R_OK) == 0) return 0;
  }
  return -1;
}

void numpy_peer_find(numpy_peer *p) {
  memset(p, 0, sizeof *p);
  if (find_script(p->script, sizeof p->script) != 0) {
    snprintf(p->why, sizeof p->why, "numpy_peer.py not found (set TALLY_PEERS_DIR)");
    return;
  }
  const char *cands[3] = {getenv("TALLY_PYTHON"), "python3", "/usr/bin/python3"};
  for (int i = 0; i < 3; i++) {
    if (!cands[i] || !*cands[i]) continue;
    numpy_version(cands[i], p->version, sizeof p->version);
    if (p->version[0]) {
      snprintf(p->python, sizeof p->python, "%s", cands[i]);
      p->present = 1;
      return;
    }
  }
  snprintf(p->why, sizeof p->why, "no python with numpy ($TALLY_PYTHON, python3, /usr/bin/python3)");
}

int numpy_peer_run(const numpy_peer *p, tally_op op, tally_dtype t, const int64_t *sizes,
                   int nsizes, uint64_t seed, const bench_timing *tm, int nan_ignore,
                   numpy_point *out) {
  for (int i = 0; i < nsizes; i++) {
    out[i].median_us = -1;
    out[i].rel_err = NAN;
  }
  if (!p->present) return -1;
  size_t cap = (size_t)nsizes * 24 + 1;
  char *list = malloc(cap);
  if (!list) return -1;
  size_t len = 0;
  for (int i = 0; i < nsizes; i++)
    len += (size_t)snprintf(list + len, cap - len, "%s%" PRId64, i ? "," : "", sizes[i]);
  char seed_s[32], time_s[32], rep_s[32];
  snprintf(seed_s, sizeof seed_s, "%" PRIu64, seed);
  snprintf(time_s, sizeof time_s, "%g", tm->min_time);
  snprintf(rep_s, sizeof rep_s, "%d", tm->repeat);
  char *argv[] = {(char *)p->python, (char *)p->script, "--op", (char *)tally_op_name(op),
                  "--dtype", (char *)tally_dtype_name(t), "--sizes", list, "--seed", seed_s,
                  "--min-time", time_s, "--repeat", rep_s, "--nan",
                  nan_ignore ? "ignore" : "propagate", "--errors", NULL};
  pid_t pid;
  FILE *f = bench_spawn(argv, BENCH_STDERR_KEEP, &pid);
  free(list);
  if (!f) return -1;
  char *line = NULL;
  size_t lcap = 0;
  while (getline(&line, &lcap, f) > 0) {
    double n, us, err;
    if (bench_json_number(line, "n", &n) != 0) continue;
    for (int i = 0; i < nsizes; i++) {
      if ((double)sizes[i] != n) continue;
      if (bench_json_number(line, "median_us", &us) == 0) out[i].median_us = us;
      if (bench_json_number(line, "rel_err", &err) == 0) out[i].rel_err = err;
    }
  }
  free(line);
  fclose(f);
  return bench_reap(pid) == 0 ? 0 : -1;
}
