/* Chart 7: the segment map, for timelines read from a CUDA allocator
 * snapshot. Every segment the caching allocator held at dump time is a bar
 * as long as its bytes, its blocks in address order coloured by state, the
 * rounding of active blocks (size - requested) a hatched tail; the largest
 * free block is outlined and, after an OOM, the failed request drawn as a
 * reference bar of its size. A few segments get a row each; many are laid
 * end to end in rows of one shared length, largest first, and those too
 * narrow to draw at that scale are summed into one row of shares. */
#include "chart_draw.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "units.h"
#include "xalloc.h"

/* Okabe-Ito blue for allocated memory and its sky blue for memory freed
 * but still awaiting its streams (both in use, told apart by lightness as
 * well as hue), a light grey for free cached memory, the house's unknown
 * grey, and vermillion only for the failed request. */
#define ALLOCATED_COLOR 0x0072B2
#define PENDING_COLOR 0x56B4E9
#define FREE_COLOR 0xDDDDDD
#define UNKNOWN_COLOR 0x999999
#define REQUEST_COLOR 0xD55E00

#define ROW_MAX 88.0	 /* row pitch when few segments */
#define ROW_MIN 14.0	 /* below it, segments are laid end to end */
#define SEG_MIN_PX 4.0	 /* laid end to end, narrower segments are summed */
#define SEG_GAP 4.0	 /* between segments in one row, half that before narrow ones (blocks: 1-px seams) */
#define SEAM_MIN_PX 6.0	 /* blocks at least this wide get a white seam between them */
#define LABEL_COL 116.0	 /* the row labels left of the bars */
#define LEGEND_W 250.0
#define REQUEST_ROW 44.0 /* the failed request's row, above the segments */
#define SUMMARY_H 66.0	 /* the summed row and its caption, below the axis */
#define NLABELS 8	 /* allocations labelled with their top frame */
#define NCANDIDATES 16	 /* ...chosen among the largest this many */
#define MARKER 16.0	 /* a numbered marker's box */
#define KEY_PITCH 40.0	 /* a numbered allocation in the legend: two lines */

/* What a stretch of a segment bar shows. */
enum kind { K_ALLOCATED, K_ALLOCATED_WASTE, K_PENDING, K_PENDING_WASTE, K_FREE, K_UNKNOWN, NKINDS };

static const unsigned kind_color[NKINDS] = {ALLOCATED_COLOR, ALLOCATED_COLOR, PENDING_COLOR,
					    PENDING_COLOR,   FREE_COLOR,      UNKNOWN_COLOR};

typedef struct placed {
	uint32_t seg; /* into snapshot->segments */
	uint32_t row;
	double x, w;  /* px from the plot's left edge, px wide */
} placed;

/* One of the largest allocated blocks, and where it was drawn. */
typedef struct candidate {
	uint32_t block;
	uint64_t size;
	cg_rect r;  /* where it was drawn; empty when not */
	int number; /* its marker's number; 0: labelled in place, or not at all */
} candidate;

typedef struct segmap {
	const cg_timeline *tl;
	const cg_snapshot *s;
	const cg_allocstate_device *as;
	uint32_t seg_first, nsegs; /* the device's segments */
	placed *at;
	size_t nplaced;
	uint32_t nrows;
	bool packed; /* rows hold several segments each */
	size_t nsummed;
	double summed[NKINDS], summed_bytes;

	cg_ticks ticks;
	double scale;	/* px per byte */
	cg_rect plot;	/* the segment rows; x0..x1 is the byte axis */
	double pitch, bar_h;
	double top;	/* the request row's top, or plot.y0 */
	bool has_request;
	double legend_x;

	candidate cand[NCANDIDATES];
	size_t ncand;
	int nmarkers;
	cg_rect largest_free;
	bool largest_free_drawn;
	cg_rect occupied[NCANDIDATES + 2]; /* labels and markers drawn, for overlap tests */
	size_t noccupied;
} segmap;

/* --- the data -------------------------------------------------------------- */

static const cg_allocstate_device *find_state(const cg_allocstate_result *r, uint32_t d)
{
	if (!r)
		return NULL;
	for (uint32_t k = 0; k < r->ndevices; k++)
		if (r->devices[k].device == d)
			return &r->devices[k];
	return NULL;
}

/* The device's segments, checked against the arrays they index. */
static bool device_segments(const cg_snapshot *s, uint32_t d, uint32_t *first, uint32_t *count)
{
	if (!s || d >= s->ndevices || !s->devices)
		return false;
	const cg_snap_device *dev = &s->devices[d];
	if (dev->seg_count && (!s->segments || dev->seg_first > s->nsegments ||
			       dev->seg_count > s->nsegments - dev->seg_first))
		return false;
	*first = dev->seg_first;
	*count = dev->seg_count;
	return true;
}

/* A segment's blocks; none when its range is out of bounds. */
static uint32_t segment_blocks(const cg_snapshot *s, const cg_snap_segment *sg, uint32_t *first)
{
	*first = sg->block_first;
	if (!s->blocks || sg->block_first > s->nblocks || sg->block_count > s->nblocks - sg->block_first)
		return 0;
	return sg->block_count;
}

