/* See exactsum.h. Each double m·2^e (m a 53-bit integer) is split into three 32-bit
 * pieces added into signed 64-bit limbs; carries are propagated every 2^29 additions,
 * long before a limb can overflow. */
#include "exactsum.h"

#include <math.h>
#include <string.h>

#define BIAS 1088

void exactsum_init(exactsum *a) { memset(a, 0, sizeof *a); }

static void propagate(exactsum *a) {
  int64_t carry = 0;
  for (int k = 0; k < EXACTSUM_LIMBS; k++) {
    int64_t v = a->limb[k] + carry;
    carry = v >> 32;                       /* arithmetic shift: floor division */
    a->limb[k] = v - (carry * ((int64_t)1 << 32)); /* in [0, 2^32) */
  }
  a->limb[EXACTSUM_LIMBS - 1] += carry * ((int64_t)1 << 32); /* the top keeps the sign */
  a->pending = 0;
}

void exactsum_add(exactsum *a, double x) {
  if (x != x) { a->nan = 1; return; }
  if (isinf(x)) { if (x > 0) a->pinf = 1; else a->ninf = 1; return; }
  if (x == 0) return;
  uint64_t bits;
  memcpy(&bits, &x, 8);
  int neg = (int)(bits >> 63);
  int be = (int)((bits >> 52) & 0x7ff);
  uint64_t m = bits & ((UINT64_C(1) << 52) - 1);
  int e; /* x = m * 2^e */
  if (be == 0) e = -1074;
  else { m |= UINT64_C(1) << 52; e = be - 1075; }
  int shift = e + BIAS; /* >= 14 */
  int k = shift / 32, r = shift % 32;
  unsigned __int128 w = (unsigned __int128)m << r; /* at most 85 bits */
  int64_t p0 = (int64_t)(uint32_t)w, p1 = (int64_t)(uint32_t)(w >> 32),
          p2 = (int64_t)(uint32_t)(w >> 64);
  if (neg) { p0 = -p0; p1 = -p1; p2 = -p2; }
  a->limb[k] += p0;
  a->limb[k + 1] += p1;
  a->limb[k + 2] += p2;
  if (++a->pending >= (1 << 29)) propagate(a);
}

void exactsum_add_product(exactsum *a, double x, double y) {
  double p = x * y;
  if (!isfinite(p) || p == 0) { exactsum_add(a, p); return; }
  double e = fma(x, y, -p); /* exact: x*y = p + e */
  exactsum_add(a, p);
  exactsum_add(a, e);
}

void exactsum_merge(exactsum *a, const exactsum *b) {
  exactsum t = *b;
  propagate(&t);
  propagate(a);
  for (int k = 0; k < EXACTSUM_LIMBS; k++) a->limb[k] += t.limb[k];
  propagate(a);
  a->nan |= b->nan;
  a->pinf |= b->pinf;
  a->ninf |= b->ninf;
}

/* Magnitude limbs (all in [0, 2^32)) and sign of the exact finite sum. */
static int magnitude(const exactsum *a, uint32_t mag[EXACTSUM_LIMBS]) {
  exactsum t = *a;
  propagate(&t);
  int neg = t.limb[EXACTSUM_LIMBS - 1] < 0;
  if (neg) { /* negate: two's complement over the limbs */
    for (int k = 0; k < EXACTSUM_LIMBS; k++) t.limb[k] = -t.limb[k];
    propagate(&t);
  }
  int any = 0;
  for (int k = 0; k < EXACTSUM_LIMBS; k++) {
    mag[k] = (uint32_t)t.limb[k];
    any |= mag[k] != 0;
  }
  return any ? (neg ? -1 : 1) : 0;
}

int exactsum_sign(const exactsum *a) {
  uint32_t mag[EXACTSUM_LIMBS];
  return magnitude(a, mag);
}

/* Round the exact sum to p bits, with exponent range [emin, emax] of the leading bit and
 * subnormals down to 2^(emin - p + 1). The result is exact in a double. */
static double round_to(const exactsum *a, int p, int emin, int emax) {
  if (a->nan || (a->pinf && a->ninf)) return NAN;
  if (a->pinf) return INFINITY;
  if (a->ninf) return -INFINITY;
  uint32_t mag[EXACTSUM_LIMBS];
  int sign = magnitude(a, mag);
  if (sign == 0) return 0.0;
  int top = EXACTSUM_LIMBS - 1;
  while (mag[top] == 0) top--;
  /* A 128-bit window of the four top limbs, the rest folded into a sticky bit. */
  unsigned __int128 w = 0;
  for (int i = 0; i < 4; i++) {
    int k = top - i;
    w = (w << 32) | (k >= 0 ? mag[k] : 0);
  }
  int sticky = 0;
  for (int k = top - 4; k >= 0; k--) sticky |= mag[k] != 0;
  int b = 127;
  while (!((w >> b) & 1)) b--;
  int E = b + 32 * (top - 3) - BIAS; /* value in [2^E, 2^(E+1)) */
  int keep = p;
  if (E < emin) keep = p - (emin - E); /* subnormal: fewer bits */
  if (keep < 0) return sign < 0 ? -0.0 : 0.0; /* below half the smallest subnormal */
  int drop = b + 1 - keep; /* bits of w below the kept ones (>= 1 since b >= 96) */
  unsigned __int128 mant = w >> drop;
  unsigned __int128 rem = w & (((unsigned __int128)1 << drop) - 1);
  unsigned __int128 half = (unsigned __int128)1 << (drop - 1);
  if (rem > half || (rem == half && (sticky || (mant & 1)))) mant++;
  int lsb_exp = E - keep + 1; /* exponent of mant's unit */
  double r = ldexp((double)(uint64_t)mant, lsb_exp);
  if (E > emax || r >= ldexp(1.0, emax + 1)) r = INFINITY;
  return sign < 0 ? -r : r;
}

double exactsum_round(const exactsum *a) { return round_to(a, 53, -1022, 1023); }

float exactsum_round_f32(const exactsum *a) { return (float)round_to(a, 24, -126, 127); }
