/* The copy probe: the plainest fast loop that reads one buffer and writes another, the
 * ceiling for a scan (which reads its input once and writes its output once). Ordinary
 * 64-byte vector loads and stores (a scan's outputs that fit the cache are written so;
 * larger ones stream: probe_copy_stream), one thread or all OpenMP threads (a static
 * split into contiguous parts). */
#ifndef TALLY_BENCH_COPY_PROBE_H
#define TALLY_BENCH_COPY_PROBE_H

#include <stddef.h>

/* Read in_bytes of src and write out_bytes of dst, where one of the two is a power of two
 * (1..8) times the other (a scan of i32 into i64 reads 4 bytes and writes 8 per element):
 * each 64-byte block read is written ratio times, or ratio blocks read are XORed into one
 * written. Both buffers 64-byte aligned, sizes multiples of 64 (the tail is left out). */
void probe_copy(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel);

/* probe_copy with streaming stores (x86; plain stores elsewhere): the output's lines are
 * written without being read first, which saves a third of a copy's traffic. The CPU
 * scans write outputs beyond the last-level cache that way too (src/cpu/scan.c), so for
 * those this is the ceiling. */
void probe_copy_stream(void *dst, size_t out_bytes, const void *src, size_t in_bytes, int parallel);

#endif
