/* The CUB peer of `tally bench` on NVIDIA GPUs (C++: tally itself stays C).
 *
 *   cub_peer --op sum|min|max|argmin|argmax --dtype f32|f64|i32|i64 --sizes LIST
 *            [--reps N] [--seed N] [--device K] [--flush-bytes B] [--json [--samples]]
 *   cub_peer --probe [--dtype T] --sizes LIST ...   the read probe: the bandwidth ceiling
 *   cub_peer --h2d [--dtype T] --sizes LIST ...     pinned host-to-device copy bandwidth
 *   cub_peer --scan [--op sum|prod|min|max|affine] --dtype T --sizes LIST ...
 *                                                   cub::DeviceScan, any of tally's dtypes
 *   cub_peer --copy, --hist: see run_copy, run_hist
 *
 * Sizes are element counts of --dtype (default f32; u8, bytes, for --probe and --h2d
 * only): 2^K, numbers, 2^A..2^B[:S] ranges, comma lists. Per size: the input is filled on
 * the device with the data of `tally bench` (bench/bench_util.c's splitmix64 of the index,
 * so tally's exact reference checks CUB's result too: floats uniform in [0.5, 1.5),
 * integers +-[1, 64]); CUB's temporary storage is allocated once; 3 untimed runs; then
 * --reps runs (default 25), each timed twice:
 *
 *   call:   host wall clock (CLOCK_MONOTONIC) from just before the cub::DeviceReduce call
 *           to the result on the host (cudaMemcpy to a host variable): what tally_reduce
 *           measures, since it returns with the result on the host;
 *   kernel: CUDA events around the device work alone, recorded while the stream is still
 *           busy with the L2 flush, so the launch overhead is not in it.
 *
 * Before every run the L2 is flushed: a 4 x L2 buffer is written (cudaMemsetAsync), then
 * another 4 x L2 buffer is read, so the input is out of the L2 and no dirty line is left
 * for the timed run to write back (--flush-bytes sets the buffers' size; 0: no flush).
 * Medians are reported (and minima in JSON; --samples: every run).
 *
 * SUM of i32/i64 is written to a 64-bit result, so CUB accumulates in 64 bits (tally's
 * integer sums are 64-bit too); f32 sums accumulate in float, as cub::DeviceReduce::Sum
 * does. ARGMIN/ARGMAX: CUB's two-output form (value, 64-bit index; the first extreme).
 *
 * --probe reads the same bytes with the plainest fastest kernel: a grid-stride loop of
 * 16-byte loads (4 in flight per thread), XORed into a register, one value per block
 * written out; grid = SMs x resident blocks. --h2d copies n elements from pinned host
 * memory (cudaHostAlloc) with cudaMemcpyAsync in 64 MiB chunks: the ceiling for input
 * that starts in host memory.
 *
 * Output: a line per size, or with --json one JSON object per line with peer ("cub",
 * "probe", "h2d"), device, op, dtype, n, bytes, median_call_us, median_kernel_us, gbps
 * (bytes / median call), gbps_kernel and result (with index for ARG*). Exit status: 0;
 * 2 for a usage error; 77 when there is no CUDA GPU; 1 for any CUDA error, each with one
 * line on stderr. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_histogram.cuh>
#include <cub/version.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda/functional>
#include <cuda/std/functional>

namespace {

const char usage[] =
    "usage: cub_peer --op sum|min|max|argmin|argmax --dtype f32|f64|i32|i64 --sizes LIST\n"
    "                [--reps N] [--seed N] [--device K] [--flush-bytes B] [--json [--samples]]\n"
    "       cub_peer --probe|--h2d|--copy [--dtype T|u8] --sizes LIST [--reps N] [--device K] [--json]\n"
    "       cub_peer --scan [--op sum|prod|min|max|affine] --dtype T --sizes LIST ...\n"
    "            (T: f32 f64 f16 bf16 i8 i16 i32 i64 u8 u16 u32 u64)\n"
    "       cub_peer --hist [--skew] --dtype f32|u8 --sizes LIST ...   (256 even bins)\n"
    "LIST: comma list of 2^K, counts, and ranges 2^A..2^B[:step]. --flush-bytes: size of\n"
    "each of the L2 flush's two buffers (default 4 x L2; 0: no flush). Exit 77: no CUDA GPU.\n";

[[noreturn]] void fail(int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  std::fputs("cub_peer: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
  std::exit(code);
}

void check(cudaError_t e, const char *what, int line) {
  if (e != cudaSuccess)
    fail(1, "%s: %s (%s) [cub_peer.cu:%d]", what, cudaGetErrorString(e), cudaGetErrorName(e), line);
}
#define CK(call) check((call), #call, __LINE__)

enum class Mode { cub, probe, h2d, scan, copy, hist };
enum class Op { sum, min, max, argmin, argmax, prod, affine };
/* DeviceReduce: the first four; --hist: f32, u8; --scan: all; --probe, --h2d, --copy: any
 * (they move bytes) */
enum class Dtype { f32, f64, i32, i64, u8, i8, i16, u16, u32, u64, f16, bf16 };

const char *op_names[] = {"sum", "min", "max", "argmin", "argmax", "prod", "affine"};
const char *dtype_names[] = {"f32", "f64", "i32", "i64", "u8", "i8", "i16", "u16", "u32", "u64", "f16", "bf16"};
const size_t dtype_sizes[] = {4, 8, 4, 8, 1, 1, 2, 2, 4, 8, 2, 2};
constexpr int NOPS = 7, NDTYPES = 12;

