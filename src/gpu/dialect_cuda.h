/* The kernel dialect on CUDA C (NVRTC). Kernel sources (*.clh) use only these names, so
 * the same text compiles as OpenCL C through dialect_opencl.h. */
typedef signed char i8;
typedef short i16;
typedef int i32;
typedef long long i64;
typedef unsigned char u8;
typedef unsigned short u16;
typedef unsigned int u32;
typedef unsigned long long u64;

#define KERNEL extern "C" __global__
/* A kernel of at most `threads` per block, registers capped so `blocks` of them fit on an SM. */
#define KERNEL_BOUNDS(threads, blocks) extern "C" __global__ __launch_bounds__(threads, blocks)
/* OpenCL passes inputs as buffer + element offset (dialect_opencl.h); CUDA as addresses. */
#define BASE_PARAMS
#define BASE_APPLY() ((void)0)
#define BASE_APPLY_X() ((void)0)
#define GLOBAL
#define LOCAL __shared__ /* a block-shared variable */
#define LOCAL_PTR /* a pointer parameter to block-shared memory (OpenCL: __local) */
#define INLINE static __device__ __forceinline__
/* A function of a rare path, kept out of line so that the compiler does not fold its tests
 * into the common path's (OpenCL: an ordinary function). */
#define RARE static __device__ __noinline__
#define BARRIER() __syncthreads()
/* A barrier of `count` threads (a multiple of 32), numbered id (1..15; 0 is BARRIER's):
 * the block's first `count` where only they take part, the other warps going on. Unlike
 * BARRIER, threads may meet it at different places in the code. barrier.sync, not
 * bar.sync (= barrier.sync.aligned, which requires every thread of a warp to execute it
 * together): the scan's look-back warp reaches it from code where its lanes branched
 * (lane 0 alone writes the carry just before), and an aligned barrier met by a split warp
 * is undefined (compute-sanitizer synccheck: "Barrier error ... Divergent thread(s)"). */
#define BARRIER_FIRST(id, count) asm volatile("barrier.sync %0, %1;" ::"r"(id), "r"(count) : "memory")
/* Arrive at barrier `id` of `count` threads without waiting (barrier.arrive, unaligned as
 * above): the writes to local memory before it are seen by the threads that wait there
 * with BARRIER_FIRST. */
#define BARRIER_ARRIVE(id, count) asm volatile("barrier.arrive %0, %1;" ::"r"(id), "r"(count) : "memory")
#define LOCAL_ID ((int)threadIdx.x)
/* A fact for the compiler to build on (nothing where the dialect has no such hint). */
#define ASSUME(c) __builtin_assume(c)
#define GROUP_ID ((i64)blockIdx.x)
#define GROUP_ID_Y ((i64)blockIdx.y)
#define NUM_GROUPS ((i64)gridDim.x)
#define NUM_GROUPS_Y ((i64)gridDim.y)
#define LOCAL_SIZE ((int)blockDim.x)

/* Suspend the thread for about ns nanoseconds (sm_70 on; a hint). */
#if __CUDA_ARCH__ >= 700
#define NANOSLEEP(ns) __nanosleep(ns)
#else
#define NANOSLEEP(ns) ((void)0)
#endif
/* Make this thread's global writes visible to every other block before what follows. */
#define FENCE_GLOBAL() __threadfence()
/* The same, for a reader on the host too (writes to mapped host memory). */
#define FENCE_SYSTEM() __threadfence_system()
#define ATOMIC_ADD_U32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define ATOMIC_ADD_LOCAL_U32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
/* Loads of data another block wrote in this launch: from L2, never a stale L1 line. */
#define LOAD_CG_U64(p) __ldcg((const unsigned long long *)(p))
/* A flag another block sets while this one waits on it: read again on every call. */
#define LOAD_VOLATILE_U64(p) (*(volatile const unsigned long long *)(p))
#define STORE_VOLATILE_U64(p, v) (*(volatile unsigned long long *)(p) = (v))
/* Release and acquire in one instruction, where a fence and a plain access were two (an
 * H200 call of reduce_best, launch to result on the host: 0.3-0.4 us less at 2^10-2^20).
 * ticket_acq_rel_u32: add 1 and return the old value; this thread's earlier writes are
 * visible to whoever acquires the new value, and it sees the writes released by those
 * before it. store_release_sys_u64: a flag that a host thread reads; every earlier write of
 * this thread (to mapped host memory too) is visible before it. */
#if __CUDA_ARCH__ >= 700 /* release and acquire came with sm_70; before, the fences */
#define HAVE_RELEASE_ACQUIRE 1
INLINE u32 ticket_acq_rel_u32(GLOBAL u32 *p) {
  u32 old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
  return old;
}
INLINE void store_release_sys_u64(GLOBAL u64 *p, u64 v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" : : "l"(p), "l"(v) : "memory");
}
#else
#define HAVE_RELEASE_ACQUIRE 0
#endif
/* Two 64-bit words that other blocks write during this launch: each word is read (and
 * written) whole, never torn, though the pair is two accesses; from L2, never a stale L1
 * line. For data that validates itself word by word (scan.clh's tagged carry slots), so no
 * flag and fence need to go first. */
INLINE void load_relaxed_u64x2(const GLOBAL u64 *p, u64 *a, u64 *b) {
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(*a), "=l"(*b) : "l"(p) : "memory");
}
INLINE void store_relaxed_u64x2(GLOBAL u64 *p, u64 a, u64 b) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
}

