/* The segment map: snapshots built by hand with their allocator figures
 * worked out on paper (the allocator-state pass is not run: its figures
 * are given). Each segment's blocks where their bytes put them and in
 * their state's colour, read back from the PNG file; the labels read back
 * from the SVG file (cairo writes text there as glyph outlines, so a text
 * is found as the run of outlines the same text makes on its own); five
 * segments a row each, 2,000 laid end to end with the smallest summed;
 * hostile ranges; and the reasons it is not drawn. */
#include "chartutil.h"

#include <math.h>

#include "snapshot.h"
#include "xalloc.h"

#define MIB 1048576ull
#define GIB (1024 * MIB)

/* The house colours the chart promises (chart_segments.c) */
#define ALLOCATED 0x0072B2
#define PENDING 0x56B4E9
#define FREE 0xDDDDDD
#define INK 0x1A1A1A
#define REQUEST 0xD55E00

/* --- a snapshot by hand ---------------------------------------------------- */

typedef struct fixture {
	cg_timeline *tl;
	cg_snapshot *s;
	size_t segcap, blockcap;
	cg_allocstate_device dev;
	cg_allocstate_result as;
	cg_analysis a;
} fixture;

static fixture *fx_new(void)
{
	fixture *f = cg_calloc(1, sizeof *f);
	f->tl = cg_timeline_new(NULL);
	uint16_t d;
	assert_int_equal(cg_timeline_device(f->tl, "cuda:0", 6, &d), 0);
	assert_int_equal(d, 0);
	f->s = f->tl->snapshot = cg_snapshot_new();
	f->s->devices = cg_calloc(1, sizeof *f->s->devices);
	f->s->ndevices = 1;
	f->dev.device = 0;
	f->dev.has_segments = true;
	f->dev.largest_free_block = CG_NONE;
	f->as = (cg_allocstate_result){1, &f->dev};
	f->a.tl = f->tl;
	f->a.allocstate = &f->as;
	return f;
}

static void fx_free(fixture *f)
{
	cg_timeline_free(f->tl); /* frees the snapshot */
	cg_free(f);
}

static void fx_segment(fixture *f, uint64_t address, cg_segment_pool pool)
{
	CG_GROW(f->s->segments, f->segcap, f->s->nsegments + 1);
	f->s->segments[f->s->nsegments++] = (cg_snap_segment){
		.address = address, .block_first = (uint32_t)f->s->nblocks, .pool = (uint8_t)pool};
	f->s->devices[0].seg_count++;
}

/* A block at the end of the last segment; returns its index. */
static uint32_t fx_block(fixture *f, cg_block_state state, uint64_t size, uint64_t requested,
			 const char *frame)
{
	cg_snap_segment *sg = &f->s->segments[f->s->nsegments - 1];
	CG_GROW(f->s->blocks, f->blockcap, f->s->nblocks + 1);
	cg_str fr = CG_STR_EMPTY;
	if (frame)
		assert_int_equal(cg_timeline_intern(f->tl, frame, strlen(frame), &fr), 0);
	f->s->blocks[f->s->nblocks] = (cg_snap_block){.address = sg->address + sg->total_size, .size = size,
						      .requested = requested, .top_frame = fr,
						      .state = (uint8_t)state};
	sg->total_size += size;
	sg->block_count++;
	return (uint32_t)f->s->nblocks++;
}

/* Five segments, stored out of size order. In MiB:
 *   A 2048 (large): allocated 1024 asking 768 (train.py:42 forward), free 512, pending 512
 *   B 1024 (large): allocated 256 (model.py:17 attention), free 768 -- the largest free block
 *   C  512 (large): allocated 512, no frames
 *   D   20 (large): allocated 8 asking 6 (data.py:88 collate), free 12
 *   E    2 (small): free 2
 * reserved 3606; allocated 1024+256+512+8 = 1800; pending 512; free
 * 512+768+12+2 = 1294; requested 768+256+512+6 = 1542 allocated, +512
 * pending; rounding 256+2 = 258; empty_cache() frees E: 2. Fragmentation
 * (3606-1800)/3606 = 50.1 % and 1 - 768/1294 = 40.6 %. Then an OOM asking
 * 1536 with 100 free on the device. */