struct Options {
  Mode mode = Mode::cub;
  bool have_op = false;
  Op op = Op::sum;
  Dtype dtype = Dtype::f32;
  std::vector<int64_t> sizes;
  int reps = 25;
  uint64_t seed = 1;
  int device = 0;
  long long flush_bytes = -1; /* each of the flush's two buffers; -1: 4 x L2; 0: no flush */
  bool json = false;
  bool samples = false; /* JSON: every sample too */
  bool skew = false; /* --hist: every value in one bin */
};

bool parse_i64(const char *s, long long lo, long long hi, long long *v) {
  if (!s || !*s) return false;
  char *end;
  errno = 0;
  long long x = std::strtoll(s, &end, 10);
  if (errno || *end || x < lo || x > hi) return false;
  *v = x;
  return true;
}

/* "2^K" or a count; exp2 = K, or -1 for a count. */
bool parse_one(const std::string &s, int64_t *v, int *exp2) {
  long long x;
  *exp2 = -1;
  if (s.compare(0, 2, "2^") == 0) {
    if (!parse_i64(s.c_str() + 2, 0, 40, &x)) return false;
    *exp2 = (int)x;
    *v = (int64_t)1 << x;
    return true;
  }
  if (!parse_i64(s.c_str(), 1, (long long)1 << 40, &x)) return false;
  *v = x;
  return true;
}

void parse_sizes(const char *arg, std::vector<int64_t> *out) {
  std::string all(arg);
  size_t start = 0;
  while (start <= all.size()) {
    size_t comma = all.find(',', start);
    std::string item =
        all.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    start = comma == std::string::npos ? all.size() + 1 : comma + 1;
    size_t dots = item.find("..");
    int64_t a, b;
    int ea, eb;
    if (dots == std::string::npos) {
      if (!parse_one(item, &a, &ea))
        fail(2, "--sizes: %s: not a count or 2^K (K <= 40)", item.c_str());
      out->push_back(a);
      continue;
    }
    std::string lo = item.substr(0, dots), hi = item.substr(dots + 2);
    long long step = 1;
    size_t colon = hi.find(':');
    if (colon != std::string::npos) {
      if (!parse_i64(hi.c_str() + colon + 1, 1, 40, &step))
        fail(2, "--sizes: %s: the step must be 1..40", item.c_str());
      hi.resize(colon);
    }
    if (!parse_one(lo, &a, &ea) || !parse_one(hi, &b, &eb) || ea < 0 || eb < 0 || ea > eb)
      fail(2, "--sizes: %s: a range must be 2^A..2^B with A <= B", item.c_str());
    for (int e = ea; e <= eb; e += (int)step) out->push_back((int64_t)1 << e);
  }
  if (out->empty()) fail(2, "--sizes: %s: no sizes", arg);
}

template <class E> bool parse_name(const char *s, const char *const *names, int count, E *out) {
  for (int i = 0; i < count; i++)
    if (std::strcmp(s, names[i]) == 0) {
      *out = (E)i;
      return true;
    }
  return false;
}

Options parse(int argc, char **argv) {
  Options o;
  bool have_sizes = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    auto value = [&]() -> const char * {
      if (i + 1 >= argc) fail(2, "%s: needs a value (see --help)", a);
      return argv[++i];
    };
    long long v;
    if (!std::strcmp(a, "-h") || !std::strcmp(a, "--help")) {
      std::fputs(usage, stdout);
      std::exit(0);
    } else if (!std::strcmp(a, "--op")) {
      const char *s = value();
      if (!parse_name(s, op_names, NOPS, &o.op))
        fail(2, "--op: %s: expected sum, min, max, argmin, argmax, prod or affine", s);
      o.have_op = true;
    } else if (!std::strcmp(a, "--dtype")) {
      const char *s = value();
      if (!parse_name(s, dtype_names, NDTYPES, &o.dtype))
        fail(2, "--dtype: %s: expected f32, f64, i32, i64, u8, i8, i16, u16, u32, u64, f16 or bf16", s);
    } else if (!std::strcmp(a, "--sizes")) {
      parse_sizes(value(), &o.sizes);
      have_sizes = true;
    } else if (!std::strcmp(a, "--reps")) {
      const char *s = value();
      if (!parse_i64(s, 1, 100000, &v)) fail(2, "--reps: %s: expected 1..100000", s);
      o.reps = (int)v;
    } else if (!std::strcmp(a, "--seed")) {
      const char *s = value();
      if (!parse_i64(s, 0, LLONG_MAX, &v)) fail(2, "--seed: %s: expected a number >= 0", s);
      o.seed = (uint64_t)v;
    } else if (!std::strcmp(a, "--device")) {
      const char *s = value();
      if (!parse_i64(s, 0, 1024, &v)) fail(2, "--device: %s: expected a device number", s);
      o.device = (int)v;
    } else if (!std::strcmp(a, "--flush-bytes")) {
      const char *s = value();
      if (!parse_i64(s, 0, (long long)1 << 40, &v))
        fail(2, "--flush-bytes: %s: expected bytes >= 0", s);
      o.flush_bytes = v;
    } else if (!std::strcmp(a, "--json")) {
      o.json = true;
    } else if (!std::strcmp(a, "--samples")) {
      o.samples = true;
    } else if (!std::strcmp(a, "--probe")) {
      o.mode = Mode::probe;
    } else if (!std::strcmp(a, "--h2d")) {
      o.mode = Mode::h2d;
    } else if (!std::strcmp(a, "--scan")) {
      o.mode = Mode::scan;
    } else if (!std::strcmp(a, "--copy")) {
      o.mode = Mode::copy;
    } else if (!std::strcmp(a, "--hist")) {
      o.mode = Mode::hist;
    } else if (!std::strcmp(a, "--skew")) {
      o.skew = true;
    } else {
      fail(2, "%s: unknown argument (see --help)", a);
    }
  }
  if (!have_sizes) fail(2, "--sizes is required (see --help)");
  if (o.mode == Mode::cub && !o.have_op)
    fail(2, "--op is required, or --probe / --h2d / --copy / --scan (see --help)");
  if (o.mode != Mode::cub && o.mode != Mode::scan && o.have_op)
    fail(2, "--op goes only with DeviceReduce (no mode flag) or --scan");
  if (o.mode == Mode::scan && (o.op == Op::argmin || o.op == Op::argmax))
    fail(2, "--scan: --op %s: expected sum, prod, min, max or affine", op_names[(int)o.op]);
  if (o.mode == Mode::cub && (o.op == Op::prod || o.op == Op::affine))
    fail(2, "--op %s goes only with --scan", op_names[(int)o.op]);
  if (o.mode == Mode::hist && o.dtype != Dtype::f32 && o.dtype != Dtype::u8)
    fail(2, "--hist: --dtype f32 or u8");
  if (o.mode == Mode::cub && (int)o.dtype > (int)Dtype::i64)
    fail(2, "--dtype %s: DeviceReduce takes f32, f64, i32 or i64", dtype_names[(int)o.dtype]);
  return o;
}

