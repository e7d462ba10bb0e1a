// round_trip: what any one-launch reduction whose result goes to the host pays on this
// GPU, and what its finish costs, by the host clock (medians of 3000 calls, warm L2, us).
// Not part of the bench; it measured the floor under tally_reduce's fixed cost
// (docs/DECISIONS.md, "A call's fixed cost"). Usage: round_trip
//   1. an empty kernel: the launch call alone, and launch + cudaStreamSynchronize
//   2. a kernel whose last block writes a flag into mapped host memory, which the host
//      watches (G = 1, 132, 264 blocks)
//   3. an f32 sum of 2^10-2^22 elements (256 threads, 8 16-byte loads each, one wave) with
//      three finishes: 0, tally's until 2026-11-30 (fence, relaxed ticket; the last block
//      merges, fences at system scope, writes the flag); 1, an acq_rel ticket and a
//      release store of the flag; 2, every block's part and flag to the host, which merges
//   4. cudaStreamQuery and cudaPointerGetAttributes on an idle stream
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <algorithm>
#include <vector>

#define BLOCK 256
#define UNROLL 8
#define CALLS 3000

static double now_us() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}
static double median(std::vector<double> &v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

__global__ void k_empty() {}
__global__ void k_flag(volatile unsigned long long *flag, unsigned long long seq) {
  if (threadIdx.x == 0 && blockIdx.x == gridDim.x - 1) {
    __threadfence_system();
    *flag = seq;
  }
}

__device__ __forceinline__ double block_sum(double s, double *sh) {
  for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o);
  if ((threadIdx.x & 31) == 0) sh[threadIdx.x >> 5] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    s = threadIdx.x < BLOCK / 32 ? sh[threadIdx.x] : 0;
    for (int o = 16; o; o >>= 1) s += __shfl_down_sync(~0u, s, o);
  }
  return s;
}
__device__ __forceinline__ double tile_sum(const float4 *x, long nv) {
  double s = 0;
  for (long v = blockIdx.x * (long)(BLOCK * UNROLL) + threadIdx.x; v < nv; v += (long)gridDim.x * BLOCK * UNROLL) {
    float4 a[UNROLL];
    for (int u = 0; u < UNROLL; u++) a[u] = v + u * BLOCK < nv ? x[v + u * BLOCK] : make_float4(0, 0, 0, 0);
    for (int u = 0; u < UNROLL; u++) s += (double)a[u].x + a[u].y + a[u].z + a[u].w;
  }
  return s;
}
__device__ __forceinline__ void store_release_sys(unsigned long long *p, unsigned long long v) {
  asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ unsigned ticket_acq_rel(unsigned *p) {
  unsigned old;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(old) : "l"(p) : "memory");
  return old;
}

template <int MODE>
__global__ void k_sum(const float4 *x, long nv, double *partials, unsigned *counter, double *res,
                      unsigned long long *flags, unsigned long long seq) {
  __shared__ double sh[32];
  __shared__ int last;
  double s = block_sum(tile_sum(x, nv), sh);
  const int G = gridDim.x;
  if (MODE == 2) {
    if (threadIdx.x == 0) {
      res[blockIdx.x] = s;
      store_release_sys(flags + blockIdx.x, seq);
    }
    return;
  }
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = s;
    if (MODE == 0) {
      __threadfence();
      last = atomicAdd(counter, 1) == (unsigned)(G - 1);
    } else {
      last = ticket_acq_rel(counter) == (unsigned)(G - 1);
    }
  }
  __syncthreads();
  if (!last) return;
  if (MODE == 0) __threadfence();
  double t = 0;
  for (int i = threadIdx.x; i < G; i += BLOCK) t += __ldcg(partials + i);
  __syncthreads();
  t = block_sum(t, sh);
  if (threadIdx.x == 0) {
    *counter = 0;
    res[0] = t;
    if (MODE == 0) {
      __threadfence_system();
      *(volatile unsigned long long *)flags = seq;
    } else {
      store_release_sys(flags, seq);
    }
  }
}