static fixture *five_segments(void)
{
	fixture *f = fx_new();
	fx_segment(f, 0x300000000, CG_POOL_LARGE); /* C */
	fx_block(f, CG_BLOCK_ALLOCATED, 512 * MIB, 512 * MIB, NULL);
	fx_segment(f, 0x100000000, CG_POOL_LARGE); /* A */
	fx_block(f, CG_BLOCK_ALLOCATED, 1024 * MIB, 768 * MIB, "train.py:42 forward");
	fx_block(f, CG_BLOCK_INACTIVE, 512 * MIB, 0, NULL);
	fx_block(f, CG_BLOCK_PENDING, 512 * MIB, 512 * MIB, "train.py:50 backward");
	fx_segment(f, 0x500000000, CG_POOL_SMALL); /* E */
	fx_block(f, CG_BLOCK_INACTIVE, 2 * MIB, 0, NULL);
	fx_segment(f, 0x200000000, CG_POOL_LARGE); /* B */
	fx_block(f, CG_BLOCK_ALLOCATED, 256 * MIB, 256 * MIB, "model.py:17 attention");
	uint32_t largest = fx_block(f, CG_BLOCK_INACTIVE, 768 * MIB, 0, NULL);
	fx_segment(f, 0x400000000, CG_POOL_LARGE); /* D */
	fx_block(f, CG_BLOCK_ALLOCATED, 8 * MIB, 6 * MIB, "data.py:88 collate");
	fx_block(f, CG_BLOCK_INACTIVE, 12 * MIB, 0, NULL);

	cg_allocstate_device *d = &f->dev;
	d->segments = 5;
	d->segments_by_pool[CG_POOL_LARGE] = 4;
	d->segments_by_pool[CG_POOL_SMALL] = 1;
	d->blocks = 9;
	d->blocks_by_state[CG_BLOCK_ALLOCATED] = 4;
	d->blocks_by_state[CG_BLOCK_PENDING] = 1;
	d->blocks_by_state[CG_BLOCK_INACTIVE] = 4;
	d->bytes_by_state[CG_BLOCK_ALLOCATED] = 1800 * MIB;
	d->bytes_by_state[CG_BLOCK_PENDING] = 512 * MIB;
	d->bytes_by_state[CG_BLOCK_INACTIVE] = 1294 * MIB;
	d->reserved = 3606 * MIB;
	d->allocated = 1800 * MIB;
	d->active = 2312 * MIB;
	d->inactive = 1294 * MIB;
	d->allocated_requested = 1542 * MIB;
	d->active_requested = 2054 * MIB;
	d->rounding_waste = 258 * MIB;
	d->largest_free = 768 * MIB;
	d->largest_free_block = largest;
	d->frag_reserved = (3606.0 - 1800.0) / 3606.0;
	d->frag_largest = 1.0 - 768.0 / 1294.0;
	d->releasable = 2 * MIB;
	d->releasable_segments = 1;
	d->oom_cause = CG_OOM_FRAGMENTATION;
	d->oom_request = 1536 * MIB;
	d->oom_device_free = 100 * MIB;
	d->oom_count = 1;
	return f;
}

/* 2,000 segments: 20 of 1 GiB (half allocated from big.py:<i> f, half
 * free; addresses in order of i) and 1,980 small ones of 2 MiB (1 MiB
 * allocated, 1 MiB free). The small ones are 1/512 of a 1 GiB row: about
 * 2 px, too narrow to draw, so they are summed: half allocated, half free. */
static fixture *two_thousand_segments(void)
{
	fixture *f = fx_new();
	uint32_t first_free = CG_NONE;
	for (int i = 0; i < 1980; i++) {
		fx_segment(f, 0x700000000 + (uint64_t)i * 2 * MIB, CG_POOL_SMALL);
		fx_block(f, CG_BLOCK_ALLOCATED, MIB, MIB, "small.py:3 g");
		fx_block(f, CG_BLOCK_INACTIVE, MIB, 0, NULL);
	}
	for (int i = 0; i < 20; i++) {
		char frame[32];
		snprintf(frame, sizeof frame, "big.py:%d f", i);
		fx_segment(f, 0x100000000 + (uint64_t)i * GIB, CG_POOL_LARGE);
		fx_block(f, CG_BLOCK_ALLOCATED, 512 * MIB, 512 * MIB, frame);
		uint32_t b = fx_block(f, CG_BLOCK_INACTIVE, 512 * MIB, 0, NULL);
		if (first_free == CG_NONE)
			first_free = b;
	}
	cg_allocstate_device *d = &f->dev;
	d->segments = 2000;
	d->segments_by_pool[CG_POOL_LARGE] = 20;
	d->segments_by_pool[CG_POOL_SMALL] = 1980;
	d->blocks = 4000;
	d->reserved = (20 * 1024 + 1980 * 2) * MIB;
	d->allocated = d->allocated_requested = d->active = d->active_requested = (20 * 512 + 1980) * MIB;
	d->inactive = d->allocated;
	d->largest_free = 512 * MIB;
	d->largest_free_block = first_free;
	d->frag_reserved = 0.5;
	d->frag_largest = 1.0 - 512.0 / (20 * 512 + 1980);
	return f;
}

/* Sums the allocator figures of device 0 from its blocks, as the
 * allocator-state pass defines them (docs/analysis.md), for fixtures too
 * big to work out by hand. */
