/* f16 and bf16 conversions against independent ones (GCC's _Float16; bit manipulation for
 * bf16): all 65536 patterns to f32, and f32 to 16 bits for every 16-bit value, every
 * midpoint (ties to even) and its neighbours, overflow, subnormals, NaN, and random floats. */
#include <math.h>

#include "check.h"
#include "half.h"
#include "rng.h"
#include "tally.h"

static uint32_t bits_of(float f) {
  uint32_t b;
  memcpy(&b, &f, 4);
  return b;
}
static float float_of(uint32_t b) {
  float f;
  memcpy(&f, &b, 4);
  return f;
}

static int f16_nan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }
static int bf16_nan(uint16_t h) { return (h & 0x7f80) == 0x7f80 && (h & 0x7f); }

static int f16_fails, bf16_fails;

static void to_f16(float f) {
  uint16_t want = tt_f32_to_f16(f), got = tally_f32_to_f16(f);
  int ok = isnan(f) ? f16_nan(got) : got == want;
  if (!ok && ++f16_fails <= 10) CHECK(0, "f32_to_f16(%a = 0x%08x): 0x%04x, expected 0x%04x", f, bits_of(f), got, want);
  else tu_checks++;
}

static void to_bf16(float f) {
  uint16_t want = tt_f32_to_bf16(f), got = tally_f32_to_bf16(f);
  int ok = isnan(f) ? bf16_nan(got) : got == want;
  if (!ok && ++bf16_fails <= 10) CHECK(0, "f32_to_bf16(%a = 0x%08x): 0x%04x, expected 0x%04x", f, bits_of(f), got, want);
  else tu_checks++;
}

