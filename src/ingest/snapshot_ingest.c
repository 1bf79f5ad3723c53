/* Reading a CUDA allocator snapshot: the pickle is loaded with the trace
 * entries taken as they stream past (the tree never holds the millions of
 * them), then the rest of the tree is read and the timeline built. */
#include "snapshot_ingest.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "snapshot_read.h"
#include "u64map.h"
#include "xalloc.h"

/* The action an entry's str names. Real files share each action's string
 * through the memo, so the last few such nodes are remembered (and kept,
 * so their addresses stay theirs): a pointer compare instead of up to
 * nine string compares per entry. */
static bool action_of(cg_snap_reader *x, const cg_pk *v, uint8_t *out)
{
	for (int k = 0; k < CG_SNAP_ACTION_CACHE; k++)
		if (x->action_node[k] == v) {
			*out = x->action_code[k];
			return true;
		}
	for (int a = 0; a < CG_SNAP_ACTION_COUNT; a++) {
		const char *name = cg_snap_action_name((cg_snap_action)a);
		if (v->len == strlen(name) && !memcmp(v->v.s, name, v->len)) {
			*out = (uint8_t)a;
			if (v->refs > 1) {
				cg_pk_keep(v);
				int k = x->action_next++ % CG_SNAP_ACTION_CACHE;
				x->action_node[k] = v;
				x->action_code[k] = (uint8_t)a;
			}
			return true;
		}
	}
	return false;
}

/* An address as written: the C++ pickler writes int64, so one at or above
 * 2^63 arrives negative and is taken back as the unsigned value. */
static bool address_of(const cg_pk *v, uint64_t *out)
{
	int64_t i;
	if (cg_pk_uint(v, out))
		return true;
	if (!cg_pk_int(v, &i))
		return false;
	*out = (uint64_t)i;
	return true;
}

static struct cg_snap_list *list_of(cg_snap_reader *x, const cg_pk *list)
{
	if (x->last_list < x->nlists && x->lists[x->last_list].list == list)
		return &x->lists[x->last_list];
	uint32_t *slot = cg_u64map_slot(&x->list_index, (uint64_t)(uintptr_t)list);
	if (*slot) {
		x->last_list = *slot - 1;
		return &x->lists[x->last_list];
	}
	if (x->nlists > UINT16_MAX)
		return NULL;
	*slot = (uint32_t)x->nlists + 1;
	CG_GROW(x->lists, x->lists_cap, x->nlists + 1);
	x->lists[x->nlists] = (struct cg_snap_list){list, 0, 0, 0, 0, false};
	x->last_list = x->nlists;
	return &x->lists[x->nlists++];
}

/* Room for n entries (their pages made present ahead of the writes). */
static void entries_grow(cg_snap_reader *x, size_t n)
{
	cg_snapshot *s = x->s;
	cg_prefault_region(x->pf, CG_SNAP_PF_ENTRIES, NULL, 0);
	cg_prefault_region(x->pf, CG_SNAP_PF_STACKS, NULL, 0);
	CG_GROW(s->entries, s->entries_cap, n);
	CG_GROW(x->entry_stack, x->entry_stack_cap, n);
	cg_prefault_region(x->pf, CG_SNAP_PF_ENTRIES, s->entries, s->entries_cap * sizeof *s->entries);
	cg_prefault_region(x->pf, CG_SNAP_PF_STACKS, x->entry_stack, x->entry_stack_cap * sizeof *x->entry_stack);
	cg_prefault_used(x->pf, CG_SNAP_PF_ENTRIES, s->nentries * sizeof *s->entries);
	cg_prefault_used(x->pf, CG_SNAP_PF_STACKS, s->nentries * sizeof *x->entry_stack);
}

/* The fields of a trace entry cgmem reads, found in one pass over its
 * pairs (the hook runs for millions of entries). Later pairs win, as in
 * Python. */
typedef struct entry_fields {
	const cg_pk *action, *addr, *device_free, *size, *time_us, *frames;
} entry_fields;

static void entry_fields_of(const cg_pk *d, entry_fields *f)
{
	*f = (entry_fields){0};
	for (uint32_t k = 0; k < d->len; k++) {
		const cg_pk *key = d->v.items[2 * k], *v = d->v.items[2 * k + 1];
		if (key->type != CG_PK_STR)
			continue;
		const char *s = key->v.s;
		switch (key->len) {
		case 4:
			if (!memcmp(s, "addr", 4))
				f->addr = v;
			else if (!memcmp(s, "size", 4))
				f->size = v;
			break;
		case 6:
			if (!memcmp(s, "action", 6))
				f->action = v;
			else if (!memcmp(s, "frames", 6))
				f->frames = v;
			break;
		case 7:
			if (!memcmp(s, "time_us", 7))
				f->time_us = v;
			break;
		case 11:
			if (!memcmp(s, "device_free", 11))
				f->device_free = v;
			break;
		}
	}
}