static void fx_sum(fixture *f)
{
	cg_allocstate_device *d = &f->dev;
	uint64_t largest = 0;
	for (size_t k = 0; k < f->s->nsegments; k++) {
		const cg_snap_segment *sg = &f->s->segments[k];
		d->segments++;
		d->segments_by_pool[sg->pool]++;
		d->reserved += sg->total_size;
		bool all_free = true;
		for (uint32_t i = 0; i < sg->block_count; i++) {
			uint32_t bi = sg->block_first + i;
			const cg_snap_block *b = &f->s->blocks[bi];
			d->blocks++;
			d->blocks_by_state[b->state]++;
			d->bytes_by_state[b->state] += b->size;
			all_free = all_free && b->state == CG_BLOCK_INACTIVE;
			if (b->state == CG_BLOCK_INACTIVE && b->size > largest) {
				largest = b->size;
				d->largest_free_block = bi;
			}
			if (b->state == CG_BLOCK_ALLOCATED || b->state == CG_BLOCK_PENDING) {
				d->active_requested += b->requested;
				d->rounding_waste += b->size - b->requested;
				if (b->state == CG_BLOCK_ALLOCATED)
					d->allocated_requested += b->requested;
			}
		}
		if (all_free) {
			d->releasable += sg->total_size;
			d->releasable_segments++;
		}
	}
	d->allocated = d->bytes_by_state[CG_BLOCK_ALLOCATED];
	d->active = d->allocated + d->bytes_by_state[CG_BLOCK_PENDING];
	d->inactive = d->bytes_by_state[CG_BLOCK_INACTIVE];
	d->largest_free = largest;
	d->frag_reserved = d->reserved ? (double)(d->reserved - d->allocated) / (double)d->reserved : 0;
	d->frag_largest = d->inactive ? 1.0 - (double)largest / (double)d->inactive : 0;
}

static uint64_t lcg(uint64_t *state, uint64_t n)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return (*state >> 33) % n;
}

/* 2,000 segments shaped like a real training run's (sizes from PyTorch's
 * caching allocator: 2 MiB small-pool segments, 20 MiB large ones, larger
 * ones in whole 2 MiB), with blocks in every state, rounding, long
 * Windows and Linux frames, and an OOM asking 3.00 GiB: drawn for a
 * reader to look at (CGMEM_KEEP_CHARTS) and checked for what must hold
 * whatever the layout. */
static fixture *realistic_segments(void)
{
	static const char *const frames[] = {
		"/home/user/project/.venv/lib/python3.11/site-packages/transformers/models/llama/"
		"modeling_llama.py:312 forward",
		"D:\\Dev\\assignment2-systems\\.venv\\Lib\\site-packages\\torch\\functional.py:373 einsum",
		"/home/user/project/train.py:88 train_step",
		"/home/user/project/model/attention.py:141 scaled_dot_product",
		NULL,
	};
	fixture *f = fx_new();
	uint64_t st = 7;
	for (int i = 0; i < 2000; i++) {
		uint64_t size, pieces;
		cg_segment_pool pool = CG_POOL_LARGE;
		if (i < 1400) {
			size = 2 * MIB;
			pool = CG_POOL_SMALL;
		} else if (i < 1850) {
			size = 20 * MIB;
		} else if (i < 1980) {
			size = (11 + lcg(&st, 290)) * 2 * MIB;
		} else {
			size = (300 + lcg(&st, 1250)) * 2 * MIB;
		}
		pieces = 1 + lcg(&st, pool == CG_POOL_SMALL ? 6 : 4);
		fx_segment(f, 0x7f0000000000ull + (uint64_t)i * 4 * GIB, pool);
		uint64_t left = size;
		for (uint64_t k = 0; k < pieces && left; k++) {
			uint64_t unit = pool == CG_POOL_SMALL ? 512 : 2 * MIB;
			uint64_t b = k + 1 == pieces ? left : (1 + lcg(&st, left / unit)) * unit;
			b = b > left ? left : b;
			left -= b;
			uint64_t r = lcg(&st, 10);
			/* 6 in 10 allocated, 1 pending, 3 free */
			cg_block_state state = r < 6 ? CG_BLOCK_ALLOCATED : r < 7 ? CG_BLOCK_PENDING
										 : CG_BLOCK_INACTIVE;
			uint64_t round = state == CG_BLOCK_INACTIVE ? 0 : lcg(&st, unit < b ? unit : b);
			fx_block(f, state, b, b - round, frames[lcg(&st, 5)]);
		}
	}
	fx_sum(f);
	f->dev.oom_cause = CG_OOM_FRAGMENTATION;
	f->dev.oom_request = 3 * GIB;
	f->dev.oom_device_free = 310 * MIB;
	f->dev.oom_count = 1;
	return f;
}

/* --- reading the files back ------------------------------------------------ */

/* With CGMEM_KEEP_CHARTS=folder in the environment, a copy of each chart
 * drawn goes there, to be looked at. */
static void keep(const char *path)
{
	const char *dir = getenv("CGMEM_KEEP_CHARTS");
	if (!dir)
		return;
	size_t n;
	char *data = tu_read(path, &n), to[700];
	const char *base = strrchr(path, '/');
	snprintf(to, sizeof to, "%s%s", dir, base ? base : "/chart");
	FILE *fp = fopen(to, "wb");
	if (fp && data)
		fwrite(data, 1, n, fp);
	if (fp)
		fclose(fp);
	free(data);
}

/* Draws device 0 into path (PNG or SVG) at size; returns the chart's
 * geometry (c->plot, x_max, y_max) in *c. */