double now_us() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* ---------------------------------------------------------------- the data */

/* bench/bench_util.c's splitmix64: element i of a stream is mix(s0 + (i + 1)·gamma). */
constexpr uint64_t GAMMA = 0x9e3779b97f4a7c15ull;

__host__ __device__ inline uint64_t mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

template <class T> __device__ inline T value_of(uint64_t r);
template <> __device__ inline float value_of<float>(uint64_t r) {
  return 0.5f + (float)(r >> 41) * 0x1p-23f;
}
template <> __device__ inline double value_of<double>(uint64_t r) {
  return 0.5 + (double)(r >> 12) * 0x1p-52;
}
template <> __device__ inline int32_t value_of<int32_t>(uint64_t r) {
  int32_t v = (int32_t)(r & 63) + 1;
  return (r & 64) ? -v : v;
}
template <> __device__ inline int64_t value_of<int64_t>(uint64_t r) { return value_of<int32_t>(r); }
template <> __device__ inline int8_t value_of<int8_t>(uint64_t r) { return (int8_t)value_of<int32_t>(r); }
template <> __device__ inline int16_t value_of<int16_t>(uint64_t r) { return (int16_t)value_of<int32_t>(r); }
template <> __device__ inline uint8_t value_of<uint8_t>(uint64_t r) {
  return (uint8_t)((r & 63) + 1);
}
template <> __device__ inline uint16_t value_of<uint16_t>(uint64_t r) { return (uint16_t)((r & 63) + 1); }
template <> __device__ inline uint32_t value_of<uint32_t>(uint64_t r) { return (uint32_t)((r & 63) + 1); }
template <> __device__ inline uint64_t value_of<uint64_t>(uint64_t r) { return (r & 63) + 1; }
/* 0.5 + k·2^-10 (f16) and 0.5 + k·2^-7 (bf16) are exact in the type, as in bench_fill */
template <> __device__ inline __half value_of<__half>(uint64_t r) {
  return __float2half_rn(0.5f + (float)(r >> 54) * 0x1p-10f);
}
template <> __device__ inline __nv_bfloat16 value_of<__nv_bfloat16>(uint64_t r) {
  return __float2bfloat16_rn(0.5f + (float)(r >> 57) * 0x1p-7f);
}

template <class T> __global__ void fill_kernel(T *p, size_t n, uint64_t s0) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
       i += (size_t)gridDim.x * blockDim.x)
    p[i] = value_of<T>(mix(s0 + (uint64_t)(i + 1) * GAMMA));
}

/* ---------------------------------------------------------------- the read probe */

constexpr int PROBE_THREADS = 256;

__device__ inline unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

/* XOR of n16 16-byte words and ntail (< 16) bytes after them; one value per block. */
__global__ void __launch_bounds__(PROBE_THREADS)
    probe_kernel(const uint4 *__restrict__ p, size_t n16, const unsigned char *__restrict__ tail,
                 unsigned ntail, unsigned *__restrict__ out) {
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
  unsigned acc = 0;
  for (; i + 3 * stride < n16; i += 4 * stride) {
    uint4 a = p[i], b = p[i + stride], c = p[i + 2 * stride], d = p[i + 3 * stride];
    acc ^= fold(a) ^ fold(b) ^ fold(c) ^ fold(d);
  }
  for (; i < n16; i += stride) acc ^= fold(p[i]);
  if (blockIdx.x == 0 && threadIdx.x < ntail) acc ^= tail[threadIdx.x];
  for (int o = 16; o; o >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, o);
  __shared__ unsigned warp_acc[PROBE_THREADS / 32];
  if ((threadIdx.x & 31) == 0) warp_acc[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned t = 0;
    for (int w = 0; w < PROBE_THREADS / 32; w++) t ^= warp_acc[w];
    out[blockIdx.x] = t;
  }
}

struct Device {
  int id = 0, sms = 0, l2 = 0, probe_blocks_per_sm = 0;
  cudaDeviceProp prop;
};

