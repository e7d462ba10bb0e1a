/* tally_scan on a CUDA device: one launch of scan_1pass (src/gpu/scan.clh: the tiles'
 * carries by decoupled look-back). Device arrays are read and written in place;
 * a host input is copied (the span it touches) to the device first, and a host output
 * is written on the device and copied back (spread into its strides on the host). */
#include "core/gpu_scan.h"
#include "cuda_ctx.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>


/* The tile shapes that read and wrote fastest of those measured with TALLY_SCAN_TILE=BxIxM
 * (B threads x I elements, M blocks per SM; SUM at 2^28). Since 2026-11-26 (runs 53-59)
 * the runs of kernels whose results are as wide as their elements live in local memory
 * (scan.clh, RUNS_LOCAL), so registers no longer cap the blocks per SM; the shapes were
 * measured again then, on an H200 and an H100 (docs/PERFORMANCE.md):
 * - 4-byte elements and results (f32; i32, u32 MIN/MAX): 320 x 32 x 4 (x CUB, f32, H100:
 *   320x32x4 1.03-1.04, 256x32x5 1.00-1.02, 256x32x4 1.00, the old 256x32x4 with runs
 *   in registers 0.93-0.94; H200: 320x32x4 0.99-1.00, 256x32x5 0.98-1.00, 224x32x6 0.95,
 *   256x32x6 0.83 (registers spill at 32), 288x32x5 0.85, 192x32x7 0.76, 128x32x10 0.62,
 *   384x32x3 0.49);
 * - 8-byte elements (f64, i64, u64): 320 x 16 x 4 (f64 FAST x CUB, H100: 320x16x4
 *   1.00-1.01, 256x16x5 0.98, 224x16x6 0.97, the old 256x16x3 0.87-0.88); the f64 FAST
 *   SUM went to 128 x 32 x 6 on 2026-11-28 (64 registers, no local memory; H200, runs
 *   133-134, x CUB at 2^26 / 2^28: 128x32x6 1.046 / 1.028, then as the plan at
 *   2^24-2^30 0.994-1.065; 320x16x4 0.972-0.975 / 0.979-0.982, 256x16x5 0.974 / 0.972,
 *   160x32x4 0.965 / 0.978, 192x16x6 0.943 / 0.944, 256x20x3 0.871 / 0.863; not yet
 *   measured on an H100; f64 PROD keeps 320x16x4, 1.15 x CUB at 2^28); but the
 *   compensated f64 sum (DEFAULT) 128 x 32 x 6 (2026-11-27, runs 83-84: 64 registers and
 *   no local memory at all, with the accumulators chosen by value in scan.clh; x CUB,
 *   H100 at 2^26-2^28: 128x32x6 0.97-0.98, 160x32x5 0.94-0.965, 224x24x4 0.93-0.97;
 *   H200 at 2^24-2^30: 128x32x6 0.87-0.91, 224x24x4 0.79-0.83; earlier, runs 79-80,
 *   H100: 256x20x4 0.88-0.91, 192x20x5 0.86-0.90, 256x16x4 0.83-0.86, 224x16x6 (40
 *   registers, spilling) 0.80-0.83, 320x16x3 0.80-0.83; H200: 192x28x4 0.81-0.83,
 *   224x16x6 0.75); but
 *   8-byte integers keep their runs in registers
 *   (scan.clh RUN_LOCAL) at 256 x 20 x 3 (2026-11-27, i64 SUM x CUB at 2^24-2^30: H100,
 *   run 91, two turns, 1.01-1.03 against the old 256x16x3's 1.00-1.07 at 2^24 and
 *   1.00-1.02 above, 224x16x4 1.01-1.12; H200, run 90, 1.00-1.02 against 256x16x3's
 *   0.95-0.98, 224x16x4 1.00-1.06; before that, run 61, H100: 256x16x3 1.00-1.01 against
 *   320x16x4 with runs local 0.95-0.96); their MIN and MAX keep runs in local memory at
 *   256 x 16 x 4 (run 92, H100, i64 MIN x CUB at 2^24-2^30, two turns: 256x16x4
 *   1.02-1.09, 256x16x5 0.97-1.03, 320x16x4 0.95-1.00, in registers at 256x20x3, where
 *   they spill, 0.91-0.99);
 * - 4-byte elements to 8-byte results (i32 -> i64, u32 -> u64; runs in registers): 256 x
 *   20 x 4 (2026-11-25: 256x20x4 1206 us, 256x16x4 1248, 192x16x5 1261, 320x16x3 1265,
 *   256x12x5 1335, 256x16x3 1340, 448x12x2 1481, 384x16x3 2551, 256x24x3 2881, 256x32x3
 *   2982, 448x24x2 3110: runs of 24 or 32 results, 192 or 256 bytes, leave the warp
 *   transposition's buffer too big for local memory);
 * - 1- and 2-byte elements to wider results: i8 -> i64 and u8 -> u64 160 x 32 x 5, bool ->
 *   i64 160 x 32 x 4 (2026-11-27, runs 83-84, x a device copy at 2^26-2^28: i8 and u8 on
 *   the H200 0.75-0.77 at 160x32x5, 0.70-0.73 at 160x32x4, 0.65-0.69 at the old 160x32x6,
 *   on the H100 0.88-0.90 at 160x32x5, 0.75-0.76 at 160x32x6: 6-12 local accesses against
 *   93; bool, H200 only, 0.71-0.72 at 160x32x4 with none, 0.69-0.70 at 160x32x5 with 70,
 *   0.67-0.68 at 160x32x6; before that, run 75, H200, µs at 2^26 / 2^28, two turns: i8 ->
 *   i64 160x32x6 239-243 / 871, 256x16x4 260-262 / 989-993, 320x16x4 258-261 / 982-987,
 *   352x16x3 260-265 / 989-991, 256x16x6 342-346 / 1316-1322, the old 448x32x2 578-581 /
 *   2216-2240: its runs of 32 results, 256 bytes, left the warp transposition's buffer too
 *   big); i16 -> i64 256 x 16 x 4 (261-264 / 991-998; 320x16x4 272 / 1018-1027, 256x8x8
 *   401 / 1546-1548, 256x16x6 417 / 1613-1623, the old 448x24x2 653-655 / 2484-2499); f16
 *   -> f32 256 x 32 x 4 (196-197 / 719-728; 256x32x5 274-275 / 1017-1021, 320x32x4 279-283
 *   / 1039-1043, 320x16x6 297-298 / 1133-1138, the old 448x24x2 240-242 / 900-902);
 *   f16 and bf16 went to 256 x 32 x 5 on 2026-11-28, when their runs were packed two
 *   words to a register (scan.clh RUN_PACK; 40 registers and a 16-byte frame at 5
 *   blocks of 288 threads): SUM x CUB on the H200 at 2^24-2^30, runs 130-131, 2-3 turns,
 *   DEFAULT 0.95-1.11 against unpacked 256x32x4's 0.86-0.99, FAST 0.96-1.14 against
 *   0.93-1.05); FAST (f32 lanes) then to 224 x 32 x 6 (runs 133-134, H200, x CUB at
 *   2^28 / 2^30: 0.983-1.003 / 0.986-0.991 against 256x32x5's 0.972-0.985 /
 *   0.965-0.969; then as the plan 0.993-0.999 / 0.994-0.996; DEFAULT level at both
 *   shapes, 0.957-0.973 / 0.952-0.965, and 224x32x6 lower at 2^24 for bf16, 0.966
 *   against 1.030-1.054). Measured for SUM; PROD and the other types of those sizes
 *   follow it;
 * - the rest (AFFINE of dtypes other than f32, f64, i64, u64): 448 threads, 96 bytes of
 *   input each, 2 per SM (not measured against other shapes).
 * - MIN and MAX of 1- and 2-byte elements (results as narrow): 512 x 32 x 4 (52
 *   registers, no local access) and 256 x 32 x 4 (56, none): more bytes in flight than
 *   the catch-all's 448 x 32|24 x 2 (2026-11-27, runs 96-97, H100, MIN at 2^28: i8 466 ->
 *   442 us, u8 444 -> 420, bool 488 -> 463, i16 608 -> 490, f16 868 -> 705; x a device
 *   copy then 0.43, 0.46, 0.41, 0.77, 0.53: the narrow keys' conversions still cost).
 *   The 2-byte ones went to 256 x 32 x 6 on 2026-11-28 (runs 125-127; 6 blocks of 256
 *   cap a thread at 42 registers, and the narrow keys fit): f16, bf16 MIN, MAX x CUB at
 *   2^24-2^30, H200 1.04-1.25 against 256x32x4's 0.96-1.14 (at 2^28 256x24x6 1.06-1.08,
 *   128x32x12 1.04-1.06, 256x32x5 1.03-1.04, 256x32x8 0.96-0.97, 512x32x3 0.95-0.96),
 *   H100 1.01-1.22 against 1.05-1.16. The 1-byte ones went to 256 x 32 x 6 too on
 *   2026-11-29, once settled runs were written as copies of their carry (scan.clh
 *   run_settled), so that a tile's fixed costs outweighed its results' work: H200, run
 *   162, MIN at 2^28, two turns, u8 246-251 us against 512x32x4's 322-324 (256x32x8
 *   278-280, 384x32x5 296-297), i8 243-247 against 315 (256x32x8 239-240). And i16,
 *   u16 to 256 x 32 x 5 (run 165, MIN and MAX at 2^28, three turns: 328-334 us against
 *   256x32x6's 341-344, and 334-337 before run_settled; 2^24-2^26 level or better).
 *   Registers (ptxas -v for sm_90 on NVRTC's PTX): 6 or 7 blocks of 288 threads cap a
 *   thread at 32, where the 2-byte keys spill (24-byte frames) and the 1-byte ones a
 *   little (8-16); 5 blocks allow 40, and the 2-byte integers then spill nothing. Run 165
 *   asked for 8 blocks: 8 x 288 threads is more than an SM holds (2,048), and ptxas then
 *   ignores the bound (".minnctapersm will be ignored"), which gave the same 40 registers
 *   and 5 blocks as asking for 5. So did the old 512 x 32 x 4 (4 x 544 threads): 52
 *   registers, 2 blocks an SM. f16 and bf16 keep 6 blocks with their spills: at 40
 *   registers (5 blocks) they lost (run 162, f16 MIN 356-357 against 340-342).
 *   All of them then went to runs of 64 elements, 256 x 64 x 5 (2026-11-29, run 169, a
 *   run's segment heads in a 64-bit word): with runs held in local memory a piece at a
 *   time, a longer run costs no registers, and a tile of twice the bytes halves the
 *   tiles' fixed costs (run 167: smaller blocks of runs of 32 all lost). H200, MIN at
 *   2^26 / 2^28, two turns, us: u8 57.6-57.8 / 176.7-177.3 against 256x32x6's 71.8-71.9
 *   / 238.7-240.7 (256x64x6 182.7-182.9, 256x64x4 186.4-190.5, 512x64x3 190.3-191.6,
 *   384x64x4 188.3-193.5, 128x64x8 211.3-213.5); i8 176.0-177.1 against 235.8-236.7; bool
 *   180.5-180.6 against 241.0-242.5; i16 289.0-290.8 against 256x32x5's 328.2-328.8
 *   (256x64x4 294.0-298.9, 128x64x8 303.1-304.4, 256x64x6 304.3-305.1); f16 299.6-299.7
 *   against 256x32x6's 339.0-340.9 (256x64x4 312.7-313.0, 128x64x8 310.4-311.1).
 *   The 1-byte ones then to runs of 128 (two words of heads), 256 x 128 x 4 (run 171,
 *   the same way: u8, i8, bool 158.5-165.5 us at 2^28 against 256x64x5's 177.5-182.1,
 *   2^26 level; 128x128x8 162.5-166.9, 256x128x3 161.5-169.2, 192x128x5 165.9-176.0,
 *   320x128x3 167.8-177.5, 128x128x10 177.3-187.3). The 2-byte ones gained nothing from
 *   128 (i16 / f16 at 2^28: 128x128x8 291.5-292.7 / 293.4-294.2 against 288.3-290.0 /
 *   299.3-302.1, and 2^26 slower: 89.8-92.7 / 112.8-113.3 against 86.8-88.0 / 94.4-95.0).
 *   Below 2^25 elements the 1-byte ones keep runs of 64: with fewer, larger tiles the
 *   grid fills fewer SMs' slots (run 172, two turns, MIN, us, 128 against 64: i8 2^22
 *   33.8-37.1 against 21.1-21.2, 2^24 34.4-36.1 against 28.7-29.4, 2^25 level; u8 2^22
 *   23.4-25.2 against 20.4-21.2, 2^24 25.3-26.9 against 29.9-30.8; bool alike; from
 *   2^25 on 128 wins everywhere: 2^30 u8 572.6-575.5 against 654.8-656.2).
 * - f64 MIN and MAX: 128 x 32 x 6, the compensated sum's shape (64 registers, no local
 *   access; 2026-11-27, with the NaN key, x CUB at 2^24-2^28: H200, run 105, 0.99-1.02
 *   to 2^30 against 320x16x4's 0.93-0.97, and runs 104: 256x16x5 0.96-0.97, 224x16x6
 *   0.96-0.97, 192x16x6 0.92-0.93, 256x16x4 0.89, 320x16x3 0.88, 256x20x3 0.86-0.89,
 *   256x24x3 0.47, 384x16x3 0.37-0.38; H100, run 106, two turns: 1.03-1.06 against
 *   320x16x4's 0.99-1.03);
 * - AFFINE (pairs in, pairs out, both through the warp transposition since 2026-11-27,
 *   scan.clh XPOSE_PAIRS; its buffer of BLOCK runs of pairs must fit in 44 KB, so the
 *   shapes are small): measured on an H100 (runs 100-101, x a device copy of the same
 *   bytes at 2^26 and 2^28): f64, i64, u64 128 x 16 x 4 (f64 0.80-0.81, i64 0.88; f64
 *   160x16x4 0.78, 192x12x4 0.78, 128x12x5 0.76, 96x16x6 0.75, 64x16x8 0.72, 256x8x4
 *   0.72, 128x16x5 0.65; shapes whose buffer is too big, without the transposition,
 *   0.22-0.29); f32 256 x 20 x 3 (0.76-0.77; 224x16x4 0.75-0.76, 256x16x3 0.72, 192x16x4
 *   0.71, 256x12x4 0.69, 256x16x4 0.65, 128x16x4 0.58, the old 256x8x4 0.56-0.57); i32,
 *   u32 and the 1- and 2-byte integers (results of 8 bytes) 128 x 16 x 4 (i32 0.83, u8
 *   0.73; i32 256x8x4 0.82, the catch-all 0.10-0.16); f16, bf16 (f32 results) 256 x 16 x
 *   3 (f16 0.57; 128x16x4 0.45, 256x8x4 0.44, the catch-all 0.10). Before the
 *   transposition (run 96) each thread loaded its own run of pairs, strided: f64 0.28,
 *   i64 0.30, f32 0.19 at their best shapes. Measured again on an H200 (run 109) and
 *   an H100 (run 110, two turns), x the copy at 2^26-2^28, H200 / H100: the 1- to
 *   4-byte integers went to 128 x 16 x 5 (i32 0.75 / 0.88 against 128x16x4's 0.67 /
 *   0.83, 160x16x4 0.76 / 0.86-0.88; u8 0.61 / 0.80-0.81 against 0.55 / 0.73, 160x16x4
 *   0.62-0.63 / 0.79; 72 registers, no local memory), f16 and bf16 to 224 x 16 x 4
 *   (f16 0.47 / 0.60-0.61 against 256x16x3's 0.43-0.44 / 0.57, 256x16x4 0.47 / 0.56-0.57,
 *   320x16x3 0.46-0.47 / 0.56-0.57; 64 registers and 22 local accesses, faster all the
 *   same); f64 stays at 128 x 16 x 4 (0.65 / 0.80-0.81; 160x16x4 0.68-0.69 / 0.77-0.78),
 *   f32 at 256 x 20 x 3 (H200 0.61-0.62; 192x20x4 0.62, 224x16x4 0.60, 256x16x3 0.55-0.56,
 *   320x16x3 0.55, 256x20x4 0.52, 256x24x3 0.11).
 * The more bytes an SM has in flight, the less the look-back's waits cost; the more
 * blocks, the more of them overlap a look-back with loads. (BLOCK x ITEMS x MINB, before
 * the device's limit: tally__cuda_scan_plan.) */