/* A trace entry (its action a str) becomes one cg_snap_entry; the
 * general path's hook and the fast path's both end here. */
static int take_fields(cg_snap_reader *x, const cg_pk *list, const entry_fields *fp, cg_error *err)
{
	entry_fields f = *fp;
	struct cg_snap_list *l = list_of(x, list);
	if (!l)
		return cg_error_set(err, CG_ELIMIT, "%s: trace entries in more than 65536 lists", x->name);
	uint64_t index = (uint64_t)list->len + l->taken;
	if (index >= UINT32_MAX - 1)
		return cg_error_set(err, CG_ELIMIT, "%s: more than 2^32 - 2 trace entries on one device", x->name);
	l->taken++;
	cg_snap_entry e = {0};
	e.index = (uint32_t)index;
	e.device = (uint16_t)(l - x->lists);
	if (!action_of(x, f.action, &e.action)) {
		l->unknown_actions++;
		return 1;
	}
	bool oom = e.action == CG_SNAP_OOM;
	const cg_pk *addr = oom ? f.device_free : f.addr;
	bool ok = addr ? address_of(addr, &e.addr) : e.action == CG_SNAP_SNAPSHOT || oom;
	ok = ok && cg_pk_uint(f.size, &e.size);
	if (!ok) {
		x->bad_entries++;
		cg_diag_add(x->tl, CG_DIAG_BAD_LINE, index + 1,
			    "trace entry %" PRIu64 " (%s): \"%s\" or \"size\" missing or not an integer", index,
			    f.action->v.s, oom ? "device_free" : "addr");
		return 1;
	}
	int64_t t;
	if (cg_pk_int(f.time_us, &t) && t >= 0)
		e.t_ns = (uint64_t)t;
	else
		x->all_timed = false;
	uint32_t stack = 0;
	cg_pk *const *frames;
	if (cg_pk_seq(f.frames, &frames)) {
		l->with_frames++;
		if (cg_snap_stack_of(x, f.frames, &stack) < 0)
			return cg_error_set(err, CG_ELIMIT, "%s: too many distinct strings", x->name);
	}
	cg_snapshot *s = x->s;
	if (cg_timeline_records_fit(x->tl, s->nentries + 1) < 0) {
		char why[256];
		return cg_error_set(err, CG_ELIMIT, "%s: %s", x->name, cg_timeline_limit_text(x->tl, why, sizeof why));
	}
	if (s->nentries == s->entries_cap || s->nentries == x->entry_stack_cap)
		entries_grow(x, s->nentries + 1);
	x->entry_stack[s->nentries] = stack;
	s->entries[s->nentries++] = e;
	if ((s->nentries & 1023) == 0) { /* now and then: the thread keeps 32 MiB ahead */
		cg_prefault_used(x->pf, CG_SNAP_PF_ENTRIES, s->nentries * sizeof *s->entries);
		cg_prefault_used(x->pf, CG_SNAP_PF_STACKS, s->nentries * sizeof *x->entry_stack);
	}
	return 1;
}

/* The general path's hook: a dict with a str "action" appended to a list
 * is a trace entry; it becomes one cg_snap_entry and leaves the tree. */
static int take_entry(void *ctx, const cg_pk *list, const cg_pk *const *below, size_t nbelow, const cg_pk *item,
		      cg_error *err)
{
	(void)below;
	(void)nbelow;
	if (item->type != CG_PK_DICT)
		return 0;
	entry_fields f;
	entry_fields_of(item, &f);
	if (!f.action || f.action->type != CG_PK_STR)
		return 0;
	return take_fields(ctx, list, &f, err);
}

/* The keys the fast path reports (pickle.h), "action" first: the dicts it
 * reads are those take_entry takes. */
static const char *const entry_keys[] = {"action", "addr", "device_free", "size", "time_us", "frames"};

static int take_fast(void *ctx, const cg_pk *list, const cg_pk *const *v, cg_error *err)
{
	entry_fields f = {v[0], v[1], v[2], v[3], v[4], v[5]};
	int rc = take_fields(ctx, list, &f, err);
	return rc < 0 ? rc : 0;
}

/* The type of v with its article, for messages: "an int". */
static const char *type_name(const cg_pk *v)
{
	static const char *const names[] = {"None", "a bool", "an int", "a float", "a str", "a tuple", "a list", "a dict"};
	return v->type < sizeof names / sizeof *names ? names[v->type] : "a value";
}