/* Blocks of the probe for `bytes`: every SM full, never more than the work. */
unsigned probe_grid(const Device &d, size_t bytes) {
  size_t need = (bytes / 16 + PROBE_THREADS - 1) / PROBE_THREADS;
  size_t full = (size_t)d.sms * d.probe_blocks_per_sm;
  return (unsigned)std::max<size_t>(1, std::min(full, need));
}

void launch_probe(const Device &d, const void *p, size_t bytes, unsigned *out) {
  size_t n16 = bytes / 16;
  probe_kernel<<<probe_grid(d, bytes), PROBE_THREADS>>>(
      (const uint4 *)p, n16, (const unsigned char *)p + n16 * 16, (unsigned)(bytes % 16), out);
  CK(cudaGetLastError());
}

/* ---------------------------------------------------------------- L2 flush and timing */

struct Flush {
  void *wbuf = nullptr, *rbuf = nullptr;
  unsigned *sink = nullptr;
  size_t bytes = 0;
  int k = 0;
  void init(const Device &d, long long want) {
    bytes = want >= 0 ? (size_t)want : 4 * (size_t)(d.l2 > 0 ? d.l2 : 64 << 20);
    if (bytes == 0) return;
    CK(cudaMalloc(&wbuf, bytes));
    CK(cudaMalloc(&rbuf, bytes));
    CK(cudaMalloc(&sink, (size_t)d.sms * d.probe_blocks_per_sm * sizeof(unsigned)));
    CK(cudaMemset(rbuf, 0x5a, bytes));
    CK(cudaDeviceSynchronize());
  }
  /* Asynchronous, on the default stream. */
  void run(const Device &d) {
    if (bytes == 0) return;
    CK(cudaMemsetAsync(wbuf, ++k & 0xff, bytes));
    launch_probe(d, rbuf, bytes, sink);
  }
};

struct Stats {
  double call_med, call_min, kern_med, kern_min;
  std::vector<double> call, kern; /* the samples, µs */
};

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

/* launch(): the device work, asynchronous on the default stream; fetch(): bring the result
 * to the host and wait for it. */
template <class Launch, class Fetch>
Stats time_runs(const Device &d, Flush &fl, int reps, Launch launch, Fetch fetch) {
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  for (int w = 0; w < 3; w++) {
    fl.run(d);
    launch();
    fetch();
  }
  std::vector<double> call, kern;
  for (int r = 0; r < reps; r++) {
    /* call: the wall clock, with the device idle at the start */
    fl.run(d);
    CK(cudaDeviceSynchronize());
    double t0 = now_us();
    launch();
    fetch();
    call.push_back(now_us() - t0);
    /* kernel: events queued behind the flush, so the work is queued before e0 fires */
    fl.run(d);
    CK(cudaEventRecord(e0, 0));
    launch();
    CK(cudaEventRecord(e1, 0));
    fetch();
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    kern.push_back(ms * 1e3);
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  Stats s;
  s.call_med = median(call);
  s.call_min = *std::min_element(call.begin(), call.end());
  s.kern_med = median(kern);
  s.kern_min = *std::min_element(kern.begin(), kern.end());
  s.call = call;
  s.kern = kern;
  return s;
}

/* ---------------------------------------------------------------- output */

struct Result {
  std::string text = "null"; /* the value, as JSON */
  long long index = -1;      /* ARG* */
  size_t temp_bytes = 0;     /* CUB's temporary storage */
  double bytes = 0;          /* bytes moved, where not n x the dtype's size (x 2 for scans) */
};

void json_string(const char *s) {
  std::putchar('"');
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      std::printf("\\%c", c);
    else if (c < 0x20)
      std::printf("\\u%04x", c);
    else
      std::putchar(c);
  }
  std::putchar('"');
}

void report(const Options &o, const Device &d, const Flush &fl, const char *peer, int64_t n,
            const Stats &s, const Result &res) {
  /* scans and copies read and write their bytes: GB/s counts both */
  double bytes = res.bytes > 0 ? res.bytes
                                : (double)n * dtype_sizes[(int)o.dtype] *
                                      (o.mode == Mode::scan || o.mode == Mode::copy ? 2 : 1);
  const std::string scan_op = std::string("inclusive_") + op_names[(int)o.op];
  double gbps = bytes / s.call_med * 1e-3, gbps_k = bytes / s.kern_med * 1e-3;
  const char *op = o.mode == Mode::cub    ? op_names[(int)o.op]
                   : o.mode == Mode::scan ? scan_op.c_str()
                   : o.mode == Mode::copy ? "copy"
                   : o.mode == Mode::hist ? (o.skew ? "hist256_skewed" : "hist256_uniform")
                                          : "read";
  if (!o.json) {
    std::printf("%-5s %-6s %-4s %12lld %12.3f %10.2f %12.3f %10.2f  %s\n", peer, op,
                dtype_names[(int)o.dtype], (long long)n, s.call_med, gbps, s.kern_med, gbps_k,
                res.text.c_str());
    std::fflush(stdout);
    return;
  }
  std::printf("{\"peer\":\"%s\",\"device\":", peer);
  json_string(d.prop.name);
  std::printf(",\"cc\":\"%d.%d\",\"sms\":%d,\"l2_bytes\":%d,\"cub_version\":\"%d.%d.%d\","
              "\"cudart_version\":%d",
              d.prop.major, d.prop.minor, d.sms, d.l2, CUB_VERSION / 100000,
              CUB_VERSION / 100 % 1000, CUB_VERSION % 100, CUDART_VERSION);
  std::printf(",\"op\":\"%s\",\"dtype\":\"%s\",\"n\":%lld,\"bytes\":%.0f,\"reps\":%d", op,
              dtype_names[(int)o.dtype], (long long)n, bytes, o.reps);
  std::printf(",\"median_call_us\":%.3f,\"min_call_us\":%.3f,\"median_kernel_us\":%.3f,"
              "\"min_kernel_us\":%.3f,\"gbps\":%.6g,\"gbps_kernel\":%.6g",
              s.call_med, s.call_min, s.kern_med, s.kern_min, gbps, gbps_k);
  std::printf(",\"result\":%s", res.text.c_str());
  if (res.index >= 0) std::printf(",\"index\":%lld", res.index);
  if (o.mode == Mode::cub || o.mode == Mode::scan || o.mode == Mode::hist)
    std::printf(",\"temp_bytes\":%zu", res.temp_bytes);
  std::printf(",\"flush_bytes\":%zu", 2 * fl.bytes);
  if (o.samples) {
    for (int k = 0; k < 2; k++) {
      const std::vector<double> &v = k ? s.kern : s.call;
      std::printf(",\"%s\":[", k ? "kernel_samples_us" : "call_samples_us");
      for (size_t i = 0; i < v.size(); i++) std::printf("%s%.3f", i ? "," : "", v[i]);
      std::printf("]");
    }
  }
  std::printf("}\n");
  std::fflush(stdout);
}

