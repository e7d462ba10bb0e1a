/* The numpy peer's runner; see numpy_peer.h. */
#include "numpy_peer.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Run argv (argv[0] searched on PATH) with stdout into a pipe; stderr to /dev/null when
 * quiet. Returns the read end as a FILE (and the child's pid), or NULL. */
static FILE *spawn(char *const argv[], int quiet, pid_t *pid) {
  int fd[2];
  if (pipe(fd) != 0) return NULL;
  fflush(stdout);
  fflush(stderr);
  *pid = fork();
  if (*pid < 0) {
    close(fd[0]);
    close(fd[1]);
    return NULL;
  }
  if (*pid == 0) {
    dup2(fd[1], STDOUT_FILENO);
    close(fd[0]);
    close(fd[1]);
    if (quiet) {
      int dn = open("/dev/null", O_WRONLY);
      if (dn >= 0) dup2(dn, STDERR_FILENO);
    }
    execvp(argv[0], argv);
    _exit(127);
  }
  close(fd[1]);
  FILE *f = fdopen(fd[0], "r");
  if (!f) {
    close(fd[0]);
    waitpid(*pid, NULL, 0);
  }
  return f;
}

/* Wait for the child; its exit status, or -1. */
static int reap(pid_t pid) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* numpy's version if python imports it, else "" */
static void numpy_version(const char *python, char *ver, size_t size) {
  char *argv[] = {(char *)python, "-c", "import numpy; print(numpy.__version__)", NULL};
  pid_t pid;
  ver[0] = 0;
  FILE *f = spawn(argv, 1, &pid);
  if (!f) return;
  char line[64] = "";
  if (!fgets(line, sizeof line, f)) line[0] = 0;
  fclose(f);
  if (reap(pid) != 0) return;
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

/* The number after "key": in a JSON line; 0 if found and not null. */
static int json_number(const char *line, const char *key, double *v) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *s = strstr(line, pat);
  if (!s) return -1;
  s += strlen(pat);
  while (*s == ' ') s++;
  char *end;
  *v = strtod(s, &end);
  return end == s ? -1 : 0;
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
  FILE *f = spawn(argv, 0, &pid);
  free(list);
  if (!f) return -1;
  char *line = NULL;
  size_t lcap = 0;
  while (getline(&line, &lcap, f) > 0) {
    double n, us, err;
    if (json_number(line, "n", &n) != 0) continue;
    for (int i = 0; i < nsizes; i++) {
      if ((double)sizes[i] != n) continue;
      if (json_number(line, "median_us", &us) == 0) out[i].median_us = us;
      if (json_number(line, "rel_err", &err) == 0) out[i].rel_err = err;
    }
  }
  free(line);
  fclose(f);
  return reap(pid) == 0 ? 0 : -1;
}
