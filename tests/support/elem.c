/* See elem.h. */
#include "elem.h"

#include <string.h>

#include "half.h"

int tt_is_float(tally_dtype t) {
  return t == TALLY_F16 || t == TALLY_BF16 || t == TALLY_F32 || t == TALLY_F64;
}
int tt_is_signed(tally_dtype t) {
  return t == TALLY_I8 || t == TALLY_I16 || t == TALLY_I32 || t == TALLY_I64;
}
int tt_is_unsigned(tally_dtype t) {
  return t == TALLY_U8 || t == TALLY_U16 || t == TALLY_U32 || t == TALLY_U64;
}

size_t tt_size(tally_dtype t) {
  switch (t) {
  case TALLY_BOOL: case TALLY_I8: case TALLY_U8: return 1;
  case TALLY_I16: case TALLY_U16: case TALLY_F16: case TALLY_BF16: return 2;
  case TALLY_I32: case TALLY_U32: case TALLY_F32: return 4;
  case TALLY_I64: case TALLY_U64: case TALLY_F64: return 8;
  default: return 0;
  }
}

int tt_bits(tally_dtype t) { return (int)tt_size(t) * 8; }

uint64_t tt_load_bits(tally_dtype t, const void *base, int64_t i) {
  const unsigned char *p = (const unsigned char *)base + i * (int64_t)tt_size(t);
  switch (tt_size(t)) {
  case 1: return *p;
  case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
  case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
  default: { uint64_t v; memcpy(&v, p, 8); return v; }
  }
}

void tt_store_bits(tally_dtype t, void *base, int64_t i, uint64_t bits) {
  unsigned char *p = (unsigned char *)base + i * (int64_t)tt_size(t);
  switch (tt_size(t)) {
  case 1: *p = (unsigned char)bits; break;
  case 2: { uint16_t v = (uint16_t)bits; memcpy(p, &v, 2); break; }
  case 4: { uint32_t v = (uint32_t)bits; memcpy(p, &v, 4); break; }
  default: memcpy(p, &bits, 8); break;
  }
}

__int128 tt_load_int(tally_dtype t, const void *base, int64_t i) {
  uint64_t b = tt_load_bits(t, base, i);
  switch (t) {
  case TALLY_BOOL: return b != 0;
  case TALLY_I8: return (int8_t)b;
  case TALLY_I16: return (int16_t)b;
  case TALLY_I32: return (int32_t)b;
  case TALLY_I64: return (int64_t)b;
  default: return (__int128)b; /* unsigned */
  }
}

double tt_load_f(tally_dtype t, const void *base, int64_t i) {
  uint64_t b = tt_load_bits(t, base, i);
  switch (t) {
  case TALLY_F16: return tt_f16_to_f32((uint16_t)b);
  case TALLY_BF16: return tt_bf16_to_f32((uint16_t)b);
  case TALLY_F32: { uint32_t u = (uint32_t)b; float f; memcpy(&f, &u, 4); return f; }
  case TALLY_F64: { double d; memcpy(&d, &b, 8); return d; }
  default: return (double)tt_load_int(t, base, i);
  }
}

void tt_store_f(tally_dtype t, void *base, int64_t i, double v) {
  switch (t) {
  case TALLY_F16: tt_store_bits(t, base, i, tt_f64_to_f16(v)); break;
  case TALLY_BF16: tt_store_bits(t, base, i, tt_f64_to_bf16(v)); break;
  case TALLY_F32: { float f = (float)v; uint32_t u; memcpy(&u, &f, 4); tt_store_bits(t, base, i, u); break; }
  case TALLY_F64: { uint64_t u; memcpy(&u, &v, 8); tt_store_bits(t, base, i, u); break; }
  default: tt_store_int(t, base, i, (__int128)v); break;
  }
}

void tt_store_int(tally_dtype t, void *base, int64_t i, __int128 v) {
  if (t == TALLY_BOOL) v = v != 0;
  tt_store_bits(t, base, i, (uint64_t)(unsigned __int128)v);
}

int tt_bits_isnan(tally_dtype t, uint64_t b) {
  switch (t) {
  case TALLY_F16: return (b & 0x7c00) == 0x7c00 && (b & 0x03ff) != 0;
  case TALLY_BF16: return (b & 0x7f80) == 0x7f80 && (b & 0x007f) != 0;
  case TALLY_F32: return (b & 0x7f800000u) == 0x7f800000u && (b & 0x007fffffu) != 0;
  case TALLY_F64:
    return (b & UINT64_C(0x7ff0000000000000)) == UINT64_C(0x7ff0000000000000) &&
           (b & UINT64_C(0x000fffffffffffff)) != 0;
  default: return 0;
  }
}

int tt_isnan_at(tally_dtype t, const void *base, int64_t i) {
  return tt_bits_isnan(t, tt_load_bits(t, base, i));
}

int tt_nonzero(tally_dtype t, const void *base, int64_t i) {
  uint64_t b = tt_load_bits(t, base, i);
  if (!tt_is_float(t)) return b != 0;
  uint64_t sign = UINT64_C(1) << (tt_bits(t) - 1);
  return (b & ~sign) != 0; /* -0.0 is zero; NaN has nonzero bits */
}

__int128 tt_int_min(tally_dtype t) {
  if (tt_is_signed(t)) return -((__int128)1 << (tt_bits(t) - 1));
  return 0;
}

__int128 tt_int_max(tally_dtype t) {
  if (t == TALLY_BOOL) return 1;
  if (tt_is_signed(t)) return ((__int128)1 << (tt_bits(t) - 1)) - 1;
  return ((__int128)1 << tt_bits(t)) - 1;
}

/* SUM-like: bool and signed → i64, unsigned → u64, f16/bf16/f32 → f32, f64 → f64. */
static tally_dtype sum_like(tally_dtype t) {
  if (t == TALLY_BOOL || tt_is_signed(t)) return TALLY_I64;
  if (tt_is_unsigned(t)) return TALLY_U64;
  return t == TALLY_F64 ? TALLY_F64 : TALLY_F32;
}

tally_dtype tt_result_dtype(tally_op op, tally_dtype t, int *ok) {
  *ok = 1;
  switch (op) {
  case TALLY_SUM: case TALLY_PROD: case TALLY_SUMSQ: case TALLY_DOT: return sum_like(t);
  case TALLY_AFFINE:
    if (t == TALLY_BOOL) { *ok = 0; return 0; }
    return sum_like(t);
  case TALLY_NORM2:
    if (!tt_is_float(t)) return TALLY_F64;
    return sum_like(t);
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: return t;
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR:
    if (tt_is_float(t)) { *ok = 0; return 0; }
    return t;
  case TALLY_ARGMIN: case TALLY_ARGMAX: case TALLY_COUNT_NONZERO: return TALLY_I64;
  case TALLY_MEAN: case TALLY_VAR: case TALLY_STD:
    return (t == TALLY_F16 || t == TALLY_BF16 || t == TALLY_F32) ? TALLY_F32 : TALLY_F64;
  case TALLY_ANY: case TALLY_ALL: return TALLY_BOOL;
  default: *ok = 0; return 0;
  }
}

int tt_width(tally_op op) { return op == TALLY_MINMAX || op == TALLY_AFFINE ? 2 : 1; }