static void scan_shape(const tally__scan_problem *p, int *block, int *items, int *minb) {
#define SHAPE(b, i, m) (*block = (b), *items = (i), *minb = (m))
  const size_t es = tally_dtype_size(p->dtype), rs = tally_dtype_size(p->rdtype);
  const int is_f64 = p->dtype == TALLY_F64;
  if (tally__gpu_scan_narrow(p)) SHAPE(320, 32, 4);
  else if (es == 8 && p->width == 1 && is_f64 &&
           (p->op == TALLY_SUM || p->op == TALLY_MIN || p->op == TALLY_MAX))
    SHAPE(128, 32, 6); /* f64 SUM (compensated or FAST), MIN, MAX */
  else if (es == 8 && p->width == 1 && is_f64) SHAPE(320, 16, 4);
  else if (es == 8 && p->width == 1 && (p->op == TALLY_MIN || p->op == TALLY_MAX))
    SHAPE(256, 16, 4); /* i64, u64 MIN, MAX: runs in local memory */
  else if (es == 8 && p->width == 1) SHAPE(256, 20, 3); /* i64, u64 */
  else if (es == 4 && rs == 8 && p->width == 1) SHAPE(256, 20, 4);
  else if (es == 1 && rs == 8 && p->width == 1) /* bool spills at 5 blocks, i8 and u8 do not */
    SHAPE(160, 32, p->dtype == TALLY_BOOL ? 4 : 5);
  else if (es == 2 && rs == 8 && p->width == 1) SHAPE(256, 16, 4);
  else if (es == 2 && rs == 4 && p->width == 1 && p->accuracy == TALLY_ACCURACY_FAST)
    SHAPE(224, 32, 6); /* f16, bf16 SUM, PROD, f32 lanes */
  else if (es == 2 && rs == 4 && p->width == 1) SHAPE(256, 32, 5); /* f64 lanes */
  else if (es == 1 && rs == 1 && p->width == 1 && p->n >= (int64_t)1 << 25)
    SHAPE(256, 128, 4); /* MIN, MAX of 2^25 elements and more */
  else if (es == 1 && rs == 1 && p->width == 1) SHAPE(256, 64, 5);
  else if (es == 2 && rs == 2 && p->width == 1) SHAPE(256, 64, 5); /* MIN, MAX */
  else if (p->width == 2 && p->dtype == TALLY_F32) SHAPE(256, 20, 3);
  else if (p->width == 2 && rs == 4) SHAPE(224, 16, 4); /* f16, bf16 */
  else if (p->width == 2 && es < 8) /* AFFINE of 1- to 4-byte integers */
    SHAPE(128, 16, 5);
  else if (p->width == 2) SHAPE(128, 16, 4); /* f64, i64, u64 AFFINE */
  else SHAPE(448, 0, 2); /* items 0: tally__gpu_scan_plan_shape's default */
#undef SHAPE
}

