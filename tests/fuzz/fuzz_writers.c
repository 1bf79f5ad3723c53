/* libFuzzer target: the Chrome-trace, summary.json, Markdown, HTML, folded
 * stacks and CSV writers fed by fuzzed names and values. The input is
 * decoded into a small timeline (strings of any bytes as span, op, tensor,
 * device and metadata names; sizes and times); the outputs must stay valid
 * JSON, the HTML must hold no element the trace's strings could have
 * smuggled in, every folded line must be "frames bytes" with the bytes
 * adding up to the peak, and every CSV record must have the header's
 * fields with none starting a spreadsheet formula.
 *   build-fuzz/tests/fuzz/fuzz_writers tests/fuzz/corpus_writers */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "analysis.h"
#include "chrome_trace.h"
#include "csv.h"
#include "doc_html.h"
#include "doc_markdown.h"
#include "finalize.h"
#include "folded.h"
#include "report.h"
#include "sink.h"
#include "summary_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input {
	const uint8_t *p, *end;
} input;

static unsigned u8(input *in)
{
	return in->p < in->end ? *in->p++ : 0;
}

static uint64_t num(input *in, int bytes)
{
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v = v << 8 | u8(in);
	return v;
}

static cg_str str(input *in, cg_timeline *tl)
{
	size_t n = u8(in);
	if (n > (size_t)(in->end - in->p))
		n = (size_t)(in->end - in->p);
	cg_str id = CG_STR_EMPTY;
	if (cg_timeline_intern(tl, (const char *)in->p, n, &id) < 0)
		id = CG_STR_EMPTY;
	in->p += n;
	return id;
}

static void must_be_json(const char *what, const char *text)
{
	cJSON *j = cJSON_Parse(text);
	if (!j) {
		const char *at = cJSON_GetErrorPtr();
		size_t off = at && at >= text ? (size_t)(at - text) : 0;
		size_t from = off > 200 ? off - 200 : 0;
		fprintf(stderr, "fuzz_writers: %s is not valid JSON near byte %zu: ...%.300s\n", what, off, text + from);
		abort();
	}
	cJSON_Delete(j);
}

/* Every tag in the page is one the report writes itself: a string from the
 * trace that slipped past the escaping would open some other tag, or one of
 * these in a place the check below does not expect. */
static void must_be_inert(const char *html)
{
	static const char *const ours[] = {"!DOCTYPE", "html", "head", "meta", "title", "style", "body", "main",
					   "nav", "section", "h1", "h2", "h3", "p", "div", "ol", "li", "a", "wbr",
					   "details", "summary", "table", "thead", "tbody", "tr", "th", "td",
					   "figure", "figcaption", "pre"};
	for (const char *p = strchr(html, '<'); p; p = strchr(p + 1, '<')) {
		const char *name = p + 1 + (p[1] == '/');
		size_t n = 0;
		while (isalnum((unsigned char)name[n]) || name[n] == '!')
			n++;
		bool known = false;
		for (size_t k = 0; k < sizeof ours / sizeof ours[0] && !known; k++)
			known = strlen(ours[k]) == n && strncmp(ours[k], name, n) == 0;
		if (!known) {
			fprintf(stderr, "fuzz_writers: HTML holds a tag the report does not write: %.40s\n", p);
			abort();
		}
		/* The only attributes are class, lang, charset, the CSP meta's
		 * (name, content, http-equiv), the contents' id and aria-label and
		 * the links' href, each with a quoted value. */
		static const char *const attrs[] = {"class", "lang", "charset", "name", "content", "http-equiv",
						    "id", "aria-label", "href"};
		const char *q = name + n;
		while (p[1] != '!' && *q == ' ') {
			size_t k = 0;
			while (isalpha((unsigned char)q[1 + k]) || q[1 + k] == '-')
				k++;
			bool allowed = false;
			for (size_t a = 0; a < sizeof attrs / sizeof attrs[0] && !allowed; a++)
				allowed = strlen(attrs[a]) == k && strncmp(attrs[a], q + 1, k) == 0;
			const char *value_end = q[1 + k] == '=' && q[2 + k] == '"' ? strchr(q + 3 + k, '"') : NULL;
			if (!allowed || !value_end) {
				fprintf(stderr, "fuzz_writers: unexpected attribute in %.60s\n", p);
				abort();
			}
			q = value_end + 1;
		}
		if (p[1] != '!' && *q != '>') {
			fprintf(stderr, "fuzz_writers: a tag does not end where its attributes do: %.60s\n", p);
			abort();
		}
	}
}

/* Each line is "frames bytes\n": no control character, bytes a plain
 * integer; the bytes add up to want. */
