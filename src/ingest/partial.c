#include "partial.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "jsontext.h"
#include "xalloc.h"

/* ---- the rank in a file name ---- */

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* digits[0..n) as a rank: at most 9 digits, so any int64 holds it. */
static bool digits_rank(const char *p, size_t n, int64_t *out)
{
	if (n == 0 || n > 9)
		return false;
	int64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (!is_digit(p[i]))
			return false;
		v = v * 10 + (p[i] - '0');
	}
	*out = v;
	return true;
}

bool cg_rank_from_file_name(const char *path, const regex_t *re, int64_t *rank, cg_rank_from *from)
{
	const char *name = base_name(path);
	regmatch_t m[2];
	if (re && regexec(re, name, 2, m, 0) == 0) {
		regmatch_t g = re->re_nsub >= 1 && m[1].rm_so >= 0 ? m[1] : m[0];
		if (digits_rank(name + g.rm_so, (size_t)(g.rm_eo - g.rm_so), rank)) {
			*from = CG_RANK_FROM_REGEX;
			return true;
		}
	}
	/* rank3_trace, rank-3.Apr_03..., snapshot_oom_rank_3: the first
	 * "rank" that digits follow */
	for (const char *p = name; *p; p++) {
		if (strncasecmp(p, "rank", 4) != 0)
			continue;
		const char *d = p + 4;
		if (*d == '-' || *d == '_')
			d++;
		size_t n = 0;
		while (is_digit(d[n]))
			n++;
		if (digits_rank(d, n, rank)) {
			*from = CG_RANK_FROM_NAME;
			return true;
		}
	}
	/* trace_3.json.gz: a trailing _N before the first '.' */
	size_t stem = strcspn(name, ".");
	size_t n = 0;
	while (n < stem && is_digit(name[stem - 1 - n]))
		n++;
	if (n > 0 && n < stem && name[stem - 1 - n] == '_' && digits_rank(name + stem - n, n, rank)) {
		*from = CG_RANK_FROM_NAME;
		return true;
	}
	return false;
}

int cg_rank_regex_compile(regex_t *re, const char *pattern, cg_error *err)
{
	int rc = regcomp(re, pattern, REG_EXTENDED);
	if (rc != 0) {
		char msg[200];
		regerror(rc, re, msg, sizeof msg);
		return cg_error_set(err, CG_EUSAGE, "--rank-from: '%s' is not a regular expression: %s", pattern, msg);
	}
	return 0;
}

/* ---- JSON with exact integers ----
 * cJSON keeps numbers as doubles, which do not hold every int64 (an epoch
 * time in ns is about 2^60): each value is read with its text beside it
 * (jsontext.h), and integers are taken from the text. */

typedef struct jv {
	const cJSON *j;
	cg_json_span raw;
} jv;

/* Member key of object o, or {NULL} when absent. */
static jv member(jv o, const char *key)
{
	jv none = {NULL, {NULL, 0}};
	if (!cJSON_IsObject(o.j))
		return none;
	size_t idx = 0, count = 0;
	bool found = false;
	for (const cJSON *c = o.j->child; c; c = c->next, count++)
		if (!found && c->string && strcmp(c->string, key) == 0) {
			idx = count;
			found = true;
		}
	if (!found)
		return none;
	cg_json_span *spans = cg_malloc(count * sizeof *spans);
	size_t k = cg_json_children(o.raw.p, o.raw.p + o.raw.n, CG_JSON_WS_CJSON, spans, count);
	jv out = none;
	if (k == count) {
		out.j = cJSON_GetObjectItemCaseSensitive(o.j, key);
		out.raw = spans[idx];
	}
	cg_free(spans);
	return out;
}

/* The elements of array a: *n of them, caller frees. */
static jv *elements(jv a, size_t *n)
{
	*n = 0;
	if (!cJSON_IsArray(a.j))
		return NULL;
	size_t count = (size_t)cJSON_GetArraySize(a.j);
	cg_json_span *spans = cg_malloc((count ? count : 1) * sizeof *spans);
	size_t k = cg_json_children(a.raw.p, a.raw.p + a.raw.n, CG_JSON_WS_CJSON, spans, count);
	jv *out = cg_malloc((count ? count : 1) * sizeof *out);
	size_t i = 0;
	for (const cJSON *c = a.j->child; c && i < count && i < k; c = c->next, i++)
		out[i] = (jv){c, spans[i]};
	cg_free(spans);
	*n = i;
	return out;
}

static bool get_i64(jv v, int64_t *out)
{
	return cJSON_IsNumber(v.j) && cg_json_int(v.raw.p, v.raw.n, out) == 0;
}

