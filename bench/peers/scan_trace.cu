/* scan_trace: where a CUDA scan tile's time goes. For measuring on a GPU machine, not part
 * of tally's build. It compiles tally's scan kernel (src/gpu/scan.clh) itself, with the
 * SCAN_STAMP hook recording the global timer (32 ns steps on an H200) at the points of
 * each tile that scan.clh names: start, loaded, run totals, barrier A, total or node
 * published, carry there, barrier B, results in local memory, stored; with -DCARRY_RTREE=1
 * (the radix-32 tree carries) also each of levels 0-2 folded (CSV columns t9-t11, 0 where the
 * tile has no node of that level to fold). A time read just
 * after a barrier may be taken before the barrier completes (the compiler may schedule
 * the read early: on an H200 the point after barrier B came 10 µs before the look-back
 * warp's carry that the barrier waits for, runs 179-180). It runs the kernel on f64 or f32 data in [0.5, 1.5)
 * the way src/cuda/scan.c does (one launch, the slots' epochs), with CUB's inclusive sum
 * on the same data in the same process, each run timed with events around the launch
 * alone after an L2 flush; checks every output against the exact prefix (compensated, in
 * long double) and prints the outputs' hash (kernels that must give the same bits);
 * writes the last run's stamps to a CSV for scripts/scan_trace.py.
 *
 *   nvcc -O2 -std=c++17 -arch=sm_90 --fmad=false -Isrc/gpu -DFAM=0 -DDT=12 -DSOP=0 \
 *     -DRDT=12 -DIGN=0 -DFAST=0 -DBLOCK=128 -DITEMS=32 -DMINB=6 bench/peers/scan_trace.cu \
 *     -o scan_trace
 *   ./scan_trace N REPS AHEAD TRACE.csv [BLOCKS]
 *
 * N elements; AHEAD as scan.c's scan_ahead; BLOCKS: at most this many blocks an SM (fewer
 * than the kernel's own limit: padded with dynamic shared memory), for measuring.
 *
 * The -D list is a plan's (tally__cuda_scan_plan): f64 SUM DEFAULT above, as planned for
 * 2^25 elements and more (from 1,024 to 4,096 tiles the plan adds -DCARRY_RTREE=1); FAST=1
 * for f64 FAST; -DDT=11 -DRDT=11 -DFAST=0 -DBLOCK=320 -DITEMS=32 -DMINB=4 for f32 DEFAULT. Prints
 * one line per contender: median, min and max µs over REPS. Exits 1 where a DEFAULT
 * scan's output is more than 2 units in the last place from the exact prefix. */
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define TRACE_TILES (1 << 16)
#define TRACE_W 13 /* per tile: global ns at points 0..7, the SM, ns at points 8..11 */
__device__ unsigned long long g_trace[TRACE_TILES * TRACE_W];

static __device__ __forceinline__ unsigned long long trace_ns() {
  unsigned long long c;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(c));
  return c;
}
static __device__ __forceinline__ void trace_stamp(long long k, int i) {
  if (k < 0 || k >= TRACE_TILES) return;
  unsigned long long *p = g_trace + k * TRACE_W;
  p[i >= 8 ? i + 1 : i] = trace_ns();
  if (i == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    p[8] = sm;
  }
}
#define SCAN_STAMP(cond, k, i) do { if (cond) trace_stamp((k), (i)); } while (0)

#include "dialect_cuda.h"
#include "reduce_part.clh"
#include "scan.clh"

#define CK(x) do { cudaError_t e_ = (x); if (e_) { \
  std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); std::exit(1); } } while (0)

#if DT == 12
typedef double elem;
#else
typedef float elem;
#endif

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

static void report(const char *who, const std::vector<double> &us) {
  std::printf("%s: median %.1f us, min %.1f, max %.1f (%zu runs)\n", who, median(us),
              *std::min_element(us.begin(), us.end()), *std::max_element(us.begin(), us.end()),
              us.size());
}