/* device_traces[i] is device i's list: matches the lists entries went to. */
static int read_traces(cg_snap_reader *x, const cg_pk *traces, cg_error *err)
{
	cg_pk *const *lists;
	size_t n = cg_pk_seq(traces, &lists);
	if (traces && traces->type != CG_PK_LIST) {
		cg_diag_add(x->tl, CG_DIAG_WARNING, 0, "\"device_traces\" is %s, not a list: ignored",
			    type_name(traces));
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		const cg_pk *l = lists[i];
		uint32_t k = cg_u64map_get(&x->list_index, (uint64_t)(uintptr_t)l);
		struct cg_snap_list *got = k && !x->lists[k - 1].matched ? &x->lists[k - 1] : NULL;
		if (l->type == CG_PK_LIST && l->len)
			x->bad_entries += l->len; /* items the hook did not take: not trace entries */
		if (!got && !(l->type == CG_PK_LIST && l->len))
			continue;
		uint16_t d;
		int rc = cg_snap_device_of(x, (int64_t)i, &d, err);
		if (rc < 0)
			return rc;
		if (got) {
			got->matched = true;
			got->device = d;
		}
	}
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

/* Devices in ascending number, whichever part of the file names them
 * first: segments' "device" fields and the non-empty device_traces. */
static int declare_devices(cg_snap_reader *x, const cg_pk *segments, const cg_pk *traces, cg_error *err)
{
	cg_pk *const *segs, *const *lists;
	size_t nseg = cg_pk_seq(segments, &segs), nl = cg_pk_seq(traces, &lists);
	int64_t *num = cg_malloc((nseg + nl + 1) * sizeof *num);
	size_t n = 0;
	for (size_t i = 0; i < nseg; i++)
		if (cg_pk_int(cg_pk_dict_get(segs[i], "device"), &num[n]))
			n++;
	for (size_t i = 0; i < nl; i++) {
		bool used = (lists[i]->type == CG_PK_LIST && lists[i]->len) ||
			    cg_u64map_get(&x->list_index, (uint64_t)(uintptr_t)lists[i]);
		if (used)
			num[n++] = (int64_t)i;
	}
	qsort(num, n, sizeof *num, cmp_i64);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		uint16_t d;
		if (i == 0 || num[i] != num[i - 1])
			rc = cg_snap_device_of(x, num[i], &d, err);
	}
	cg_free(num);
	return rc;
}

static int read_tree(cg_snap_reader *x, const cg_pk *root, cg_error *err)
{
	cg_snapshot *s = x->s;
	const cg_pk *segments = root, *traces = NULL, *settings = NULL, *annotations = NULL;
	if (root->type == CG_PK_LIST) {
		/* a list of anything but segments is some other pickle */
		if (root->len > 0 && root->v.items[0]->type != CG_PK_DICT)
			return cg_error_set(err, CG_EINPUT,
					    "%s: a pickle of a list whose first item is %s, not an allocator snapshot (a dict with "
					    "\"segments\", or a list of segments)",
					    x->name, type_name(root->v.items[0]));
		s->list_form = true;
	} else if (root->type == CG_PK_DICT) {
		segments = cg_pk_dict_get(root, "segments");
		if (!segments)
			return cg_error_set(err, CG_EINPUT,
					    "%s: a pickle, but not an allocator snapshot: its dict has no \"segments\"",
					    x->name);
		traces = cg_pk_dict_get(root, "device_traces");
		settings = cg_pk_dict_get(root, "allocator_settings");
		annotations = cg_pk_dict_get(root, "external_annotations");
		static const char *const known[] = {"segments", "device_traces", "allocator_settings",
						    "external_annotations"};
		for (uint32_t k = 0; k < root->len; k++) {
			bool found = false;
			for (size_t i = 0; i < 4 && !found; i++)
				found = cg_pk_str_is(root->v.items[2 * k], known[i]);
			x->unknown_keys += !found;
		}
	} else {
		return cg_error_set(err, CG_EINPUT,
				    "%s: a pickle of %s, not an allocator snapshot (a dict with \"segments\", or a "
				    "list of segments)",
				    x->name, type_name(root));
	}
	int rc = declare_devices(x, segments, traces, err);
	if (rc == 0)
		rc = cg_snap_read_segments(x, segments, err);
	if (rc == 0)
		rc = read_traces(x, traces, err);
	if (rc == 0)
		rc = cg_snap_read_settings(x, settings, err);
	if (rc == 0)
		rc = cg_snap_build(x, annotations, err);
	return rc;
}

