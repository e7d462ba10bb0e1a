/* $TALLY_KERNEL_DEFS (tally__gpu_defs_extra): definitions for measuring a kernel's
 * switches are appended to a plan's -D list; anything but -, =, _, spaces, letters and
 * digits makes it ignored (the text goes to a compiler's command line), and so does text
 * that does not fit whole; the buffer is never overrun. */
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
  expect("-DXSWZ=0", "-DA=1", 10, "-DA=1");         /* does not fit whole: not at all */
  expect("-DXSWZ=0", "-DA=1", 15, "-DA=1 -DXSWZ=0"); /* just fits */
  expect("-DXSWZ=0", "-DA=1", 14, "-DA=1");
  expect("-DXSWZ=0", "-DA=12345", 10, "-DA=12345"); /* full: nothing appended */
  if (failures) return 1;
  printf("PASSED: TALLY_KERNEL_DEFS appended, refused and cut as documented\n");
  return 0;
}
