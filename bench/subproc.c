/* Peers in their own processes; see subproc.h. */
#include "subproc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

FILE *bench_spawn(char *const argv[], int err, pid_t *pid) {
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
    if (err == BENCH_STDERR_MERGE) dup2(fd[1], STDERR_FILENO);
    close(fd[0]);
    close(fd[1]);
    if (err == BENCH_STDERR_NULL) {
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

int bench_reap(pid_t pid) {
  int st;
  while (waitpid(pid, &st, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Where the value of "key": starts, or NULL. */
static const char *value_of(const char *line, const char *key) {
  char pat[64];
  snprintf(pat, sizeof pat, "\"%s\":", key);
  const char *s = strstr(line, pat);
  if (!s) return NULL;
  s += strlen(pat);
  while (*s == ' ') s++;
  return s;
}

int bench_json_number(const char *line, const char *key, double *v) {
  const char *s = value_of(line, key);
  if (!s) return -1;
  char *end;
  *v = strtod(s, &end);
  return end == s ? -1 : 0;
}

int bench_json_text(const char *line, const char *key, char *buf, size_t size) {
  const char *s = value_of(line, key);
  if (!s || size == 0) return -1;
  size_t n = strspn(s, "+-0123456789.eE");
  if (n == 0 || n >= size) return -1;
  memcpy(buf, s, n);
  buf[n] = 0;
  return 0;
}

int bench_json_string(const char *line, const char *key, char *buf, size_t size) {
  const char *s = value_of(line, key);
  if (!s || *s != '"' || size == 0) return -1;
  size_t n = 0;
  for (s++; *s && *s != '"'; s++) {
    if (*s == '\\' && s[1]) s++;
    if (n + 1 < size) buf[n++] = *s;
  }
  buf[n] = 0;
  return *s == '"' ? 0 : -1;
}
