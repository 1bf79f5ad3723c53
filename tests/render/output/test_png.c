/* The PNG writer, read back with zlib alone (no cairo, no libpng): the
 * signature, IHDR, chunk CRCs, and IDAT inflating to the filtered rows of
 * the same pixels; sRGB, pHYs and the title (tEXt, iTXt) before IDAT with
 * exact bytes and CRCs checked bit by bit; an image or a file that cannot
 * be written is an error naming the path. */
#include "testutil.h"

#include <string.h>
#include <zlib.h>

#include "png.h"

static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* A PNG taken apart: IHDR's fields, the IDAT data joined, chunk counts. */
typedef struct png_file {
	uint32_t width, height;
	unsigned char depth, colour, compression, filter, interlace;
	unsigned char *idat;
	size_t idat_len;
	unsigned nidat;
	bool iend_last;
} png_file;

/* Walks the chunks, checking each CRC (over type and data, PNG spec 5.3)
 * and that nothing follows IEND. */
static void parse(const unsigned char *p, size_t n, png_file *f)
{
	memset(f, 0, sizeof *f);
	assert_true(n >= 8);
	assert_memory_equal(p, signature, 8);
	size_t i = 8;
	bool first = true;
	while (i < n) {
		assert_true(n - i >= 12);
		uint32_t len = be32(p + i);
		assert_true(len <= n - i - 12);
		const unsigned char *type = p + i + 4, *data = p + i + 8;
		uint32_t crc = (uint32_t)crc32(crc32(0L, type, 4), data, len);
		assert_int_equal(be32(data + len), crc);
		if (first) {
			/* IHDR comes first and holds 13 bytes */
			assert_memory_equal(type, "IHDR", 4);
			assert_int_equal(len, 13);
			f->width = be32(data);
			f->height = be32(data + 4);
			f->depth = data[8];
			f->colour = data[9];
			f->compression = data[10];
			f->filter = data[11];
			f->interlace = data[12];
			first = false;
		} else if (memcmp(type, "IDAT", 4) == 0) {
			f->idat = realloc(f->idat, f->idat_len + len + 1);
			memcpy(f->idat + f->idat_len, data, len);
			f->idat_len += len;
			f->nidat++;
		} else if (memcmp(type, "IEND", 4) == 0) {
			assert_int_equal(len, 0);
			f->iend_last = i + 12 == n;
		}
		i += 12 + (size_t)len;
	}
}

/* Inflates the zlib stream of the IDAT chunks; asserts it ends exactly. */
static unsigned char *inflate_all(const png_file *f, size_t *out_len)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	assert_int_equal(inflateInit(&z), Z_OK);
	size_t cap = 1 << 16, len = 0;
	unsigned char *out = malloc(cap);
	z.next_in = f->idat;
	z.avail_in = (uInt)f->idat_len;
	int rc;
	do {
		if (len == cap)
			out = realloc(out, cap *= 2);
		z.next_out = out + len;
		z.avail_out = (uInt)(cap - len);
		rc = inflate(&z, Z_NO_FLUSH);
		len = cap - z.avail_out;
		assert_true(rc == Z_OK || rc == Z_STREAM_END);
	} while (rc != Z_STREAM_END);
	assert_int_equal(z.avail_in, 0);
	inflateEnd(&z);
	*out_len = len;
	return out;
}

/* Pixels as cairo lays them out: native-endian 0xAARRGGBB, stride bytes apart. */
static unsigned char *make_pixels(int width, int height, int stride, uint32_t (*colour)(int x, int y))
{
	unsigned char *data = calloc((size_t)height, (size_t)stride);
	for (int y = 0; y < height; y++) {
		uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
		for (int x = 0; x < width; x++)
			row[x] = colour(x, y);
	}
	return data;
}

/* White with a blue box and an orange band, as a chart is. */
static uint32_t chart_like(int x, int y)
{
	if (x >= 10 && x < 130 && y >= 3 && y < 53)
		return 0xff0072b2u;
	if (x >= 170 && x < 230 && y >= 10)
		return 0xffd55e00u;
	return 0xffffffffu;
}

/* Every pixel different and hard to compress: many IDAT chunks. */
static uint32_t noise(int x, int y)
{
	uint32_t v = (uint32_t)x * 2654435761u ^ (uint32_t)y * 2246822519u;
	v ^= v >> 13;
	v *= 3266489917u;
	v ^= v >> 16;
	return 0xff000000u | (v & 0xffffffu);
}