static void must_be_folded(const char *text, uint64_t want)
{
	uint64_t sum = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n'), *sp = nl;
		if (!nl) {
			fprintf(stderr, "fuzz_writers: a folded line does not end: %.80s\n", p);
			abort();
		}
		while (sp > p && sp[-1] >= '0' && sp[-1] <= '9')
			sp--;
		if (sp == nl || sp == p || sp[-1] != ' ' || sp - 1 == p) {
			fprintf(stderr, "fuzz_writers: not a folded line: %.*s\n", (int)(nl - p), p);
			abort();
		}
		for (const char *q = p; q < nl; q++)
			if ((unsigned char)*q < 0x20 || *q == 0x7f) {
				fprintf(stderr, "fuzz_writers: control byte in a folded line: %.*s\n", (int)(nl - p), p);
				abort();
			}
		sum += strtoull(sp, NULL, 10);
		p = nl + 1;
	}
	if (sum != want) {
		fprintf(stderr, "fuzz_writers: folded lines hold %llu B, not %llu\n", (unsigned long long)sum,
			(unsigned long long)want);
		abort();
	}
}

static bool is_integer(const char *s, size_t n)
{
	size_t i = n && s[0] == '-';
	if (i == n)
		return false;
	for (; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* RFC 4180 read strictly: records end in CRLF, quoted fields double their
 * quotes, every record has the header's fields; a field that is not an
 * integer never starts with = + - @ TAB or CR. */
static void must_be_csv(const char *text)
{
	size_t fields = 0, want = 0, records = 0;
	char *cell = malloc(strlen(text) + 1);
	for (const char *p = text; *p;) {
		size_t n = 0;
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p) {
					fprintf(stderr, "fuzz_writers: a quoted CSV field does not end\n");
					abort();
				}
				if (*p == '"' && p[1] != '"')
					break;
				if (*p == '"')
					p++;
				cell[n++] = *p;
			}
			p++;
		} else {
			for (; *p && *p != ',' && *p != '\r' && *p != '\n' && *p != '"'; p++)
				cell[n++] = *p;
		}
		if (n && strchr("=+-@\t\r", cell[0]) && !is_integer(cell, n)) {
			fprintf(stderr, "fuzz_writers: a CSV field starts a formula: %.*s\n", (int)n, cell);
			abort();
		}
		fields++;
		if (*p == ',') {
			p++;
			continue;
		}
		if (p[0] != '\r' || p[1] != '\n') {
			fprintf(stderr, "fuzz_writers: a CSV field is followed by %.20s\n", p);
			abort();
		}
		p += 2;
		if (records++ == 0)
			want = fields;
		else if (fields != want) {
			fprintf(stderr, "fuzz_writers: a CSV record of %zu fields, the header has %zu\n", fields, want);
			abort();
		}
		fields = 0;
	}
	if (fields || !records) {
		fprintf(stderr, "fuzz_writers: CSV does not end with a record\n");
		abort();
	}
	free(cell);
}

static void exports(const cg_analysis *a)
{
	for (uint32_t d = 0; d < a->tl->ndevices; d++) {
		cg_sink *s = cg_sink_memory();
		cg_folded_peak_write(s, a, d);
		must_be_folded(cg_sink_data(s, NULL), a->at_peak->devices[d].bytes);
		cg_sink_close(s, NULL);
		if (cg_folded_leaks_available(a, d)) {
			s = cg_sink_memory();
			cg_folded_leaks_write(s, a, d);
			must_be_folded(cg_sink_data(s, NULL), a->leaks->devices[d].bytes);
			cg_sink_close(s, NULL);
		}
	}
	for (int k = 0; k < CG_CSV_SECTION_COUNT; k++) {
		cg_sink *s = cg_sink_memory();
		cg_csv_write(s, a, (cg_csv_section)k, CG_NONE);
		must_be_csv(cg_sink_data(s, NULL));
		cg_sink_close(s, NULL);
	}
}

