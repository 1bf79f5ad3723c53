/* diff.html's explorer (docs/report-explore.md): per device matched in
 * both runs, one data element holding each run's data as report.html's
 * explorer has it (cg_explore_device_json) and the time each run starts,
 * so the page draws both from their own starts. */
#include "explore_diff.h"

#include <string.h>

#include "charts.h"
#include "explore_data.h"
#include "jsonw.h"
#include "xalloc.h"

static const char *const sides[2] = {"base", "new"};

static bool has_series(const cg_analysis *a, uint32_t dv)
{
	return a->tl->devices[dv].mem_count || a->peak->devices[dv].initial_bytes;
}

char *cg_explore_diff_json(const cg_diff_view *v, size_t i)
{
	const cg_diff_device *dev = &v->diff->devices[i];
	for (int s = 0; s < 2; s++)
		if (dev->index[s] == CG_NONE || !has_series(v->run[s], dev->index[s]))
			return NULL;
	cg_sink *out = cg_sink_memory();
	cg_jw w;
	cg_jw_init(&w, out, false);
	cg_jw_object(&w);
	cg_jw_kv_u64(&w, "version", 1);
	cg_jw_kv_bool(&w, "diff_view", true);
	cg_jw_kv_string(&w, "device", dev->name);
	cg_jw_key(&w, "runs");
	cg_jw_array(&w);
	for (int s = 0; s < 2; s++) {
		const cg_analysis *a = v->run[s];
		char name[256];
		cg_chart_run_name(a->tl, name, sizeof name);
		cg_jw_object(&w);
		cg_jw_kv_string(&w, "side", sides[s]);
		cg_jw_kv_string(&w, "name", name);
		/* the run's start: its times are drawn from there */
		cg_jw_kv_u64(&w, "start_ns", a->tl->first_t_ns);
		cg_jw_key(&w, "data");
		char *json = cg_explore_device_json(a, dev->index[s]);
		cg_jw_raw(&w, json, strlen(json));
		cg_free(json);
		cg_jw_end(&w);
	}
	cg_jw_end(&w);
	cg_jw_end(&w);
	size_t len;
	char *json = cg_strdup(cg_sink_data(out, &len));
	cg_sink_close(out, NULL);
	return json;
}

void cg_explore_diff_device(cg_doc *d, const cg_diff_view *v, size_t i)
{
	char *json = cg_explore_diff_json(v, i);
	if (!json)
		return;
	cg_doc_data(d, "cgx-data", json);
	cg_free(json);
}
