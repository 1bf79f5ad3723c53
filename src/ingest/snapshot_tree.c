/* The non-streaming half of the snapshot reader: segments, blocks,
 * settings and frames, read from the unpickled tree. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "checked.h"
#include "diag.h"
#include "utf8.h"
#include "snapshot_read.h"
#include "xalloc.h"

/* A growable byte buffer for formatting frames and JSON text. */
typedef struct buf {
	char *p;
	size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
	CG_GROW(b->p, b->cap, b->n + n + 1);
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void puts_(buf *b, const char *s)
{
	put(b, s, strlen(s));
}

static void put_int(buf *b, const cg_pk *v)
{
	char tmp[32];
	if (v->flags & CG_PK_INT_UNSIGNED)
		snprintf(tmp, sizeof tmp, "%" PRIu64, v->v.u);
	else
		snprintf(tmp, sizeof tmp, "%" PRId64, v->v.i);
	puts_(b, tmp);
}

/* ---- frames and stacks ---- */

/* C++ frames memory_viz hides (frameFilter in torch/utils/viz/MemoryViz.js):
 * always folded, as they say nothing about the user's code. */
static const char *const cpp_functions[] = {"unwind::unwind", "CapturedTraceback::gather", "gather_with_cpp",
					    "_start", "__libc_start_main", "PyEval_", "PyObject_",
					    "PyFunction_"};
static const char *const cpp_files[] = {"core/boxing", "/Register", "/Redispatch", "pythonrun.c",
					"Modules/main.c", "Objects/call.c", "Objects/methodobject.c",
					"pycore_ceval.h", "ceval.c", "cpython/abstract.h"};

static bool contains_any(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(s, list[i]))
			return true;
	return false;
}

/* A path component equal to name, with either separator. */
static bool has_component(const char *path, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = path; (p = strstr(p, name)); p++) {
		bool starts = p == path || p[-1] == '/' || p[-1] == '\\';
		bool ends = p[n] == '/' || p[n] == '\\';
		if (starts && ends)
			return true;
	}
	return false;
}

/* Frames folded away by default (docs/snapshots.md): PyTorch's own files
 * (a "torch" folder anywhere in the path) and the Python standard library
 * (a "lib/python3.N" or Windows "Lib" folder not followed by
 * site-packages or dist-packages, and "<frozen ...>" modules). */
static bool library_frame(const char *file)
{
	if (has_component(file, "torch"))
		return true;
	if (!strncmp(file, "<frozen ", 8))
		return true;
	if (strstr(file, "site-packages") || strstr(file, "dist-packages"))
		return false;
	for (const char *p = file; (p = strstr(p, "python")); p++)
		if (p > file + 3 && !strncmp(p - 4, "lib", 3) && (p[-1] == '/' || p[-1] == '\\') &&
		    (p[6] == '2' || p[6] == '3'))
			return true;
	return has_component(file, "Lib");
}

static const char *str_or(const cg_pk *v, const char *dflt)
{
	return v && v->type == CG_PK_STR ? v->v.s : dflt;
}

/* Counts a string node that is not UTF-8, once however often it is shared. */
static void note_not_utf8(cg_snap_reader *x, const cg_pk *v)
{
	if (!v || v->type != CG_PK_STR || !(v->flags & CG_PK_STR_NOT_UTF8))
		return;
	uint32_t *seen = cg_u64map_slot(&x->not_utf8, (uint64_t)(uintptr_t)v);
	if (!*seen) {
		*seen = 1;
		x->s->strings_not_utf8++;
	}
}

int cg_snap_frame_str(cg_snap_reader *x, const cg_pk *f, cg_str *out)
{
	note_not_utf8(x, cg_pk_dict_get(f, "filename"));
	note_not_utf8(x, cg_pk_dict_get(f, "name"));
	buf b = {0};
	puts_(&b, str_or(cg_pk_dict_get(f, "filename"), "?"));
	puts_(&b, ":");
	const cg_pk *line = cg_pk_dict_get(f, "line");
	if (line && line->type == CG_PK_INT)
		put_int(&b, line);
	else
		puts_(&b, "?");
	puts_(&b, " ");
	puts_(&b, str_or(cg_pk_dict_get(f, "name"), "?"));
	int rc = cg_timeline_intern(x->tl, b.p, b.n, out);
	cg_free(b.p);
	return rc;
}

