/* f16 and bf16 conversions written independently of the library: f16 through GCC's
 * _Float16, bf16 by bit manipulation. Float to 16 bits rounds to nearest, ties to even,
 * and keeps NaN a (quiet) NaN. */
#ifndef TT_HALF_H
#define TT_HALF_H

#include <stdint.h>

float tt_f16_to_f32(uint16_t h);
uint16_t tt_f32_to_f16(float f);
float tt_bf16_to_f32(uint16_t h);
uint16_t tt_f32_to_bf16(float f);
/* Double to f16 without double rounding (through _Float16 directly). */
uint16_t tt_f64_to_f16(double d);
/* Double to bf16 without double rounding. */
uint16_t tt_f64_to_bf16(double d);

#endif
