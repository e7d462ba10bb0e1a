/* The disk cache of compiled GPU kernels (disk_cache.c). */
#ifndef TALLY_DISK_CACHE_H
#define TALLY_DISK_CACHE_H

#include <stddef.h>
#include <stdint.h>

/* The cache folder, created if needed; 0: no disk cache (off, or no usable place). */
int tally__cache_dir(char *dir, size_t len);
/* A whole file (malloc'd), or NULL. */
void *tally__cache_read(const char *path, size_t *size);
/* Write a file so that it appears whole or not at all; failures leave no file. */
void tally__cache_write(const char *path, const void *data, size_t size);
/* FNV-1a over data, continuing from h (start: 0xcbf29ce484222325). */
uint64_t tally__fnv1a(uint64_t h, const void *data, size_t n);

#endif