std::string text_of(float v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.9g", v);
  return b;
}
std::string text_of(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}
std::string text_of(long long v) { return std::to_string(v); }
std::string text_of(int32_t v) { return std::to_string(v); }
std::string text_of(long v) { return std::to_string(v); }

/* ---------------------------------------------------------------- the modes */

void *device_alloc(size_t bytes, const char *what) {
  void *p = nullptr;
  cudaError_t e = cudaMalloc(&p, bytes ? bytes : 1);
  if (e != cudaSuccess)
    fail(1, "cudaMalloc of %zu bytes for %s: %s (%s)", bytes, what, cudaGetErrorString(e),
         cudaGetErrorName(e));
  return p;
}

template <class T> struct SumOf { using type = T; };
template <> struct SumOf<int32_t> { using type = long long; };
template <> struct SumOf<int64_t> { using type = long long; };

/* One cub::DeviceReduce call; N is int where n fits (CUB's usual 32-bit offsets). */
template <class T, class N>
cudaError_t cub_call(Op op, void *tmp, size_t &tmp_bytes, const T *in, void *out, N n) {
  using S = typename SumOf<T>::type;
  int64_t *index = (int64_t *)((char *)out + 16);
  switch (op) {
  case Op::sum:
    return cub::DeviceReduce::Sum(tmp, tmp_bytes, in, (S *)out, n);
  case Op::min:
    return cub::DeviceReduce::Min(tmp, tmp_bytes, in, (T *)out, n);
  case Op::max:
    return cub::DeviceReduce::Max(tmp, tmp_bytes, in, (T *)out, n);
  case Op::argmin:
    return cub::DeviceReduce::ArgMin(tmp, tmp_bytes, in, (T *)out, index, (int64_t)n);
  case Op::argmax:
    return cub::DeviceReduce::ArgMax(tmp, tmp_bytes, in, (T *)out, index, (int64_t)n);
  }
  return cudaErrorInvalidValue;
}

constexpr uint64_t seed_state(uint64_t seed) {
  return seed * 0x2545f4914f6cdd1dull + 1;
} /* stream 0 */

/* stream k as bench_fill's: AFFINE's a's are stream 0, its b's stream 1 */
template <class T> void fill(const Device &d, T *p, int64_t n, uint64_t seed, uint64_t stream = 0) {
  fill_kernel<T><<<(unsigned)d.sms * 8, 256>>>(p, (size_t)n, seed_state(seed) + stream * GAMMA);
  CK(cudaGetLastError());
}

/* f(T{}) with T the C++ type of dtype t. */
template <class F> void with_dtype(Dtype t, F f) {
  switch (t) {
  case Dtype::f32: f(float{}); break;
  case Dtype::f64: f(double{}); break;
  case Dtype::i32: f(int32_t{}); break;
  case Dtype::i64: f(int64_t{}); break;
  case Dtype::u8: f(uint8_t{}); break;
  case Dtype::i8: f(int8_t{}); break;
  case Dtype::i16: f(int16_t{}); break;
  case Dtype::u16: f(uint16_t{}); break;
  case Dtype::u32: f(uint32_t{}); break;
  case Dtype::u64: f(uint64_t{}); break;
  case Dtype::f16: f(__half{}); break;
  case Dtype::bf16: f(__nv_bfloat16{}); break;
  }
}

/* n elements of dtype t at p. */
void fill_as(const Device &d, Dtype t, void *p, int64_t n, uint64_t seed) {
  with_dtype(t, [&](auto tag) { fill(d, (decltype(tag) *)p, n, seed); });
}