static void draw_file(fixture *f, const char *path, cg_chart_format format, int w, int h, double scale,
		      cg_chart *c)
{
	cg_chart_size size = {w, h, scale};
	assert_null(cg_chart_segments_skip(&f->a, 0));
	assert_int_equal(cg_chart_open(c, path, format, &size, NULL), 0);
	cg_chart_segments(c, &f->a, 0, "run7");
	assert_int_equal(cg_chart_close(c, NULL), 0);
	keep(path);
}

typedef struct png {
	cairo_surface_t *s;
	double scale;
} png;

/* The PNG decoded again (asserting it decodes) at the chart's density. */
static png png_load(const char *path, int w, int h, double scale)
{
	png p = {cairo_image_surface_create_from_png(path), scale};
	assert_int_equal(cairo_surface_status(p.s), CAIRO_STATUS_SUCCESS);
	assert_int_equal(cairo_image_surface_get_width(p.s), (int)lround(w * scale));
	assert_int_equal(cairo_image_surface_get_height(p.s), (int)lround(h * scale));
	return p;
}

static unsigned px(const png *p, double x, double y)
{
	unsigned char *data = cairo_image_surface_get_data(p->s);
	int stride = cairo_image_surface_get_stride(p->s);
	int ix = (int)(x * p->scale), iy = (int)(y * p->scale);
	assert_true(ix >= 0 && iy >= 0 && ix < cairo_image_surface_get_width(p->s) &&
		    iy < cairo_image_surface_get_height(p->s));
	uint32_t v;
	memcpy(&v, data + (size_t)iy * (size_t)stride + (size_t)ix * 4, 4);
	return v & 0xffffff;
}

/* How many pixels of a horizontal line from x0 to x1 have exactly this colour. */
static int count_px(const png *p, double x0, double x1, double y, unsigned hex)
{
	int n = 0;
	for (double x = x0; x < x1; x += 1)
		n += px(p, x, y) == hex;
	return n;
}

/* Nothing drawn in the 40-px margins (a few px left for the glyphs of
 * text that starts or ends on them) nor off the canvas' ends. */
static void assert_margins_blank(const png *p, double w, double h)
{
	for (double y = 0; y < h; y += 1)
		for (double x = 0; x < w; x += 1) {
			bool margin = x < CG_MARGIN - 3 || x > w - CG_MARGIN + 3 || y < 8 || y > h - 10;
			if (margin && px(p, x, y) != 0xFFFFFF)
				fail_msg("pixel (%g, %g) in the margin is %06x", x, y, px(p, x, y));
		}
}

/* Nothing crosses the gutter between the plot and the legend, from the
 * column headers above the rows down to the footnote (but for the last
 * tick label, centred on the plot's edge): no header, label, caption or
 * bar runs into the legend. */
static void assert_gutter_blank(const png *p, const cg_chart *c, const fixture *f)
{
	double top = c->plot.y0 - (f->dev.oom_cause != CG_OOM_NONE ? 44 : 0) - 26;
	for (double y = top; y < c->height - 34; y += 1)
		for (double x = c->plot.x1 + 12; x < c->plot.x1 + 26; x += 1)
			if ((y < c->plot.y1 || y > c->plot.y1 + 30) && px(p, x, y) != 0xFFFFFF)
				fail_msg("pixel (%g, %g) in the legend's gutter is %06x", x, y, px(p, x, y));
}

/* hex mixed 35:65 with white: the tint under a hatch, as cairo stores
 * it (16 bits a channel, the top 8 in the image) */
static unsigned tint(unsigned hex)
{
	unsigned out = 0;
	for (int sh = 16; sh >= 0; sh -= 8)
		out |= ((unsigned)((((hex >> sh) & 0xff) / 255.0 * 0.35 + 0.65) * 65535.0) >> 8) << sh;
	return out;
}

/* The glyph outlines of an SVG cairo wrote, in drawing order: each <use>
 * of a glyph symbol replaced by that symbol's path. */
typedef struct outlines {
	char **d;
	size_t n;
} outlines;

static char *between(const char *p, const char *open, const char *close, const char **end)
{
	const char *a = strstr(p, open);
	if (!a)
		return NULL;
	a += strlen(open);
	const char *b = strstr(a, close);
	assert_non_null(b);
	*end = b + strlen(close);
	char *r = cg_malloc((size_t)(b - a) + 1);
	memcpy(r, a, (size_t)(b - a));
	r[b - a] = '\0';
	return r;
}

static outlines svg_outlines(const char *svg)
{
	char **ids = NULL, **paths = NULL;
	size_t nsym = 0, cap = 0, cap2 = 0;
	const char *p = svg, *next;
	char *id;
	while ((id = between(p, "<symbol overflow=\"visible\" id=\"", "\"", &next))) {
		const char *after;
		char *d = between(next, " d=\"", "\"", &after);
		assert_non_null(d);
		CG_GROW(ids, cap, nsym + 1);
		CG_GROW(paths, cap2, nsym + 1);
		ids[nsym] = id;
		paths[nsym++] = d;
		p = after;
	}
	outlines o = {NULL, 0};
	size_t ocap = 0;
	p = svg;
	while ((id = between(p, "<use xlink:href=\"#", "\"", &next))) {
		for (size_t k = 0; k < nsym; k++)
			if (strcmp(ids[k], id) == 0) {
				CG_GROW(o.d, ocap, o.n + 1);
				o.d[o.n++] = cg_strdup(paths[k]);
			}
		cg_free(id);
		p = next;
	}
	for (size_t k = 0; k < nsym; k++) {
		cg_free(ids[k]);
		cg_free(paths[k]);
	}
	cg_free(ids);
	cg_free(paths);
	return o;
}