int main() {
  if (cudaFree(0) != cudaSuccess) {
    fprintf(stderr, "round_trip: no CUDA device\n");
    return 77;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("device: %s\n", prop.name);
  cudaStream_t st;
  cudaStreamCreate(&st);
  double *res_h, *res_d;
  unsigned long long *fl_h, *fl_d;
  cudaHostAlloc(&res_h, 1 << 16, cudaHostAllocMapped);
  cudaHostGetDevicePointer(&res_d, res_h, 0);
  cudaHostAlloc(&fl_h, 1 << 16, cudaHostAllocMapped);
  cudaHostGetDevicePointer(&fl_d, fl_h, 0);
  memset(fl_h, 0, 1 << 16);
  float4 *x;
  double *part;
  unsigned *cnt;
  cudaMalloc(&x, 1 << 24);
  cudaMalloc(&part, 1 << 16);
  cudaMalloc(&cnt, 64);
  cudaMemset(cnt, 0, 64);
  std::vector<float> h(1 << 22);
  for (size_t i = 0; i < h.size(); i++) h[i] = (float)(i % 1000);
  cudaMemcpy(x, h.data(), 1 << 24, cudaMemcpyHostToDevice);
  std::vector<double> a, b;
  unsigned long long seq = 0;

  for (int i = 0; i < CALLS; i++) {
    double t0 = now_us();
    k_empty<<<1, 32, 0, st>>>();
    double t1 = now_us();
    cudaStreamSynchronize(st);
    a.push_back(t1 - t0);
    b.push_back(now_us() - t0);
  }
  printf("empty kernel: launch call %.2f, launch + cudaStreamSynchronize %.2f\n", median(a), median(b));
  a.clear(), b.clear();

  for (int g : {1, 132, 264}) {
    for (int i = 0; i < CALLS; i++) {
      double t0 = now_us();
      k_flag<<<g, 256, 0, st>>>(fl_d, ++seq);
      double t1 = now_us();
      while (__atomic_load_n(fl_h, __ATOMIC_ACQUIRE) != seq) {
      }
      a.push_back(t1 - t0);
      b.push_back(now_us() - t0);
    }
    cudaStreamSynchronize(st);
    printf("flag kernel, %d blocks: launch call %.2f, launch + flag seen %.2f\n", g, median(a), median(b));
    a.clear(), b.clear();
  }

  for (int lg = 10; lg <= 22; lg += 2) {
    long n = 1L << lg, nv = n / 4;
    int G = (int)((nv + BLOCK * UNROLL - 1) / (BLOCK * UNROLL));
    double expect = 0;
    for (long i = 0; i < n; i++) expect += h[i];
    printf("f32 sum 2^%d, %d blocks:", lg, G);
    for (int mode = 0; mode < 3; mode++) {
      double r = 0;
      for (int i = 0; i < CALLS; i++) {
        ++seq;
        double t0 = now_us();
        if (mode == 0) k_sum<0><<<G, BLOCK, 0, st>>>(x, nv, part, cnt, res_d, fl_d, seq);
        if (mode == 1) k_sum<1><<<G, BLOCK, 0, st>>>(x, nv, part, cnt, res_d, fl_d, seq);
        if (mode == 2) k_sum<2><<<G, BLOCK, 0, st>>>(x, nv, part, cnt, res_d, fl_d, seq);
        const int nf = mode == 2 ? G : 1;
        for (int f = 0; f < nf; f++)
          while (__atomic_load_n(&fl_h[f], __ATOMIC_ACQUIRE) != seq) {
          }
        r = 0;
        for (int f = 0; f < nf; f++) r += res_h[f];
        a.push_back(now_us() - t0);
      }
      cudaStreamSynchronize(st);
      printf("  finish %d %.2f%s", mode, median(a), r == expect ? "" : " (WRONG SUM)");
      a.clear();
    }
    printf("\n");
  }

  for (int i = 0; i < CALLS; i++) {
    double t0 = now_us();
    cudaStreamQuery(st);
    a.push_back(now_us() - t0);
    cudaPointerAttributes at;
    t0 = now_us();
    cudaPointerGetAttributes(&at, x);
    b.push_back(now_us() - t0);
  }
  printf("idle stream: cudaStreamQuery %.3f; cudaPointerGetAttributes %.3f\n", median(a), median(b));
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fprintf(stderr, "round_trip: %s\n", cudaGetErrorString(e));
    return 1;
  }
  return 0;
}
