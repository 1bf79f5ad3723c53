/* The verdicts of `cgmem check` as text, one line per limit and device. */
#include "check_text.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "termtext.h"
#include "units.h"
#include "xalloc.h"

/* "2.5" from 2500000 millionths. */
static char *fmt_millionths(char *buf, size_t size, uint64_t m)
{
	int n = snprintf(buf, size, "%" PRIu64 ".%06" PRIu64, m / 1000000u, m % 1000000u);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && buf[n - 1] == '.')
		buf[--n] = '\0';
	return buf;
}

/* "15.44 MiB (16,190,672 B)"; "100 B" alone when it is already exact. */
static char *fmt_size(char *buf, size_t size, uint64_t v)
{
	char b[32], c[32];
	if (v < 1024)
		snprintf(buf, size, "%s", cg_fmt_bytes(b, sizeof b, v));
	else
		snprintf(buf, size, "%s (%s B)", cg_fmt_bytes(b, sizeof b, v), cg_fmt_count(c, sizeof c, v));
	return buf;
}

/* One verdict's line after its word; device is the device's name escaped
 * for a terminal, so that a name cannot rewrite the line (termtext.h). */
static void put_body(cg_sink *out, const cg_check_verdict *v, const char *device, const cg_check_limits *l)
{
	char measured[160], limit[96], t[32], b1[32], b2[32];
	const char *cmp = v->ok ? "<=" : ">", *note = "", *name = cg_check_kind_name((cg_check_kind)v->kind);
	switch ((cg_check_kind)v->kind) {
	case CG_CHECK_PEAK:
		fmt_size(measured, sizeof measured, v->bytes);
		fmt_size(limit, sizeof limit, l->max_peak);
		break;
	case CG_CHECK_LEAKED:
		fmt_size(measured, sizeof measured, v->bytes);
		fmt_size(limit, sizeof limit, l->max_leaked);
		break;
	case CG_CHECK_FRAGMENTATION:
		snprintf(limit, sizeof limit, "%.6g", l->max_fragmentation);
		if (!v->measured) {
			cg_sink_printf(out, "%s %s: %s, limit %s (%s)", name, device,
				       v->source == CG_FRAG_NOT_APPLICABLE ? "not applicable" : "unknown",
				       limit, cg_check_reason(v));
			return;
		}
		snprintf(measured, sizeof measured, "%.6g", v->value);
		snprintf(measured + strlen(measured), sizeof measured - strlen(measured), " (%s at %s)",
			 v->source == CG_FRAG_CHECKPOINT ? "largest at a checkpoint" : "estimated by the allocator replay",
			 cg_fmt_time(t, sizeof t, v->t_ns));
		break;
	case CG_CHECK_GROWTH:
		snprintf(limit, sizeof limit, "%s %%", fmt_millionths(b1, sizeof b1, l->max_growth_millionths));
		if (v->unbounded)
			snprintf(measured, sizeof measured, "unbounded (%s -> %s)", cg_fmt_bytes(b1, sizeof b1, v->base_bytes),
				 cg_fmt_bytes(b2, sizeof b2, v->bytes));
		else
			snprintf(measured, sizeof measured, "%+.6g %% (%s -> %s)", v->value,
				 cg_fmt_bytes(b1, sizeof b1, v->base_bytes), cg_fmt_bytes(b2, sizeof b2, v->bytes));
		if (!v->in_baseline)
			note = " (not in the baseline)";
		break;
	case CG_CHECK_KIND_COUNT:
		return;
	}
	cg_sink_printf(out, "%s %s: %s %s %s%s", name, device, measured, cmp, limit, note);
}

void cg_check_text_body(cg_sink *out, const cg_check_verdict *v, const cg_check_limits *l)
{
	char *device = cg_termtext_dup(v->device);
	put_body(out, v, device, l);
	cg_free(device);
}

void cg_check_text_write(cg_sink *out, const cg_check_result *r, const cg_check_limits *l)
{
	for (size_t i = 0; i < r->n; i++) {
		const cg_check_verdict *v = &r->verdicts[i];
		if (v->kind >= CG_CHECK_KIND_COUNT)
			continue;
		cg_sink_printf(out, "%-4s  ", cg_check_outcome_word(cg_check_outcome_of(v)));
		cg_check_text_body(out, v, l);
		cg_sink_putc(out, '\n');
	}
}