static void outlines_free(outlines *o)
{
	for (size_t k = 0; k < o->n; k++)
		cg_free(o->d[k]);
	cg_free(o->d);
}

/* How many times text, set in the house font at this size, appears in
 * the SVG file at path. */
static int svg_text_count(const char *path, const char *text, double size, bool bold)
{
	cg_chart c;
	char ref[600]; /* not tu_path's: its buffers rotate under the caller's path */
	snprintf(ref, sizeof ref, "%s/text.svg", tu_tmpdir());
	assert_int_equal(cg_chart_open(&c, ref, CG_CHART_SVG, NULL, NULL), 0);
	cg_chart_font(&c, size, bold);
	cg_chart_text(&c, 10, 50, CG_LEFT, text);
	assert_int_equal(cg_chart_close(&c, NULL), 0);
	char *rs = tu_read(ref, NULL), *cs = tu_read(path, NULL);
	assert_non_null(rs);
	assert_non_null(cs);
	outlines want = svg_outlines(rs), have = svg_outlines(cs);
	assert_true(want.n > 0);
	int found = 0;
	for (size_t i = 0; i + want.n <= have.n; i++) {
		size_t k = 0;
		while (k < want.n && strcmp(have.d[i + k], want.d[k]) == 0)
			k++;
		found += k == want.n;
	}
	outlines_free(&want);
	outlines_free(&have);
	free(rs);
	free(cs);
	return found;
}

/* --- geometry ------------------------------------------------------------- */

typedef struct geometry {
	double x0, px_per_byte, y0, pitch;
} geometry;

/* The chart leaves c->plot as the segment rows, x_max bytes at its right
 * edge and y_max rows. */
static geometry geometry_of(const cg_chart *c)
{
	return (geometry){c->plot.x0, (c->plot.x1 - c->plot.x0) / c->x_max, c->plot.y0,
			  (c->plot.y1 - c->plot.y0) / c->y_max};
}

static double gx(const geometry *g, double bytes)
{
	return g->x0 + bytes * g->px_per_byte;
}

/* Inside row r's bar, above the middle where labels are written. */
static double gy(const geometry *g, int row)
{
	return g->y0 + g->pitch * (row + 0.5) - g->pitch * 0.2;
}

/* --- tests ------------------------------------------------------------------ */

static void five_segments_get_a_row_each_largest_first_blocks_where_their_bytes_are(void **state)
{
	fixture *f = five_segments();
	cg_chart c;
	const char *path = tu_path("segments-5.png");
	draw_file(f, path, CG_CHART_PNG, 1600, 900, 1.0, &c);
	png p = png_load(path, 1600, 900, 1.0);
	assert_margins_blank(&p, 1600, 900);
	assert_gutter_blank(&p, &c, f);
	/* the largest segment, 2 GiB, spans the axis in whole 256 MiB steps */
	assert_true(c.x_max == 2.0 * GIB);
	assert_true(c.y_max == 5);
	geometry g = geometry_of(&c);
	double m = (double)MIB;

	/* row 0, A: allocated (its request), hatched rounding, free, pending */
	assert_int_equal(px(&p, gx(&g, 100 * m), gy(&g, 0)), ALLOCATED);
	double t0 = gx(&g, 768 * m) + 2, t1 = gx(&g, 1024 * m) - 2;
	assert_true(count_px(&p, t0, t1, gy(&g, 0), tint(ALLOCATED)) > 10);
	assert_true(count_px(&p, t0, t1, gy(&g, 0), ALLOCATED) > 3);
	double f0 = gx(&g, 1024 * m) + 3, f1 = gx(&g, 1536 * m) - 3;
	assert_true(count_px(&p, f0, f1, gy(&g, 0), FREE) >= (int)(f1 - f0) - 1);
	assert_int_equal(px(&p, gx(&g, 1792 * m), gy(&g, 0)), PENDING);
	/* row 1, B: allocated, then the largest free block, outlined */
	assert_int_equal(px(&p, gx(&g, 100 * m), gy(&g, 1)), ALLOCATED);
	assert_int_equal(px(&p, gx(&g, 256 * m) + 1, gy(&g, 1)), INK);
	assert_int_equal(px(&p, gx(&g, 900 * m), gy(&g, 1)), FREE);
	assert_int_equal(px(&p, gx(&g, 1024 * m) - 1.5, gy(&g, 1)), INK);
	/* row 2, C: allocated all along; nothing after its 512 MiB */
	assert_int_equal(px(&p, gx(&g, 500 * m), gy(&g, 2)), ALLOCATED);
	assert_int_equal(px(&p, gx(&g, 600 * m), gy(&g, 2)), 0xFFFFFF);
	/* row 3, D: 20 MiB is 10 px; row 4, E: the small segment, drawn 2 px wide */
	assert_int_equal(px(&p, gx(&g, 2 * m), gy(&g, 3)), ALLOCATED);
	assert_int_equal(px(&p, gx(&g, 100 * m), gy(&g, 3)), 0xFFFFFF);
	assert_int_equal(px(&p, g.x0 + 0.5, gy(&g, 4)), FREE);
	assert_int_equal(px(&p, g.x0 + 4, gy(&g, 4)), 0xFFFFFF);
	assert_true(c.plot.y1 < 808);

	/* the failed request above the rows: a hatched bar of 1.50 GiB */
	double ry = c.plot.y0 - 36; /* above the label written over it */
	assert_true(count_px(&p, gx(&g, 100 * m), gx(&g, 1400 * m), ry, tint(REQUEST)) > 100);
	assert_true(count_px(&p, gx(&g, 100 * m), gx(&g, 1400 * m), ry, REQUEST) > 50);
	/* ending at 1536 MiB in its outline */
	assert_int_equal(px(&p, gx(&g, 1536 * m) - 1, ry), REQUEST);
	assert_int_equal(px(&p, gx(&g, 1536 * m) + 5, ry), 0xFFFFFF);
	cairo_surface_destroy(p.s);
	fx_free(f);
}