static const char *get_str(jv v)
{
	return cJSON_IsString(v.j) ? v.j->valuestring : NULL;
}

/* A live_series object ({end_ns, max_bytes: [...]}) into d; left empty
 * when absent or not integers (a partial of an older cgmem). */
static void read_series(cg_rank_device *d, jv ls)
{
	size_t n = 0;
	jv *v = elements(member(ls, "max_bytes"), &n);
	if (n && get_i64(member(ls, "end_ns"), &d->series_end_ns)) {
		d->series = cg_malloc(n * sizeof *d->series);
		d->nseries = n;
		for (size_t k = 0; k < n; k++)
			if (!get_i64(v[k], &d->series[k]) || d->series[k] < 0) {
				cg_free(d->series);
				d->series = NULL;
				d->nseries = 0;
				break;
			}
	}
	cg_free(v);
}

static char *dup_or_null(const char *s)
{
	return s ? cg_strdup(s) : NULL;
}

/* ---- wall clock ---- */

/* Days from 1970-01-01 to y-m-d (Howard Hinnant's days_from_civil). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	unsigned yoe = (unsigned)(y - era * 400);
	unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static bool num(const char **p, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (!is_digit(**p))
			return false;
		v = v * 10 + (**p - '0');
	}
	*out = v;
	return true;
}

/* RFC 3339 "2026-11-30T10:00:00.303117Z" (or +HH:MM) as ns since the epoch. */
static bool parse_rfc3339(const char *s, int64_t *out)
{
	int y, mo, d, h, mi, se;
	const char *p = s;
	if (!num(&p, 4, &y) || *p++ != '-' || !num(&p, 2, &mo) || *p++ != '-' || !num(&p, 2, &d) ||
	    (*p != 'T' && *p != 't' && *p != ' ') || !(++p, num(&p, 2, &h)) || *p++ != ':' || !num(&p, 2, &mi) ||
	    *p++ != ':' || !num(&p, 2, &se))
		return false;
	if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
		return false;
	int64_t frac = 0;
	if (*p == '.') {
		p++;
		int k = 0;
		for (; is_digit(*p); p++, k++)
			if (k < 9)
				frac = frac * 10 + (*p - '0');
		if (k == 0)
			return false;
		for (; k < 9; k++)
			frac *= 10;
	}
	int64_t offset = 0;
	if (*p == 'Z' || *p == 'z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1, oh, om;
		if (!num(&p, 2, &oh) || *p++ != ':' || !num(&p, 2, &om))
			return false;
		offset = sign * (oh * 3600 + om * 60);
	} else {
		return false;
	}
	if (*p)
		return false;
	int64_t secs = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se - offset;
	*out = secs * 1000000000 + frac;
	return true;
}

/* ---- a rank's summary.json ---- */

static void read_device(cg_rank *r, jv dev, jv steps)
{
	cg_rank_device *d = cg_rank_add_device(r);
	d->name = dup_or_null(get_str(member(dev, "name")));
	if (!d->name)
		d->name = cg_strdup("?");
	jv peak = member(dev, "peak");
	get_i64(member(peak, "bytes"), &d->peak_bytes);
	d->has_peak_time = get_i64(member(peak, "time_ns"), &d->peak_time_ns);
	const char *phase = get_str(member(member(peak, "allocation"), "phase"));
	d->phase = phase && strcmp(phase, "none") != 0 ? cg_strdup(phase) : NULL;
	d->has_capacity = get_i64(member(dev, "capacity_bytes"), &d->capacity_bytes);
	/* else the largest capacity a checkpoint gives (used + free bytes) */
	size_t nc = 0;
	jv *cps = d->has_capacity ? NULL : elements(member(member(dev, "checkpoints"), "list"), &nc);
	for (size_t i = 0; i < nc; i++) {
		int64_t c;
		if (get_i64(member(cps[i], "capacity_bytes"), &c) && (!d->has_capacity || c > d->capacity_bytes)) {
			d->capacity_bytes = c;
			d->has_capacity = true;
		}
	}
	cg_free(cps);
	d->oom = member(member(dev, "end"), "out_of_memory").j && !cJSON_IsNull(member(member(dev, "end"), "out_of_memory").j);
	/* the step whose span holds the peak: the first, steps being in order */
	size_t ns = 0;
	jv *list = elements(member(steps, "list"), &ns);
	for (size_t i = 0; i < ns && d->has_peak_time; i++) {
		int64_t start, end;
		bool has_end = get_i64(member(list[i], "end_ns"), &end);
		if (get_i64(member(list[i], "start_ns"), &start) && start <= d->peak_time_ns &&
		    (!has_end || d->peak_time_ns <= end)) {
			d->step = dup_or_null(get_str(member(list[i], "name")));
			break;
		}
	}
	cg_free(list);
	jv by_phase = member(member(dev, "over_time"), "by_phase");
	for (int p = 0; p < CG_PHASE_COUNT; p++) {
		jv ph = member(by_phase, cg_phase_name((cg_phase)p));
		d->has_phase[p] = cJSON_IsTrue(member(ph, "ran").j) && get_i64(member(ph, "peak_bytes"), &d->phase_peak[p]);
	}
	jv by_cat = member(member(dev, "at_peak"), "by_category");
	for (int c = 0; c < CG_CAT_COUNT; c++)
		get_i64(member(member(by_cat, cg_category_name((cg_category)c)), "bytes"), &d->at_peak[c]);
	read_series(d, member(member(dev, "over_time"), "live_series"));
}

