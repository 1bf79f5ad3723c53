#include "pairing.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checked.h"
#include "devgroup.h"
#include "diag.h"
#include "parallel.h"
#include "u64map.h"
#include "xalloc.h"

/* Is every device's subsequence already in time order? Single-threaded
 * writers produce this, so the common case costs one pass. */
static bool times_in_order(const cg_timeline *tl, bool *grouped)
{
	uint64_t *last = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *last);
	bool ordered = true;
	*grouped = true;
	for (size_t i = 0; i < tl->nmem; i++) {
		const cg_mem *m = &tl->mem[i];
		uint16_t d = cg_timeline_mem_device(tl, m);
		if (m->t_ns < last[d])
			ordered = false;
		last[d] = m->t_ns;
		if (i > 0 && d < cg_timeline_mem_device(tl, &tl->mem[i - 1]))
			*grouped = false;
	}
	cg_free(last);
	return ordered;
}

/* One stable counting pass over perm by an 8- or 16-bit key. */
static void counting_pass(const cg_timeline *tl, uint32_t *perm, uint32_t *tmp, int shift, bool by_device)
{
	size_t n = tl->nmem;
	size_t buckets = by_device ? (size_t)tl->ndevices : 256;
	size_t *count = cg_calloc(buckets + 1, sizeof *count);
	for (size_t i = 0; i < n; i++) {
		const cg_mem *m = &tl->mem[perm[i]];
		size_t k = by_device ? cg_timeline_mem_device(tl, m) : (size_t)((m->t_ns >> shift) & 0xff);
		count[k + 1]++;
	}
	for (size_t k = 0; k < buckets; k++)
		count[k + 1] += count[k];
	for (size_t i = 0; i < n; i++) {
		const cg_mem *m = &tl->mem[perm[i]];
		size_t k = by_device ? cg_timeline_mem_device(tl, m) : (size_t)((m->t_ns >> shift) & 0xff);
		tmp[count[k]++] = perm[i];
	}
	memcpy(perm, tmp, n * sizeof *perm);
	cg_free(count);
}

/* Moves records so that position i holds the record perm[i] held. */
static void apply_permutation(cg_mem *mem, uint32_t *perm, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (perm[i] == i)
			continue;
		cg_mem saved = mem[i];
		size_t j = i;
		while (perm[j] != i) {
			size_t src = perm[j];
			mem[j] = mem[src];
			perm[j] = (uint32_t)j;
			j = src;
		}
		mem[j] = saved;
		perm[j] = (uint32_t)j;
	}
}

/* By (device, time), stably: nothing to do when in order, a partition by
 * device when only interleaved, else an LSD radix sort (time bytes from low
 * to high, skipping bytes that are the same in every record, then the
 * device). */
static void sort_memory(cg_timeline *tl, unsigned threads)
{
	size_t n = tl->nmem;
	bool grouped;
	bool ordered = times_in_order(tl, &grouped);
	if (ordered && grouped)
		return;
	if (ordered) {
		/* The common case of several devices: a stable partition. */
		cg_group_by_device(tl, threads);
		return;
	}
	uint32_t *perm = cg_malloc(n * sizeof *perm);
	uint32_t *tmp = cg_malloc(n * sizeof *tmp);
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	if (!ordered) {
		uint64_t all_or = 0, all_and = UINT64_MAX;
		for (size_t i = 0; i < n; i++) {
			all_or |= tl->mem[i].t_ns;
			all_and &= tl->mem[i].t_ns;
		}
		uint64_t varying = all_or ^ all_and;
		for (int shift = 0; shift < 64; shift += 8)
			if ((varying >> shift) & 0xff)
				counting_pass(tl, perm, tmp, shift, false);
	}
	if (tl->ndevices > 1)
		counting_pass(tl, perm, tmp, 0, true);
	cg_free(tmp);
	apply_permutation(tl->mem, perm, n);
	cg_free(perm);
}