/* Bytes of shared memory a scan_1pass block takes: scan.clh's tile_shared, the warp
 * transposition's buffer (XPOSE: one run of input or of results a thread, whichever is
 * wider, where runs are whole 16-byte pieces and the buffer fits its 44 KiB) and 3 KiB
 * for the rest (the warps' totals, the look-back window, the tile number: ptxas counted
 * 2,144-2,256 bytes on sm_80-sm_90, 2026-11-29). */
int tally__cuda_scan_shared_bytes(const tally__scan_problem *p, int block, int items) {
  const int es = (int)tally_dtype_size(p->dtype), rw = (int)tally_dtype_size(p->rdtype) * p->width;
  const int run_bytes = items * (es > rw ? es : rw);
  const int xpose = (items * es) % 16 == 0 && (items * rw) % 16 == 0 &&
                    (int64_t)block * run_bytes <= 44 * 1024;
  return (xpose ? block * run_bytes : 0) + 3 * 1024;
}

/* Whether the carries of a scan whose carries are grouped as a tree (scan.clh CARRY_CHAIN:
 * f64 sums, float PROD and AFFINE; the others combine exactly, in any grouping) take the
 * radix-32 tree (CARRY_RTREE) rather than the binary indexed tree: up to these many tiles,
 * where it was faster. H200, run 195 (2026-11-29, three turns each, 2^20-2^26, rt1 / rt0):
 * - f64 SUM (4,096 elements a tile), at 256, 512, 1,024, ... 16,384 tiles: DEFAULT 1.01,
 *   1.01, 0.87, 0.93, 0.95, 1.00, 1.02; FAST 0.86, 0.84, 0.93, 0.96, 0.97, 1.00, 1.03;
 * - PROD: f64 (5,120 a tile) 0.78-0.98 to 3,277 tiles, 1.02-1.03 at 6,554; f32 (10,240)
 *   0.75-0.99 to 3,277, at 6,554 DEFAULT 1.04 and FAST 0.97; f16 (8,192 DEFAULT, 7,168
 *   FAST) DEFAULT 0.78-0.96 to 4,096, 1.03 at 8,192, FAST 0.71-0.91 up to 9,362;
 * - AFFINE: f64 (2,048 a tile) 0.83-0.91 to 2,048 tiles, 1.04-1.05 at 4,096, 1.26 at 32,768;
 *   f32 (5,120) 0.76-0.99 to 1,638, 1.00-1.01 at 3,277, 1.13 at 13,107; f16 (3,584)
 *   0.77-0.94 at every size measured, up to 18,725 tiles (2^26 elements).
 * Run 196 (two turns, f16 and bf16 at 2^26-2^27): AFFINE 0.87-0.94 up to 37,450 tiles,
 * FAST PROD 0.91-0.92 up to 18,725, DEFAULT PROD 1.04-1.06 at 8,192 and 16,384; so halves'
 * AFFINE take it up to 2^16 tiles and their FAST PROD up to 2^15 (2^27.8 elements; 2^28,
 * binary, was level with run 196's binary tree).
 * Run 197 (three rounds, 2^20-2^26, f64 SUM and PROD) confirmed these against the binary
 * tree, but for the compensated f64 sum below 1,024 tiles (2^22 elements), 1-4 % slower
 * (run 195: 0.5-0.7 %): it kept the binary tree there. The compensated f64 sum now
 * carries in bins (scan.clh CARRY_BINS; runs 230-236) and takes a tree only where
 * TALLY_SCAN_CARRIES asks for one or beyond TALLY__SCAN_BIN_MAX_TILES (the binary tree).
 * The binary tree waits for fewer of its nodes at a time but builds them a level a trip;
 * the radix tree's levels come in fewer trips but are folded one after another, which
 * costs more as the levels fill. TALLY_SCAN_CARRIES=binary or radix (for measuring and
 * tests) takes one tree at every size; TALLY_KERNEL_DEFS cannot (its -DCARRY_RTREE is
 * dropped, with the rest of its list, where the plan sets it). */