static bool frame_kept(const cg_pk *f, bool full)
{
	const char *file = str_or(cg_pk_dict_get(f, "filename"), "");
	const char *name = str_or(cg_pk_dict_get(f, "name"), "");
	if (contains_any(name, cpp_functions, sizeof cpp_functions / sizeof *cpp_functions) ||
	    contains_any(file, cpp_files, sizeof cpp_files / sizeof *cpp_files))
		return false;
	return full || !library_frame(file);
}

/* A frame dict, formatted and judged once: real files share each frame
 * dict among thousands of stacks (frame lists are shared less). */
static int frame_of(cg_snap_reader *x, const cg_pk *f, cg_snap_frame *out)
{
	*out = (cg_snap_frame){CG_STR_EMPTY, false, false};
	if (f->type != CG_PK_DICT)
		return 0;
	uint64_t key = (uint64_t)(uintptr_t)f;
	uint32_t at = cg_u64map_get(&x->frame_cache, key);
	if (at) {
		*out = x->frames[at - 1];
		return 0;
	}
	int rc = cg_snap_frame_str(x, f, &out->str);
	if (rc < 0)
		return rc;
	out->kept_full = frame_kept(f, true);
	out->kept_user = out->kept_full && frame_kept(f, false);
	if (f->refs > 1) { /* shared, so worth remembering; kept, so its address stays its own */
		cg_pk_keep(f);
		CG_GROW(x->frames, x->frames_cap, x->nframes + 1);
		x->frames[x->nframes++] = *out;
		*cg_u64map_slot(&x->frame_cache, key) = (uint32_t)x->nframes;
	}
	return 0;
}

/* Interns the scratch stack of n frame ids as a stack number. */
static int intern_stack(cg_snap_reader *x, size_t n, uint32_t *stack)
{
	cg_str key;
	size_t bytes = n * sizeof *x->scratch;
	uint32_t before = cg_strtab_count(x->stack_index);
	int rc = cg_strtab_intern(x->stack_index, (const char *)x->scratch, bytes, &key);
	if (rc < 0)
		return rc;
	if (key >= before) { /* new: key ids are dense, so key - 1 is its number */
		CG_GROW(x->stack_first, x->stacks_cap, key + 1);
		CG_GROW(x->stack_frames, x->stack_frames_cap, x->nstack_frames + n);
		memcpy(x->stack_frames + x->nstack_frames, x->scratch, bytes);
		x->stack_first[key - 1] = (uint32_t)x->nstack_frames;
		x->nstack_frames += n;
		x->stack_first[key] = (uint32_t)x->nstack_frames;
		x->nstacks = key;
	}
	*stack = key;
	return 0;
}