template <class T> void run_cub(const Options &o, const Device &d, Flush &fl, int64_t n) {
  T *in = (T *)device_alloc(n * sizeof(T), "the input");
  fill(d, in, n, o.seed);
  void *out = device_alloc(32, "the result");
  size_t tmp_bytes = 0;
  bool small = n <= INT_MAX;
  if (small)
    CK(cub_call<T>(o.op, nullptr, tmp_bytes, in, out, (int)n));
  else
    CK(cub_call<T>(o.op, nullptr, tmp_bytes, in, out, (int64_t)n));
  void *tmp = device_alloc(tmp_bytes, "CUB's temporary storage");
  CK(cudaDeviceSynchronize());
  unsigned char host[32];
  auto launch = [&] {
    size_t tb = tmp_bytes;
    if (small)
      CK(cub_call<T>(o.op, tmp, tb, in, out, (int)n));
    else
      CK(cub_call<T>(o.op, tmp, tb, in, out, (int64_t)n));
  };
  auto fetch = [&] { CK(cudaMemcpy(host, out, 24, cudaMemcpyDeviceToHost)); };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  Result res;
  res.temp_bytes = tmp_bytes;
  if (o.op == Op::sum) {
    typename SumOf<T>::type v;
    std::memcpy(&v, host, sizeof v);
    res.text = text_of(v);
  } else {
    T v;
    std::memcpy(&v, host, sizeof v);
    res.text = text_of(v);
  }
  if (o.op == Op::argmin || o.op == Op::argmax) {
    int64_t idx;
    std::memcpy(&idx, host + 16, sizeof idx);
    res.index = idx;
  }
  report(o, d, fl, "cub", n, s, res);
  CK(cudaFree(tmp));
  CK(cudaFree(out));
  CK(cudaFree(in));
}

