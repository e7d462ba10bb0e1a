/* A program built against the installed tally: the sum of 1..100. */
#include <stdio.h>
#include <tally.h>

int main(void) {
  int32_t x[100];
  for (int i = 0; i < 100; i++) x[i] = i + 1;
  int64_t sum = 0;
  tally_context *ctx;
  if (tally_open("cpu", &ctx) != TALLY_OK) { fprintf(stderr, "%s\n", tally_errmsg(NULL)); return 1; }
  tally_array in = tally_array_1d(x, TALLY_I32, 100), out = tally_array_1d(&sum, TALLY_I64, 1);
  tally_status s = tally_reduce(ctx, TALLY_SUM, &in, NULL, &out, NULL);
  if (s != TALLY_OK) { fprintf(stderr, "%s: %s\n", tally_status_name(s), tally_errmsg(ctx)); return 1; }
  printf("sum = %lld\n", (long long)sum);
  tally_close(ctx);
  return 0;
}
