/* See half.h. */
#include "half.h"

#include <math.h>
#include <string.h>

float tt_f16_to_f32(uint16_t h) {
  _Float16 f;
  memcpy(&f, &h, 2);
  return (float)f;
}

uint16_t tt_f32_to_f16(float x) {
  _Float16 f = (_Float16)x;
  uint16_t h;
  memcpy(&h, &f, 2);
  return h;
}

uint16_t tt_f64_to_f16(double x) {
  _Float16 f = (_Float16)x;
  uint16_t h;
  memcpy(&h, &f, 2);
  return h;
}

float tt_bf16_to_f32(uint16_t h) {
  uint32_t b = (uint32_t)h << 16;
  float f;
  memcpy(&f, &b, 4);
  return f;
}

uint16_t tt_f32_to_bf16(float x) {
  uint32_t b;
  memcpy(&b, &x, 4);
  if ((b & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((b >> 16) | 0x0040u); /* quiet NaN */
  uint32_t lsb = (b >> 16) & 1u;
  return (uint16_t)((b + 0x7fffu + lsb) >> 16); /* ties to even; overflow carries to Inf */
}

uint16_t tt_f64_to_bf16(double x) {
  if (isnan(x)) return tt_f32_to_bf16((float)x);
  /* Truncate to float toward zero, keeping a sticky bit, then round once to bf16. */
  float f = (float)x;
  if (isinf(f) || (double)f == x) return tt_f32_to_bf16(f);
  /* f is x rounded to nearest; step back toward zero when it rounded away from zero. */
  if (fabs((double)f) > fabs(x)) f = nextafterf(f, 0.0f);
  uint32_t b;
  memcpy(&b, &f, 4);
  b |= 1u; /* sticky: x lies strictly between f and the next float */
  memcpy(&f, &b, 4);
  return tt_f32_to_bf16(f);
}