const char *cg_chart_segments_skip(const cg_analysis *a, uint32_t d)
{
	uint32_t first, count;
	if (!find_state(a->allocstate, d) || !device_segments(a->tl->snapshot, d, &first, &count))
		return "no allocator snapshot for this device";
	if (count == 0)
		return "the snapshot has no segments for this device";
	return NULL;
}

/* A block as drawn: its requested bytes in the state's colour, then for
 * active blocks the rounding up to its size as a hatched tail. Returns
 * the main part's bytes. */
static double block_parts(const cg_snap_block *b, int *main, int *tail, double *tail_bytes)
{
	bool active = b->state == CG_BLOCK_ALLOCATED || b->state == CG_BLOCK_PENDING;
	*main = b->state == CG_BLOCK_ALLOCATED ? K_ALLOCATED
		: b->state == CG_BLOCK_PENDING ? K_PENDING
		: b->state == CG_BLOCK_INACTIVE ? K_FREE : K_UNKNOWN;
	*tail = active ? *main + 1 : *main; /* K_ALLOCATED_WASTE, K_PENDING_WASTE */
	*tail_bytes = active && b->requested < b->size ? (double)(b->size - b->requested) : 0;
	return (double)b->size - *tail_bytes;
}

typedef struct seg_order {
	uint64_t size, address;
	uint32_t seg;
} seg_order;

static int by_size_desc(const void *pa, const void *pb)
{
	const seg_order *a = pa, *b = pb;
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return a->address < b->address ? -1 : a->address > b->address;
}

/* Adds a segment's blocks to the summed row, by kind. */
static void sum_segment(segmap *m, const cg_snap_segment *sg)
{
	uint32_t first, n = segment_blocks(m->s, sg, &first);
	double covered = 0;
	for (uint32_t i = 0; i < n; i++) {
		int main, tail;
		double tb, mb = block_parts(&m->s->blocks[first + i], &main, &tail, &tb);
		m->summed[main] += mb;
		m->summed[tail] += tb;
		covered += mb + tb;
	}
	if (covered < (double)sg->total_size)
		m->summed[K_UNKNOWN] += (double)sg->total_size - covered;
	m->summed_bytes += (double)sg->total_size;
	m->nsummed++;
}

/* --- layout ---------------------------------------------------------------- */

/* Places the segments for rows_max rows: one per row when they fit, else
 * first-fit into rows of the axis' length (largest first), summing those
 * under SEG_MIN_PX or left without room. */
static void place(segmap *m, const seg_order *o, double width, uint32_t rows_max)
{
	m->nplaced = m->nrows = 0;
	m->nsummed = 0;
	m->summed_bytes = 0;
	memset(m->summed, 0, sizeof m->summed);
	m->packed = m->nsegs > rows_max;
	double *used = cg_calloc(rows_max ? rows_max : 1, sizeof *used);
	for (uint32_t k = 0; k < m->nsegs; k++) {
		const cg_snap_segment *sg = &m->s->segments[o[k].seg];
		double w = (double)sg->total_size * m->scale;
		if (!m->packed) {
			m->at[m->nplaced++] = (placed){o[k].seg, m->nrows++, 0, w < 2 ? 2 : w};
			continue;
		}
		uint32_t r = 0;
		double gap = w < 12 ? SEG_GAP / 2 : SEG_GAP; /* narrow ones would be mostly gap */
		if (w >= SEG_MIN_PX)
			while (r < m->nrows && used[r] + gap + w > width + 0.5)
				r++;
		if (w < SEG_MIN_PX || r == rows_max) {
			sum_segment(m, sg);
			continue;
		}
		m->nrows += r == m->nrows;
		double x = used[r] > 0 ? used[r] + gap : 0;
		m->at[m->nplaced++] = (placed){o[k].seg, r, x, w};
		used[r] = x + w;
	}
	cg_free(used);
}

/* Axis, scale and rows for the space between top and bottom. Laid end to
 * end, a row is at least as long as the reserved bytes spread over the
 * rows there is room for, so 2,000 segments of one size fill the plot
 * rather than its first rows. */