static int carry_radix(const tally__scan_problem *p, int64_t ntiles) {
  const int fl = tally__dtype_kind(p->dtype) == TALLY__KIND_FLOAT;
  if (!fl || !(p->op == TALLY_PROD || p->op == TALLY_AFFINE || (p->op == TALLY_SUM && p->dtype == TALLY_F64)))
    return 0; /* not CARRY_CHAIN: no tree */
  const char *force = getenv("TALLY_SCAN_CARRIES");
  if (force && strcmp(force, "binary") == 0) return 0;
  if (force && strcmp(force, "radix") == 0) return 1;
  const size_t es = tally_dtype_size(p->dtype);
  int64_t most = 4096;
  if (tally__gpu_scan_binned(p, ntiles)) return 0; /* binned carries, no tree */
  if (p->op == TALLY_AFFINE) most = es == 2 ? (int64_t)1 << 16 : 2048;
  else if (p->op == TALLY_PROD && es == 2 && p->accuracy == TALLY_ACCURACY_FAST) most = (int64_t)1 << 15;
  return ntiles <= most;
}

/* The shapes above were chosen on Hopper's SMs (2048 threads, 228 KiB of shared memory),
 * where MINB blocks fit. Elsewhere fewer may: MINB is a launch bound (scan_1pass has
 * BLOCK + WARP threads), which ptxas meets by capping registers. A bound of more threads
 * than the SM holds it ignores, with only a warning, and then caps none; a bound of more
 * blocks than the SM's shared memory holds it meets, so registers are capped for blocks
 * that never run: on sm_89 (100 KiB) most scan tiles (35-43 KiB) fit twice, and at
 * their Hopper bounds ptxas gave them 40-96 registers and up to 464 bytes of spill
 * stores and loads (2026-11-29). So MINB is cut to what fits both ways. */
