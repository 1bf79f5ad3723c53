/* Numbers for people: binary byte units, times, thousands separators, and
 * parsing of sizes given on the command line. */
#ifndef CG_UNITS_H
#define CG_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "512 B", "2.50 KiB", "15.44 MiB", "196.5 KiB": 3-4 significant digits. */
char *cg_fmt_bytes(char *buf, size_t size, uint64_t bytes);
/* "16,190,672" */
char *cg_fmt_count(char *buf, size_t size, uint64_t n);
/* A time since the trace began, or a duration: "0.123 s", "1.284 s",
 * "4.3 ms", "850 µs", "120 ns". */
char *cg_fmt_time(char *buf, size_t size, uint64_t ns);
/* "39.5 %", "<0.1 %" */
char *cg_fmt_percent(char *buf, size_t size, double fraction);

/* A change of bytes with its sign: "+519.0 KiB", "-2.00 MiB", "0 B". */
char *cg_fmt_bytes_signed(char *buf, size_t size, int64_t delta);

/* Columns that UTF-8 text s takes on a terminal: one per code point
 * (cgmem's own text has no wide characters; names are counted the same). */
size_t cg_text_width(const char *s);
/* Copies s into buf, cut in the middle with "…" when it is wider than
 * width columns, so both ends of a span path stay readable. Cuts only
 * between characters. Returns buf. */
char *cg_fmt_fit(char *buf, size_t size, const char *s, size_t width);

/* Parses "12GiB", "500MB", "1.5G", "4096", "64k". Decimal suffixes (kB, MB,
 * GB, TB) are powers of 1000, binary ones (KiB, ... and the bare K, M, G, T)
 * powers of 1024. Returns 0, or -1 when s is not a size or overflows. */
int cg_parse_size(const char *s, uint64_t *out);

#endif
