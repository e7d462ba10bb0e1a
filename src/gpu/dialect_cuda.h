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
#define GLOBAL
#define LOCAL __shared__ /* a block-shared variable */
#define LOCAL_PTR /* a pointer parameter to block-shared memory (OpenCL: __local) */
#define INLINE static __device__ __forceinline__
#define BARRIER() __syncthreads()
#define LOCAL_ID ((int)threadIdx.x)
#define GROUP_ID ((i64)blockIdx.x)
#define GROUP_ID_Y ((i64)blockIdx.y)
#define NUM_GROUPS ((i64)gridDim.x)
#define LOCAL_SIZE ((int)blockDim.x)

/* Make this thread's global writes visible to every other block before what follows. */
#define FENCE_GLOBAL() __threadfence()
#define ATOMIC_ADD_U32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#define ATOMIC_ADD_LOCAL_U32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
/* Loads of data another block wrote in this launch: from L2, never a stale L1 line. */
#define LOAD_CG_U64(p) __ldcg((const unsigned long long *)(p))
/* A flag another block sets while this one waits on it: read again on every call. */
#define LOAD_VOLATILE_U64(p) (*(volatile const unsigned long long *)(p))
#define STORE_VOLATILE_U64(p, v) (*(volatile unsigned long long *)(p) = (v))
/* A flag published with release semantics (this thread's earlier writes are seen first by
 * whoever acquires it) and read with acquire semantics (what it publishes is seen after):
 * the pair costs less than two full fences (measured: f32 scan 865 -> 1017 GB/s). */
INLINE void store_release_u64(GLOBAL u64 *p, u64 v) {
  asm volatile("st.release.gpu.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
INLINE u64 load_acquire_u64(const GLOBAL u64 *p) {
  u64 v;
  asm volatile("ld.acquire.gpu.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}

#define AS_F32(u) __uint_as_float((u32)(u))
#define BITS_F32(f) __float_as_uint(f)
#define AS_F64(u) __longlong_as_double((i64)(u))
#define BITS_F64(d) ((u64)__double_as_longlong(d))
#define FMA(a, b, c) fma((a), (b), (c))
#define SQRT(x) sqrt(x)

INLINE float f16_bits_to_f32(u32 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"((unsigned short)h));
  return f;
}

/* 16 bytes in one load (the caller guarantees the alignment). */
typedef struct { u32 w[4]; } vec16;
INLINE vec16 load_vec16(const GLOBAL void *p) {
  uint4 v = __ldg((const uint4 *)p);
  vec16 r;
  r.w[0] = v.x; r.w[1] = v.y; r.w[2] = v.z; r.w[3] = v.w;
  return r;
}

INLINE void store_vec16(GLOBAL void *p, const vec16 *v) {
  *(uint4 *)p = make_uint4(v->w[0], v->w[1], v->w[2], v->w[3]);
}

/* Warps: 32 lanes that exchange registers without memory. */
#define HAVE_SHUFFLE 1
#define WARP 32
#define SHFL_DOWN_U32(v, d) __shfl_down_sync(0xffffffffu, (v), (d))
#define SHFL_UP_U32(v, d) __shfl_up_sync(0xffffffffu, (v), (d))
/* The lanes whose p is nonzero, as bits; the lowest set bit's number + 1 (0: none). */
#define BALLOT(p) __ballot_sync(0xffffffffu, (p))
#define FFS(x) __ffs(x)
#define SYNCWARP() __syncwarp()
/* Whether any thread of the block passes a nonzero value (and a block barrier). */
#define BARRIER_OR(v) __syncthreads_or(v)
#define HAVE_ATOMIC64 1
#define ATOMIC_ADD_F64(p, v) atomicAdd((double *)(p), (v))
#define ATOMIC_ADD_U64(p, v) atomicAdd((unsigned long long *)(p), (unsigned long long)(v))