static void five_segments_say_their_figures_frames_and_the_request_in_the_svg(void **state)
{
	fixture *f = five_segments();
	cg_chart c;
	const char *path = tu_path("segments-5.svg");
	draw_file(f, path, CG_CHART_SVG, 1600, 900, 1.0, &c);
	char *svg = tu_read(path, NULL);
	assert_non_null(strstr(svg, "width=\"1600px\" height=\"900px\""));
	free(svg);
	/* the key figures: 3606 MiB reserved, 1800 allocated, 1294 free */
	assert_int_equal(svg_text_count(path, "3.52 GiB", CG_TYPE_LABEL, true), 1);
	assert_int_equal(svg_text_count(path, "1.76 GiB", CG_TYPE_LABEL, true), 1);
	assert_int_equal(svg_text_count(path, "1.26 GiB", CG_TYPE_LABEL, true), 1);
	assert_int_equal(svg_text_count(path, "50.1 %", CG_TYPE_LABEL, true), 1);
	assert_int_equal(svg_text_count(path, "40.6 %", CG_TYPE_LABEL, true), 1);
	/* the largest free block named in it, and beside the request */
	assert_int_equal(svg_text_count(path, "largest free block 768.0 MiB", CG_TYPE_SMALL, false), 2);
	assert_int_equal(svg_text_count(path, "requested 1.50 GiB", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "100.0 MiB free on the device", CG_TYPE_SMALL, false), 1);
	/* A's 1 GiB allocation labelled in place with its top frame; C's has
	 * none, so only its size (beside its row's label, 512.0 MiB) */
	assert_int_equal(svg_text_count(path, "train.py:42 forward", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "512.0 MiB", CG_TYPE_SMALL, true), 2);
	/* B's 256 MiB block (134 px) holds its size but not 12 characters of
	 * its frame besides, and D's 8 MiB (4 px) neither: numbered markers,
	 * keyed in the legend with size and frame */
	assert_int_equal(svg_text_count(path, "model.py:17", CG_TYPE_NOTE, false), 1);
	assert_int_equal(svg_text_count(path, "attention", CG_TYPE_NOTE, false), 1);
	assert_int_equal(svg_text_count(path, "model.py:17 attention", CG_TYPE_SMALL, false), 0);
	assert_int_equal(svg_text_count(path, "256.0 MiB", CG_TYPE_SMALL, true), 1);
	assert_int_equal(svg_text_count(path, "data.py:88", CG_TYPE_NOTE, false), 1);
	assert_int_equal(svg_text_count(path, "collate", CG_TYPE_NOTE, false), 1);
	assert_int_equal(svg_text_count(path, "data.py:88 collate", CG_TYPE_SMALL, false), 0);
	assert_int_equal(svg_text_count(path, "8.00 MiB", CG_TYPE_SMALL, true), 1);
	/* the pending block is not an allocation */
	assert_int_equal(svg_text_count(path, "train.py:50 backward", CG_TYPE_SMALL, false), 0);
	/* one per row: nothing summed */
	assert_int_equal(svg_text_count(path, "smaller segments", CG_TYPE_SMALL, false), 0);
	fx_free(f);
}