void tally__cuda_scan_plan(const tally__scan_problem *p, const tally__cuda_sm_limits *lim,
                           tally__gpu_scan_plan *pl) {
  int block, items, minb;
  scan_shape(p, &block, &items, &minb);
  tally__gpu_scan_plan_shape(p, &block, &items, &minb); /* TALLY_SCAN_TILE's too */
  if (lim && lim->threads > 0 && (block + 32) * minb > lim->threads)
    minb = lim->threads / (block + 32) > 0 ? lim->threads / (block + 32) : 1;
  if (lim && lim->smem > 0) {
    const int unit = lim->smem_unit > 0 ? lim->smem_unit : 256,
              need = tally__cuda_scan_shared_bytes(p, block, items) + lim->smem_reserved,
              per = (need + unit - 1) / unit * unit;
    if (per * minb > lim->smem) minb = lim->smem / per > 0 ? lim->smem / per : 1;
  }
  const int64_t tile = (int64_t)block * items, ntiles = (p->n + tile - 1) / tile;
  tally__gpu_scan_plan_build(p, block, items, minb, carry_radix(p, ntiles) ? " -DCARRY_RTREE=1" : "", pl);
}

/* Device address of element 0 of input `which`: as given, or a copy of a host array. */
static tally_status place(tally__cuda_ctx *c, const tally__scan_problem *p, int which,
                          const void *data, CUdeviceptr *dev0) {
  if (p->in_mem == TALLY_MEM_DEVICE) {
    *dev0 = (CUdeviceptr)(uintptr_t)data;
    return TALLY_OK;
  }
  int64_t lo, hi;
  tally__gpu_scan_in_span(p, which, &lo, &hi);
  tally_status s = tally__cuda_grow(c, &c->staging[which], &c->staging_bytes[which],
                                    (size_t)(hi - lo), "a host input");
  if (s) return s;
  CUresult r = c->cu->cuMemcpyHtoDAsync(c->staging[which], (const char *)data + lo,
                                        (size_t)(hi - lo), c->stream);
  if (r) return tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (scan input)");
  *dev0 = c->staging[which] - (CUdeviceptr)lo;
  return TALLY_OK;
}