static int read_summary(cg_rankset *s, jv root, const char *name, const regex_t *re, cg_error *err)
{
	jv source = member(root, "source"), run = member(root, "run");
	const char *path = get_str(member(source, "path"));
	if (!path || strcmp(path, "-") == 0)
		path = name;
	int64_t rank;
	cg_rank_from from = CG_RANK_FROM_DISTRIBUTED;
	if (!get_i64(member(run, "rank"), &rank) && !cg_rank_from_file_name(path, re, &rank, &from))
		return cg_error_set(err, CG_EINPUT,
				    "%s: no rank for %s: the trace has no distributedInfo.rank, and its name has neither "
				    "rank[-_]N nor a trailing _N%s", name, base_name(path),
				    re ? ", nor matches --rank-from" : " (give --rank-from REGEX)");
	if (rank < 0)
		return cg_error_set(err, CG_EINPUT, "%s: rank %" PRId64 " is negative", name, rank);
	cg_rank *r = cg_rankset_add(s);
	r->rank = rank;
	r->from = from;
	r->has_world_size = get_i64(member(run, "world_size"), &r->world_size);
	r->file = cg_strdup(base_name(path));
	r->format = dup_or_null(get_str(member(source, "format")));
	r->stop = cJSON_IsTrue(member(source, "truncated").j) ? CG_RANK_STOP_CUT : CG_RANK_STOP_END;
	size_t nd = 0;
	jv *devs = elements(member(root, "devices"), &nd);
	jv steps = member(root, "steps");
	for (size_t i = 0; i < nd; i++) {
		read_device(r, devs[i], steps);
		int64_t t;
		if (get_i64(member(member(devs[i], "end"), "time_ns"), &t) && t > r->stop_ns)
			r->stop_ns = t;
		if (r->devices[r->ndevices - 1].oom)
			r->stop = CG_RANK_STOP_OOM;
	}
	cg_free(devs);
	int64_t origin;
	const char *started = get_str(member(member(run, "meta"), "started_at"));
	if (get_i64(member(source, "time_origin_unix_ns"), &origin) || (started && parse_rfc3339(started, &origin)))
		r->has_wall = !__builtin_add_overflow(origin, r->stop_ns, &r->stop_unix_ns);
	return 0;
}

/* ---- a ranks document's rows (as ranks_json.c writes them) ---- */

static int bad_row(cg_error *err, const char *name, size_t i, const char *what)
{
	return cg_error_set(err, CG_EINPUT, "%s: ranks.rows[%zu]: %s", name, i, what);
}