void run_probe(const Options &o, const Device &d, Flush &fl, int64_t n) {
  size_t bytes = (size_t)n * dtype_sizes[(int)o.dtype];
  void *in = device_alloc(bytes, "the input");
  fill_as(d, o.dtype, in, n, o.seed);
  size_t nblocks = (size_t)d.sms * d.probe_blocks_per_sm;
  unsigned *out = (unsigned *)device_alloc(nblocks * sizeof(unsigned), "the probe's output");
  unsigned first = 0;
  auto launch = [&] { launch_probe(d, in, bytes, out); };
  auto fetch = [&] { CK(cudaMemcpy(&first, out, sizeof first, cudaMemcpyDeviceToHost)); };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  std::vector<unsigned> all(probe_grid(d, bytes));
  CK(cudaMemcpy(all.data(), out, all.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned x = 0;
  for (unsigned v : all) x ^= v;
  Result res;
  res.text = std::to_string(x); /* the XOR of every 32-bit word of the input */
  report(o, d, fl, "probe", n, s, res);
  CK(cudaFree(out));
  CK(cudaFree(in));
}

void run_h2d(const Options &o, const Device &d, Flush &fl, int64_t n) {
  const size_t chunk = (size_t)64 << 20;
  size_t bytes = (size_t)n * dtype_sizes[(int)o.dtype];
  void *dev = device_alloc(bytes, "the copy's destination");
  void *host = nullptr;
  cudaError_t e = cudaHostAlloc(&host, bytes, cudaHostAllocDefault);
  if (e != cudaSuccess)
    fail(1, "cudaHostAlloc of %zu pinned bytes: %s (%s)", bytes, cudaGetErrorString(e),
         cudaGetErrorName(e));
  std::memset(host, 0x3c, bytes);
  auto launch = [&] {
    for (size_t off = 0; off < bytes; off += chunk)
      CK(cudaMemcpyAsync((char *)dev + off, (char *)host + off, std::min(chunk, bytes - off),
                         cudaMemcpyHostToDevice, 0));
  };
  auto fetch = [&] { CK(cudaStreamSynchronize(0)); };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  Result res;
  res.text = std::to_string(bytes);
  report(o, d, fl, "h2d", n, s, res);
  CK(cudaFreeHost(host));
  CK(cudaFree(dev));
}

/* --scan: the inclusive scan a CUB user writes for each of tally's scans, into a second
 * buffer; the result is the last value.
 *   SUM, PROD: into tally's result type (ScanOf: signed integers into i64, unsigned into
 *     u64, f16/bf16 into f32), so the same bytes move per element as in tally's scan:
 *     cub::DeviceScan::InclusiveSum where the types are equal, else InclusiveScanInit from
 *     0 (or 1), whose accumulator is then the result type. (Until 2026-11-26 this peer
 *     scanned i32 into i32, 8 bytes, a third less traffic than tally's 12.)
 *   MIN, MAX: InclusiveScan with cuda::minimum / cuda::maximum, in the element type.
 *   AFFINE: InclusiveScan of maps x -> a·x + b, pairs of the result type, with the
 *     composition (not commutative; CUB keeps the order): the a's and b's are two arrays,
 *     as tally takes them, zipped by a transform iterator; the output is the pairs (A, B).
 * The data are bench_fill's (AFFINE's b's: stream 1), so the last value can be compared. */
template <class T> struct ScanOf { using type = T; };
template <> struct ScanOf<int8_t> { using type = int64_t; };
template <> struct ScanOf<int16_t> { using type = int64_t; };
template <> struct ScanOf<int32_t> { using type = int64_t; };
template <> struct ScanOf<uint8_t> { using type = uint64_t; };
template <> struct ScanOf<uint16_t> { using type = uint64_t; };
template <> struct ScanOf<uint32_t> { using type = uint64_t; };
template <> struct ScanOf<__half> { using type = float; };
template <> struct ScanOf<__nv_bfloat16> { using type = float; };

template <class R> struct alignas(2 * sizeof(R)) Map { R a, b; };

/* earlier l, then r: x -> r.a·(l.a·x + l.b) + r.b; integers wrap (two's complement), as
 * tally's do */
template <class R> struct Compose {
  __host__ __device__ Map<R> operator()(const Map<R> &l, const Map<R> &r) const {
    if constexpr (std::is_integral<R>::value) {
      using U = typename std::make_unsigned<R>::type;
      return {(R)((U)r.a * (U)l.a), (R)((U)r.a * (U)l.b + (U)r.b)};
    } else {
      return {r.a * l.a, r.a * l.b + r.b};
    }
  }
};

template <class T, class R> struct ZipMaps {
  const T *a, *b;
  __host__ __device__ Map<R> operator()(int64_t i) const { return {(R)a[i], (R)b[i]}; }
};

template <class X> std::string text_any(X v) {
  if constexpr (std::is_same<X, __half>::value) return text_of(__half2float(v));
  else if constexpr (std::is_same<X, __nv_bfloat16>::value) return text_of(__bfloat162float(v));
  else if constexpr (std::is_floating_point<X>::value) return text_of(v);
  else if constexpr (std::is_signed<X>::value) return std::to_string((long long)v);
  else return std::to_string((unsigned long long)v);
}

template <class T> void run_scan(const Options &o, const Device &d, Flush &fl, int64_t n) {
  using R = typename ScanOf<T>::type;
  const bool affine = o.op == Op::affine, minmax = o.op == Op::min || o.op == Op::max;
  const size_t out_size = affine ? sizeof(Map<R>) : minmax ? sizeof(T) : sizeof(R);
  T *in = (T *)device_alloc(n * sizeof(T), "the input");
  T *in2 = affine ? (T *)device_alloc(n * sizeof(T), "the b's") : nullptr;
  void *out = device_alloc(n * out_size, "the output");
  fill(d, in, n, o.seed);
  if (affine) fill(d, in2, n, o.seed, 1);
  size_t tmp_bytes = 0;
  auto call = [&](void *tmp, size_t &tb) {
    auto go = [&](auto nn) {
      switch (o.op) {
      case Op::min:
        CK(cub::DeviceScan::InclusiveScan(tmp, tb, in, (T *)out, cuda::minimum<>{}, nn));
        break;
      case Op::max:
        CK(cub::DeviceScan::InclusiveScan(tmp, tb, in, (T *)out, cuda::maximum<>{}, nn));
        break;
      case Op::sum:
        if constexpr (std::is_same<T, R>::value)
          CK(cub::DeviceScan::InclusiveSum(tmp, tb, in, (R *)out, nn));
        else
          CK(cub::DeviceScan::InclusiveScanInit(tmp, tb, in, (R *)out, cuda::std::plus<R>{}, (R)0, nn));
        break;
      case Op::prod:
        if constexpr (!std::is_same<decltype(nn), int>::value)
          fail(2, "--scan --op prod: more than 2^31 - 1 elements");
        else if constexpr (std::is_same<T, R>::value)
          CK(cub::DeviceScan::InclusiveScan(tmp, tb, in, (R *)out, cuda::std::multiplies<R>{}, nn));
        else
          CK(cub::DeviceScan::InclusiveScanInit(tmp, tb, in, (R *)out, cuda::std::multiplies<R>{}, (R)1, nn));
        break;
      case Op::affine:
        if constexpr (!std::is_same<decltype(nn), int>::value) {
          fail(2, "--scan --op affine: more than 2^31 - 1 elements");
        } else {
          auto maps = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0),
                                                      ZipMaps<T, R>{in, in2});
          CK(cub::DeviceScan::InclusiveScan(tmp, tb, maps, (Map<R> *)out, Compose<R>{}, nn));
        }
        break;
      default:
        fail(2, "--scan --op %s: not a scan", op_names[(int)o.op]);
      }
    };
    /* 64-bit counts only where tally's tests need them (sums, min, max of four types):
     * each instantiation costs compile time, in CI too */
    constexpr bool wide = std::is_same<T, float>::value || std::is_same<T, double>::value ||
                          std::is_same<T, int32_t>::value || std::is_same<T, int64_t>::value;
    if (n <= INT_MAX) go((int)n);
    else if constexpr (wide) go((int64_t)n);
    else fail(2, "--scan --dtype %s: %lld elements: more than 2^31 - 1 for f32, f64, i32 and i64 only",
              dtype_names[(int)o.dtype], (long long)n);
  };
  call(nullptr, tmp_bytes);
  void *tmp = device_alloc(tmp_bytes ? tmp_bytes : 1, "CUB's temporary storage");
  CK(cudaDeviceSynchronize());
  unsigned char last[16];
  auto launch = [&] {
    size_t tb = tmp_bytes;
    call(tmp, tb);
  };
  auto fetch = [&] {
    CK(cudaMemcpy(last, (char *)out + (n - 1) * out_size, out_size, cudaMemcpyDeviceToHost));
  };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  Result res;
  res.temp_bytes = tmp_bytes;
  res.bytes = (double)n * ((affine ? 2 : 1) * sizeof(T) + out_size);
  if (affine) { /* B, the last map's constant */
    Map<R> m;
    std::memcpy(&m, last, sizeof m);
    res.text = text_any(m.b);
  } else if (minmax) {
    T v;
    std::memcpy(&v, last, sizeof v);
    res.text = text_any(v);
  } else {
    R v;
    std::memcpy(&v, last, sizeof v);
    res.text = text_any(v);
  }
  report(o, d, fl, "cub_scan", n, s, res);
  CK(cudaFree(tmp));
  CK(cudaFree(out));
  if (in2) CK(cudaFree(in2));
  CK(cudaFree(in));
}

/* --hist: cub::DeviceHistogram::HistogramEven, 256 bins over [0, 1) (f32) or [0, 256)
 * (u8), of values uniform over the bins or (--skew) all one value (0.3, 77). */