/* A scan ladder variant (src/gpu/scan_ladder.clh) on placed inputs and output. */
static tally_status ladder(tally__cuda_ctx *c, const tally__scan_problem *p, CUdeviceptr x,
                           CUdeviceptr y, CUdeviceptr o, long long so0, long long so1, int mode) {
  tally__gpu_scan_plan pl;
  tally__gpu_scan_ladder_plan_make(p, TALLY_LADDER_SCAN_BLOCK, &pl);
  static const char *const srcs[] = {"reduce_part.clh", "scan.clh", "scan_ladder.clh", NULL};
  tally_status s;
  int steps[4];
  int64_t groups[4], nchunks;
  int nsteps = tally__gpu_scan_ladder_steps(p, pl.block, steps, groups, &nchunks);
  /* four_kernel: the elements' partial results (three words each) and the chunks' sums */
  size_t tmp_bytes = nsteps == 4 ? (size_t)p->n * 24 : 0, sums_bytes = (size_t)nchunks * 24 + 24;
  if ((s = tally__cuda_grow(c, &c->scan_tiles, &c->scan_tiles_bytes, tmp_bytes + sums_bytes,
                            "the scan ladder's partial results")))
    return s;
  CUdeviceptr tmp = c->scan_tiles, sums = c->scan_tiles + tmp_bytes;
  long long n = p->n, sx = p->sx, sy = p->sy, o0 = 0, nch = nchunks;
  int has_init = pl.has_init;
  unsigned long long i0 = pl.i0, i1 = pl.i1;
  for (int k = 0; k < nsteps; k++) {
    CUfunction fn;
    if ((s = tally__cuda_kernel_get(c, srcs, pl.defs, tally__gpu_scan_ladder_entry(steps[k]), &fn)))
      return s;
    void *args[] = {&x, &y, &n, &sx, &sy, &o, &o0, &so0, &so1, &mode, &has_init, &i0, &i1,
                    &tmp, &sums, &nch};
    CUresult r = c->cu->cuLaunchKernel(fn, (unsigned)groups[k], 1, 1, (unsigned)pl.block, 1, 1, 0,
                                       c->stream, args, NULL);
    if (r) return tally__cuda_fail(c, r, "cuLaunchKernel (scan_ladder)");
  }
  return TALLY_OK;
}