/* Writes the image, reads the file back, and checks every row: filter
 * byte 0 (none) then R, G, B of each pixel (PNG spec 7.2, 9.2). */
static void check_round_trip(const cg_png_image *img, const char *name, unsigned *nidat)
{
	const char *path = tu_path(name);
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_write(img, path, &err), 0);
	size_t n;
	unsigned char *file = (unsigned char *)tu_read(path, &n);
	assert_non_null(file);
	png_file f;
	parse(file, n, &f);
	assert_int_equal(f.width, (uint32_t)img->width);
	assert_int_equal(f.height, (uint32_t)img->height);
	assert_int_equal(f.depth, 8);	/* bits per sample */
	assert_int_equal(f.colour, 2);	/* truecolour RGB, no alpha */
	assert_int_equal(f.compression, 0);
	assert_int_equal(f.filter, 0);
	assert_int_equal(f.interlace, 0);
	assert_true(f.nidat >= 1);
	assert_true(f.iend_last);
	size_t raw_len;
	unsigned char *raw = inflate_all(&f, &raw_len);
	size_t row_bytes = 1 + 3 * (size_t)img->width;
	assert_int_equal(raw_len, row_bytes * (size_t)img->height);
	for (int y = 0; y < img->height; y++) {
		const unsigned char *r = raw + (size_t)y * row_bytes;
		const uint32_t *px = (const uint32_t *)(const void *)(img->data + (size_t)y * (size_t)img->stride);
		assert_int_equal(r[0], 0);
		for (int x = 0; x < img->width; x++) {
			uint32_t got = (uint32_t)r[1 + 3 * x] << 16 | (uint32_t)r[2 + 3 * x] << 8 | r[3 + 3 * x];
			if (got != (px[x] & 0xffffffu))
				fail_msg("pixel (%d, %d): %06x, expected %06x", x, y, got, px[x] & 0xffffffu);
		}
	}
	if (nidat)
		*nidat = f.nidat;
	free(raw);
	free(f.idat);
	free(file);
}

static void a_png_reads_back_as_the_same_pixels(void **state)
{
	cg_png_image img = {make_pixels(301, 77, 301 * 4, chart_like), 301, 77, 301 * 4, 0, NULL};
	check_round_trip(&img, "round.png", NULL);
	free((void *)img.data);
}

/* Rows may be padded (cairo rounds strides up): the padding is not written. */
static void padding_at_the_end_of_rows_is_not_written(void **state)
{
	int stride = 13 * 4 + 12;
	unsigned char *data = make_pixels(13, 5, stride, chart_like);
	for (int y = 0; y < 5; y++)
		memset(data + (size_t)y * (size_t)stride + 13 * 4, 0x5a, 12);
	cg_png_image img = {data, 13, 5, stride, 0, NULL};
	check_round_trip(&img, "padded.png", NULL);
	free(data);
}

/* The alpha byte is not written: the image is RGB. */
static void only_red_green_and_blue_are_written(void **state)
{
	uint32_t px[2] = {0x80123456u, 0x00abcdefu};
	cg_png_image img = {(const unsigned char *)px, 2, 1, 8, 0, NULL};
	check_round_trip(&img, "alpha.png", NULL);
}

/* A 1 x 1 image is the smallest; 400 x 300 of noise (360,300 bytes of
 * rows, more than one 64 KiB IDAT) the compressed data spread over chunks. */
static void small_and_large_images_round_trip(void **state)
{
	uint32_t one = 0xff010203u;
	cg_png_image tiny = {(const unsigned char *)&one, 1, 1, 4, 0, NULL};
	check_round_trip(&tiny, "tiny.png", NULL);

	cg_png_image big = {make_pixels(400, 300, 1600, noise), 400, 300, 1600, 0, NULL};
	unsigned nidat;
	check_round_trip(&big, "noise.png", &nidat);
	assert_true(nidat >= 2);
	free((void *)big.data);
}

static void the_same_pixels_give_the_same_bytes(void **state)
{
	cg_png_image img = {make_pixels(64, 48, 256, noise), 64, 48, 256, 0, NULL};
	assert_int_equal(cg_png_write(&img, tu_path("a.png"), NULL), 0);
	assert_int_equal(cg_png_write(&img, tu_path("b.png"), NULL), 0);
	size_t na, nb;
	char *a = tu_read(tu_path("a.png"), &na), *b = tu_read(tu_path("b.png"), &nb);
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	free(a);
	free(b);
	free((void *)img.data);
}

