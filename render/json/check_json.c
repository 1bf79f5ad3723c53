#include "check_json.h"

#include "jsonw.h"

void cg_check_json_write(cg_sink *s, const cg_check_result *r, const cg_check_limits *l, const char *file,
			 const char *baseline)
{
	cg_jw w;
	cg_jw_init(&w, s, true);
	cg_jw_object(&w);
	cg_jw_kv_string(&w, "schema", "cgmem/check/1");
	cg_jw_kv_string(&w, "cgmem_version", CGMEM_VERSION);
	cg_jw_kv_string(&w, "file", file);
	cg_jw_key(&w, "baseline");
	if (baseline)
		cg_jw_string(&w, baseline);
	else
		cg_jw_null(&w);
	cg_jw_kv_bool(&w, "ok", r->failed == 0);
	cg_jw_kv_u64(&w, "failed", r->failed);
	size_t not_applicable = 0;
	for (size_t i = 0; i < r->n; i++)
		not_applicable += cg_check_outcome_of(&r->verdicts[i]) == CG_CHECK_NOT_APPLICABLE;
	cg_jw_kv_u64(&w, "not_applicable", not_applicable);
	cg_jw_key(&w, "limits");
	cg_jw_array(&w);
	for (size_t i = 0; i < r->n; i++) {
		const cg_check_verdict *v = &r->verdicts[i];
		cg_jw_object(&w);
		cg_jw_kv_string(&w, "limit", cg_check_kind_name((cg_check_kind)v->kind));
		cg_jw_kv_string(&w, "device", v->device);
		cg_jw_kv_bool(&w, "ok", v->ok);
		/* the word of the text line, by the same rule (check.h) */
		cg_jw_kv_string(&w, "verdict", cg_check_outcome_word(cg_check_outcome_of(v)));
		const char *reason = cg_check_reason(v);
		cg_jw_key(&w, "reason");
		if (reason)
			cg_jw_string(&w, reason);
		else
			cg_jw_null(&w);
		switch ((cg_check_kind)v->kind) {
		case CG_CHECK_PEAK:
		case CG_CHECK_LEAKED:
			cg_jw_kv_string(&w, "unit", "bytes");
			cg_jw_kv_u64(&w, "measured", v->bytes);
			cg_jw_kv_u64(&w, "max", v->kind == CG_CHECK_PEAK ? l->max_peak : l->max_leaked);
			if (v->kind == CG_CHECK_PEAK)
				cg_jw_kv_u64(&w, "time_ns", v->t_ns);
			break;
		case CG_CHECK_FRAGMENTATION:
			cg_jw_kv_string(&w, "unit", "ratio");
		{
			static const char *const sources[] = {"checkpoint", "replay", "not_applicable", "unknown"};
			bool known = v->source == CG_FRAG_CHECKPOINT || v->source == CG_FRAG_REPLAY;
			cg_jw_key(&w, "measured");
			if (known)
				cg_jw_double(&w, v->value);
			else
				cg_jw_null(&w);
			cg_jw_kv_double(&w, "max", l->max_fragmentation);
			cg_jw_kv_string(&w, "source", sources[v->source]);
			cg_jw_key(&w, "time_ns");
			if (known)
				cg_jw_u64(&w, v->t_ns);
			else
				cg_jw_null(&w);
		}
			break;
		case CG_CHECK_GROWTH:
			cg_jw_kv_string(&w, "unit", "percent");
			cg_jw_key(&w, "measured");
			if (v->unbounded)
				cg_jw_null(&w);
			else
				cg_jw_double(&w, v->value);
			cg_jw_kv_double(&w, "max", (double)l->max_growth_millionths / 1e6);
			cg_jw_kv_bool(&w, "unbounded", v->unbounded);
			cg_jw_kv_u64(&w, "peak_bytes", v->bytes);
			cg_jw_kv_u64(&w, "baseline_peak_bytes", v->base_bytes);
			cg_jw_kv_bool(&w, "in_baseline", v->in_baseline);
			break;
		case CG_CHECK_KIND_COUNT:
			break;
		}
		cg_jw_end(&w);
	}
	cg_jw_end(&w);
	cg_jw_end(&w);
}