/* scan_1pass's block counter (16 bytes, first) and its ntiles slots, the epoch its slots
 * are written under and the counter's value at the launch (scan.clh: a slot of another
 * epoch reads as nothing yet, the tiles are the counter's values from base on). The slots
 * are cleared only where they are new, or where the epoch comes round: one launch per
 * scan instead of a memset and a launch. */
static tally_status slots_for(tally__cuda_ctx *c, int64_t ntiles, CUdeviceptr *counter,
                              CUdeviceptr *slots, unsigned *ep, unsigned *base) {
  /* $TALLY_CUDA_SCAN_CLEAR=1 (for measuring; read once): clear them before every launch,
   * as before 2026-11-27. */
  static int clear_always = -1; /* a race reads it twice alike */
  if (clear_always < 0) {
    const char *e = getenv("TALLY_CUDA_SCAN_CLEAR");
    clear_always = e && strcmp(e, "1") == 0;
  }
  const size_t need = 16 + (size_t)ntiles * TALLY__SCAN_CARRY_BYTES;
  if (need > c->scan_slots_bytes || clear_always) c->scan_epoch = 0; /* new memory: clear it */
  tally_status s = tally__cuda_grow(c, &c->scan_slots, &c->scan_slots_bytes, need, "scan tile slots");
  if (s) return s;
  if (c->scan_epoch == 0 || c->scan_epoch >= TALLY__SCAN_EPOCHS) { /* 1..EPOCHS used */
    CUresult r = c->cu->cuMemsetD8Async(c->scan_slots, 0, c->scan_slots_bytes, c->stream);
    if (r) return tally__cuda_fail(c, r, "cuMemsetD8Async (scan tile slots)");
    c->scan_epoch = 0;
    c->scan_base = 0;
  }
  *ep = ++c->scan_epoch;
  *base = c->scan_base;
  *counter = c->scan_slots;
  *slots = c->scan_slots + 16;
  return TALLY_OK;
}

/* How many tiles ahead scan_1pass's look-back warps fetch input into L2 (scan.clh,
 * `ahead`): up to an eighth of L2 in flight and at most 192 tiles, and none for scans of
 * fewer than four waves of resident blocks, whose later tiles start about as soon as
 * they are fetched. H200, DEFAULT SUM at 2^28 (run 141): 64 and 192 tiles
 * ahead were level, 4-7 % faster than none; 512 (16-20 MiB for f64 and f32) lost
 * 13-17 %, and f16 (8 MiB) less than 192. Every op and dtype at 2^28 gained (run 142);
 * f64 SUM and MAX at 2^22-2^23 (1.3-2.6 waves) lost 3-7 % (run 144); at 2^24 (5.2
 * waves) 3 % faster in run 143, level in run 145. TALLY_SCAN_AHEAD=N sets it, for
 * measuring (0: off). */
static unsigned scan_ahead(const tally__cuda_ctx *c, const tally__scan_problem *p,
                           const tally__gpu_scan_plan *pl) {
  const char *e = getenv("TALLY_SCAN_AHEAD");
  if (e && *e) {
    char *end;
    long v = strtol(e, &end, 10);
    if (*end == 0 && v >= 0 && v <= 1 << 20) return (unsigned)v;
  }
  if (pl->ntiles < 4 * (int64_t)c->sms * pl->minb) return 0;
  const int64_t tile_bytes = (int64_t)pl->block * pl->items * (int64_t)pl->esize * p->width;
  const int64_t fit = c->l2_bytes > 0 ? (int64_t)c->l2_bytes / 8 / tile_bytes : 0;
  return (unsigned)(fit < 192 ? fit : 192);
}

