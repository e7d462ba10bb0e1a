/* Compiler logs that name lines of the assembled kernel text ("<kernel>:N:", as NVIDIA's
 * OpenCL writes them: it ignores #line) are rewritten to name the source file and line a
 * developer edits (tally__gpu_map_log). The text is assembled here from the built-in
 * sources, and the expected file and line are found by searching it independently. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/gpu_sources.h"

static int failures;

/* The assembled line number of the first line of `file` + k (counted by hand). */
static long absolute(const char *text, const char *file, long k) {
  char marker[128];
  snprintf(marker, sizeof marker, "#line 1 \"%s\"\n", file);
  const char *m = strstr(text, marker);
  if (!m) return -1;
  long line = 1;
  for (const char *p = text; p < m; p++) line += *p == '\n';
  return line + k; /* the marker's line + k: line k of the file */
}

static void expect(const char *text, const char *log, const char *want) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s", log);
  tally__gpu_map_log(text, buf, sizeof buf);
  if (strcmp(buf, want) != 0) {
    printf("FAIL: [%s] became [%s], expected [%s]\n", log, buf, want);
    failures++;
  }
}

int main(void) {
  static const char *const srcs[] = {"reduce_part.clh", "reduce_best.clh", "ladder.clh", NULL};
  char why[256];
  char *text = tally__gpu_assemble("dialect_opencl.h", srcs, why, sizeof why);
  if (!text) {
    printf("FAIL: assembling: %s\n", why);
    return 1;
  }
  char log[512], want[512];
  long a = absolute(text, "reduce_best.clh", 1), b = absolute(text, "ladder.clh", 57);
  long c = absolute(text, "dialect_opencl.h", 3);
  snprintf(log, sizeof log, "<kernel>:%ld:1: error: unknown type name 'this'\n<kernel>:%ld:8: note", a, b);
  snprintf(want, sizeof want, "reduce_best.clh:1:1: error: unknown type name 'this'\nladder.clh:57:8: note");
  expect(text, log, want);
  snprintf(log, sizeof log, "<source>:%ld:2: warning", c);
  expect(text, log, "dialect_opencl.h:3:2: warning");
  /* Logs that already name files, and numbers past the end, stay as they are. */
  expect(text, "reduce_best.clh:12:3: error: x", "reduce_best.clh:12:3: error: x");
  expect(text, "<kernel>:99999999:1: error", "<kernel>:99999999:1: error");
  expect(text, "", "");
  free(text);
  printf("%s: log mapping, %d failures\n", failures ? "FAILED" : "PASSED", failures);
  return failures ? 1 : 0;
}
