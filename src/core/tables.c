/* dtype and op tables: names, sizes, kinds, result dtypes; f16/bf16 conversions. */
#include "internal.h"

#include <ctype.h>
#include <string.h>

static const char *const dtype_names[] = {
#define X(e, name, size) name,
    TALLY_DTYPE_LIST(X)
#undef X
};
static const size_t dtype_sizes[] = {
#define X(e, name, size) size,
    TALLY_DTYPE_LIST(X)
#undef X
};
static const char *const op_names[] = {
#define X(e, name) name,
    TALLY_OP_LIST(X)
#undef X
};

bool tally__dtype_valid(tally_dtype t) { return (unsigned)t < (unsigned)TALLY_DTYPE_COUNT_; }
bool tally__op_valid(tally_op op) { return (unsigned)op < (unsigned)TALLY_OP_COUNT_; }

const char *tally_dtype_name(tally_dtype t) { return tally__dtype_valid(t) ? dtype_names[t] : NULL; }
size_t tally_dtype_size(tally_dtype t) { return tally__dtype_valid(t) ? dtype_sizes[t] : 0; }
const char *tally_op_name(tally_op op) { return tally__op_valid(op) ? op_names[op] : NULL; }

tally__kind tally__dtype_kind(tally_dtype t) {
  switch (t) {
  case TALLY_BOOL: return TALLY__KIND_BOOL;
  case TALLY_I8: case TALLY_I16: case TALLY_I32: case TALLY_I64: return TALLY__KIND_SINT;
  case TALLY_U8: case TALLY_U16: case TALLY_U32: case TALLY_U64: return TALLY__KIND_UINT;
  default: return TALLY__KIND_FLOAT;
  }
}

static bool name_eq(const char *a, const char *b) {
  for (; *a && *b; a++, b++)
    if (tolower((unsigned char)*a) != tolower((unsigned char)*b)) return false;
  return *a == *b;
}

tally_status tally_dtype_from_name(const char *name, tally_dtype *out) {
  static const struct { const char *alias; tally_dtype t; } aliases[] = {
      {"bool", TALLY_BOOL},     {"b1", TALLY_BOOL},       {"int8", TALLY_I8},
      {"int16", TALLY_I16},     {"int32", TALLY_I32},     {"int64", TALLY_I64},
      {"uint8", TALLY_U8},      {"uint16", TALLY_U16},    {"uint32", TALLY_U32},
      {"uint64", TALLY_U64},    {"float16", TALLY_F16},   {"half", TALLY_F16},
      {"bfloat16", TALLY_BF16}, {"float32", TALLY_F32},   {"float", TALLY_F32},
      {"float64", TALLY_F64},   {"double", TALLY_F64},
  };
  if (!out) return tally__fail(NULL, TALLY_EINVAL, "out: NULL pointer");
  if (!name) return tally__fail(NULL, TALLY_EINVAL, "name: NULL pointer");
  for (int t = 0; t < TALLY_DTYPE_COUNT_; t++)
    if (name_eq(name, dtype_names[t])) { *out = (tally_dtype)t; return TALLY_OK; }
  for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++)
    if (name_eq(name, aliases[i].alias)) { *out = aliases[i].t; return TALLY_OK; }
  return tally__fail(NULL, TALLY_EINVAL,
                     "dtype '%s' is unknown (known: bool, i8, i16, i32, i64, u8, u16, u32, "
                     "u64, f16, bf16, f32, f64)", name);
}

tally_status tally_op_from_name(const char *name, tally_op *out) {
  if (!out) return tally__fail(NULL, TALLY_EINVAL, "out: NULL pointer");
  if (!name) return tally__fail(NULL, TALLY_EINVAL, "name: NULL pointer");
  for (int op = 0; op < TALLY_OP_COUNT_; op++)
    if (name_eq(name, op_names[op])) { *out = (tally_op)op; return TALLY_OK; }
  if (name_eq(name, "count")) { *out = TALLY_COUNT_NONZERO; return TALLY_OK; }
  return tally__fail(NULL, TALLY_EINVAL,
                     "op '%s' is unknown (known: sum, prod, min, max, minmax, argmin, argmax, "
                     "mean, var, std, sumsq, norm2, dot, any, all, count_nonzero, bitand, "
                     "bitor, bitxor, affine)", name);
}

bool tally__op_needs_nonempty(tally_op op) {
  switch (op) {
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX: case TALLY_ARGMIN: case TALLY_ARGMAX:
  case TALLY_MEAN: case TALLY_VAR: case TALLY_STD: return true;
  default: return false;
  }
}

bool tally__op_binary(tally_op op) { return op == TALLY_DOT || op == TALLY_AFFINE; }

