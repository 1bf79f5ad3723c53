#include "tracereplay.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <zlib.h>

#include "enums.h"
#include "tracecheck.h"

cJSON *tu_json_gz_file(const char *path)
{
	gzFile g = gzopen(path, "rb");
	if (!g)
		fail_msg("cannot open %s", path);
	size_t cap = 1 << 20, n = 0;
	char *text = malloc(cap);
	int k;
	while ((k = gzread(g, text + n, (unsigned)(cap - n - 1))) > 0) {
		n += (size_t)k;
		if (cap - n < 2)
			text = realloc(text, cap *= 2);
	}
	assert_true(k == 0);
	gzclose(g);
	text[n] = '\0';
	cJSON *j = cJSON_Parse(text);
	if (!j)
		fail_msg("%s is not valid JSON", path);
	free(text);
	return j;
}

/* A counter track as Perfetto keeps it. */
typedef struct track {
	double pid;
	const char *name, *key; /* borrowed from the trace */
	double value;
} track;

/* The timeline's side of one counter of one device: its records applied
 * up to the moment of the counter's last sample. */
typedef struct walker {
	double pid;
	const char *name;
	uint16_t device;
	uint32_t applied; /* records of the device applied */
	uint64_t last_ns;
	uint64_t total, by_cat[CG_CAT_COUNT];
} walker;

typedef struct replay {
	const cg_timeline *tl;
	track *tracks;
	size_t ntracks;
	walker *walkers;
	size_t nwalkers;
} replay;

static track *find_track(replay *p, double pid, const char *name, const char *key)
{
	for (size_t i = 0; i < p->ntracks; i++)
		if (p->tracks[i].pid == pid && strcmp(p->tracks[i].name, name) == 0 && strcmp(p->tracks[i].key, key) == 0)
			return &p->tracks[i];
	return NULL;
}

static void set_track(replay *p, double pid, const char *name, const char *key, double value)
{
	track *t = find_track(p, pid, name, key);
	if (!t) {
		p->tracks = realloc(p->tracks, (p->ntracks + 1) * sizeof *p->tracks);
		t = &p->tracks[p->ntracks++];
		*t = (track){pid, name, key, 0};
	}
	t->value = value;
}

static bool by_category(const char *name)
{
	return strcmp(name, "live memory by category") == 0;
}

/* The bytes the timeline has under key of counter w now; false for a key
 * the counter has not. */
static bool expected(const walker *w, const char *key, uint64_t *v)
{
	if (!by_category(w->name)) {
		*v = w->total;
		return strcmp(key, "bytes") == 0;
	}
	for (int c = 0; c < CG_CAT_COUNT; c++)
		if (strcmp(key, cg_category_name((cg_category)c)) == 0) {
			*v = w->by_cat[c];
			return true;
		}
	return false;
}

/* Do the keys sample e writes hold the timeline's bytes now? */
static bool own_keys_match(const walker *w, cJSON *args)
{
	cJSON *a;
	cJSON_ArrayForEach(a, args)
	{
		uint64_t v;
		if (!expected(w, a->string, &v))
			fail_msg("counter '%s' has a key '%s' that is no category", w->name, a->string);
		if (!cJSON_IsNumber(a) || a->valuedouble != (double)v)
			return false;
	}
	return true;
}

static void apply(const cg_timeline *tl, walker *w)
{
	cg_timeline_apply_live(tl, tl->devices[w->device].mem_first + w->applied++, &w->total, w->by_cat);
}

/* Moves w to the moment sample e (at t ns) shows. */
static void seek(const cg_timeline *tl, walker *w, uint64_t t, cJSON *args)
{
	const cg_device *dev = &tl->devices[w->device];
	const cg_mem *mem = tl->mem + dev->mem_first;
	if (t < w->last_ns)
		fail_msg("counter '%s' of pid %g goes back in time to %" PRIu64 " ns", w->name, w->pid, t);
	w->last_ns = t;
	while (w->applied < dev->mem_count && mem[w->applied].t_ns < t)
		apply(tl, w);
	if (w->applied == dev->mem_count || mem[w->applied].t_ns != t) {
		if (!own_keys_match(w, args))
			fail_msg("counter '%s' of pid %g at %" PRIu64 " ns: its keys match no moment of the timeline",
				 w->name, w->pid, t);
		return;
	}
	while (w->applied < dev->mem_count && mem[w->applied].t_ns == t) {
		apply(tl, w);
		if (own_keys_match(w, args))
			return;
	}
	fail_msg("counter '%s' of pid %g at %" PRIu64 " ns: its keys match no record at that time", w->name, w->pid, t);
}

