/* The CPU backend: context creation from "cpu[:key=value,...]", the vtable. */
#include "cpu.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Below this many input bytes a reduction runs on the calling thread alone: waking the
 * other threads costs more than they save. Measured with `tally bench` on a 2-core
 * Zen 5 (docs/PERFORMANCE.md); override with cpu:parallel_bytes=N. */
#define DEFAULT_PARALLEL_BYTES ((int64_t)128 * 1024)

static const char *const variant_names[] = {"sequential", "naive", "best"};

static int online_cpus(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    int n = CPU_COUNT(&set);
    if (n > 0) return n;
  }
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

static const tally__kernel (*table_for(tally__isa isa))[TALLY_DTYPE_COUNT_] {
  switch (isa) {
  case TALLY__ISA_AVX512: return tally__cpu_kernels_avx512;
  case TALLY__ISA_AVX2: return tally__cpu_kernels_avx2;
  default: return tally__cpu_kernels_scalar;
  }
}

static bool parse_int(const char *s, size_t len, int64_t lo, int64_t hi, int64_t *out) {
  char buf[32];
  if (len == 0 || len >= sizeof buf) return false;
  memcpy(buf, s, len);
  buf[len] = '\0';
  char *end;
  errno = 0;
  long long v = strtoll(buf, &end, 10);
  if (errno || *end || v < lo || v > hi) return false;
  *out = v;
  return true;
}

/* The last-level cache's size, where the C library knows it (glibc: sysconf), else 32 MiB
 * (not the L2's: a VM that hides its L3 would then stream a few MiB): scans whose input
 * and output together exceed it write with streaming stores (scan.c). */
static int64_t last_level_cache_bytes(void) {
#ifdef _SC_LEVEL3_CACHE_SIZE
  long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (l3 > 0) return l3;
#endif
  return (int64_t)32 << 20;
}

static tally_status cpu_open(const char *args, tally_context **out) {
  int threads = online_cpus();
  int64_t parallel_bytes = DEFAULT_PARALLEL_BYTES;
  int parallel_bytes_given = 0;
  int64_t stream_bytes = last_level_cache_bytes();
  tally__isa best = tally__isa_detect();
  tally__isa isa = best;
  const char *isa_from = NULL;
  char isa_name[16] = "";
  const char *env_isa = getenv("TALLY_CPU_ISA");
  if (env_isa && *env_isa) {
    snprintf(isa_name, sizeof isa_name, "%.15s", env_isa);
    isa_from = "$TALLY_CPU_ISA";
  }
  if (*args) {
    if (*args != ':')
      return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s' is malformed", args);
    const char *s = args + 1;
    while (*s) {
      size_t len = strcspn(s, ",");
      const char *eq = memchr(s, '=', len);
      if (!eq)
        return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s': '%.*s' is not key=value "
                           "(keys: threads, isa, parallel_bytes, stream_bytes)", args, (int)len, s);
      size_t klen = (size_t)(eq - s), vlen = len - klen - 1;
      const char *v = eq + 1;
      int64_t iv;
      if (klen == 7 && strncmp(s, "threads", 7) == 0) {
        if (!parse_int(v, vlen, 1, 1024, &iv))
          return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s': threads=%.*s is not a "
                             "number in 1..1024", args, (int)vlen, v);
        threads = (int)iv;
      } else if (klen == 3 && strncmp(s, "isa", 3) == 0) {
        snprintf(isa_name, sizeof isa_name, "%.*s", (int)(vlen < 15 ? vlen : 15), v);
        isa_from = "device";
      } else if (klen == 14 && strncmp(s, "parallel_bytes", 14) == 0) {
        if (!parse_int(v, vlen, 0, INT64_MAX, &iv))
          return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s': parallel_bytes=%.*s is not "
                             "a non-negative number", args, (int)vlen, v);
        parallel_bytes = iv;
        parallel_bytes_given = 1;
      } else if (klen == 12 && strncmp(s, "stream_bytes", 12) == 0) {
        if (!parse_int(v, vlen, 0, INT64_MAX, &iv))
          return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s': stream_bytes=%.*s is not "
                             "a non-negative number", args, (int)vlen, v);
        stream_bytes = iv;
      } else {
        return tally__fail(NULL, TALLY_EINVAL, "device 'cpu%s': unknown key '%.*s' (keys: "
                           "threads, isa, parallel_bytes, stream_bytes)", args, (int)klen, s);
      }
      s += len;
      if (*s == ',') s++;
    }
  }
  if (isa_from) {
    int want = tally__isa_parse(isa_name);
    const char *where = isa_from[0] == '$' ? "$TALLY_CPU_ISA" : "device 'cpu";
    const char *tail = isa_from[0] == '$' ? "" : args;
    const char *close = isa_from[0] == '$' ? "" : "'";
    if (want < 0)
      return tally__fail(NULL, TALLY_EINVAL, "%s%s%s: isa '%s' is unknown (known: scalar, "
                         "avx2, avx512)", where, tail, close, isa_name);
    if (want > (int)best)
      return tally__fail(NULL, TALLY_EUNSUPPORTED, "%s%s%s: isa '%s' is not supported by this "
                         "CPU (best here: %s)", where, tail, close, isa_name, tally__isa_name(best));
    isa = (tally__isa)want;
  }
  tally__cpu_ctx *c = calloc(1, sizeof *c);
  if (!c) return tally__fail(NULL, TALLY_ENOMEM, "cpu context: out of memory");
  c->base.backend = &tally__cpu_backend;
  c->threads = threads;
  c->isa = isa;
  c->amd = tally__cpu_is_amd();
  c->kernels = table_for(isa);
  c->parallel_bytes = parallel_bytes;
  c->parallel_bytes_given = parallel_bytes_given;
  c->stream_bytes = stream_bytes;
  c->pool = tally__pool_create(threads);
  if (!c->pool) {
    free(c);
    return tally__fail(NULL, TALLY_ENOMEM, "cpu context: could not start %d threads", threads);
  }
  *out = &c->base;
  return TALLY_OK;
}