static void two_thousand_segments_pack_into_rows_and_the_smallest_are_summed(void **state)
{
	fixture *f = two_thousand_segments();
	cg_chart c;
	const char *path = tu_path("segments-2000.png");
	draw_file(f, path, CG_CHART_PNG, 1600, 900, 1.0, &c);
	png p = png_load(path, 1600, 900, 1.0);
	assert_margins_blank(&p, 1600, 900);
	assert_gutter_blank(&p, &c, f);
	/* 20 rows of one 1 GiB segment each: half allocated, half free */
	assert_true(c.y_max == 20);
	assert_true(c.x_max == 1.0 * GIB);
	geometry g = geometry_of(&c);
	for (int r = 0; r < 20; r++) {
		assert_int_equal(px(&p, gx(&g, 100.0 * MIB), gy(&g, r)), ALLOCATED);
		assert_int_equal(px(&p, gx(&g, 700.0 * MIB), gy(&g, r)), FREE);
	}
	/* the 1,980 small ones in one bar of shares, under the axis: half and half */
	double sy = c.plot.y1 + 93, w = c.plot.x1 - c.plot.x0;
	assert_int_equal(px(&p, c.plot.x0 + w * 0.25, sy), ALLOCATED);
	assert_int_equal(px(&p, c.plot.x0 + w * 0.75, sy), FREE);
	assert_true(sy + 9 < 860);
	cairo_surface_destroy(p.s);

	path = tu_path("segments-2000.svg");
	draw_file(f, path, CG_CHART_SVG, 1600, 900, 1.0, &c);
	assert_int_equal(svg_text_count(path, "1,980 smaller segments", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "1,980 more", CG_TYPE_SMALL, true), 1);
	/* at most 8 labels: the first 8 allocations of 512 MiB, in place */
	assert_int_equal(svg_text_count(path, "big.py:0 f", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "big.py:7 f", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "big.py:8 f", CG_TYPE_SMALL, false), 0);
	assert_int_equal(svg_text_count(path, "big.py:8 f", CG_TYPE_NOTE, false), 0);
	fx_free(f);
}

static void two_thousand_segments_of_one_size_are_all_drawn_end_to_end(void **state)
{
	fixture *f = fx_new();
	for (int i = 0; i < 2000; i++) {
		fx_segment(f, 0x100000000 + (uint64_t)i * 20 * MIB, CG_POOL_LARGE);
		fx_block(f, CG_BLOCK_ALLOCATED, 12 * MIB, 12 * MIB, NULL);
		fx_block(f, CG_BLOCK_INACTIVE, 8 * MIB, 0, NULL);
	}
	f->dev.segments = f->dev.segments_by_pool[CG_POOL_LARGE] = 2000;
	f->dev.reserved = 40000 * MIB;
	cg_chart c;
	const char *path = tu_path("same.png");
	draw_file(f, path, CG_CHART_PNG, 1600, 900, 1.0, &c);
	/* rows longer than one segment: fewer rows than segments, none summed */
	assert_true(c.y_max > 1 && c.y_max < 100);
	assert_true(c.x_max * c.y_max >= 40000.0 * MIB);
	png p = png_load(path, 1600, 900, 1.0);
	geometry g = geometry_of(&c);
	assert_int_equal(px(&p, gx(&g, 2.0 * MIB), gy(&g, (int)c.y_max - 1)), ALLOCATED);
	cairo_surface_destroy(p.s);
	path = tu_path("same.svg");
	draw_file(f, path, CG_CHART_SVG, 1600, 900, 1.0, &c);
	assert_int_equal(svg_text_count(path, "smaller segments", CG_TYPE_SMALL, false), 0);
	fx_free(f);
}

static void a_realistic_mix_of_2000_segments_stays_inside_its_frame(void **state)
{
	fixture *f = realistic_segments();
	cg_chart c;
	char path[600];
	snprintf(path, sizeof path, "%s", tu_path("segments-mixed.png"));
	draw_file(f, path, CG_CHART_PNG, 1600, 900, 1.0, &c);
	png p = png_load(path, 1600, 900, 1.0);
	assert_margins_blank(&p, 1600, 900);
	assert_gutter_blank(&p, &c, f);
	/* the axis holds the 3.00 GiB request; a 2 MiB segment is under a
	 * pixel then, so all 1,400 of them are in the summed row */
	assert_true(c.x_max >= 3.0 * GIB);
	assert_true(c.y_max >= 2 && c.y_max <= 60);
	assert_true(c.plot.y1 + 112 < 900 - 18 - 13);
	assert_true(count_px(&p, c.plot.x0 + 2, c.plot.x0 + 100, c.plot.y0 - 36, tint(REQUEST)) > 30);
	cairo_surface_destroy(p.s);
	snprintf(path, sizeof path, "%s", tu_path("segments-mixed.svg"));
	draw_file(f, path, CG_CHART_SVG, 1600, 900, 1.0, &c);
	assert_int_equal(svg_text_count(path, " smaller segments (", CG_TYPE_SMALL, false), 1);
	assert_int_equal(svg_text_count(path, "requested 3.00 GiB", CG_TYPE_SMALL, false), 1);
	fx_free(f);
}