static int read_row(cg_rankset *s, jv row, const char *name, size_t i, cg_error *err)
{
	int64_t rank, stop_ns;
	cg_rank_from from;
	cg_rank_stop stop;
	const char *fromk = get_str(member(row, "rank_from")), *stopk = get_str(member(row, "stop"));
	const char *file = get_str(member(row, "file"));
	if (!get_i64(member(row, "rank"), &rank) || rank < 0)
		return bad_row(err, name, i, "\"rank\" is not a non-negative integer");
	if (!fromk || !cg_rank_from_parse(fromk, &from))
		return bad_row(err, name, i, "\"rank_from\" is not distributed_info, regex or file_name");
	if (!stopk || !cg_rank_stop_parse(stopk, &stop))
		return bad_row(err, name, i, "\"stop\" is not end, oom or cut");
	if (!file)
		return bad_row(err, name, i, "\"file\" is not a string");
	if (!get_i64(member(row, "stop_ns"), &stop_ns))
		return bad_row(err, name, i, "\"stop_ns\" is not an integer");
	cg_rank *r = cg_rankset_add(s);
	r->rank = rank;
	r->from = from;
	r->stop = stop;
	r->stop_ns = stop_ns;
	r->file = cg_strdup(file);
	r->format = dup_or_null(get_str(member(row, "format")));
	r->has_world_size = get_i64(member(row, "world_size"), &r->world_size);
	r->has_wall = get_i64(member(row, "stop_unix_ns"), &r->stop_unix_ns);
	size_t nd = 0;
	jv *devs = elements(member(row, "devices"), &nd);
	for (size_t k = 0; k < nd; k++) {
		cg_rank_device *d = cg_rank_add_device(r);
		const char *dn = get_str(member(devs[k], "name"));
		d->name = cg_strdup(dn ? dn : "?");
		get_i64(member(devs[k], "peak_bytes"), &d->peak_bytes);
		d->has_peak_time = get_i64(member(devs[k], "peak_time_ns"), &d->peak_time_ns);
		d->step = dup_or_null(get_str(member(devs[k], "step")));
		d->phase = dup_or_null(get_str(member(devs[k], "phase")));
		d->has_capacity = get_i64(member(devs[k], "capacity_bytes"), &d->capacity_bytes);
		d->oom = cJSON_IsTrue(member(devs[k], "oom").j);
		jv bp = member(devs[k], "peak_by_phase"), bc = member(devs[k], "at_peak_by_category");
		for (int p = 0; p < CG_PHASE_COUNT; p++)
			d->has_phase[p] = get_i64(member(bp, cg_phase_name((cg_phase)p)), &d->phase_peak[p]);
		for (int c = 0; c < CG_CAT_COUNT; c++)
			get_i64(member(bc, cg_category_name((cg_category)c)), &d->at_peak[c]);
		read_series(d, member(devs[k], "live_series"));
	}
	cg_free(devs);
	return 0;
}

int cg_partial_read(cg_rankset *s, const char *text, size_t n, const char *name, const regex_t *re, cg_error *err)
{
	const char *end = NULL;
	cJSON *doc = cJSON_ParseWithLengthOpts(text, n, &end, false);
	/* one document: a JSONL trace is many */
	if (doc && cg_json_skip_ws(end, text + n, CG_JSON_WS_CJSON) != text + n) {
		cJSON_Delete(doc);
		doc = NULL;
		end = cg_json_skip_ws(end, text + n, CG_JSON_WS_CJSON);
	}
	if (!doc) {
		size_t at = end && end >= text ? (size_t)(end - text) : 0;
		return cg_error_set(err, CG_EINPUT, "%s: not valid JSON at byte offset %zu, so not a partial result", name, at);
	}
	const char *p = cg_json_skip_ws(text, text + n, CG_JSON_WS_CJSON);
	jv root = {doc, {p, (size_t)(text + n - p)}};
	int rc = 0;
	const char *schema = get_str(member(root, "schema"));
	if (!cJSON_IsObject(doc) || !schema || strcmp(schema, "cgmem/summary/1") != 0) {
		rc = cg_error_set(err, CG_EINPUT, "%s: not a partial result: a summary.json (\"schema\": "
				  "\"cgmem/summary/1\", as cgmem summary --json prints) or a ranks document "
				  "(cgmem merge --json) was expected", name);
	} else if (member(root, "ranks").j) {
		size_t nr = 0;
		jv *rows = elements(member(member(root, "ranks"), "rows"), &nr);
		if (!cJSON_IsArray(member(member(root, "ranks"), "rows").j))
			rc = cg_error_set(err, CG_EINPUT, "%s: \"ranks\" has no array \"rows\"", name);
		for (size_t i = 0; i < nr && rc == 0; i++)
			rc = read_row(s, rows[i], name, i, err);
		cg_free(rows);
	} else {
		rc = read_summary(s, root, name, re, err);
	}
	cJSON_Delete(doc);
	return rc;
}

int cg_partial_load(cg_rankset *s, const char *path, const regex_t *re, cg_error *err)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (!f)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", path, strerror(errno));
	size_t n = 0, cap = 1 << 16;
	char *buf = cg_malloc(cap);
	size_t k;
	while ((k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap)
			buf = cg_realloc(buf, cap *= 2);
	}
	bool failed = ferror(f);
	int e = errno;
	if (f != stdin)
		fclose(f);
	int rc = failed ? cg_error_set(err, CG_EIO, "%s: cannot read: %s", path, strerror(e))
			: cg_partial_read(s, buf, n, path, re, err);
	cg_free(buf);
	return rc;
}
