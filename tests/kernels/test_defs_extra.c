/* $TALLY_KERNEL_DEFS (tally__gpu_defs_extra): definitions for measuring a kernel's
 * switches are appended to a plan's -D list. Anything but -DNAME[=VALUE] words makes it
 * ignored (the text goes to a compiler's command line), and so does a NAME the plan sets
 * (the host sizes buffers from those) or text that does not fit whole; the buffer is
 * never overrun. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_sources.h"

static int failures;

static void expect(const char *env, const char *defs, size_t cap, const char *want) {
  char buf[64];
  memset(buf, 'Z', sizeof buf);
  snprintf(buf, cap, "%s", defs);
  if (env) setenv("TALLY_KERNEL_DEFS", env, 1);
  else unsetenv("TALLY_KERNEL_DEFS");
  tally__gpu_defs_extra(buf, cap);
  if (strcmp(buf, want) != 0) {
    printf("FAIL: TALLY_KERNEL_DEFS=[%s] on [%s] (cap %zu) gave [%s], expected [%s]\n",
           env ? env : "(unset)", defs, cap, buf, want);
    failures++;
  }
  if (buf[sizeof buf - 1] != 'Z' && cap < sizeof buf) {
    printf("FAIL: TALLY_KERNEL_DEFS=[%s]: wrote past the capacity %zu\n", env, cap);
    failures++;
  }
}

int main(void) {
  expect(NULL, "-DA=1", 64, "-DA=1");
  expect("", "-DA=1", 64, "-DA=1");
  expect("-DXSWZ=0", "-DA=1", 64, "-DA=1 -DXSWZ=0");
  expect("-DXSWZ=0 -DHIST_VECS=4", "-DA=1", 64, "-DA=1 -DXSWZ=0 -DHIST_VECS=4");
  expect("-DX=1;rm", "-DA=1", 64, "-DA=1");         /* a shell character */
  expect("-include /etc/x", "-DA=1", 64, "-DA=1");  /* a path */
  expect("--use_fast_math", "-DA=1", 64, "-DA=1");  /* a compiler flag */
  expect("-DXSWZ=0 -O0", "-DA=1", 64, "-DA=1");     /* one bad word spoils it */
  expect("-DA=2", "-DA=1", 64, "-DA=1");            /* the plan's own name */
  expect("-DAB=2", "-DA=1", 64, "-DA=1 -DAB=2");    /* another name that starts alike */
  expect("-DBLOCK=64", "-DX=1 -DBLOCK=256", 64, "-DX=1 -DBLOCK=256");
  expect("-DMERGE_ATOMIC=0", "-DMERGE_ATOMIC=1", 64, "-DMERGE_ATOMIC=1");
  expect("-D1X=2", "-DA=1", 64, "-DA=1");           /* not a name */
  expect("-DNEG=-1 -DFLAG", "-DA=1", 64, "-DA=1 -DNEG=-1 -DFLAG");
  expect("-DXSWZ=0", "-DA=1", 10, "-DA=1");         /* does not fit whole: not at all */
  expect("-DXSWZ=0", "-DA=1", 15, "-DA=1 -DXSWZ=0"); /* just fits */
  expect("-DXSWZ=0", "-DA=1", 14, "-DA=1");
  expect("-DXSWZ=0", "-DA=12345", 10, "-DA=12345"); /* full: nothing appended */
  if (failures) return 1;
  printf("PASSED: TALLY_KERNEL_DEFS appended, refused and cut as documented\n");
  return 0;
}