static void an_unwritable_path_is_an_error_naming_it(void **state)
{
	uint32_t px = 0xffffffffu;
	cg_png_image img = {(const unsigned char *)&px, 1, 1, 4, 0, NULL};
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_write(&img, "/nonexistent-dir/x.png", &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/nonexistent-dir/x.png"));
	assert_false(tu_exists("/nonexistent-dir/x.png"));
}

/* The writes succeed into stdio's buffer; the full disk shows at close. */
static void a_full_disk_is_an_error(void **state)
{
	cg_png_image img = {make_pixels(200, 200, 800, noise), 200, 200, 800, 0, NULL};
	cg_error err = CG_ERROR_INIT;
	assert_int_equal(cg_png_write(&img, "/dev/full", &err), CG_EIO);
	assert_non_null(strstr(err.msg, "/dev/full"));
	free((void *)img.data);
}

static void an_image_without_pixels_is_refused(void **state)
{
	uint32_t px[4] = {0};
	const cg_png_image bad[] = {
		{NULL, 1, 1, 4, 0, NULL},			/* no data */
		{(const unsigned char *)px, 0, 1, 4, 0, NULL},	/* no width */
		{(const unsigned char *)px, 1, 0, 4, 0, NULL},	/* no height */
		{(const unsigned char *)px, -1, 1, 4, 0, NULL},	/* negative */
		{(const unsigned char *)px, 2, 1, 7, 0, NULL},	/* rows shorter than their pixels */
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		cg_error err = CG_ERROR_INIT;
		const char *path = tu_path("bad.png");
		assert_int_equal(cg_png_write(&bad[i], path, &err), CG_EIO);
		assert_non_null(strstr(err.msg, "bad.png: no image to write"));
		assert_false(tu_exists(path));
	}
}

/* The PNG CRC computed bit by bit (PNG spec Annex D), not with zlib's
 * table: the writer's CRCs are checked against a second implementation. */
static uint32_t crc_bitwise(const unsigned char *p, size_t n)
{
	uint32_t c = 0xffffffffu;
	for (size_t i = 0; i < n; i++) {
		c ^= p[i];
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
	}
	return c ^ 0xffffffffu;
}

/* The chunks of a file in order: types joined with spaces (IDAT once for
 * a run of them) into order; each chunk's CRC checked bit by bit; the
 * whole chunk (length, type, data, CRC) of the first of type want copied
 * into chunk and its length returned (0: none). */
static size_t chunks(const unsigned char *p, size_t n, char *order, size_t order_size, const char *want,
		     unsigned char *chunk, size_t chunk_size)
{
	size_t found = 0;
	order[0] = '\0';
	for (size_t i = 8; i + 12 <= n;) {
		uint32_t len = be32(p + i);
		assert_true(len <= n - i - 12);
		assert_int_equal(be32(p + i + 8 + len), crc_bitwise(p + i + 4, 4 + (size_t)len));
		char type[5] = {0};
		memcpy(type, p + i + 4, 4);
		size_t o = strlen(order);
		bool repeat = o >= 4 && strcmp(type, "IDAT") == 0 && strcmp(order + o - 4, "IDAT") == 0;
		if (!repeat)
			snprintf(order + o, order_size - o, "%s%s", o ? " " : "", type);
		if (!found && strcmp(type, want) == 0) {
			assert_true(12 + (size_t)len <= chunk_size);
			memcpy(chunk, p + i, 12 + (size_t)len);
			found = 12 + (size_t)len;
		}
		i += 12 + (size_t)len;
	}
	return found;
}

/* Writes a 3 x 2 white image with this title and scale; returns the file. */
static unsigned char *write_titled(const char *title, double scale, size_t *n)
{
	static const uint32_t px[6] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
	cg_png_image img = {(const unsigned char *)px, 3, 2, 12, scale, title};
	cg_error err = CG_ERROR_INIT;
	const char *path = tu_path("titled.png");
	assert_int_equal(cg_png_write(&img, path, &err), 0);
	unsigned char *file = (unsigned char *)tu_read(path, n);
	assert_non_null(file);
	return file;
}

static void srgb_phys_and_the_title_come_before_the_pixels(void **state)
{
	size_t n;
	unsigned char *f = write_titled("Peak \xe2\x80\x94 caf\xc3\xa9", 1, &n);
	char order[200];
	unsigned char c[128];
	/* sRGB, intent 0 (perceptual): the 13 bytes every sRGB PNG carries */
	assert_int_equal(chunks(f, n, order, sizeof order, "sRGB", c, sizeof c), 13);
	assert_string_equal(order, "IHDR sRGB pHYs tEXt iTXt IDAT IEND");
	assert_memory_equal(c, "\0\0\0\1sRGB\0\xae\xce\x1c\xe9", 13);
	/* 72 dpi = 72 / 0.0254 = 2834.65 -> 2835 (0x0b13) pixels per metre on
	 * both axes, unit 1 (the metre), and its well-known CRC */
	assert_int_equal(chunks(f, n, order, sizeof order, "pHYs", c, sizeof c), 21);
	assert_memory_equal(c, "\0\0\0\x09pHYs\0\0\x0b\x13\0\0\x0b\x13\x01\x00\x9a\x9c\x18", 21);
	/* tEXt: "Title", NUL, the title in Latin-1, the em dash (not in
	 * Latin-1) as '?', é as the byte 0xe9 */
	static const char text[] = "Title\0Peak ? caf\xe9";
	assert_int_equal(chunks(f, n, order, sizeof order, "tEXt", c, sizeof c), 12 + sizeof text - 1);
	assert_int_equal(be32(c), sizeof text - 1);
	assert_memory_equal(c + 8, text, sizeof text - 1);
	/* iTXt: the exact UTF-8, uncompressed, no language tag (spec 11.3.4.5) */
	static const char itext[] = "Title\0\0\0\0\0Peak \xe2\x80\x94 caf\xc3\xa9";
	assert_int_equal(chunks(f, n, order, sizeof order, "iTXt", c, sizeof c), 12 + sizeof itext - 1);
	assert_memory_equal(c + 8, itext, sizeof itext - 1);
	free(f);
}

static void a_hidpi_image_says_144_dpi(void **state)
{
	size_t n;
	unsigned char *f = write_titled("Live memory", 2, &n);
	char order[200];
	unsigned char c[128];
	/* 144 / 0.0254 = 5669.29 -> 5669 = 0x1625 */
	assert_int_equal(cg_png_pixels_per_metre(2), 5669);
	assert_int_equal(cg_png_pixels_per_metre(1), 2835);
	assert_int_equal(cg_png_pixels_per_metre(0), 2835);
	assert_int_equal(chunks(f, n, order, sizeof order, "pHYs", c, sizeof c), 21);
	assert_memory_equal(c + 4, "pHYs\0\0\x16\x25\0\0\x16\x25\x01", 13);
	/* a title Latin-1 holds has no iTXt */
	assert_string_equal(order, "IHDR sRGB pHYs tEXt IDAT IEND");
	assert_int_equal(chunks(f, n, order, sizeof order, "tEXt", c, sizeof c), 12 + 17);
	assert_memory_equal(c + 8, "Title\0Live memory", 17);
	free(f);
}

static void text_outside_latin1_and_bad_bytes_become_question_marks(void **state)
{
	size_t n;
	/* a control character, a stray continuation byte, a C1 control (U+0085),
	 * a CJK character, an invalid byte: each one '?' */
	unsigned char *f = write_titled("a\x01" "b\x80" "c\xc2\x85" "d\xe4\xb8\xad" "e\xff", 1, &n);
	char order[200];
	unsigned char c[128];
	static const char text[] = "Title\0a?b?c?d?e?";
	assert_int_equal(chunks(f, n, order, sizeof order, "tEXt", c, sizeof c), 12 + sizeof text - 1);
	assert_memory_equal(c + 8, text, sizeof text - 1);
	/* not valid UTF-8: no iTXt */
	assert_string_equal(order, "IHDR sRGB pHYs tEXt IDAT IEND");
	free(f);
	f = write_titled(NULL, 1, &n);
	assert_int_equal(chunks(f, n, order, sizeof order, "IHDR", c, sizeof c), 25);
	assert_string_equal(order, "IHDR sRGB pHYs IDAT IEND");
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(a_png_reads_back_as_the_same_pixels),
		cmocka_unit_test(padding_at_the_end_of_rows_is_not_written),
		cmocka_unit_test(only_red_green_and_blue_are_written),
		cmocka_unit_test(small_and_large_images_round_trip),
		cmocka_unit_test(the_same_pixels_give_the_same_bytes),
		cmocka_unit_test(an_unwritable_path_is_an_error_naming_it),
		cmocka_unit_test(a_full_disk_is_an_error),
		cmocka_unit_test(an_image_without_pixels_is_refused),
		cmocka_unit_test(srgb_phys_and_the_title_come_before_the_pixels),
		cmocka_unit_test(a_hidpi_image_says_144_dpi),
		cmocka_unit_test(text_outside_latin1_and_bad_bytes_become_question_marks),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	return rc;
}
