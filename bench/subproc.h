/* Running a peer of `tally bench` in its own process and reading its JSON lines: shared by
 * the numpy peer (numpy_peer.c) and the CUB peer (cub_peer.c). */
#ifndef TALLY_BENCH_SUBPROC_H
#define TALLY_BENCH_SUBPROC_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* What becomes of the child's stderr. */
#define BENCH_STDERR_KEEP 0  /* ours */
#define BENCH_STDERR_NULL 1  /* /dev/null */
#define BENCH_STDERR_MERGE 2 /* the same pipe as its stdout */

/* Run argv (argv[0] searched on PATH) with its stdout into a pipe, its stderr as `err`
 * says. The read end as a FILE (and the child's pid), or NULL. */
FILE *bench_spawn(char *const argv[], int err, pid_t *pid);
/* Wait for the child: its exit status, or -1 (killed by a signal, or waitpid failed). */
int bench_reap(pid_t pid);

/* The number after "key": in a JSON line: 0 if found and not null, else -1. */
int bench_json_number(const char *line, const char *key, double *v);
/* The same number's text (for integers beyond double's 53 bits), into buf: 0 or -1. */
int bench_json_text(const char *line, const char *key, char *buf, size_t size);
/* The string after "key": (no escapes decoded but \" skipped), into buf: 0 or -1. */
int bench_json_string(const char *line, const char *key, char *buf, size_t size);

#endif
