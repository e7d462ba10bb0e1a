/* A progress bar on stderr for long work: shown only when stderr is a terminal and the
 * work is large; the line is erased when the work is done. */
#ifndef TALLY_CLI_PROGRESS_H
#define TALLY_CLI_PROGRESS_H

#include <stdint.h>

typedef struct {
  int active;        /* drawing at all */
  int drawn;         /* something is on the line */
  int last_permille; /* last value drawn, to redraw only on change */
  const char *label;
} progress;

/* Thresholds: reductions of at least 256 MiB, text parsing of at least 16 MiB. */
#define PROGRESS_REDUCE_BYTES (256LL << 20)
#define PROGRESS_PARSE_BYTES (16LL << 20)

/* Start: active when stderr is a terminal and bytes >= threshold. */
void progress_start(progress *p, const char *label, int64_t bytes, int64_t threshold);
/* Draw done/total; the signature of tally_progress_fn, with user = the progress. */
void progress_update(int64_t done, int64_t total, void *user);
/* Erase the line. */
void progress_finish(progress *p);

#endif