static void layout(cg_chart *c, segmap *m, double top)
{
	m->plot.x0 = CG_MARGIN + LABEL_COL;
	m->plot.x1 = c->width - CG_MARGIN - LEGEND_W - 28;
	m->legend_x = m->plot.x1 + 28;
	double width = m->plot.x1 - m->plot.x0;
	m->has_request = m->as->oom_cause != CG_OOM_NONE;
	m->top = top;
	double y0 = top + (m->has_request ? REQUEST_ROW : 0);

	double largest = 0, reserved = 0;
	for (uint32_t k = 0; k < m->nsegs; k++) {
		double b = (double)m->s->segments[m->seg_first + k].total_size;
		reserved += b;
		largest = b > largest ? b : largest;
	}
	if (m->has_request && (double)m->as->oom_request > largest)
		largest = (double)m->as->oom_request;

	seg_order *o = cg_malloc(((size_t)m->nsegs ? m->nsegs : 1) * sizeof *o);
	for (uint32_t k = 0; k < m->nsegs; k++) {
		const cg_snap_segment *sg = &m->s->segments[m->seg_first + k];
		o[k] = (seg_order){sg->total_size, sg->address, m->seg_first + k};
	}
	qsort(o, m->nsegs, sizeof *o, by_size_desc);
	m->at = cg_malloc(((size_t)m->nsegs ? m->nsegs : 1) * sizeof *m->at);
	int intervals = cg_ticks_fit(width, 90);
	double bottom = c->height - 92;
	for (int pass = 0; pass < 2; pass++) {
		double h = bottom - y0 - (pass ? SUMMARY_H : 0);
		uint32_t rows_max = h > ROW_MIN ? (uint32_t)(h / ROW_MIN) : 1;
		double length = largest;
		if (m->nsegs > rows_max && reserved / (rows_max * 0.85) > length)
			length = reserved / (rows_max * 0.85);
		cg_ticks_bytes(&m->ticks, length, intervals);
		m->scale = width / m->ticks.max;
		place(m, o, width, rows_max);
		m->pitch = h / (m->nrows ? m->nrows : 1);
		if (m->nsummed == 0)
			break;
	}
	cg_free(o);
	m->pitch = fmin(m->pitch, ROW_MAX);
	m->bar_h = floor(m->pitch * 0.62);
	m->plot.y0 = y0;
	m->plot.y1 = y0 + m->pitch * m->nrows;
}

static double row_top(const segmap *m, uint32_t row)
{
	return floor(m->plot.y0 + m->pitch * row + (m->pitch - m->bar_h) / 2);
}

/* --- drawing the segments ---------------------------------------------------- */

/* A tint of base with base-coloured diagonals on it; the diagonals sit on
 * a fixed grid so adjacent hatched stretches join up. */