int cg_snap_stack_of(cg_snap_reader *x, const cg_pk *frames, uint32_t *stack)
{
	*stack = 0;
	cg_pk *const *items;
	size_t n = cg_pk_seq(frames, &items);
	if (n == 0)
		return 0;
	uint32_t cached = cg_u64map_get(&x->stack_cache, (uint64_t)(uintptr_t)frames);
	if (cached && x->cached[cached - 1].len == frames->len) {
		*stack = x->cached[cached - 1].stack;
		return 0;
	}
	if (n > UINT16_MAX)
		n = UINT16_MAX; /* deeper than any Python stack: keep the innermost */
	/* Frame lists are shared less than their frame dicts: the same
	 * sequence of (kept) frame dict nodes is the same stack, found with
	 * one lookup instead of one per frame. */
	bool all_kept = true;
	for (size_t i = 0; i < n && all_kept; i++)
		all_kept = items[i]->refs == UINT32_MAX;
	cg_str seq = CG_STR_EMPTY;
	if (all_kept) {
		uint32_t before = cg_strtab_count(x->seq_index);
		if (cg_strtab_intern(x->seq_index, (const char *)items, n * sizeof *items, &seq) < 0)
			return CG_ELIMIT;
		if (seq < before) {
			*stack = x->seq_stack[seq];
			return 0;
		}
	}
	CG_GROW(x->scratch, x->scratch_cap, n);
	/* Folded stacks that lose every frame keep them all: an allocation
	 * made inside PyTorch alone is better shown there than nowhere. */
	for (int pass = 0; pass < 2; pass++) {
		bool full = x->o->stack_full || pass == 1;
		size_t k = 0;
		for (size_t i = n; i-- > 0;) { /* frames[0] is the innermost */
			cg_snap_frame f;
			int rc = frame_of(x, items[i], &f);
			if (rc < 0)
				return rc;
			if (f.str != CG_STR_EMPTY && (full ? f.kept_full : f.kept_user))
				x->scratch[k++] = f.str;
		}
		if (k || pass == 1) {
			int rc = k ? intern_stack(x, k, stack) : 0;
			if (rc < 0)
				return rc;
			break;
		}
	}
	if (seq != CG_STR_EMPTY) {
		CG_GROW(x->seq_stack, x->seq_stack_cap, (size_t)seq + 1);
		x->seq_stack[seq] = *stack;
	}
	/* Shared lists (the memo holds them) are cached by address, and kept
	 * so that the address never comes back as another list; a list only
	 * its entry holds goes with it and is not worth a cache slot. */
	if (frames->refs > 1) {
		cg_pk_keep(frames);
		uint32_t *slot = cg_u64map_slot(&x->stack_cache, (uint64_t)(uintptr_t)frames);
		if (!*slot) {
			CG_GROW(x->cached, x->cached_cap, x->ncached + 1);
			*slot = (uint32_t)++x->ncached;
		}
		x->cached[*slot - 1] = (struct cg_snap_cached){frames->len, *stack};
	}
	return 0;
}

/* ---- devices ---- */

int cg_snap_device_of(cg_snap_reader *x, int64_t n, uint16_t *out, cg_error *err)
{
	if (n < 0 || n > UINT16_MAX - 1)
		return cg_error_set(err, CG_EINPUT, "%s: device number %" PRId64 " is out of range", x->name, n);
	if ((size_t)n >= x->device_of_cap) {
		size_t cap = x->device_of_cap;
		CG_GROW(x->device_of, x->device_of_cap, (size_t)n + 1);
		memset(x->device_of + cap, 0, (x->device_of_cap - cap) * sizeof *x->device_of);
	}
	if (!x->device_of[n]) {
		char name[32];
		snprintf(name, sizeof name, "cuda:%" PRId64, n);
		uint16_t d;
		if (cg_timeline_device(x->tl, name, strlen(name), &d) < 0)
			return cg_error_set(err, CG_ELIMIT, "%s: more than 65535 devices", x->name);
		x->device_of[n] = (uint16_t)(d + 1);
	}
	*out = (uint16_t)(x->device_of[n] - 1);
	return 0;
}

/* ---- segments and blocks ---- */

static const char *const segment_keys[] = {"device", "address", "total_size", "allocated_size",
					   "active_size", "requested_size", "stream", "segment_type",
					   "segment_pool_id", "is_expandable", "frames", "blocks"};
static const char *const block_keys[] = {"address", "size", "requested_size", "state", "frames", "history"};

static void count_unknown(cg_snap_reader *x, const cg_pk *d, const char *const *known, size_t nknown)
{
	for (uint32_t k = 0; k < d->len; k++) {
		const cg_pk *key = d->v.items[2 * k];
		bool found = false;
		for (size_t i = 0; i < nknown && !found; i++)
			found = cg_pk_str_is(key, known[i]);
		x->unknown_keys += !found;
	}
}