#define AS_F32(u) __uint_as_float((u32)(u))
#define BITS_F32(f) __float_as_uint(f)
#define AS_F64(u) __longlong_as_double((i64)(u))
#define BITS_F64(d) ((u64)__double_as_longlong(d))
/* Leading zero bits of a nonzero u64. */
#define CLZ64(u) __clzll((i64)(u))
/* f64 to f32 rounded up (the smallest float not below) and down (the largest not above). */
#define F64_TO_F32_UP(d) __double2float_ru(d)
#define F64_TO_F32_DOWN(d) __double2float_rd(d)
#define FMA(a, b, c) fma((a), (b), (c))
/* f32 a·b + c rounded toward zero (OpenCL C has no per-operation rounding: not defined). */
#define FMA_RZ_F32(a, b, c) __fmaf_rz((a), (b), (c))
#define SQRT(x) sqrt(x)

INLINE float f16_bits_to_f32(u32 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
  return f;
}

/* 16 bytes in one load (the caller guarantees the alignment). */
typedef struct __align__(16) { u32 w[4]; } vec16;
INLINE vec16 load_vec16(const GLOBAL void *p) {
  uint4 v = __ldg((const uint4 *)p);
  vec16 r;
  r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
  return r;
}

INLINE void store_vec16(GLOBAL void *p, const vec16 *v) {
  *(uint4 *)p = make_uint4(v->w[0], v->w[1], v->w[2], v->w[3]);
}
/* The same in block-shared memory (16-byte aligned). */
INLINE vec16 load_local_vec16(const LOCAL_PTR vec16 *p) {
  uint4 v = *(const uint4 *)p;
  vec16 r;
  r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
  return r;
}
INLINE void store_local_vec16(LOCAL_PTR vec16 *p, const vec16 *v) {
  *(uint4 *)p = make_uint4(v->w[0], v->w[1], v->w[2], v->w[3]);
}

/* 16 bytes from global to block-shared memory without passing through registers
 * (cp.async, sm_80 on), both 16-byte aligned; COPY_ASYNC_WAIT() waits for this thread's
 * copies. The scan keeps its tile's runs in local memory this way, so the bytes in flight
 * need no registers (scan.clh, RUNS_LOCAL). */
#if __CUDA_ARCH__ >= 800
INLINE void copy_async16(LOCAL_PTR vec16 *dst, const GLOBAL void *src) {
  asm volatile("{ .reg .u64 s; cvta.to.shared.u64 s, %0; cp.async.cg.shared.global [s], [%1], 16; }"
               ::"l"(dst), "l"(src) : "memory");
}
#define COPY_ASYNC_WAIT() asm volatile("cp.async.wait_all;" ::: "memory")
#else
INLINE void copy_async16(LOCAL_PTR vec16 *dst, const GLOBAL void *src) {
  vec16 v = load_vec16(src);
  store_local_vec16(dst, &v);
}
#define COPY_ASYNC_WAIT() ((void)0)
#endif

/* Bring the 128-byte line at p into L2 without waiting for it or holding a register:
 * the scan fetches a later tile's input this way (scan.clh, prefetch_tile_l2).
 * PREFETCH_L2_KEEP also asks L2 to keep the line before others (evict_last). */
#define PREFETCH_L2(p) asm volatile("prefetch.global.L2 [%0];" ::"l"(p))
#if __CUDA_ARCH__ >= 800
#define PREFETCH_L2_KEEP(p) asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p))
#else
#define PREFETCH_L2_KEEP(p) PREFETCH_L2(p)
#endif

/* Warps: 32 lanes that exchange registers without memory. */
#define HAVE_SHUFFLE 1
#define WARP 32
#define SHFL_DOWN_U32(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define SHFL_UP_U32(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
/* The lanes whose p is nonzero, as bits; the lowest set bit's number + 1 (0: none). */
#define BALLOT(p) __ballot_sync(0xffffffffu, (p))
#define FFS(x) __ffs(x)
#define SYNCWARP() __syncwarp()
/* Sum, maximum and bitwise or of a 32-bit value over the warp's lanes, every lane getting it: one
 * instruction from sm_80 (redux.sync), five shuffle steps before. */
#if __CUDA_ARCH__ >= 800
#define REDUCE_ADD_U32(v) __reduce_add_sync(0xffffffffu, (u32)(v))
#define REDUCE_MAX_U32(v) __reduce_max_sync(0xffffffffu, (u32)(v))
#define REDUCE_OR_U32(v) __reduce_or_sync(0xffffffffu, (u32)(v))
#else
INLINE u32 reduce_add_u32_(u32 v) {
  for (int d = 16; d; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}
INLINE u32 reduce_max_u32_(u32 v) {
  for (int d = 16; d; d /= 2) {
    const u32 o = __shfl_xor_sync(0xffffffffu, v, d);
    v = o > v ? o : v;
  }
  return v;
}
INLINE u32 reduce_or_u32_(u32 v) {
  for (int d = 16; d; d /= 2) v |= __shfl_xor_sync(0xffffffffu, v, d);
  return v;
}
#define REDUCE_ADD_U32(v) reduce_add_u32_((u32)(v))
#define REDUCE_MAX_U32(v) reduce_max_u32_((u32)(v))
#define REDUCE_OR_U32(v) reduce_or_u32_((u32)(v))
#endif
/* Whether any thread of the block passes a nonzero value (and a block barrier). */
#define BARRIER_OR(v) __syncthreads_or(v)
#define HAVE_ATOMIC64 1
#define ATOMIC_ADD_F64(p, v) atomicAdd((double *)(p), (v))
#define ATOMIC_ADD_U64(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