static void hatch(cg_chart *c, double x, double y, double w, double h, unsigned base)
{
	cg_rgb b = cg_rgb_hex(base);
	cg_chart_box(c, x, y, w, h, (cg_rgb){b.r * 0.35 + 0.65, b.g * 0.35 + 0.65, b.b * 0.35 + 0.65});
	if (w < 2.5)
		return;
	cairo_save(c->cr);
	cairo_rectangle(c->cr, x, y, w, h);
	cairo_clip(c->cr);
	cg_chart_rgb(c, b);
	cairo_set_line_width(c->cr, 1.5);
	for (double k = floor((x - h) / 6) * 6; k < x + w; k += 6) {
		cairo_move_to(c->cr, k, y + h);
		cairo_line_to(c->cr, k + h, y);
	}
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

/* A 2-px ink outline just inside the rectangle (around it when narrow). */
static void outline(cg_chart *c, cg_rect r)
{
	double in = r.x1 - r.x0 >= 4 ? 1 : -1;
	cairo_save(c->cr);
	cg_chart_color(c, CG_INK);
	cairo_set_line_width(c->cr, 2);
	cairo_rectangle(c->cr, r.x0 + in, r.y0 + in, r.x1 - r.x0 - 2 * in, r.y1 - r.y0 - 2 * in);
	cairo_stroke(c->cr);
	cairo_restore(c->cr);
}

static void fill_kind(cg_chart *c, double x, double y, double w, double h, int kind)
{
	if (kind == K_ALLOCATED_WASTE || kind == K_PENDING_WASTE)
		hatch(c, x, y, w, h, kind_color[kind]);
	else
		cg_chart_box(c, x, y, w, h, cg_rgb_hex(kind_color[kind]));
}

/* Neighbouring stretches of one kind are drawn as one rectangle: a segment
 * of 10,000 narrow blocks costs the SVG a few elements, not 10,000. */
typedef struct run {
	double x0, x1, y, h, end; /* end: the segment's, which no stretch passes */
	int kind;
	bool open;
} run;

static void run_flush(cg_chart *c, run *r)
{
	if (r->open)
		fill_kind(c, r->x0, r->y, r->x1 - r->x0, r->h, r->kind);
	r->open = false;
}

static void run_add(cg_chart *c, run *r, double x0, double x1, int kind)
{
	x1 = fmin(x1, r->end);
	if (x1 <= x0)
		return;
	if (r->open && r->kind == kind && x0 <= r->x1 + 1e-9) {
		r->x1 = x1;
		return;
	}
	run_flush(c, r);
	*r = (run){x0, x1, r->y, r->h, r->end, kind, true};
}

static void note_block(segmap *m, uint32_t block, cg_rect r)
{
	if (block == m->as->largest_free_block) {
		m->largest_free = r;
		m->largest_free_drawn = true;
	}
	for (size_t k = 0; k < m->ncand; k++)
		if (m->cand[k].block == block)
			m->cand[k].r = r;
}

/* One segment's blocks, in address order, stretched over the width the
 * segment is drawn (a 2-px minimum included) and cut at its end: block
 * sizes that add up to more than the segment cannot draw outside it. Not
 * a cairo clip, which costs the SVG a clip path per segment. */
static void draw_segment(cg_chart *c, segmap *m, const placed *p)
{
	const cg_snap_segment *sg = &m->s->segments[p->seg];
	double x0 = m->plot.x0 + p->x, y = row_top(m, p->row), h = m->bar_h;
	double s = sg->total_size ? p->w / (double)sg->total_size : 0;
	uint32_t first, n = segment_blocks(m->s, sg, &first);
	run r = {0, 0, y, h, x0 + p->w, 0, false};
	double off = 0, prev_w = 0;
	for (uint32_t i = 0; i < n && off * s < p->w; i++) {
		const cg_snap_block *b = &m->s->blocks[first + i];
		int main, tail;
		double tb, mb = block_parts(b, &main, &tail, &tb);
		double bx = x0 + off * s, bw = (double)b->size * s;
		if (prev_w >= SEAM_MIN_PX && bw >= SEAM_MIN_PX && r.open) {
			r.x1 -= 1; /* a white seam, so neighbours of one state read as two */
			run_flush(c, &r);
		}
		run_add(c, &r, bx, bx + mb * s, main);
		run_add(c, &r, bx + mb * s, bx + (mb + tb) * s, tail);
		note_block(m, first + i, (cg_rect){bx, y, fmin(bx + bw, x0 + p->w), y + h});
		off += (double)b->size;
		prev_w = bw;
	}
	if (off * s < p->w)
		run_add(c, &r, x0 + off * s, x0 + p->w, K_UNKNOWN);
	run_flush(c, &r);
}

/* The largest allocated blocks of the segments drawn, largest first. */
static void choose_candidates(segmap *m)
{
	m->ncand = 0;
	for (size_t k = 0; k < m->nplaced; k++) {
		uint32_t first, n = segment_blocks(m->s, &m->s->segments[m->at[k].seg], &first);
		for (uint32_t i = 0; i < n; i++) {
			const cg_snap_block *b = &m->s->blocks[first + i];
			if (b->state != CG_BLOCK_ALLOCATED || b->size == 0)
				continue;
			if (m->ncand == NCANDIDATES && b->size <= m->cand[NCANDIDATES - 1].size)
				continue;
			size_t j = m->ncand < NCANDIDATES ? m->ncand++ : NCANDIDATES - 1;
			while (j > 0 && m->cand[j - 1].size < b->size) {
				m->cand[j] = m->cand[j - 1];
				j--;
			}
			m->cand[j] = (candidate){first + i, b->size, {0, 0, 0, 0}, 0};
		}
	}
}

static void row_label(cg_chart *c, const segmap *m, uint32_t row, size_t first, size_t count)
{
	char text[64], size[32];
	const cg_snap_segment *sg = &m->s->segments[m->at[first].seg];
	double cy = row_top(m, row) + m->bar_h / 2, x = m->plot.x0 - 10;
	double font = m->pitch < 18 ? CG_TYPE_NOTE : CG_TYPE_SMALL;
	bool two_lines = count == 1 && m->pitch >= 40;
	if (count == 1)
		cg_fmt_bytes(text, sizeof text, sg->total_size);
	else
		snprintf(text, sizeof text, "%s segments", cg_fmt_count(size, sizeof size, count));
	cg_chart_font(c, font, count == 1);
	cg_chart_color(c, count == 1 ? CG_INK : CG_SECONDARY);
	char *t = cg_chart_elide(c, text, LABEL_COL - 14, false, 1);
	if (t)
		cg_chart_text(c, x, cy + (two_lines ? -3 : 5), CG_RIGHT, t);
	cg_free(t);
	if (!two_lines)
		return;
	snprintf(text, sizeof text, "%s pool%s", cg_segment_pool_name((cg_segment_pool)sg->pool),
		 sg->expandable ? " \xc2\xb7 exp." : "");
	cg_chart_font(c, CG_TYPE_NOTE, false);
	cg_chart_color(c, CG_FOOTNOTE);
	cg_chart_text(c, x, cy + 13, CG_RIGHT, text);
}

static void draw_rows(cg_chart *c, segmap *m)
{
	cairo_save(c->cr);
	for (int i = 1; i < m->ticks.count; i++) {
		double x = m->plot.x0 + (m->plot.x1 - m->plot.x0) * (i * m->ticks.step) / m->ticks.max;
		cg_chart_vline(c, x, m->top, m->plot.y1, CG_GRID);
	}
	choose_candidates(m);
	for (size_t k = 0; k < m->nplaced; k++)
		draw_segment(c, m, &m->at[k]);
	/* each row's segments found by scanning: there are at most ~60 rows */
	for (uint32_t row = 0; row < m->nrows; row++) {
		size_t first = 0, count = 0;
		for (size_t k = 0; k < m->nplaced; k++)
			if (m->at[k].row == row && count++ == 0)
				first = k;
		if (count)
			row_label(c, m, row, first, count);
	}
	cairo_restore(c->cr);
}

/* --- labels ---------------------------------------------------------------- */

static bool overlaps(const segmap *m, cg_rect r)
{
	for (size_t k = 0; k < m->noccupied; k++) {
		const cg_rect *o = &m->occupied[k];
		if (r.x0 < o->x1 && o->x0 < r.x1 && r.y0 < o->y1 && o->y0 < r.y1)
			return true;
	}
	return false;
}

static void occupy(segmap *m, cg_rect r)
{
	if (m->noccupied < sizeof m->occupied / sizeof m->occupied[0])
		m->occupied[m->noccupied++] = r;
}

/* A block's top frame, "dir/file.py:42 function", split into the file
 * with its line and the function (after the last space); NULL without. */
static const char *top_frame(const segmap *m, uint32_t block, char *file, size_t size, const char **function)
{
	cg_str f = m->s->blocks[block].top_frame;
	if (f == CG_STR_EMPTY)
		return NULL;
	const char *s = cg_timeline_str(m->tl, f), *sp = strrchr(s, ' ');
	size_t n = sp ? (size_t)(sp - s) : strlen(s), cut = n < size ? 0 : n - (size - 1);
	snprintf(file, size, "%.*s", (int)(n - cut), s + cut); /* a long path keeps its tail */
	*function = sp ? sp + 1 : "";
	return s;
}

/* The file's name without its folders: "modeling_llama.py:312". */
static const char *base_name(const char *file)
{
	const char *slash = strrchr(file, '/'), *back = strrchr(file, '\\');
	const char *b = slash > back ? slash : back;
	return b && b[1] ? b + 1 : file;
}

/* s cut at its head to fit width, so a path keeps its file name:
 * "…/llama/modeling_llama.py:312". NULL when not even that fits. Only
 * the last 300 bytes are tried: no more fit a legend line. */
static char *elide_head(cg_chart *c, const char *s, double width)
{
	if (cg_chart_text_width(c, s) <= width)
		return cg_strdup(s);
	size_t n = strlen(s);
	char *buf = cg_malloc(n + 4);
	for (size_t i = n > 300 ? n - 300 : 1; i < n; i++) {
		if (((unsigned char)s[i] & 0xc0) == 0x80)
			continue;
		snprintf(buf, n + 4, "\xe2\x80\xa6%s", s + i);
		if (cg_chart_text_width(c, buf) <= width)
			return buf;
	}
	cg_free(buf);
	return NULL;
}

/* "2.00 GiB  train.py:42 forward" inside the block, white on its blue,
 * when the size and at least 12 characters of the frame without its
 * folders fit (or there is no frame). */
static bool label_in_place(cg_chart *c, segmap *m, const candidate *cd)
{
	if (m->bar_h < 18)
		return false;
	char size[32];
	cg_fmt_bytes(size, sizeof size, cd->size);
	char file[512], frame[600];
	const char *function;
	bool has_frame = top_frame(m, cd->block, file, sizeof file, &function);
	if (has_frame)
		snprintf(frame, sizeof frame, "%s %s", base_name(file), function);
	double room = cd->r.x1 - cd->r.x0 - 14;
	cg_chart_font(c, CG_TYPE_SMALL, true);
	double sw = cg_chart_text_width(c, size);
	if (sw > room)
		return false;
	char *f = NULL;
	if (has_frame) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		f = cg_chart_elide(c, frame, room - sw - 8, true, 12);
		if (!f)
			return false;
	}
	double x = cd->r.x0 + 7, y = (cd->r.y0 + cd->r.y1) / 2 + 5;
	cg_chart_color(c, 0xFFFFFF);
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_text(c, x, y, CG_LEFT, size);
	if (f) {
		cg_chart_font(c, CG_TYPE_SMALL, false);
		cg_chart_text(c, x + sw + 8, y, CG_LEFT, f);
	}
	cg_free(f);
	occupy(m, cd->r);
	return true;
}