static int need_uint(cg_snap_reader *x, const cg_pk *d, const char *what, size_t i, const char *key,
		     uint64_t *out, cg_error *err)
{
	if (cg_pk_uint(cg_pk_dict_get(d, key), out))
		return 0;
	const cg_pk *v = cg_pk_dict_get(d, key);
	return cg_error_set(err, CG_EINPUT, "%s: %s %zu: \"%s\" is %s, not a non-negative integer", x->name, what,
			    i, key, v ? "another value" : "missing");
}

static cg_block_state block_state(const cg_pk *v)
{
	if (cg_pk_str_is(v, "active_allocated"))
		return CG_BLOCK_ALLOCATED;
	if (cg_pk_str_is(v, "active_pending_free") || cg_pk_str_is(v, "active_awaiting_free"))
		return CG_BLOCK_PENDING;
	if (cg_pk_str_is(v, "inactive"))
		return CG_BLOCK_INACTIVE;
	return CG_BLOCK_UNKNOWN;
}

/* Frames of a block: its own, or (legacy) those of history[0]. */
static const cg_pk *block_frames(const cg_pk *b, const cg_pk **history0)
{
	const cg_pk *h = cg_pk_dict_get(b, "history");
	cg_pk *const *items;
	*history0 = cg_pk_seq(h, &items) && items[0]->type == CG_PK_DICT ? items[0] : NULL;
	const cg_pk *f = cg_pk_dict_get(b, "frames");
	if (f && f->type == CG_PK_LIST)
		return f;
	return *history0 ? cg_pk_dict_get(*history0, "frames") : NULL;
}

static int read_block(cg_snap_reader *x, const cg_pk *b, size_t gi, uint64_t address, cg_snap_block *out,
		      uint32_t *stack_out, cg_error *err)
{
	if (b->type != CG_PK_DICT)
		return cg_error_set(err, CG_EINPUT, "%s: segment %zu: a block is not a dict", x->name, gi);
	count_unknown(x, b, block_keys, sizeof block_keys / sizeof *block_keys);
	memset(out, 0, sizeof *out);
	int rc = need_uint(x, b, "segment", gi, "size", &out->size, err);
	if (rc < 0)
		return rc;
	out->state = (uint8_t)block_state(cg_pk_dict_get(b, "state"));
	const cg_pk *h0;
	const cg_pk *frames = block_frames(b, &h0);
	const cg_pk *addr = cg_pk_dict_get(b, "address");
	out->address = address;
	if (addr && !cg_pk_uint(addr, &out->address))
		return cg_error_set(err, CG_EINPUT, "%s: segment %zu: a block's \"address\" is not an integer",
				    x->name, gi);
	if (!addr)
		x->s->legacy_blocks = true;
	if (!cg_pk_uint(cg_pk_dict_get(b, "requested_size"), &out->requested) &&
	    !cg_pk_uint(cg_pk_dict_get(h0, "real_size"), &out->requested))
		out->requested = out->size;
	if (out->requested > out->size && out->state != CG_BLOCK_INACTIVE)
		out->requested = out->size; /* cannot ask for more than the block: stale or hostile */
	cg_pk *const *items;
	size_t nframes = cg_pk_seq(frames, &items);
	out->nframes = (uint16_t)(nframes > UINT16_MAX ? UINT16_MAX : nframes);
	out->top_frame = CG_STR_EMPTY;
	uint32_t stack;
	rc = cg_snap_stack_of(x, frames, &stack);
	*stack_out = stack;
	if (rc == 0 && stack) /* the innermost kept frame */
		out->top_frame = x->stack_frames[x->stack_first[stack] - 1];
	return rc < 0 ? cg_error_set(err, rc, "%s: too many distinct strings", x->name) : 0;
}