static void small_and_hidpi_canvases_draw(void **state)
{
	fixture *f[2] = {five_segments(), two_thousand_segments()};
	for (int k = 0; k < 2; k++) {
		cg_chart c;
		draw_file(f[k], tu_path("small.png"), CG_CHART_PNG, CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT, 1.0,
			  &c);
		assert_true(c.plot.y1 <= CG_CHART_MIN_HEIGHT - 92 && c.plot.x0 < c.plot.x1);
		png p = png_load(tu_path("small.png"), CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT, 1.0);
		assert_margins_blank(&p, CG_CHART_MIN_WIDTH, CG_CHART_MIN_HEIGHT);
		assert_gutter_blank(&p, &c, f[k]);
		cairo_surface_destroy(p.s);
		draw_file(f[k], tu_path("hidpi.png"), CG_CHART_PNG, 1600, 900, 2.0, &c);
		p = png_load(tu_path("hidpi.png"), 1600, 900, 2.0);
		geometry g = geometry_of(&c);
		assert_int_equal(px(&p, gx(&g, 100.0 * MIB), gy(&g, 0)), ALLOCATED);
		cairo_surface_destroy(p.s);
	}
	fx_free(f[0]);
	fx_free(f[1]);
}

/* Ranges and sizes a hostile file could hold, after the reader's checks:
 * blocks past the segment's size, a block range past the array, an empty
 * segment, a state this reader does not know, a frame that is not UTF-8. */
static void hostile_ranges_and_sizes_draw_without_reading_out_of_bounds(void **state)
{
	fixture *f = fx_new();
	fx_segment(f, 0x1000, CG_POOL_LARGE);
	fx_block(f, CG_BLOCK_ALLOCATED, 4 * MIB, 8 * MIB, "bad\xff\xfe frame");
	fx_block(f, (cg_block_state)CG_BLOCK_UNKNOWN, 2 * MIB, 0, NULL);
	f->s->segments[0].total_size = 3 * MIB; /* blocks add up to 6 */
	fx_segment(f, 0x9000000, CG_POOL_OTHER);
	f->s->segments[1].block_first = 1000000; /* past the blocks */
	f->s->segments[1].block_count = 5;
	f->s->segments[1].total_size = 2 * MIB;
	fx_segment(f, 0x8000000, CG_POOL_SMALL); /* no bytes, no blocks */
	fx_segment(f, 0x7000000, CG_POOL_SMALL);
	f->s->segments[3].block_first = 0;
	f->s->segments[3].block_count = UINT32_MAX; /* overflows first + count */
	f->s->segments[3].total_size = UINT64_MAX;
	f->dev.largest_free_block = 12345; /* no such block */
	f->dev.reserved = UINT64_MAX;
	f->dev.oom_cause = CG_OOM_TOTAL_SIZE;
	f->dev.oom_request = UINT64_MAX;
	cg_chart c;
	draw_file(f, tu_path("hostile.png"), CG_CHART_PNG, 1600, 900, 1.0, &c);
	draw_file(f, tu_path("hostile.svg"), CG_CHART_SVG, 1600, 900, 1.0, &c);
	assert_true(c.y_max == 4);
	fx_free(f);
}

static void without_a_snapshot_or_its_segments_it_is_not_drawn_and_says_why(void **state)
{
	fixture *f = five_segments();
	const char *none = "no allocator snapshot for this device";
	/* no allocator-state pass result, or none for this device */
	f->a.allocstate = NULL;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), none);
	f->a.allocstate = &f->as;
	f->dev.device = 1;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), none);
	f->as.ndevices = 0;
	f->dev.device = 0;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), none);
	f->as.ndevices = 1;
	assert_null(cg_chart_segments_skip(&f->a, 0));
	/* a device the snapshot does not list */
	uint16_t d;
	assert_int_equal(cg_timeline_device(f->tl, "cuda:1", 6, &d), 0);
	f->dev.device = d;
	assert_string_equal(cg_chart_segments_skip(&f->a, d), none);
	f->dev.device = 0;
	/* the device listed with no segments */
	f->s->devices[0].seg_count = 0;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), "the snapshot has no segments for this device");
	/* segments past the array */
	f->s->devices[0].seg_first = 3;
	f->s->devices[0].seg_count = 3;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), none);
	fx_free(f);

	/* a timeline not read from a snapshot */
	f = fx_new();
	cg_snapshot_free(f->tl->snapshot);
	f->tl->snapshot = NULL;
	assert_string_equal(cg_chart_segments_skip(&f->a, 0), none);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(five_segments_get_a_row_each_largest_first_blocks_where_their_bytes_are),
		cmocka_unit_test(five_segments_say_their_figures_frames_and_the_request_in_the_svg),
		cmocka_unit_test(two_thousand_segments_pack_into_rows_and_the_smallest_are_summed),
		cmocka_unit_test(two_thousand_segments_of_one_size_are_all_drawn_end_to_end),
		cmocka_unit_test(a_realistic_mix_of_2000_segments_stays_inside_its_frame),
		cmocka_unit_test(small_and_hidpi_canvases_draw),
		cmocka_unit_test(hostile_ranges_and_sizes_draw_without_reading_out_of_bounds),
		cmocka_unit_test(without_a_snapshot_or_its_segments_it_is_not_drawn_and_says_why),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	tu_cleanup();
	cg_charts_shutdown();
	return rc;
}