static void marker(cg_chart *c, double cx, double cy, int number)
{
	char text[8];
	snprintf(text, sizeof text, "%d", number);
	double x = floor(cx - MARKER / 2) + 0.5, y = floor(cy - MARKER / 2) + 0.5;
	cairo_save(c->cr);
	cairo_rectangle(c->cr, x, y, MARKER - 1, MARKER - 1);
	cg_chart_color(c, 0xFFFFFF);
	cairo_fill_preserve(c->cr);
	cg_chart_color(c, CG_INK);
	cairo_set_line_width(c->cr, 1);
	cairo_stroke(c->cr);
	cg_chart_font(c, 11, true);
	cg_chart_text(c, x + (MARKER - 1) / 2, y + MARKER / 2 + 3.5, CG_CENTER, text);
	cairo_restore(c->cr);
}

/* Up to NLABELS of the largest allocations get their size and top frame:
 * in place when it fits, else a numbered marker keyed in the legend (as
 * many as the legend has room for). A label that would cover another is
 * left out and the next largest allocation tried. */
static void draw_labels(cg_chart *c, segmap *m, int max_markers)
{
	size_t labelled = 0;
	for (size_t k = 0; k < m->ncand && labelled < NLABELS; k++) {
		candidate *cd = &m->cand[k];
		if (cd->r.x1 <= cd->r.x0 || overlaps(m, cd->r))
			continue;
		if (label_in_place(c, m, cd)) {
			labelled++;
			continue;
		}
		if (m->nmarkers >= max_markers)
			continue;
		double cx = (cd->r.x0 + cd->r.x1) / 2, cy = (cd->r.y0 + cd->r.y1) / 2;
		bool wide = cd->r.x1 - cd->r.x0 >= MARKER + 12;
		if (wide)
			cx = cd->r.x0 + 6 + MARKER / 2;
		cx = fmax(cx, m->plot.x0 + MARKER / 2);
		double half = MARKER / 2 + 1;
		cg_rect box = {cx - half, cy - half, cx + half, cy + half};
		if (overlaps(m, wide ? cd->r : box))
			continue;
		cd->number = ++m->nmarkers;
		marker(c, cx, cy, cd->number);
		occupy(m, wide ? cd->r : box);
		labelled++;
	}
}