template <class T> __global__ void hist_fill_kernel(T *p, size_t n, uint64_t s0, bool skew) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint64_t r = mix(s0 + (i + 1) * GAMMA);
    if (sizeof(T) == 1) p[i] = (T)(skew ? 77 : (r & 255));
    else p[i] = (T)(skew ? 0.3 : (double)(r >> 40) * 0x1p-24);
  }
}

template <class T, class L> void run_hist(const Options &o, const Device &d, Flush &fl, int64_t n, L lower, L upper) {
  T *in = (T *)device_alloc(n * sizeof(T), "the input");
  unsigned *bins = (unsigned *)device_alloc(256 * sizeof(unsigned), "the bins");
  hist_fill_kernel<T><<<(unsigned)d.sms * 8, 256>>>(in, (size_t)n, seed_state(o.seed), o.skew);
  CK(cudaGetLastError());
  size_t tmp_bytes = 0;
  CK(cub::DeviceHistogram::HistogramEven(nullptr, tmp_bytes, in, bins, 257, lower, upper, n));
  void *tmp = device_alloc(tmp_bytes ? tmp_bytes : 1, "CUB's temporary storage");
  CK(cudaDeviceSynchronize());
  unsigned host[256];
  auto launch = [&] {
    size_t tb = tmp_bytes;
    CK(cub::DeviceHistogram::HistogramEven(tmp, tb, in, bins, 257, lower, upper, n));
  };
  auto fetch = [&] { CK(cudaMemcpy(host, bins, sizeof host, cudaMemcpyDeviceToHost)); };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  unsigned long long total = 0;
  for (unsigned v : host) total += v;
  Result res;
  res.temp_bytes = tmp_bytes;
  res.text = std::to_string(total); /* the elements counted */
  report(o, d, fl, "cub_hist", n, s, res);
  CK(cudaFree(tmp));
  CK(cudaFree(bins));
  CK(cudaFree(in));
}

/* --copy: a device-to-device copy of n bytes (read and written once): a scan's ceiling. */
void run_copy(const Options &o, const Device &d, Flush &fl, int64_t n) {
  size_t bytes = (size_t)n * dtype_sizes[(int)o.dtype];
  void *in = device_alloc(bytes, "the copy's source");
  void *out = device_alloc(bytes, "the copy's destination");
  fill_as(d, o.dtype, in, n, o.seed);
  unsigned char last = 0;
  auto launch = [&] { CK(cudaMemcpyAsync(out, in, bytes, cudaMemcpyDeviceToDevice, 0)); };
  auto fetch = [&] {
    CK(cudaMemcpy(&last, (char *)out + bytes - 1, 1, cudaMemcpyDeviceToHost));
  };
  Stats s = time_runs(d, fl, o.reps, launch, fetch);
  Result res;
  res.text = std::to_string(bytes);
  report(o, d, fl, "copy", n, s, res);
  CK(cudaFree(out));
  CK(cudaFree(in));
}

} // namespace

int main(int argc, char **argv) {
  Options o = parse(argc, argv);
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess)
    fail(77, "no CUDA GPU: %s (%s)", cudaGetErrorString(e), cudaGetErrorName(e));
  if (count == 0) fail(77, "no CUDA GPU: the driver sees none");
  if (o.device >= count) fail(1, "--device %d: there are %d CUDA GPUs", o.device, count);
  Device d;
  d.id = o.device;
  CK(cudaSetDevice(d.id));
  CK(cudaGetDeviceProperties(&d.prop, d.id));
  CK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, d.id));
  CK(cudaDeviceGetAttribute(&d.l2, cudaDevAttrL2CacheSize, d.id));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&d.probe_blocks_per_sm, probe_kernel,
                                                   PROBE_THREADS, 0));
  if (d.probe_blocks_per_sm < 1) d.probe_blocks_per_sm = 1;
  Flush fl;
  fl.init(d, o.flush_bytes);
  if (!o.json)
    std::printf("# %s (cc %d.%d, %d SMs, L2 %d bytes), CUB %d.%d.%d; medians of %d runs, L2 "
                "flushed before each\n%-5s %-6s %-4s %12s %12s %10s %12s %10s  %s\n",
                d.prop.name, d.prop.major, d.prop.minor, d.sms, d.l2, CUB_VERSION / 100000,
                CUB_VERSION / 100 % 1000, CUB_VERSION % 100, o.reps, "peer", "op", "type", "n",
                "call_us", "GB/s", "kernel_us", "GB/s", "result");
  for (int64_t n : o.sizes) {
    if (o.mode == Mode::probe)
      run_probe(o, d, fl, n);
    else if (o.mode == Mode::h2d)
      run_h2d(o, d, fl, n);
    else if (o.mode == Mode::copy)
      run_copy(o, d, fl, n);
    else if (o.mode == Mode::hist && o.dtype == Dtype::f32)
      run_hist<float, float>(o, d, fl, n, 0.0f, 1.0f);
    else if (o.mode == Mode::hist)
      run_hist<uint8_t, int>(o, d, fl, n, 0, 256);
    else if (o.mode == Mode::scan)
      with_dtype(o.dtype, [&](auto tag) { run_scan<decltype(tag)>(o, d, fl, n); });
    else if (o.dtype == Dtype::f32)
      run_cub<float>(o, d, fl, n);
    else if (o.dtype == Dtype::f64)
      run_cub<double>(o, d, fl, n);
    else if (o.dtype == Dtype::i32)
      run_cub<int32_t>(o, d, fl, n);
    else
      run_cub<int64_t>(o, d, fl, n);
  }
  return 0;
}
