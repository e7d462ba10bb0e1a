/* Device memory through the context: tally_mem_alloc, tally_mem_free, tally_mem_copy, and
 * the host memory the device reads fastest: tally_mem_alloc_host, tally_mem_free_host.
 * Backends whose device memory is host memory (the CPU) leave the vtable entries NULL
 * and get the plain host versions here. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

static tally_status aligned_host(tally_context *ctx, size_t bytes, void **ptr) {
  if (bytes > SIZE_MAX - 63)
    return tally__fail(ctx, TALLY_ENOMEM, "bytes: %zu is more than memory can hold", bytes);
  void *m = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
  if (!m) return tally__fail(ctx, TALLY_ENOMEM, "bytes: out of memory allocating %zu bytes", bytes);
  *ptr = m;
  return TALLY_OK;
}

tally_status tally_mem_alloc(tally_context *ctx, size_t bytes, void **ptr) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!ptr) return tally__fail(ctx, TALLY_EINVAL, "ptr: NULL pointer");
  *ptr = NULL;
  if (bytes == 0) return TALLY_OK;
  if (ctx->backend->mem_alloc) return ctx->backend->mem_alloc(ctx, bytes, ptr);
  return aligned_host(ctx, bytes, ptr);
}

tally_status tally_mem_alloc_host(tally_context *ctx, size_t bytes, void **ptr) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!ptr) return tally__fail(ctx, TALLY_EINVAL, "ptr: NULL pointer");
  *ptr = NULL;
  if (bytes == 0) return TALLY_OK;
  if (ctx->backend->mem_alloc_host) return ctx->backend->mem_alloc_host(ctx, bytes, ptr);
  return aligned_host(ctx, bytes, ptr);
}

tally_status tally_mem_free_host(tally_context *ctx, void *ptr) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!ptr) return TALLY_OK;
  if (ctx->backend->mem_free_host) return ctx->backend->mem_free_host(ctx, ptr);
  free(ptr);
  return TALLY_OK;
}

tally_status tally_mem_free(tally_context *ctx, void *ptr) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (!ptr) return TALLY_OK;
  if (ctx->backend->mem_free) return ctx->backend->mem_free(ctx, ptr);
  free(ptr);
  return TALLY_OK;
}

tally_status tally_mem_copy(tally_context *ctx, void *dst, tally_mem dst_mem, const void *src,
                            tally_mem src_mem, size_t bytes) {
  if (!ctx) return tally__fail(NULL, TALLY_EINVAL, "ctx: NULL pointer");
  if (dst_mem != TALLY_MEM_HOST && dst_mem != TALLY_MEM_DEVICE)
    return tally__fail(ctx, TALLY_EINVAL, "dst_mem: unknown value %d", (int)dst_mem);
  if (src_mem != TALLY_MEM_HOST && src_mem != TALLY_MEM_DEVICE)
    return tally__fail(ctx, TALLY_EINVAL, "src_mem: unknown value %d", (int)src_mem);
  if (bytes == 0) return TALLY_OK;
  if (!dst) return tally__fail(ctx, TALLY_EINVAL, "dst: NULL with %zu bytes to copy", bytes);
  if (!src) return tally__fail(ctx, TALLY_EINVAL, "src: NULL with %zu bytes to copy", bytes);
  if (ctx->backend->mem_copy) return ctx->backend->mem_copy(ctx, dst, dst_mem, src, src_mem, bytes);
  memmove(dst, src, bytes);
  return TALLY_OK;
}