/* The largest free block: a 2-px ink outline, and its size inside it
 * when it fits (the legend has it too). */
static void draw_largest_free(cg_chart *c, segmap *m)
{
	if (!m->largest_free_drawn)
		return;
	cg_rect r = m->largest_free;
	outline(c, r);
	cairo_save(c->cr);
	cg_chart_color(c, CG_INK);
	char size[32], text[96]; /* in small type when the bar is low */
	cg_fmt_bytes(size, sizeof size, m->as->largest_free);
	snprintf(text, sizeof text, "largest free block %s", size);
	double font = m->bar_h >= 18 ? CG_TYPE_SMALL : 11, cy = (r.y0 + r.y1) / 2;
	cg_chart_font(c, font, false);
	if (m->bar_h >= 15 && cg_chart_text_width(c, text) + 16 <= r.x1 - r.x0) {
		cg_chart_text(c, r.x0 + 8, cy + font * 0.36, CG_LEFT, text);
		occupy(m, r);
	}
	cairo_restore(c->cr);
}

/* The failed request as a hatched bar of its size above the segments,
 * with the figures to hold it against. */
static void draw_request(cg_chart *c, segmap *m)
{
	if (!m->has_request)
		return;
	double y = m->top + 6, h = 24, w = fmax((double)m->as->oom_request * m->scale, 2);
	cairo_save(c->cr);
	hatch(c, m->plot.x0, y, w, h, REQUEST_COLOR);
	cg_chart_color(c, REQUEST_COLOR);
	cairo_set_line_width(c->cr, 1.5);
	cairo_rectangle(c->cr, m->plot.x0 + 0.75, y + 0.75, w - 1.5, h - 1.5);
	cairo_stroke(c->cr);
	/* on two lines, as a segment's size over its pool */
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_text(c, m->plot.x0 - 10, y + h / 2 - 3, CG_RIGHT, "failed");
	cg_chart_text(c, m->plot.x0 - 10, y + h / 2 + 13, CG_RIGHT, "request");

	char b[3][32], text[200];
	snprintf(text, sizeof text, "requested %s \xc2\xb7 largest free block %s \xc2\xb7 %s free on the "
		 "device",
		 cg_fmt_bytes(b[0], 32, m->as->oom_request), cg_fmt_bytes(b[1], 32, m->as->largest_free),
		 cg_fmt_bytes(b[2], 32, m->as->oom_device_free));
	/* right of the bar, or over it on a white box */
	cg_chart_font(c, CG_TYPE_SMALL, false);
	double x = m->plot.x0 + w + 10;
	bool over = x + cg_chart_text_width(c, text) > m->plot.x1;
	x = over ? m->plot.x0 + 8 : x;
	char *t = cg_chart_elide(c, text, m->plot.x1 - x - 8, false, 1);
	if (t && over)
		cg_chart_box(c, x - 4, y + 4, cg_chart_text_width(c, t) + 8, h - 8, cg_rgb_hex(0xFFFFFF));
	cg_chart_color(c, CG_INK);
	if (t)
		cg_chart_text(c, x, y + h / 2 + 5, CG_LEFT, t);
	cg_free(t);
	cairo_restore(c->cr);
}

/* The segments too narrow to draw: one bar across the plot split by their
 * bytes' shares of each kind, under a caption saying so. */
static void draw_summary(cg_chart *c, const segmap *m)
{
	if (m->nsummed == 0 || m->summed_bytes <= 0)
		return;
	double y = m->plot.y1 + 84, h = 18, width = m->plot.x1 - m->plot.x0;
	char count[32], bytes[32], text[300];
	cg_fmt_count(count, sizeof count, m->nsummed);
	cg_fmt_bytes(bytes, sizeof bytes, m->summed_bytes < 1.8e19 ? (uint64_t)m->summed_bytes : UINT64_MAX);
	/* the long caption, or a short one on a narrow canvas */
	snprintf(text, sizeof text, "%s smaller segments (%s in all), too narrow or too many to draw one by "
		 "one: their blocks' bytes by state, as shares of this bar (not to scale)", count, bytes);
	cairo_save(c->cr);
	cg_chart_font(c, CG_TYPE_SMALL, false);
	if (cg_chart_text_width(c, text) > width)
		snprintf(text, sizeof text, "%s smaller segments (%s): bytes by state, as shares (not to "
			 "scale)", count, bytes);
	if (cg_chart_text_width(c, text) > width)
		snprintf(text, sizeof text, "%s smaller segments (%s), as shares", count, bytes);
	cg_chart_color(c, CG_SECONDARY);
	char *t = cg_chart_elide(c, text, width, false, 1);
	if (t)
		cg_chart_text(c, m->plot.x0, y - 8, CG_LEFT, t);
	cg_free(t);
	snprintf(text, sizeof text, "%s more", count);
	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_INK);
	cg_chart_text(c, m->plot.x0 - 10, y + h / 2 + 5, CG_RIGHT, text);
	double x = m->plot.x0;
	for (int k = 0; k < NKINDS; x += width * m->summed[k] / m->summed_bytes, k++)
		if (m->summed[k] > 0)
			fill_kind(c, x, y, width * m->summed[k] / m->summed_bytes, h, k);
	cairo_restore(c->cr);
}

