/* Progress bar on stderr: "label [#####.....]  42%", redrawn in place with \r. */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#define BAR_WIDTH 40

void progress_start(progress *p, const char *label, int64_t bytes, int64_t threshold) {
  p->active = bytes >= threshold && isatty(STDERR_FILENO);
  p->drawn = 0;
  p->last_permille = -1;
  p->label = label;
}

void progress_update(int64_t done, int64_t total, void *user) {
  progress *p = user;
  if (!p || !p->active || total <= 0) return;
  if (done < 0) done = 0;
  if (done > total) done = total;
  int permille = (int)((double)done / (double)total * 1000.0);
  if (permille == p->last_permille) return; /* redraw only when the figure changes */
  p->last_permille = permille;
  int fill = permille * BAR_WIDTH / 1000;
  char bar[BAR_WIDTH + 1];
  for (int i = 0; i < BAR_WIDTH; i++) bar[i] = i < fill ? '#' : '.';
  bar[BAR_WIDTH] = '\0';
  fprintf(stderr, "\r%s [%s] %3d.%d%%", p->label, bar, permille / 10, permille % 10);
  fflush(stderr);
  p->drawn = 1;
}

void progress_finish(progress *p) {
  if (p->active && p->drawn) {
    fputs("\r\033[K", stderr); /* back to column 0, clear to the end of the line */
    fflush(stderr);
  }
  p->drawn = 0;
  p->active = 0;
}