static walker *find_walker(replay *p, double pid, const char *name)
{
	for (size_t i = 0; i < p->nwalkers; i++)
		if (p->walkers[i].pid == pid && strcmp(p->walkers[i].name, name) == 0)
			return &p->walkers[i];
	return NULL;
}

/* The device of process pid, from its name "memory: DEVICE". */
static bool device_of(cJSON *events, const cg_timeline *tl, double pid, uint16_t *d)
{
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = tu_event_str(e, "ph"), *name = tu_event_str(e, "name");
		if (!ph || strcmp(ph, "M") != 0 || !name || strcmp(name, "process_name") != 0 ||
		    tu_event_num(e, "pid") != pid)
			continue;
		const char *pname = tu_event_str(cJSON_GetObjectItemCaseSensitive(e, "args"), "name");
		if (!pname || strncmp(pname, "memory: ", 8) != 0)
			return false;
		for (uint16_t k = 0; k < tl->ndevices; k++)
			if (strcmp(cg_timeline_str(tl, tl->devices[k].name), pname + 8) == 0) {
				*d = k;
				return true;
			}
	}
	return false;
}

/* Counts sample e stale when a track of its counter shows other bytes
 * than the timeline (a key without a track shows nothing: 0). */
static void judge(replay *p, const walker *w, uint64_t t, tu_replay_result *r)
{
	const char *keys[CG_CAT_COUNT + 1];
	size_t nkeys = 0;
	if (by_category(w->name))
		for (int c = 0; c < CG_CAT_COUNT; c++)
			keys[nkeys++] = cg_category_name((cg_category)c);
	else
		keys[nkeys++] = "bytes";
	size_t wrong = 0;
	for (size_t k = 0; k < nkeys; k++) {
		const track *tr = find_track(p, w->pid, w->name, keys[k]);
		uint64_t v;
		expected(w, keys[k], &v);
		double shown = tr ? tr->value : 0;
		if (shown == (double)v)
			continue;
		if (!r->stale && !wrong)
			snprintf(r->first, sizeof r->first,
				 "pid %g '%s' at %" PRIu64 " ns: track '%s' shows %.0f B, the timeline has %" PRIu64 " B",
				 w->pid, w->name, t, keys[k], shown, v);
		wrong++;
	}
	r->stale += wrong > 0;
	r->stale_tracks += wrong;
}

void tu_replay_counters(cJSON *trace, const cg_timeline *tl, tu_replay_result *r)
{
	memset(r, 0, sizeof *r);
	replay p = {tl, NULL, 0, NULL, 0};
	cJSON *events = cJSON_GetObjectItemCaseSensitive(trace, "traceEvents");
	assert_true(cJSON_IsArray(events));
	cJSON *e;
	cJSON_ArrayForEach(e, events)
	{
		const char *ph = tu_event_str(e, "ph"), *name = tu_event_str(e, "name");
		if (!ph || strcmp(ph, "C") != 0)
			continue;
		double pid = tu_event_num(e, "pid");
		cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args"), *a;
		cJSON_ArrayForEach(a, args)
			if (cJSON_IsNumber(a))
				set_track(&p, pid, name, a->string, a->valuedouble);
		if (strcmp(name, "live memory") != 0 && !by_category(name))
			continue;
		/* Timestamps are microseconds with three decimals: exact in a
		 * double far beyond any trace here. */
		double ts = tu_event_num(e, "ts");
		assert_true(ts >= 0 && ts < 1e12);
		uint64_t t = (uint64_t)llround(ts * 1000);
		walker *w = find_walker(&p, pid, name);
		if (!w) {
			uint16_t d = 0;
			if (!device_of(events, tl, pid, &d))
				fail_msg("pid %g has counter '%s' but no process_name 'memory: DEVICE'", pid, name);
			p.walkers = realloc(p.walkers, (p.nwalkers + 1) * sizeof *p.walkers);
			w = &p.walkers[p.nwalkers++];
			memset(w, 0, sizeof *w);
			w->pid = pid;
			w->name = name;
			w->device = d;
			w->total = cg_device_initial_live(&tl->devices[d]);
			memcpy(w->by_cat, tl->devices[d].initial_by_cat, sizeof w->by_cat);
		}
		seek(tl, w, t, args);
		r->samples++;
		judge(&p, w, t, r);
	}
	free(p.tracks);
	free(p.walkers);
}