static void fill_source(cg_snap_reader *x, cg_reader *r, const char *path)
{
	cg_source *src = &x->tl->source;
	src->path = cg_strdup(path);
	src->display_name = cg_strdup(x->name);
	src->format = cg_asprintf("PyTorch CUDA allocator snapshot (pickle protocol %d)", x->s->protocol);
	src->gzip = cg_reader_is_gzip(r);
	src->file_bytes = cg_reader_bytes_in(r);
	src->data_bytes = cg_reader_bytes_out(r);
	src->lines_are_events = true;
	src->categories_known = false;
	src->pairing_known = true;
}

/* Room for the entries of a file of this size (about 95 bytes each in
 * real files; at most 1 GiB reserved), made once: growing arrays of
 * hundreds of MB copies them (xalloc.c). Pages not written cost nothing. */
static void reserve_entries(cg_snap_reader *x, cg_reader *r)
{
	if (cg_reader_is_gzip(r)) {
		entries_grow(x, 1);
		return;
	}
	uint64_t n = cg_reader_file_size(r) / 64 + 1, most = ((uint64_t)1 << 30) / sizeof *x->s->entries;
	entries_grow(x, (size_t)(n < most ? n : most));
}

int cg_snapshot_ingest(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
		       cg_error *err)
{
	return cg_snapshot_ingest_with(out, r, path, o, CG_SNAP_PARSER_FAST, NULL, err);
}

int cg_snapshot_ingest_with(cg_timeline **out, cg_reader *r, const char *path, const cg_ingest_options *o,
			    cg_snap_parser parser, cg_snap_parse_stats *stats, cg_error *err)
{
	*out = NULL;
	if (stats)
		*stats = (cg_snap_parse_stats){0, 0};
	cg_snap_reader x = {0};
	x.tl = cg_ingest_timeline_new(o);
	x.s = x.tl->snapshot = cg_snapshot_new();
	x.o = o;
	x.name = cg_reader_name(r);
	x.all_timed = true;
	x.stack_index = cg_strtab_new(0);
	x.pf = cg_prefault_start();
	x.seq_index = cg_strtab_new(0);
	cg_ingest_progress(o, 0, cg_reader_file_size(r), false);

	cg_pickle_options po = CG_PICKLE_OPTIONS_INIT;
	po.on_item = take_entry;
	po.ctx = &x;
	po.prefault = x.pf;
	po.prefault_region = CG_SNAP_PF_MEMO;
	if (parser == CG_SNAP_PARSER_FAST) {
		po.on_entry = take_fast;
		po.entry_keys = entry_keys;
		po.nentry_keys = sizeof entry_keys / sizeof *entry_keys;
	}
	const cg_pk *root;
	reserve_entries(&x, r);
	int rc = cg_pickle_load(&x.pk, r, &po, &root, err);
	/* read: the entries do not grow again */
	cg_prefault_region(x.pf, CG_SNAP_PF_ENTRIES, NULL, 0);
	cg_prefault_region(x.pf, CG_SNAP_PF_STACKS, NULL, 0);
	if (rc == 0) {
		x.s->protocol = cg_pickle_protocol(x.pk);
		x.s->memo_puts = cg_pickle_memo_puts(x.pk);
		x.s->memo_gets = cg_pickle_memo_gets(x.pk);
		fill_source(&x, r, path);
		/* never NULL: the replays add an entry index to it even when there are none */
		CG_GROW(x.s->entries, x.s->entries_cap, 1);
		rc = read_tree(&x, root, err);
	}
	cg_ingest_progress(o, cg_reader_bytes_in(r), cg_reader_file_size(r), true);
	if (stats && x.pk)
		*stats = (cg_snap_parse_stats){cg_pickle_fast_entries(x.pk), cg_pickle_fast_fallbacks(x.pk)};
	cg_prefault_stop(x.pf);
	cg_pickle_free(x.pk);
	cg_strtab_free(x.stack_index);
	cg_strtab_free(x.seq_index);
	cg_free(x.seq_stack);
	cg_free(x.entry_stack);
	cg_free(x.block_stack);
	cg_free(x.early_bytes);
	cg_free(x.lists);
	cg_u64map_free(&x.list_index);
	cg_free(x.stack_first);
	cg_free(x.stack_frames);
	cg_u64map_free(&x.stack_cache);
	cg_free(x.cached);
	cg_u64map_free(&x.not_utf8);
	cg_u64map_free(&x.frame_cache);
	cg_free(x.frames);
	cg_free(x.scratch);
	cg_free(x.device_of);
	if (rc < 0) {
		cg_timeline_free(x.tl);
		return rc;
	}
	*out = x.tl;
	return 0;
}