/* --- frame, header and legend ---------------------------------------------- */

/* Text with \x01 toggling between grey words and bold ink figures;
 * returns its width, drawing it only when draw is set. */
static double rich(cg_chart *c, double x, double y, double size, const char *s, bool draw)
{
	bool bold = false;
	double w = 0;
	char part[160];
	while (*s) {
		size_t n = strcspn(s, "\x01");
		snprintf(part, sizeof part, "%.*s", (int)(n < sizeof part ? n : sizeof part - 1), s);
		cg_chart_font(c, size, bold);
		if (draw) {
			cg_chart_color(c, bold ? CG_INK : CG_SECONDARY);
			cg_chart_text(c, x + w, y, CG_LEFT, part);
		}
		w += cg_chart_text_width(c, part);
		s += n;
		if (*s) {
			s++;
			bold = !bold;
		}
	}
	return w;
}

/* The key figures, on as many lines as the width needs (a narrow canvas
 * takes two). Returns the baseline after the last line. */
static double draw_figures(cg_chart *c, const cg_allocstate_device *as, double y)
{
	static const char *const words[] = {"reserved", "allocated", "free", "largest free block", NULL,
					    "empty_cache() frees"};
	const uint64_t bytes[] = {as->reserved, as->allocated, as->inactive, as->largest_free, 0,
				  as->releasable};
	char items[6][160], b[2][32];
	for (int k = 0; k < 6; k++)
		if (words[k])
			snprintf(items[k], sizeof items[k], "%s \x01%s\x01", words[k],
				 cg_fmt_bytes(b[0], sizeof b[0], bytes[k]));
	cg_fmt_percent(b[0], sizeof b[0], as->frag_reserved);
	cg_fmt_percent(b[1], sizeof b[1], as->frag_largest);
	snprintf(items[4], sizeof items[4], "fragmentation \x01%s\x01 of reserved, \x01%s\x01 of free", b[0],
		 b[1]);
	const double gap = 24, room = c->width - 2 * CG_MARGIN;
	double x = CG_MARGIN;
	for (int k = 0; k < 6; k++) {
		double w = rich(c, 0, 0, CG_TYPE_LABEL, items[k], false);
		if (x > CG_MARGIN && x + w > CG_MARGIN + room) {
			x = CG_MARGIN;
			y += 22;
		}
		rich(c, x, y, CG_TYPE_LABEL, items[k], true);
		x += w + gap;
	}
	return y;
}

/* Block states with their bytes, the marks, and the numbered allocations.
 * Without draw, only returns how many numbered allocations fit below the
 * rest. */
static int draw_legend(cg_chart *c, const segmap *m, bool draw)
{
	const cg_allocstate_device *as = m->as;
	double x = m->legend_x, width = c->width - CG_MARGIN - x, y = m->top + 4;
	char v[32];
	int rows = 4 + (as->bytes_by_state[CG_BLOCK_UNKNOWN] > 0) + 1 + m->has_request;
	if (!draw) {
		double keys_top = y + 27 + rows * 26 + 14 + 27 + 14;
		double room = c->height - 60 - keys_top;
		return room > 0 ? (int)(room / KEY_PITCH) : 0;
	}
	y = cg_chart_legend_header(c, x, y, width, "block state", "bytes");
	y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(ALLOCATED_COLOR), "allocated",
				   cg_fmt_bytes(v, sizeof v, as->allocated));
	y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(PENDING_COLOR), "freed, pending",
				   cg_fmt_bytes(v, sizeof v, as->bytes_by_state[CG_BLOCK_PENDING]));
	y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(0xFFFFFF), "rounding waste",
				   cg_fmt_bytes(v, sizeof v, as->rounding_waste));
	hatch(c, x, y - 26 - 13, 14, 14, ALLOCATED_COLOR);
	y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(FREE_COLOR), "free, cached",
				   cg_fmt_bytes(v, sizeof v, as->inactive));
	if (as->bytes_by_state[CG_BLOCK_UNKNOWN] > 0)
		y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(UNKNOWN_COLOR), "state unknown",
					   cg_fmt_bytes(v, sizeof v, as->bytes_by_state[CG_BLOCK_UNKNOWN]));
	y += 14;
	double outlined = y;
	y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(FREE_COLOR), "largest free block",
				   as->largest_free ? cg_fmt_bytes(v, sizeof v, as->largest_free) : "none");
	outline(c, (cg_rect){x, outlined - 13, x + 14, outlined + 1});
	if (m->has_request) {
		y = cg_chart_legend_swatch(c, x, y, width, cg_rgb_hex(0xFFFFFF), "failed request",
					   cg_fmt_bytes(v, sizeof v, as->oom_request));
		hatch(c, x, y - 26 - 13, 14, 14, REQUEST_COLOR);
	}
	if (m->nmarkers == 0)
		return 0;
	y = cg_chart_legend_header(c, x, y + 14, width, "largest allocations", "top frame");
	for (size_t k = 0; k < m->ncand; k++) {
		const candidate *cd = &m->cand[k];
		if (!cd->number)
			continue;
		/* the size and the function, then the file cut at its head */
		char file[512];
		const char *function = "";
		bool has_frame = top_frame(m, cd->block, file, sizeof file, &function);
		marker(c, x + MARKER / 2, y - 5, cd->number);
		cg_chart_font(c, CG_TYPE_SMALL, true);
		cg_chart_color(c, CG_INK);
		cg_chart_text(c, x + 24, y, CG_LEFT, cg_fmt_bytes(v, sizeof v, cd->size));
		double fx = x + 24 + cg_chart_text_width(c, v) + 8;
		cg_chart_font(c, CG_TYPE_NOTE, false);
		char *f = cg_chart_elide(c, function, x + width - fx, false, 1);
		if (f)
			cg_chart_text(c, fx, y, CG_LEFT, f);
		cg_free(f);
		cg_chart_color(c, has_frame ? CG_SECONDARY : CG_FOOTNOTE);
		f = has_frame ? elide_head(c, file, width - 24) : cg_strdup("no stack recorded");
		if (f)
			cg_chart_text(c, x + 24, y + 17, CG_LEFT, f);
		cg_free(f);
		y += KEY_PITCH;
	}
	return 0;
}