int main(void) {
  uint64_t seed = tt_test_seed("test_half");
  int bad16 = 0, badb = 0;
  for (uint32_t h = 0; h < 65536; h++) {
    float a = tally_f16_to_f32((uint16_t)h), b = tt_f16_to_f32((uint16_t)h);
    int ok = f16_nan((uint16_t)h) ? isnan(a) : bits_of(a) == bits_of(b);
    if (!ok && ++bad16 <= 10) CHECK(0, "f16_to_f32(0x%04x) = %a, expected %a", h, a, b);
    float c = tally_bf16_to_f32((uint16_t)h), d = tt_bf16_to_f32((uint16_t)h);
    ok = bf16_nan((uint16_t)h) ? isnan(c) : bits_of(c) == bits_of(d);
    if (!ok && ++badb <= 10) CHECK(0, "bf16_to_f32(0x%04x) = %a, expected %a", h, c, d);
    tu_checks += 2;
    /* Round trips, midpoints to the next pattern (ties to even) and their neighbours. */
    if (!f16_nan((uint16_t)h)) {
      to_f16(b);
      if ((h & 0x7fff) < 0x7c00) {
        float next = tt_f16_to_f32((uint16_t)(h + 1));
        double mid = ((double)b + (double)next) / 2; /* exact in f32: 12 bits */
        float m = (float)mid;
        to_f16(m);
        to_f16(nextafterf(m, 0.0f));
        to_f16(nextafterf(m, INFINITY * (b < 0 ? -1 : 1)));
      }
    }
    if (!bf16_nan((uint16_t)h)) {
      to_bf16(d);
      if ((h & 0x7fff) < 0x7f80) {
        uint32_t mid = ((uint32_t)h << 16) | 0x8000u; /* halfway to the next pattern */
        to_bf16(float_of(mid));
        to_bf16(float_of(mid - 1));
        to_bf16(float_of(mid + 1));
      }
    }
  }
  /* Hand-written edges. */
  CHECK(tally_f32_to_f16(65504.0f) == 0x7bff, "65504 -> 0x%04x", tally_f32_to_f16(65504.0f));
  CHECK(tally_f32_to_f16(65519.99f) == 0x7bff, "65519.99 -> 0x%04x", tally_f32_to_f16(65519.99f));
  CHECK(tally_f32_to_f16(65520.0f) == 0x7c00, "65520 -> 0x%04x (overflow to +Inf)", tally_f32_to_f16(65520.0f));
  CHECK(tally_f32_to_f16(-1e9f) == 0xfc00, "-1e9 -> 0x%04x", tally_f32_to_f16(-1e9f));
  CHECK(tally_f32_to_f16(0x1p-25f) == 0x0000, "2^-25 -> 0x%04x (tie to even: 0)", tally_f32_to_f16(0x1p-25f));
  CHECK(tally_f32_to_f16(0x1.8p-24f) == 0x0002, "1.5*2^-24 -> 0x%04x (tie to even: 2)", tally_f32_to_f16(0x1.8p-24f));
  CHECK(tally_f32_to_f16(-0.0f) == 0x8000, "-0 -> 0x%04x", tally_f32_to_f16(-0.0f));
  CHECK(tally_f32_to_f16(1.0f + 0x1p-11f) == 0x3c00, "1 + 2^-11 -> 0x%04x (tie to even)", tally_f32_to_f16(1.0f + 0x1p-11f));
  CHECK(tally_f32_to_f16(1.0f + 0x3p-11f) == 0x3c02, "1 + 3*2^-11 -> 0x%04x (tie to even)", tally_f32_to_f16(1.0f + 0x3p-11f));
  CHECK(f16_nan(tally_f32_to_f16(float_of(0x7f800001))), "signaling NaN -> f16 0x%04x", tally_f32_to_f16(float_of(0x7f800001)));
  CHECK(f16_nan(tally_f32_to_f16(float_of(0xffc00000))), "negative NaN -> f16");
  CHECK(tally_f32_to_bf16(1.0f + 0x1p-8f) == 0x3f80, "bf16: 1 + 2^-8 -> 0x%04x (tie to even)", tally_f32_to_bf16(1.0f + 0x1p-8f));
  CHECK(tally_f32_to_bf16(1.0f + 0x3p-8f) == 0x3f82, "bf16: 1 + 3*2^-8 -> 0x%04x (tie to even)", tally_f32_to_bf16(1.0f + 0x3p-8f));
  CHECK(tally_f32_to_bf16(float_of(0x7f7fffff)) == 0x7f80, "bf16: FLT_MAX -> 0x%04x (+Inf)", tally_f32_to_bf16(float_of(0x7f7fffff)));
  CHECK(bf16_nan(tally_f32_to_bf16(float_of(0x7f800001))), "bf16: signaling NaN -> 0x%04x", tally_f32_to_bf16(float_of(0x7f800001)));
  CHECK(bf16_nan(tally_f32_to_bf16(float_of(0x7fffffff))), "bf16: NaN 0x7fffffff -> 0x%04x", tally_f32_to_bf16(float_of(0x7fffffff)));
  CHECK(bf16_nan(tally_f32_to_bf16(float_of(0xff800001))), "bf16: NaN 0xff800001 -> 0x%04x", tally_f32_to_bf16(float_of(0xff800001)));
  CHECK(tally_f32_to_bf16(float_of(0x00008000)) == 0x0000, "bf16: subnormal tie -> 0x%04x", tally_f32_to_bf16(float_of(0x00008000)));
  CHECK(tally_f32_to_bf16(float_of(0x00018000)) == 0x0002, "bf16: subnormal tie -> 0x%04x", tally_f32_to_bf16(float_of(0x00018000)));
  /* Random floats: every bit pattern class. */
  tt_rng r;
  tt_rng_seed(&r, seed);
  for (int i = 0; i < 2000000; i++) {
    float f = float_of((uint32_t)tt_rng_next(&r));
    to_f16(f);
    to_bf16(f);
    float g = ldexpf(1.0f + (float)tt_rng_unit(&r), (int)tt_rng_below(&r, 60) - 30); /* f16 range */
    to_f16((i & 1) ? -g : g);
  }
  return tu_done("half");
}