static void build(input *in, cg_timeline *tl)
{
	cg_str spans[8];
	unsigned nspans = 1 + u8(in) % 8;
	static const char *const raw[] = {"42", "[\"cpu\",\"cuda:0\"]", "{\"a\":null}", "1e400", "\"s\""};
	for (int m = u8(in) % 3; m > 0; m--) {
		cg_str k = str(in, tl), v = str(in, tl);
		unsigned how = u8(in);
		/* non-string values are JSON text, as ingest keeps them (cJSON-checked) */
		if (how & 1)
			cg_timeline_intern(tl, raw[how % 5], strlen(raw[how % 5]), &v);
		cg_timeline_add_meta(tl, k, v, !(how & 1));
	}
	for (unsigned s = 0; s < nspans; s++) {
		cg_span sp = {0};
		char id[16];
		snprintf(id, sizeof id, "s%u", s);
		cg_timeline_intern(tl, id, strlen(id), &spans[s]);
		sp.id = spans[s];
		sp.name = str(in, tl);
		unsigned bits = u8(in);
		sp.parent = s && (bits & 1) ? spans[bits % s] : CG_STR_EMPTY;
		sp.step = (uint8_t)((bits >> 1) % CG_PHASE_COUNT);
		sp.kind = (uint8_t)((bits >> 3) % CG_SPAN_KIND_COUNT);
		sp.start_ns = num(in, 2);
		sp.line = s + 1;
		cg_timeline_add_span(tl, &sp);
		if (bits & 0x40)
			cg_timeline_add_span_end(tl, sp.id, num(in, 2), s + 1);
	}
	uint16_t devs[3];
	unsigned ndevs = 1 + u8(in) % 3;
	for (unsigned d = 0; d < ndevs; d++) {
		size_t n = u8(in) % 12;
		char name[16] = "cpu";
		for (size_t k = 0; k < n && in->p < in->end; k++)
			name[k] = (char)u8(in);
		name[n ? n : 3] = '\0';
		if (cg_timeline_device(tl, name, strlen(name) ? strlen(name) : 3, &devs[d]) < 0)
			devs[d] = 0;
	}
	for (unsigned i = 0, n = u8(in) % 40; i < n && in->p < in->end; i++) {
		cg_mem_in m = {0};
		m.t_ns = num(in, 2);
		m.bytes = num(in, 3);
		unsigned bits = u8(in);
		m.action = bits & 1 ? CG_FREE : CG_ALLOC;
		m.category = (uint8_t)((bits >> 1) % CG_CAT_BASELINE);
		m.device = devs[(bits >> 4) % ndevs];
		m.span = spans[u8(in) % nspans];
		cg_str ts = str(in, tl); /* packed when its spelling allows, as ingest does */
		if (!cg_tensor_id_pack(cg_timeline_str(tl, ts), cg_strtab_len(tl->strings, ts), &m.tensor))
			m.tensor = cg_tensor_id_str(ts);
		m.op = str(in, tl);
		m.pair = CG_NONE;
		m.line = 100 + i;
		cg_timeline_add_mem(tl, &m);
	}
	for (unsigned i = 0, n = u8(in) % 3; i < n; i++) {
		cg_op op = {0};
		op.name = str(in, tl);
		op.span = spans[u8(in) % nspans];
		op.t_ns = num(in, 2);
		op.duration_ns = num(in, 2);
		op.device = devs[0];
		op.line = 200 + i;
		cg_timeline_add_op(tl, &op, NULL, 0);
	}
	for (unsigned i = 0, n = u8(in) % 3; i < n; i++) {
		cg_devmem c = {0};
		c.t_ns = num(in, 2);
		c.device = devs[u8(in) % ndevs];
		c.used_bytes = num(in, 3);
		c.free_bytes = num(in, 3);
		c.reserved_bytes = num(in, 3);
		c.has_used = true;
		c.has_reserved = u8(in) & 1;
		c.line = 300 + i;
		cg_timeline_add_devmem(tl, &c);
	}
	if (u8(in) & 1) {
		cg_oom o = {0};
		o.t_ns = num(in, 2);
		o.bytes = num(in, 3);
		o.line = 400;
		o.device = devs[0];
		cg_timeline_add_oom(tl, &o);
	}
	tl->source.truncated = u8(in) & 1;
	if (tl->source.truncated)
		tl->source.truncation_note = strdup("trace ends mid-record at line 9");
	tl->source.path = strdup("fuzz.jsonl");
	tl->source.display_name = strdup("fuzz.jsonl");
	tl->source.format = strdup("candle-graph/trace/6 JSONL");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	input in = {data, data + size};
	cg_timeline_limits lim = {.max_string_bytes = 1 << 20};
	cg_timeline *tl = cg_timeline_new(&lim);
	build(&in, tl);
	cg_error err;
	cg_analysis *a = NULL;
	if (cg_timeline_finalize(tl, &err) == 0 && cg_analysis_run(&a, tl, NULL, &err) == 0) {
		cg_sink *s = cg_sink_memory();
		cg_chrome_trace_write(s, a, NULL);
		must_be_json("the Chrome trace", cg_sink_data(s, NULL));
		cg_sink_close(s, NULL);

		s = cg_sink_memory();
		cg_summary_json_write(s, a, true);
		must_be_json("summary.json", cg_sink_data(s, NULL));
		cg_sink_close(s, NULL);

		cg_doc *d = cg_report_build(a, NULL);
		s = cg_sink_memory();
		cg_doc_write_markdown(d, s);
		cg_sink_close(s, NULL);
		s = cg_sink_memory();
		cg_doc_write_html(d, s, "/nonexistent", NULL);
		must_be_inert(cg_sink_data(s, NULL));
		cg_sink_close(s, NULL);
		cg_doc_free(d);
		exports(a);
		cg_analysis_free(a);
	}
	cg_timeline_free(tl);
	return 0;
}
