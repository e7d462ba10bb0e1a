/* Output files of the CLI: .npy (format 1.0, little-endian, C order) and a minimal PNG
 * (8-bit RGB, zlib "stored" blocks: no compression library needed). */
#include "io_write.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *descr_of(tally_dtype t) {
  switch (t) {
  case TALLY_BOOL: return "|b1";
  case TALLY_I8: return "|i1";
  case TALLY_I16: return "<i2";
  case TALLY_I32: return "<i4";
  case TALLY_I64: return "<i8";
  case TALLY_U8: return "|u1";
  case TALLY_U16: return "<u2";
  case TALLY_U32: return "<u4";
  case TALLY_U64: return "<u8";
  case TALLY_F16: return "<f2";
  case TALLY_F32: return "<f4";
  case TALLY_F64: return "<f8";
  default: return NULL; /* bf16: numpy has none; the caller converts to f32 */
  }
}

int io_write_npy(const char *path, tally_dtype t, int ndim, const int64_t *shape,
                 const void *data, char *err, size_t errsize) {
  const char *descr = descr_of(t);
  if (!descr) {
    snprintf(err, errsize, "%s: numpy has no dtype for %s", path, tally_dtype_name(t));
    return -1;
  }
  char dict[256];
  int len;
  if (ndim == 1)
    len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld,), }",
                   descr, (long long)shape[0]);
  else
    len = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%lld, %lld), }",
                   descr, (long long)shape[0], (long long)shape[1]);
  /* magic (6) + version (2) + length (2) + dict + spaces + '\n', a multiple of 64 */
  size_t total = (10 + (size_t)len + 1 + 63) & ~(size_t)63;
  unsigned char head[320];
  memcpy(head, "\x93NUMPY\x01\x00", 8);
  size_t hl = total - 10;
  head[8] = (unsigned char)(hl & 0xff);
  head[9] = (unsigned char)(hl >> 8);
  memcpy(head + 10, dict, (size_t)len);
  memset(head + 10 + len, ' ', total - 10 - (size_t)len - 1);
  head[total - 1] = '\n';
  FILE *f = fopen(path, "wb");
  if (!f) {
    snprintf(err, errsize, "%s: cannot create: %s", path, strerror(errno));
    return -1;
  }
  size_t bytes = (size_t)shape[0] * (ndim == 2 ? (size_t)shape[1] : 1) * tally_dtype_size(t);
  int bad = fwrite(head, 1, total, f) != total || (bytes && fwrite(data, 1, bytes, f) != bytes);
  if (fclose(f) != 0) bad = 1;
  if (bad) {
    snprintf(err, errsize, "%s: write failed: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}

/* ------------------------------------------------------------ PNG */

static uint32_t crc_table[256];

static uint32_t crc32_of(uint32_t crc, const unsigned char *p, size_t n) {
  if (!crc_table[1])
    for (uint32_t i = 0; i < 256; i++) {
      uint32_t c = i;
      for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
      crc_table[i] = c;
    }
  crc = ~crc;
  for (size_t i = 0; i < n; i++) crc = crc_table[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return ~crc;
}

static void be32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}

static int chunk(FILE *f, const char *type, const unsigned char *data, size_t n) {
  unsigned char len[4], crc[4];
  be32(len, (uint32_t)n);
  uint32_t c = crc32_of(0, (const unsigned char *)type, 4);
  c = crc32_of(c, data, n);
  be32(crc, c);
  return fwrite(len, 1, 4, f) == 4 && fwrite(type, 1, 4, f) == 4 &&
         (n == 0 || fwrite(data, 1, n, f) == n) && fwrite(crc, 1, 4, f) == 4 ? 0 : -1;
}

int io_write_png(const char *path, int w, int h, const unsigned char *rgb, char *err,
                 size_t errsize) {
  /* The raw scanlines (filter byte 0, then RGB), wrapped in a zlib stream of stored blocks. */
  size_t row = 1 + 3 * (size_t)w, raw = row * (size_t)h;
  size_t nblocks = (raw + 65534) / 65535;
  size_t zsize = 2 + raw + 5 * (nblocks ? nblocks : 1) + 4;
  unsigned char *z = malloc(zsize);
  if (!z) {
    snprintf(err, errsize, "%s: out of memory", path);
    return -1;
  }
  size_t at = 0, done = 0;
  uint32_t a1 = 1, a2 = 0; /* Adler-32 */
  z[at++] = 0x78;
  z[at++] = 0x01;
  for (size_t b = 0; b < nblocks || (b == 0 && raw == 0); b++) {
    size_t n = raw - done < 65535 ? raw - done : 65535;
    z[at++] = (unsigned char)(done + n == raw);
    z[at++] = (unsigned char)(n & 0xff);
    z[at++] = (unsigned char)(n >> 8);
    z[at++] = (unsigned char)(~n & 0xff);
    z[at++] = (unsigned char)((~n >> 8) & 0xff);
    for (size_t i = 0; i < n; i++, done++) {
      size_t y = done / row, x = done % row;
      unsigned char v = x == 0 ? 0 : rgb[y * 3 * (size_t)w + x - 1];
      z[at++] = v;
      a1 = (a1 + v) % 65521;
      a2 = (a2 + a1) % 65521;
    }
    if (raw == 0) break;
  }
  be32(z + at, (a2 << 16) | a1);
  at += 4;
  unsigned char ihdr[13];
  be32(ihdr, (uint32_t)w);
  be32(ihdr + 4, (uint32_t)h);
  ihdr[8] = 8;  /* bit depth */
  ihdr[9] = 2;  /* RGB */
  ihdr[10] = ihdr[11] = ihdr[12] = 0;
  FILE *f = fopen(path, "wb");
  int bad = !f;
  if (f) {
    bad = fwrite("\x89PNG\r\n\x1a\n", 1, 8, f) != 8 || chunk(f, "IHDR", ihdr, 13) ||
          chunk(f, "IDAT", z, at) || chunk(f, "IEND", NULL, 0);
    if (fclose(f) != 0) bad = 1;
  }
  free(z);
  if (bad) {
    snprintf(err, errsize, "%s: cannot write: %s", path, strerror(errno));
    return -1;
  }
  return 0;
}