static void cpu_close(tally_context *ctx) {
  tally__cpu_ctx *c = (tally__cpu_ctx *)ctx;
  tally__pool_destroy(c->pool);
  free(c->scratch);
  free(c);
}

static tally_status cpu_describe(const tally_context *ctx, tally_context_info *info) {
  const tally__cpu_ctx *c = (const tally__cpu_ctx *)ctx;
  snprintf(info->backend, sizeof info->backend, "cpu");
  tally__cpu_model(info->device, sizeof info->device);
  if (!info->device[0]) snprintf(info->device, sizeof info->device, "unknown CPU");
  snprintf(info->isa, sizeof info->isa, "%s", tally__isa_name(c->isa));
  info->threads = c->threads;
  info->parallel_threshold_bytes = c->parallel_bytes;
  return TALLY_OK;
}

static const char *cpu_variant_name(const tally_context *ctx, int i) {
  (void)ctx;
  return i < (int)(sizeof variant_names / sizeof variant_names[0]) ? variant_names[i] : NULL;
}

static tally_status variant_of(tally_context *ctx, const char *name, tally__variant *v) {
  if (!name || strcmp(name, "best") == 0) { *v = TALLY__VAR_BEST; return TALLY_OK; }
  if (strcmp(name, "sequential") == 0) { *v = TALLY__VAR_SEQUENTIAL; return TALLY_OK; }
  if (strcmp(name, "naive") == 0) { *v = TALLY__VAR_NAIVE; return TALLY_OK; }
  return tally__fail(ctx, TALLY_EINVAL, "opt->variant: '%s' is not a variant of the cpu "
                     "backend (known: sequential, naive, best)", name);
}

static tally_status cpu_check(tally_context *ctx, const tally__problem *p) {
  tally__variant v;
  tally_status s = variant_of(ctx, p->opt.variant, &v);
  if (s) return s;
  if (v == TALLY__VAR_NAIVE && !tally__naive_supports(p->op, p->dtype))
    return tally__fail(ctx, TALLY_EUNSUPPORTED, "opt->variant: 'naive' has no meaning for %s "
                       "of %s (it keeps an accumulator of the input type: sum, prod, sumsq, "
                       "dot, mean, var, std, norm2 on non-bool dtypes)",
                       tally_op_name(p->op), tally_dtype_name(p->dtype));
  return TALLY_OK;
}

static tally_status cpu_reduce(tally_context *ctx, const tally__problem *p, const void *in,
                               const void *in2, void *out, int64_t s0, int64_t s1, void *ws) {
  tally__variant v;
  tally_status s = variant_of(ctx, p->opt.variant, &v);
  if (s) return s;
  if (v == TALLY__VAR_BEST) return tally__cpu_reduce(ctx, p, in, in2, out, s0, s1, ws);
  return tally__cpu_reduce_simple(ctx, p, v, in, in2, out, s0, s1);
}

static int cpu_devices(tally_device_info *list, int capacity) {
  if (capacity < 1) return 1;
  tally_device_info *d = &list[0];
  memset(d, 0, sizeof *d);
  char model[96];
  tally__cpu_model(model, sizeof model);
  snprintf(d->name, sizeof d->name, "cpu");
  snprintf(d->backend, sizeof d->backend, "cpu");
  snprintf(d->detail, sizeof d->detail, "%s, %d threads, ISA %s", model[0] ? model : "unknown CPU",
           online_cpus(), tally__isa_name(tally__isa_detect()));
  d->usable = 1;
  return 1;
}

const tally__backend tally__cpu_backend = {
    .name = "cpu",
    .open = cpu_open,
    .close = cpu_close,
    .describe = cpu_describe,
    .variant_name = cpu_variant_name,
    .check = cpu_check,
    .workspace_size = tally__cpu_workspace_size,
    .reduce = cpu_reduce,
    .reduce_user = tally__cpu_reduce_user,
    .devices = cpu_devices,
    .scan = tally__cpu_scan,
    .histogram = tally__cpu_histogram,
};
