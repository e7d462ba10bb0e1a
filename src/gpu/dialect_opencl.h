/* The kernel dialect on OpenCL C (1.2 and later). Kernel sources (*.clh) use only these
 * names, so the same text compiles as CUDA C through dialect_cuda.h. */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
/* a * b + c is two roundings, as written: compensated sums depend on it (OpenCL C would
 * otherwise be free to fuse). */
#pragma OPENCL FP_CONTRACT OFF

typedef char i8;
typedef short i16;
typedef int i32;
typedef long i64;
typedef uchar u8;
typedef ushort u16;
typedef uint u32;
typedef ulong u64;

#define KERNEL __kernel
#define KERNEL_BOUNDS(threads, blocks) __kernel
/* Buffers are handles, not addresses: an input's element 0 is an element offset into its
 * buffer, given to the kernel (CUDA passes the address itself). */
#define BASE_PARAMS i64 x0, i64 y0,
#define BASE_APPLY() (x += x0, y += y0)
#define BASE_APPLY_X() (x += x0, (void)y0) /* kernels of one input */
#define GLOBAL __global
#define LOCAL __local /* a work-group-shared variable (declared at kernel scope) */
#define LOCAL_PTR __local
#define INLINE static inline
#define RARE static /* out of line where the compiler agrees (CUDA: __noinline__) */
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define LOCAL_ID ((int)get_local_id(0))
#define ASSUME(c) ((void)0) /* a hint CUDA takes (dialect_cuda.h) */
#define PREFETCH_L2(p) ((void)0) /* CUDA only (dialect_cuda.h) */
#define PREFETCH_L2_KEEP(p) ((void)0)
#define GROUP_ID ((i64)get_group_id(0))
#define GROUP_ID_Y ((i64)get_group_id(1))
#define NUM_GROUPS ((i64)get_num_groups(0))
#define NUM_GROUPS_Y ((i64)get_num_groups(1))
#define LOCAL_SIZE ((int)get_local_size(0))

/* No last-block finish on OpenCL: the kernels end after writing their work-group parts and
 * the host merges them (TWO_PASS). OpenCL C 1.2's mem_fence orders only a work-item's own
 * accesses, so another work-group may see a ticket before the part; and on PoCL 3.1 the
 * finish lost parts even built as OpenCL C 3.0 with a device-scope fence (2026-11-23: 10
 * of 12 runs of an i8 SUM of 65,537 wrong; the cause was not found). */
#define TWO_PASS 1
#define FENCE_GLOBAL() mem_fence(CLK_GLOBAL_MEM_FENCE)
#define ATOMIC_ADD_U32(p, v) atomic_add((volatile __global uint *)(p), (uint)(v))
#define ATOMIC_ADD_LOCAL_U32(p, v) atomic_add((volatile __local uint *)(p), (uint)(v))
#define LOAD_CG_U64(p) (*(volatile const __global ulong *)(p))

/* 64-bit atomics where the device has them (the ladder's atomic rungs): integer adds,
 * and f64 adds by compare and swap on the bits (OpenCL C 1.2 has no float atomics). */
#ifdef cl_khr_int64_base_atomics
#define HAVE_ATOMIC64 1
#define ATOMIC_ADD_U64(p, v) atom_add((volatile __global ulong *)(p), (ulong)(v))
INLINE void atomic_add_f64_cas(volatile __global ulong *p, double v) {
  ulong seen = *p, want;
  do {
    want = seen;
    seen = atom_cmpxchg(p, want, as_ulong(as_double(want) + v));
  } while (seen != want);
}
#define ATOMIC_ADD_F64(p, v) atomic_add_f64_cas((volatile __global ulong *)(p), (v))
#else
#define HAVE_ATOMIC64 0
#endif

#define AS_F32(u) as_float((uint)(u))
/* f64 to f32 rounded up (the smallest float not below) and down (the largest not above). */
#define F64_TO_F32_UP(d) convert_float_rtp(d)
#define F64_TO_F32_DOWN(d) convert_float_rtn(d)
#define BITS_F32(f) as_uint(f)
#define AS_F64(u) as_double((ulong)(u))
#define BITS_F64(d) as_ulong(d)
/* Leading zero bits of a nonzero u64. */
#define CLZ64(u) ((int)clz((ulong)(u)))
#define FMA(a, b, c) fma((a), (b), (c))
#define SQRT(x) sqrt(x)

/* IEEE half to float by bits (cl_khr_fp16 is not needed to read halves). */
INLINE float f16_bits_to_f32(u32 h) {
  u32 s = (h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1fu) return as_float(s | 0x7f800000u | (m << 13)); /* Inf, NaN */
  if (e == 0u) return as_float(s) + (s ? -1.0f : 1.0f) * (float)m * 5.9604644775390625e-8f;
  return as_float(s | ((e + 112u) << 23) | (m << 13));
}

typedef struct { u32 w[4]; } vec16;
INLINE vec16 load_vec16(const GLOBAL void *p) {
  uint4 v = *(const __global uint4 *)p; /* 16-byte aligned: the caller sees to it */
  vec16 r;
  r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
  return r;
}

INLINE void store_vec16(GLOBAL void *p, const vec16 *v) {
  *(__global uint4 *)p = (uint4)(v->w[0], v->w[1], v->w[2], v->w[3]);
}

/* No portable shuffles: work-group trees go through local memory. */
#define HAVE_SHUFFLE 0
#define HAVE_RELEASE_ACQUIRE 0 /* fences and plain atomics (reduce_best.clh) */
#define NANOSLEEP(ns) ((void)0) /* no such hint */
#define WARP 32