static void texts(const segmap *m, char *subtitle, size_t ssize, char *footnote, size_t fsize)
{
	const cg_allocstate_device *as = m->as;
	char n[4][32], exp[64] = "", row[32];
	if (as->segments_expandable)
		snprintf(exp, sizeof exp, ", %s expandable",
			 cg_fmt_count(row, sizeof row, as->segments_expandable));
	cg_fmt_bytes(row, sizeof row, (uint64_t)m->ticks.max);
	cg_fmt_count(n[0], 32, m->nsegs);
	cg_fmt_count(n[1], 32, as->segments_by_pool[CG_POOL_LARGE]);
	cg_fmt_count(n[2], 32, as->segments_by_pool[CG_POOL_SMALL]);
	cg_fmt_count(n[3], 32, as->blocks);
	snprintf(subtitle, ssize, "%s segment%s (%s large pool, %s small%s) holding %s blocks, largest "
		 "first, %s%s; bar length = bytes", n[0], m->nsegs == 1 ? "" : "s", n[1], n[2], exp, n[3],
		 m->packed ? "laid end to end in rows of " : "one per row", m->packed ? row : "");
	int k = snprintf(footnote, fsize, "%s \xc2\xb7 blocks in address order; allocated and pending "
		     "count whole blocks, hatched: their rounding (size \xe2\x88\x92 requested) \xc2\xb7 "
		     "fragmentation = (reserved \xe2\x88\x92 allocated) / reserved and 1 \xe2\x88\x92 "
		     "largest free block / free", cg_chart_source_name(m->tl));
	if (k > 0 && (size_t)k < fsize && m->s->unknown_states)
		snprintf(footnote + k, fsize - (size_t)k, " \xc2\xb7 state unknown: %s blocks in a state "
			 "this reader does not know", cg_fmt_count(n[0], 32, m->s->unknown_states));
}

void cg_chart_segments(cg_chart *c, const cg_analysis *a, uint32_t d, const char *run_name)
{
	segmap m = {.tl = a->tl, .s = a->tl->snapshot, .as = find_state(a->allocstate, d)};
	if (!m.as || !device_segments(m.s, d, &m.seg_first, &m.nsegs))
		return; /* the skip rule says why */

	char title[512], subtitle[512], footnote[700];
	cg_chart_title(c, title, sizeof title, "Allocator segments at the snapshot", run_name, a->tl, d);
	double y = draw_figures(c, m.as, 100);
	layout(c, &m, y + 44);
	texts(&m, subtitle, sizeof subtitle, footnote, sizeof footnote);
	cg_chart_frame(c, title, subtitle, footnote);

	cg_chart_font(c, CG_TYPE_SMALL, true);
	cg_chart_color(c, CG_FOOTNOTE);
	cg_chart_text(c, m.plot.x0 - 10, m.top - 12, CG_RIGHT, m.packed ? "row" : "segment");
	const char *what = m.packed ? "segments laid end to end, each one's blocks in address order"
				    : "its blocks in address order";
	char *head = cg_chart_elide(c, what, m.plot.x1 - m.plot.x0, false, 1);
	if (head)
		cg_chart_text(c, m.plot.x0, m.top - 12, CG_LEFT, head);
	cg_free(head);
	draw_rows(c, &m);
	draw_request(c, &m);
	draw_largest_free(c, &m);
	draw_labels(c, &m, draw_legend(c, &m, false));

	char xtitle[96];
	snprintf(xtitle, sizeof xtitle, "%s (%s)", m.packed ? "bytes along the row" : "segment bytes",
		 m.ticks.unit);
	cg_chart_axis_bottom(c, &m.plot, &m.ticks, xtitle);
	draw_summary(c, &m);
	draw_legend(c, &m, true);

	c->plot = m.plot;
	c->x_max = m.ticks.max;
	c->y_max = m.nrows;
	cg_free(m.at);
}
