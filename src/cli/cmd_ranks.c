#include "cmd_ranks.h"

#include <inttypes.h>
#include <stdio.h>

#include "chart_ranks.h"
#include "partial.h"
#include "ranks.h"
#include "ranks_json.h"
#include "ranks_report.h"
#include "termtext.h"
#include "units.h"
#include "xalloc.h"

int cg_cmd_rank_regex(const cg_command *cmd, const cg_args *args, regex_t *re, bool *has)
{
	*has = false;
	const char *v = cg_args_get(cmd, args, "rank-from");
	if (!v)
		return 0;
	cg_error err = CG_ERROR_INIT;
	if (!*v || cg_rank_regex_compile(re, v, &err) < 0)
		return cg_usage_error(cmd, "%s", *v ? err.msg : "--rank-from: give a regular expression");
	*has = true;
	return 0;
}

int cg_cmd_ranks_write_top(cg_outdir *od, cg_rankset *s, bool html, cg_error *err)
{
	int rc = cg_rankset_sort(s, err);
	if (rc < 0)
		return rc;
	cg_ranks_result *f;
	cg_ranks_run(&f, s);
	char *path = NULL;
	rc = cg_outdir_file(od, "summary.json", &path, err);
	if (rc == 0)
		rc = cg_ranks_json_save(path, s, f, err);
	cg_free(path);
	/* at the default size and formats, whatever a report's own charts
	 * use: merge draws the same bytes */
	cg_charts_options co = CG_CHARTS_OPTIONS_INIT;
	if (rc == 0)
		rc = cg_chart_ranks_write(od, s, &co, err);
	if (rc == 0)
		rc = cg_chart_ranks_heatmap_write(od, s, &co, err);
	if (rc == 0)
		rc = cg_chart_ranks_timelines_write(od, s, &co, err);
	if (rc == 0)
		rc = cg_ranks_report_write(od, s, f, true, html, err);
	cg_ranks_free(f);
	return rc;
}

void cg_cmd_ranks_print(const cg_rankset *s)
{
	for (size_t i = 0; i < s->n; i++)
		for (size_t d = 0; d < s->ranks[i].ndevices; d++) {
			const cg_rank_device *dv = &s->ranks[i].devices[d];
			char b[32], c[32], t[32];
			int64_t peak = dv->peak_bytes > 0 ? dv->peak_bytes : 0;
			cg_termtext_line(stdout, "rank %" PRId64 ": %s peak %s (%s B)%s%s", s->ranks[i].rank, dv->name,
					 cg_fmt_bytes(b, sizeof b, (uint64_t)peak), cg_fmt_count(c, sizeof c, (uint64_t)peak),
					 dv->has_peak_time ? " at " : "",
					 dv->has_peak_time ? cg_fmt_time(t, sizeof t, (uint64_t)dv->peak_time_ns) : "");
		}
}