int cg_snap_read_segments(cg_snap_reader *x, const cg_pk *segments, cg_error *err)
{
	cg_snapshot *s = x->s;
	cg_pk *const *segs;
	size_t nseg = cg_pk_seq(segments, &segs);
	if (segments && segments->type != CG_PK_LIST)
		return cg_error_set(err, CG_EINPUT, "%s: \"segments\" is not a list", x->name);
	size_t nblocks = 0;
	for (size_t i = 0; i < nseg; i++) {
		cg_pk *const *items;
		if (segs[i]->type != CG_PK_DICT)
			return cg_error_set(err, CG_EINPUT, "%s: segment %zu is not a dict", x->name, i);
		nblocks += cg_pk_seq(cg_pk_dict_get(segs[i], "blocks"), &items);
	}
	if (nseg >= UINT32_MAX || nblocks >= UINT32_MAX)
		return cg_error_set(err, CG_ELIMIT, "%s: more than 2^32 segments or blocks", x->name);
	s->segments = cg_calloc(nseg ? nseg : 1, sizeof *s->segments);
	s->blocks = cg_calloc(nblocks ? nblocks : 1, sizeof *s->blocks);
	x->block_stack = cg_calloc(nblocks ? nblocks : 1, sizeof *x->block_stack);
	for (size_t i = 0; i < nseg; i++) {
		const cg_pk *d = segs[i];
		cg_snap_segment *g = &s->segments[s->nsegments++];
		count_unknown(x, d, segment_keys, sizeof segment_keys / sizeof *segment_keys);
		int64_t dev;
		if (!cg_pk_int(cg_pk_dict_get(d, "device"), &dev))
			return cg_error_set(err, CG_EINPUT, "%s: segment %zu: \"device\" is not an integer", x->name, i);
		int rc = cg_snap_device_of(x, dev, &g->device, err);
		if (rc == 0)
			rc = need_uint(x, d, "segment", i, "address", &g->address, err);
		if (rc == 0)
			rc = need_uint(x, d, "segment", i, "total_size", &g->total_size, err);
		if (rc < 0)
			return rc;
		/* each read whether or not the others are there */
		bool alloc = cg_pk_uint(cg_pk_dict_get(d, "allocated_size"), &g->allocated_size);
		bool active = cg_pk_uint(cg_pk_dict_get(d, "active_size"), &g->active_size);
		bool req = cg_pk_uint(cg_pk_dict_get(d, "requested_size"), &g->requested_size);
		g->has_sums = alloc && active && req;
		cg_pk_uint(cg_pk_dict_get(d, "stream"), &g->stream);
		const cg_pk *type = cg_pk_dict_get(d, "segment_type");
		g->pool = cg_pk_str_is(type, "large") ? CG_POOL_LARGE
			  : cg_pk_str_is(type, "small") ? CG_POOL_SMALL
							 : CG_POOL_OTHER;
		const cg_pk *exp = cg_pk_dict_get(d, "is_expandable");
		g->expandable = exp && exp->type == CG_PK_BOOL && exp->v.b;
		cg_pk *const *blocks;
		size_t nb = cg_pk_seq(cg_pk_dict_get(d, "blocks"), &blocks);
		g->block_first = (uint32_t)s->nblocks;
		g->block_count = (uint32_t)nb;
		uint64_t address = g->address;
		for (size_t k = 0; k < nb; k++) {
			cg_snap_block *b = &s->blocks[s->nblocks];
			rc = read_block(x, blocks[k], i, address, b, &x->block_stack[s->nblocks], err);
			s->nblocks++;
			if (rc < 0)
				return rc;
			s->unknown_states += b->state == CG_BLOCK_UNKNOWN;
			/* the next block starts where this one ends (legacy blocks have no address) */
			if (!cg_add_u64(address, b->size, &address))
				return cg_error_set(err, CG_EINPUT, "%s: segment %zu: block sizes pass 2^64", x->name, i);
		}
	}
	return 0;
}

/* ---- settings, as JSON text ---- */