int tally_result_width(tally_op op) {
  if (!tally__op_valid(op)) return 0;
  return (op == TALLY_MINMAX || op == TALLY_AFFINE) ? 2 : 1;
}

/* The SUM rule: bool/signed → i64, unsigned → u64, 16/32-bit floats → f32, f64 → f64. */
static tally_dtype sum_dtype(tally_dtype t) {
  switch (tally__dtype_kind(t)) {
  case TALLY__KIND_BOOL: case TALLY__KIND_SINT: return TALLY_I64;
  case TALLY__KIND_UINT: return TALLY_U64;
  default: return t == TALLY_F64 ? TALLY_F64 : TALLY_F32;
  }
}

tally_status tally_result_dtype(tally_op op, tally_dtype in, tally_dtype *out) {
  if (!out) return tally__fail(NULL, TALLY_EINVAL, "out: NULL pointer");
  if (!tally__op_valid(op)) return tally__fail(NULL, TALLY_EINVAL, "op: unknown value %d", (int)op);
  if (!tally__dtype_valid(in))
    return tally__fail(NULL, TALLY_EINVAL, "dtype: unknown value %d", (int)in);
  tally__kind k = tally__dtype_kind(in);
  switch (op) {
  case TALLY_SUM: case TALLY_PROD: case TALLY_SUMSQ: case TALLY_DOT:
    *out = sum_dtype(in);
    return TALLY_OK;
  case TALLY_AFFINE:
    if (k == TALLY__KIND_BOOL)
      return tally__fail(NULL, TALLY_EUNSUPPORTED, "op affine is not defined on dtype bool");
    *out = sum_dtype(in);
    return TALLY_OK;
  case TALLY_NORM2:
    *out = k == TALLY__KIND_FLOAT ? sum_dtype(in) : TALLY_F64;
    return TALLY_OK;
  case TALLY_MIN: case TALLY_MAX: case TALLY_MINMAX:
    *out = in;
    return TALLY_OK;
  case TALLY_BITAND: case TALLY_BITOR: case TALLY_BITXOR:
    if (k == TALLY__KIND_FLOAT)
      return tally__fail(NULL, TALLY_EUNSUPPORTED,
                         "op %s is not defined on dtype %s (bitwise ops take integers or bool)",
                         tally_op_name(op), tally_dtype_name(in));
    *out = in;
    return TALLY_OK;
  case TALLY_ARGMIN: case TALLY_ARGMAX: case TALLY_COUNT_NONZERO:
    *out = TALLY_I64;
    return TALLY_OK;
  case TALLY_MEAN: case TALLY_VAR: case TALLY_STD:
    *out = (k == TALLY__KIND_FLOAT && in != TALLY_F64) ? TALLY_F32 : TALLY_F64;
    return TALLY_OK;
  case TALLY_ANY: case TALLY_ALL:
    *out = TALLY_BOOL;
    return TALLY_OK;
  default:
    return tally__fail(NULL, TALLY_EINTERNAL, "op %d has no result rule", (int)op);
  }
}

/* ---------------------------------------------------------------- 16-bit floats */

static uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

float tally_f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
  uint32_t em = h & 0x7fffu;
  /* Shift exponent and mantissa into place and rescale by 2^112 (= 2^(127-15)): exact
   * for normals and subnormals alike. Inf/NaN then get the all-ones exponent. */
  float f = bits_f32(em << 13) * 0x1p112f;
  uint32_t u = f32_bits(f);
  if (em >= 0x7c00u) u |= 0x7f800000u;
  return bits_f32(u | sign);
}

uint16_t tally_f32_to_f16(float f) {
  uint32_t u = f32_bits(f);
  uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
  uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return (uint16_t)(sign | 0x7e00u | ((a >> 13) & 0x1ffu)); /* NaN */
  if (a >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to >= 65520: Inf */
  if (a < 0x38800000u) {
    /* Subnormal or zero in f16: add a magic value so the FPU rounds at 2^-24. */
    float r = bits_f32(a) + 0.5f;               /* 0.5 = 2^-1: ulp there is 2^-24 */
    return (uint16_t)(sign | (uint16_t)(f32_bits(r) - f32_bits(0.5f)));
  }
  /* Normal: rebias the exponent and round the 13 dropped bits to nearest even. */
  uint32_t mant_odd = (a >> 13) & 1u;
  a += 0xc8000fffu + mant_odd; /* (15-127) << 23, plus rounding bias */
  return (uint16_t)(sign | (uint16_t)(a >> 13));
}

float tally_bf16_to_f32(uint16_t h) { return bits_f32((uint32_t)h << 16); }

uint16_t tally_f32_to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u); /* quiet NaN */
  u += 0x7fffu + ((u >> 16) & 1u); /* round to nearest even */
  return (uint16_t)(u >> 16);
}