static tally_status scan_run(tally__cuda_ctx *c, const tally__scan_problem *p, const void *in,
                             const void *in2, void *out) {
  tally__gpu_scan_plan pl;
  tally__cuda_scan_plan(p, &c->sm, &pl);
  if (pl.ntiles >= INT32_MAX) /* the grid's x: 2^31 - 1 blocks */
    return tally__fail(&c->base, TALLY_EUNSUPPORTED, "in: %" PRId64 " elements is more than a "
                       "cuda scan's 2^31 - 1 tiles of %d hold", p->n, pl.block * pl.items);
  static const char *const srcs[] = {"reduce_part.clh", "scan.clh", NULL};
  CUfunction fn;
  tally_status s = tally__cuda_kernel_get(c, srcs, pl.defs, "scan_1pass", &fn);
  if (s) return s;

  CUdeviceptr x = 0, y = 0;
  if ((s = place(c, p, 0, in, &x))) return s;
  if (p->width == 2 && (s = place(c, p, 1, in2, &y))) return s;
  if (!y) y = x;

  CUresult r;
  CUdeviceptr heads_dev = 0;
  if (pl.mode & TALLY__SCAN_SEG) {
    const uint8_t *heads;
    uint8_t *owned;
    if ((s = tally__gpu_scan_heads(&c->base, p, &heads, &owned))) return s;
    s = tally__cuda_grow(c, &c->scan_heads, &c->scan_heads_bytes, (size_t)p->n, "segment heads");
    if (!s) {
      r = c->cu->cuMemcpyHtoDAsync(c->scan_heads, heads, (size_t)p->n, c->stream);
      /* the copy reads host memory that is freed next: wait for it */
      if (!r) r = c->cu->cuStreamSynchronize(c->stream);
      if (r) s = tally__cuda_fail(c, r, "cuMemcpyHtoDAsync (segment heads)");
    }
    free(owned);
    if (s) return s;
    heads_dev = c->scan_heads;
  }

  /* The output: in place on the device, or a contiguous device result for a host one. */
  CUdeviceptr o = (CUdeviceptr)(uintptr_t)out;
  long long so0 = p->so0, so1 = p->so1;
  size_t out_bytes = (size_t)p->n * (size_t)p->width * pl.rsize;
  if (p->out_mem == TALLY_MEM_HOST) {
    if ((s = tally__cuda_grow(c, &c->scan_out, &c->scan_out_bytes, out_bytes, "a host output")))
      return s;
    o = c->scan_out;
    so0 = p->width;
    so1 = 1;
  }
  int contig = p->sx == 1 && (p->width == 1 || (p->sy == 1 && (x & 15) == (y & 15)));
  int mode = pl.mode | (contig ? TALLY__SCAN_CONTIG : 0), has_init = pl.has_init;
  long long n = p->n, sx = p->sx, sy = p->sy;
  unsigned long long i0 = pl.i0, i1 = pl.i1;
  if (p->variant != TALLY__SCAN_BEST) {
    if ((s = ladder(c, p, x, y, o, so0, so1, mode))) return s;
  } else {
    CUdeviceptr counter, slots;
    unsigned ep, base;
    if ((s = slots_for(c, pl.ntiles, &counter, &slots, &ep, &base))) return s;
    /* BLOCK threads scan each tile, one more warp looks back (scan.clh, scan_1pass) */
    unsigned ahead = scan_ahead(c, p, &pl);
    void *args[] = {&x, &y, &n, &sx, &sy, &heads_dev, &o, &so0, &so1, &mode, &has_init, &i0, &i1,
                    &counter, &slots, &ep, &base, &ahead};
    r = c->cu->cuLaunchKernel(fn, (unsigned)pl.ntiles, 1, 1, (unsigned)pl.block + 32, 1, 1, 0,
                              c->stream, args, NULL);
    if (r) {
      c->scan_epoch = 0; /* the counter did not move as planned: clear before the next */
      return tally__cuda_fail(c, r, "cuLaunchKernel (scan_1pass)");
    }
    c->scan_base = base + (unsigned)pl.ntiles; /* every block adds one (u32, wrapping) */
  }
  if (p->out_mem == TALLY_MEM_HOST) {
    int direct = tally__gpu_scan_out_contiguous(p);
    void *dst = direct ? out : malloc(out_bytes);
    if (!dst) {
      c->cu->cuStreamSynchronize(c->stream);
      return tally__fail(&c->base, TALLY_ENOMEM, "out: no host memory for %zu bytes of results",
                         out_bytes);
    }
    r = c->cu->cuMemcpyDtoHAsync(dst, o, out_bytes, c->stream);
    if (!r) r = c->cu->cuStreamSynchronize(c->stream);
    if (!r && !direct) tally__gpu_scan_scatter(p, pl.rsize, dst, out);
    if (!direct) free(dst);
    if (r) return tally__cuda_fail(c, r, "the scan (scan_1pass, copy of the result)");
    return TALLY_OK;
  }
  r = c->cu->cuStreamSynchronize(c->stream);
  return r ? tally__cuda_fail(c, r, "the scan (scan_1pass)") : TALLY_OK;
}

tally_status tally__cuda_scan(tally_context *ctx, const tally__scan_problem *p, const void *in,
                              const void *in2, void *out) {
  tally__cuda_ctx *c = (tally__cuda_ctx *)ctx;
  tally_status s = tally__cuda_enter(c);
  if (s) return s;
  s = scan_run(c, p, in, in2, out);
  tally__cuda_leave(c);
  return s;
}