static void json_string(buf *b, const char *s, size_t n)
{
	put(b, "\"", 1);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		char tmp[8];
		if (c == '"' || c == '\\') {
			tmp[0] = '\\';
			tmp[1] = (char)c;
			put(b, tmp, 2);
		} else if (c < 0x20 || c == 0x7f) {
			snprintf(tmp, sizeof tmp, "\\u%04x", c);
			put(b, tmp, 6);
		} else if (c < 0x80) {
			put(b, (const char *)&c, 1);
		} else {
			/* as cg_escape_json: each byte that is not UTF-8 (a lone
			 * surrogate CPython wrote) becomes U+FFFD, so the text
			 * stays JSON every parser reads */
			size_t len = cg_utf8_sequence((const unsigned char *)s + i, n - i);
			if (len) {
				put(b, s + i, len);
				i += len - 1;
			} else {
				put(b, "\\ufffd", 6);
			}
		}
	}
	put(b, "\"", 1);
}

/* Settings are a flat dict with one nested level (roundup_power2_divisions):
 * deeper values are written as null, so a hostile file cannot recurse. */
static void json_value(buf *b, const cg_pk *v, int depth)
{
	switch (depth > 4 ? CG_PK_NONE : v->type) {
	case CG_PK_BOOL:
		puts_(b, v->v.b ? "true" : "false");
		break;
	case CG_PK_INT:
		put_int(b, v);
		break;
	case CG_PK_FLOAT: {
		char tmp[40];
		if (v->v.f != v->v.f || v->v.f - v->v.f != 0)
			puts_(b, "null"); /* NaN and infinities are not JSON */
		else {
			snprintf(tmp, sizeof tmp, "%.17g", v->v.f);
			puts_(b, tmp);
		}
		break;
	}
	case CG_PK_STR:
		json_string(b, v->v.s, v->len);
		break;
	case CG_PK_LIST:
	case CG_PK_TUPLE:
		put(b, "[", 1);
		for (uint32_t i = 0; i < v->len; i++) {
			if (i)
				put(b, ",", 1);
			json_value(b, v->v.items[i], depth + 1);
		}
		put(b, "]", 1);
		break;
	case CG_PK_DICT:
		put(b, "{", 1);
		for (uint32_t i = 0; i < v->len; i++) {
			const cg_pk *k = v->v.items[2 * i];
			if (i)
				put(b, ",", 1);
			if (k->type == CG_PK_STR)
				json_string(b, k->v.s, k->len);
			else
				puts_(b, "\"?\"");
			put(b, ":", 1);
			json_value(b, v->v.items[2 * i + 1], depth + 1);
		}
		put(b, "}", 1);
		break;
	default:
		puts_(b, "null");
	}
}

int cg_snap_json(cg_snap_reader *x, const cg_pk *v, cg_str *out)
{
	buf b = {0};
	json_value(&b, v, 0);
	int rc = cg_timeline_intern(x->tl, b.p, b.n, out);
	cg_free(b.p);
	return rc;
}

int cg_snap_read_settings(cg_snap_reader *x, const cg_pk *settings, cg_error *err)
{
	cg_snapshot *s = x->s;
	if (!settings)
		return 0;
	if (settings->type != CG_PK_DICT) {
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0, "\"allocator_settings\" is not a dict: ignored");
		return 0;
	}
	s->settings = cg_calloc(settings->len ? settings->len : 1, sizeof *s->settings);
	for (uint32_t i = 0; i < settings->len; i++) {
		const cg_pk *k = settings->v.items[2 * i], *v = settings->v.items[2 * i + 1];
		if (k->type != CG_PK_STR)
			continue;
		struct cg_snap_setting *st = &s->settings[s->nsettings];
		if (cg_timeline_intern(x->tl, k->v.s, k->len, &st->key) < 0 || cg_snap_json(x, v, &st->json) < 0)
			return cg_error_set(err, CG_ELIMIT, "%s: too many distinct strings", x->name);
		s->nsettings++;
		if (cg_pk_str_is(k, "expandable_segments"))
			s->expandable_segments = v->type == CG_PK_BOOL && v->v.b;
		if (cg_pk_str_is(k, "max_split_size"))
			cg_pk_int(v, &s->max_split_size);
	}
	return 0;
}