int main(int argc, char **argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: scan_trace N REPS AHEAD TRACE.csv [BLOCKS]\n");
    return 2;
  }
  const long long n = std::atoll(argv[1]);
  const int reps = std::atoi(argv[2]);
  const unsigned ahead = (unsigned)std::atoi(argv[3]);
  const long long tile = (long long)BLOCK * ITEMS, ntiles = (n + tile - 1) / tile;
  if (n <= 0 || reps < 1 || reps > 1000 || ntiles > TRACE_TILES) {
    std::fprintf(stderr, "scan_trace: N 1..%lld elements, REPS 1..1000\n", (long long)TRACE_TILES * tile);
    return 2;
  }
  std::vector<elem> hx((size_t)n);
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  long double exact = 0;
  for (auto &v : hx) { v = (elem)u(rng); exact += v; }

  elem *x, *out, *cub_out;
  unsigned char *slots, *flush, *tmp = nullptr;
  const size_t flush_bytes = 512u << 20, slot_bytes = 16 + (size_t)ntiles * CW * 8;
  CK(cudaMalloc(&x, n * sizeof(elem)));
  CK(cudaMalloc(&out, n * sizeof(elem)));
  CK(cudaMalloc(&cub_out, n * sizeof(elem)));
  CK(cudaMalloc(&slots, slot_bytes));
  CK(cudaMalloc(&flush, flush_bytes));
  CK(cudaMemcpy(x, hx.data(), n * sizeof(elem), cudaMemcpyHostToDevice));
  CK(cudaMemset(slots, 0, slot_bytes));
  size_t tmp_bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, tmp_bytes, x, cub_out, (int)n));
  CK(cudaMalloc(&tmp, tmp_bytes));

  size_t pad = 0; /* dynamic shared memory that leaves room for BLOCKS blocks an SM */
  if (argc > 5 && std::atoi(argv[5]) > 0) {
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, scan_1pass));
    int dev, per_sm;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev));
    int reserved = 0; /* the system's share of each block's shared memory */
    CK(cudaDeviceGetAttribute(&reserved, cudaDevAttrReservedSharedMemoryPerBlock, dev));
    /* a block's share, in the 128-byte units shared memory is given in */
    const size_t each = (size_t)per_sm / std::atoi(argv[5]) / 128 * 128 - (size_t)reserved;
    pad = each > fa.sharedSizeBytes ? each - fa.sharedSizeBytes : 0;
    CK(cudaFuncSetAttribute(scan_1pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)pad));
  }
  int resident = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, scan_1pass, BLOCK + 32, pad));
  std::printf("%d blocks an SM resident (%zu bytes of padding)\n", resident, pad);
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  std::vector<double> ours, cubs;
  unsigned base = 0;
  for (int r = 0; r < reps + 2; r++) { /* two to warm up */
    CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
    CK(cudaEventRecord(e0));
    scan_1pass<<<(unsigned)ntiles, BLOCK + 32, pad>>>(
        (const word_t *)x, (const word_t *)x, n, 1, 1, nullptr, (u8 *)out, 1, 1, MODE_CONTIG, 0, 0, 0,
        (u32 *)slots, (u64 *)(slots + 16), (u32)(r + 1), base, ahead);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaGetLastError());
    base += (unsigned)ntiles;
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) ours.push_back(ms * 1e3);

    CK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));
    CK(cudaEventRecord(e0));
    CK(cub::DeviceScan::InclusiveSum(tmp, tmp_bytes, x, cub_out, (int)n));
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (r >= 2) cubs.push_back(ms * 1e3);
  }
  elem last, cub_last;
  CK(cudaMemcpy(&last, out + n - 1, sizeof last, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(&cub_last, cub_out + n - 1, sizeof cub_last, cudaMemcpyDeviceToHost));
  std::printf("n %lld, tiles %lld of %d x %d, MINB %d, ahead %u\n", n, ntiles, BLOCK, ITEMS, MINB,
              ahead);
  int bad = 0;
  { /* the outputs' bits, to compare kernels that must agree (FNV-1a) */
    std::vector<unsigned char> h((size_t)n * sizeof(elem));
    CK(cudaMemcpy(h.data(), out, h.size(), cudaMemcpyDeviceToHost));
    unsigned long long fnv = 0xcbf29ce484222325ULL;
    for (unsigned char b : h) fnv = (fnv ^ b) * 0x100000001b3ULL;
    std::printf("outputs' hash %016llx\n", fnv);
    /* every output against the exact prefix (a compensated long double sum), in units of
     * the result type's last place at the exact value */
    const elem *r = (const elem *)h.data();
    long double hi = 0, lo = 0, worst = 0;
    long long at = 0;
    for (long long i = 0; i < n; i++) {
      long double y = (long double)hx[i] - lo, s2 = hi + y;
      lo = (s2 - hi) - y;
      hi = s2;
      long double ex = hi - lo, err = std::fabs((long double)r[i] - ex);
      int e;
      std::frexp((double)ex, &e);
      long double ulp = std::ldexp(1.0L, e - (sizeof(elem) == 8 ? 53 : 24));
      if (err / ulp > worst) { worst = err / ulp; at = i; }
    }
    std::printf("worst output error %.3Lf ulp (at %lld)\n", worst, at);
    exact = hi - lo;
    if (!FAST && worst > 2) bad = 1;
  }
  std::printf("last value: tally %.17g, cub %.17g, exact %.17Lg\n", (double)last, (double)cub_last, exact);
  report("tally", ours);
  report("cub (its two launches)", cubs);

  std::vector<unsigned long long> tr((size_t)ntiles * TRACE_W);
  CK(cudaMemcpyFromSymbol(tr.data(), g_trace, tr.size() * sizeof tr[0]));
  FILE *f = std::fopen(argv[4], "w");
  if (!f) { std::perror(argv[4]); return 1; }
  std::fprintf(f, "tile,sm,t0,t1,t2,t3,t4,t5,t6,t7,t8,t9,t10,t11\n");
  for (long long k = 0; k < ntiles; k++) {
    const unsigned long long *p = &tr[(size_t)k * TRACE_W];
    std::fprintf(f, "%lld,%llu", k, p[8]);
    for (int i = 0; i < 8; i++) std::fprintf(f, ",%llu", p[i]);
    for (int i = 9; i < TRACE_W; i++) std::fprintf(f, ",%llu", p[i]);
    std::fprintf(f, "\n");
  }
  std::fclose(f);
  return bad;
}