static int cmp_oom(const void *a, const void *b)
{
	const cg_oom *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static int cmp_devmem(const void *a, const void *b)
{
	const cg_devmem *x = a, *y = b;
	if (x->device != y->device)
		return x->device < y->device ? -1 : 1;
	if (x->t_ns != y->t_ns)
		return x->t_ns < y->t_ns ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* What pairing found wrong with a record. Devices are paired on threads,
 * each into its own list; the lists become anomalies (with their messages)
 * and replacements afterwards, device after device in record order, as a
 * single pass would have added them. */
enum { EV_FREE_BEFORE_TRACE, EV_DOUBLE_FREE, EV_BYTES_MISMATCH, EV_ALLOC_OF_LIVE_ID, EV_UNMATCHED_FREE };

typedef struct pair_event {
	uint32_t kind;
	uint32_t i;	/* the record */
	uint32_t other; /* the allocation it pairs with or replaces */
	uint64_t bytes; /* the free's bytes as the trace gave them */
} pair_event;

/* One device's pairing on a thread: its events, and how summing ended. */
typedef struct device_job {
	pair_event *events;
	size_t nevents, events_cap;
	int rc;
	cg_error err;
} device_job;

static void add_event(device_job *job, uint32_t kind, uint32_t i, uint32_t other, uint64_t bytes)
{
	CG_GROW(job->events, job->events_cap, job->nevents + 1);
	job->events[job->nevents++] = (pair_event){kind, i, other, bytes};
}

/* The live allocations of a device by tensor id (value: the record + 1).
 * The map's keys are nonzero: a packed id has its top bit set, and a
 * string's id is moved up by one. */
static uint64_t live_key(const cg_mem *m)
{
	return cg_tensor_id_is_str(m->tensor) ? m->tensor.v + 1 : m->tensor.v;
}

/* A free that matches no live allocation: freed before the trace, or again.
 * Which is known only once every id before it is (classify_unmatched). */
static void pair_free(cg_timeline *tl, cg_u64map *live, uint32_t i, device_job *job)
{
	cg_mem *m = &tl->mem[i];
	uint32_t prev = cg_u64map_take(live, live_key(m));
	if (!prev) {
		add_event(job, EV_UNMATCHED_FREE, i, CG_NONE, m->bytes);
		return;
	}
	cg_mem *a = &tl->mem[--prev];
	if (a->bytes != m->bytes) {
		m->flags |= CG_MEM_BYTES_MISMATCH;
		add_event(job, EV_BYTES_MISMATCH, i, prev, m->bytes);
		m->bytes = a->bytes;
	}
	a->pair = i;
	m->pair = prev;
	/* A category belongs to the allocation; its free says the same. */
	m->category = a->category;
}

static void pair_alloc(cg_timeline *tl, cg_u64map *live, uint32_t i, device_job *job)
{
	cg_mem *m = &tl->mem[i];
	uint32_t *slot = cg_u64map_slot(live, live_key(m));
	if (*slot) {
		uint32_t prev = *slot - 1;
		cg_mem *old = &tl->mem[prev];
		old->flags |= CG_MEM_REPLACED;
		old->pair = i;
		m->flags |= CG_MEM_REPLACES;
		add_event(job, EV_ALLOC_OF_LIVE_ID, i, prev, m->bytes);
	}
	*slot = i + 1;
}

/* An unmatched free's id is not live, so it is either new to the device
 * (freed before the trace) or was seen before, allocated or freed, and has
 * been freed since (freed twice). One more pass over the device, asking
 * only of the unmatched frees' ids, tells which. */
static void classify_unmatched(cg_timeline *tl, cg_device *dev, device_job *job)
{
	cg_u64map first = {0}; /* id -> its first record on the device + 1 */
	uint32_t last = 0;     /* the last unmatched free + 1 */
	for (size_t k = 0; k < job->nevents; k++)
		if (job->events[k].kind == EV_UNMATCHED_FREE) {
			*cg_u64map_slot(&first, live_key(&tl->mem[job->events[k].i])) = UINT32_MAX;
			last = job->events[k].i + 1;
		}
	if (last == 0)
		return;
	for (uint32_t i = dev->mem_first; i < last; i++) {
		uint64_t key = live_key(&tl->mem[i]);
		if (cg_u64map_get(&first, key) == UINT32_MAX)
			*cg_u64map_slot(&first, key) = i + 1;
	}
	for (size_t k = 0; k < job->nevents; k++) {
		pair_event *e = &job->events[k];
		if (e->kind != EV_UNMATCHED_FREE)
			continue;
		cg_mem *m = &tl->mem[e->i];
		if (cg_u64map_get(&first, live_key(m)) - 1 < e->i) {
			e->kind = EV_DOUBLE_FREE;
			m->flags |= CG_MEM_DOUBLE_FREE;
			m->bytes = 0;
			continue;
		}
		e->kind = EV_FREE_BEFORE_TRACE;
		m->flags |= CG_MEM_PREEXISTING;
		dev->preexisting_count++;
		/* Where the trace records no categories, a block from before it is
		 * "before profiling" like the baseline, not "unknown". */
		if (!tl->source.categories_known && m->category == CG_CAT_UNKNOWN)
			m->category = CG_CAT_BASELINE;
	}
	cg_u64map_free(&first);
}

static void add_replacement(cg_timeline *tl, uint32_t alloc, uint32_t replaced)
{
	CG_GROW(tl->replacements, tl->replacements_cap, tl->nreplacements + 1);
	tl->replacements[tl->nreplacements++] = (struct cg_replacement){alloc, replaced};
}

/* The anomaly (and replacement) an event stands for, with the message a
 * single pass words. */
static void apply_event(cg_timeline *tl, const cg_device *dev, const pair_event *e)
{
	const cg_mem *m = &tl->mem[e->i];
	const char *dname = cg_timeline_str(tl, dev->name);
	const char *pos = cg_timeline_position_word(tl);
	char buf[CG_TENSOR_ID_BUF];
	size_t len;
	const char *id = cg_timeline_tensor_text(tl, m->tensor, buf, &len);
	switch (e->kind) {
	case EV_FREE_BEFORE_TRACE:
		cg_timeline_anomaly(tl, CG_ANOM_FREE_BEFORE_TRACE,
				    "%s %u: free of \"%s\" (%" PRIu64 " B) on %s, never allocated in the trace",
				    pos, m->line, id, e->bytes, dname);
		break;
	case EV_DOUBLE_FREE:
		cg_timeline_anomaly(tl, CG_ANOM_DOUBLE_FREE,
				    "%s %u: free of \"%s\" on %s, which was already freed",
				    pos, m->line, id, dname);
		break;
	case EV_BYTES_MISMATCH: {
		const cg_mem *a = &tl->mem[e->other];
		cg_timeline_anomaly(tl, CG_ANOM_BYTES_MISMATCH,
				    "%s %u: free of \"%s\" on %s says %" PRIu64
				    " B; its allocation at %s %u had %" PRIu64 " B",
				    pos, m->line, id, dname, e->bytes,
				    pos, a->line, a->bytes);
		break;
	}
	case EV_ALLOC_OF_LIVE_ID: {
		const cg_mem *old = &tl->mem[e->other];
		cg_timeline_anomaly(tl, CG_ANOM_ALLOC_OF_LIVE_ID,
				    "%s %u: \"%s\" allocated on %s while its allocation at %s %u was live",
				    pos, m->line, id, dname, pos, old->line);
		add_replacement(tl, e->i, e->other);
		break;
	}
	}
}

static const char *source_name(const cg_timeline *tl)
{
	return tl->source.display_name ? tl->source.display_name : "trace";
}

/* Sums live bytes through the device's records, checking for overflow, and
 * records what is live at the end. */
static int sum_live(cg_timeline *tl, cg_device *dev, cg_error *err)
{
	char where[600];
	uint64_t pre = 0, live, pre_baseline = 0;
	/* Paired, what is live from the start are the frees that match no
	 * allocation (those "before profiling" among them, pre_baseline);
	 * unpaired, unpaired_device has filled initial_by_cat. */
	if (tl->source.pairing_known) {
		memset(dev->initial_by_cat, 0, sizeof dev->initial_by_cat);
		for (uint32_t k = 0; k < dev->mem_count; k++) {
			const cg_mem *m = &tl->mem[dev->mem_first + k];
			if (m->flags & CG_MEM_PREEXISTING &&
			    !cg_add_u64(dev->initial_by_cat[m->category], m->bytes, &dev->initial_by_cat[m->category]))
				goto overflow_start;
		}
		pre_baseline = dev->initial_by_cat[CG_CAT_BASELINE];
	}
	dev->initial_by_cat[CG_CAT_BASELINE] = pre_baseline;
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (!cg_add_u64(pre, dev->initial_by_cat[c], &pre))
			goto overflow_start;
	if (!cg_add_u64(pre_baseline, dev->baseline_bytes, &dev->initial_by_cat[CG_CAT_BASELINE]))
		goto overflow_start;
	dev->preexisting_bytes = pre;
	if (!cg_add_u64(pre, dev->baseline_bytes, &live))
		goto overflow_start;
	uint32_t count = 0;
	uint64_t allocs = 0, frees = 0;
	for (uint32_t k = 0; k < dev->mem_count; k++) {
		uint32_t i = dev->mem_first + k;
		const cg_mem *m = &tl->mem[i];
		if (!cg_add_u64(live, cg_mem_added(m), &live))
			return cg_error_set(err, CG_EINPUT, "%s: live bytes on %s exceed 2^64 - 1 bytes",
					    cg_timeline_where(tl, m->line, where, sizeof where),
					    cg_timeline_str(tl, dev->name));
		live -= cg_timeline_mem_removed(tl, i);
		if (m->action == CG_ALLOC && m->pair == CG_NONE)
			count++;
		if (m->action == CG_ALLOC)
			allocs++;
		else
			frees++;
	}
	dev->live_at_end = live;
	/* Unpaired, only the balance of allocations and frees is known. */
	dev->live_count_at_end = tl->source.pairing_known ? count
				 : (uint32_t)(dev->preexisting_count + allocs - frees);
	return 0;
overflow_start:
	return cg_error_set(err, CG_EINPUT,
			    "%s: bytes live on %s before the first record exceed 2^64 - 1 bytes",
			    source_name(tl), cg_timeline_str(tl, dev->name));
}

/* Frees that cannot be matched (no ids): each removes its own bytes, and
 * live bytes are the running sum. Where frees outrun allocations, memory
 * allocated before the trace was being freed: the deepest such deficit
 * becomes the device's baseline, so that live bytes never go below zero,
 * and the deepest deficit in count its allocations live from the start. */
static int unpaired_device(cg_timeline *tl, cg_device *dev, size_t first, size_t end, cg_error *err)
{
	char where[600];
	/* Per category: the running sum and how far below zero it would go. */
	uint64_t sum[CG_CAT_COUNT] = {0}, deficit[CG_CAT_COUNT] = {0};
	uint64_t count = 0, count_deficit = 0;
	for (size_t k = first; k < end; k++) {
		cg_mem *m = &tl->mem[k];
		m->pair = CG_NONE;
		uint64_t *s = &sum[m->category];
		if (m->action == CG_ALLOC) {
			if (!cg_add_u64(*s, m->bytes, s))
				return cg_error_set(err, CG_EINPUT, "%s: live bytes on %s exceed 2^64 - 1 bytes",
						    cg_timeline_where(tl, m->line, where, sizeof where),
						    cg_timeline_str(tl, dev->name));
			count++;
		} else {
			if (m->bytes > *s) {
				if (!cg_add_u64(deficit[m->category], m->bytes - *s, &deficit[m->category]))
					return cg_error_set(err, CG_EINPUT, "%s: bytes freed on %s exceed 2^64 - 1 bytes",
							    cg_timeline_where(tl, m->line, where, sizeof where),
							    cg_timeline_str(tl, dev->name));
				*s = 0;
			} else {
				*s -= m->bytes;
			}
			if (count == 0)
				count_deficit++;
			else
				count--;
		}
	}
	uint64_t total = 0;
	for (int c = 0; c < CG_CAT_COUNT; c++) {
		dev->initial_by_cat[c] = deficit[c];
		if (!cg_add_u64(total, deficit[c], &total))
			return cg_error_set(err, CG_EINPUT, "%s: bytes freed on %s exceed 2^64 - 1 bytes",
					    source_name(tl), cg_timeline_str(tl, dev->name));
	}
	if (total)
		cg_diag_add(tl, CG_DIAG_WARNING, 0,
			    "%s: frees outrun allocations by up to %" PRIu64 " B: memory allocated before the trace "
			    "began, counted as live from the start (frees cannot be paired in this trace)",
			    cg_timeline_str(tl, dev->name), total);
	dev->preexisting_count = count_deficit > UINT32_MAX ? UINT32_MAX : (uint32_t)count_deficit;
	return 0;
}

int cg_pairing_set_baseline(cg_timeline *tl, uint16_t device, uint64_t bytes, cg_error *err)
{
	cg_device *dev = &tl->devices[device];
	uint64_t old = dev->baseline_bytes;
	dev->baseline_bytes = bytes;
	int rc = sum_live(tl, dev, err);
	if (rc < 0) {
		dev->baseline_bytes = old;
		sum_live(tl, dev, NULL);
	}
	return rc;
}

/* Devices paired on threads: worker w pairs devices w, w + nworkers, ...
 * with its own map of live ids, which it leaves empty again. */
typedef struct pairing_work {
	cg_timeline *tl;
	device_job *jobs;
	unsigned nworkers;
} pairing_work;

static void pair_device(cg_timeline *tl, uint32_t d, cg_u64map *live, device_job *job)
{
	cg_device *dev = &tl->devices[d];
	size_t first = dev->mem_first, end = first + dev->mem_count;
	for (size_t k = first; k < end; k++) {
		tl->mem[k].pair = CG_NONE;
		if (tl->mem[k].action == CG_ALLOC)
			pair_alloc(tl, live, (uint32_t)k, job);
		else
			pair_free(tl, live, (uint32_t)k, job);
	}
	classify_unmatched(tl, dev, job);
	cg_u64map_clear(live);
}

static void pairing_worker(void *ctx, size_t w)
{
	pairing_work *pw = ctx;
	cg_timeline *tl = pw->tl;
	cg_u64map live = {0};
	for (size_t d = w; d < tl->ndevices; d += pw->nworkers)
		pair_device(tl, (uint32_t)d, &live, &pw->jobs[d]);
	cg_u64map_free(&live);
}

/* Live bytes need every replacement in place (cg_timeline_mem_removed). */
static void sum_worker(void *ctx, size_t d)
{
	pairing_work *pw = ctx;
	device_job *job = &pw->jobs[d];
	job->err = (cg_error)CG_ERROR_INIT;
	job->rc = sum_live(pw->tl, &pw->tl->devices[d], &job->err);
}

int cg_pairing_run(cg_timeline *tl, unsigned threads, cg_error *err)
{
	sort_memory(tl, threads);
	if (tl->ndevmem > 1)
		qsort(tl->devmem, tl->ndevmem, sizeof *tl->devmem, cmp_devmem);
	for (size_t i = 0; i < tl->ndevmem; i++)
		tl->devices[tl->devmem[i].device].devmem_count++;
	if (tl->nooms > 1)
		qsort(tl->ooms, tl->nooms, sizeof *tl->ooms, cmp_oom);

	size_t i = 0;
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		cg_device *dev = &tl->devices[d];
		dev->mem_first = (uint32_t)i;
		size_t end = i;
		while (end < tl->nmem && cg_timeline_mem_device(tl, &tl->mem[end]) == d)
			end++;
		dev->mem_count = (uint32_t)(end - i);
		i = end;
	}

	int rc = 0;
	if (!tl->source.pairing_known) {
		for (uint32_t d = 0; d < tl->ndevices && rc == 0; d++) {
			cg_device *dev = &tl->devices[d];
			rc = unpaired_device(tl, dev, dev->mem_first, (size_t)dev->mem_first + dev->mem_count, err);
			if (rc == 0)
				rc = sum_live(tl, dev, err);
		}
		return rc;
	}

	pairing_work pw = {tl, cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *pw.jobs), 1};
	if (tl->nmem >= CG_PARALLEL_MIN_ITEMS && tl->ndevices > 1) {
		unsigned cpus = threads ? threads : cg_cpu_count();
		pw.nworkers = cpus < tl->ndevices ? cpus : tl->ndevices;
	}
	cg_parallel_for(pw.nworkers, pw.nworkers, pairing_worker, &pw);
	for (uint32_t d = 0; d < tl->ndevices; d++) {
		device_job *job = &pw.jobs[d];
		for (size_t k = 0; k < job->nevents; k++)
			apply_event(tl, &tl->devices[d], &job->events[k]);
		cg_free(job->events);
	}
	cg_parallel_for(tl->ndevices, pw.nworkers, sum_worker, &pw);
	/* The first device in order whose sum failed, where one pass stops. */
	for (uint32_t d = 0; d < tl->ndevices && rc == 0; d++) {
		device_job *job = &pw.jobs[d];
		if (job->rc < 0) {
			rc = job->rc;
			if (err)
				*err = job->err;
		}
	}
	cg_free(pw.jobs);
	return rc;
}
