/* The public face of libcgmem (cgmem.h) that is not already a function of
 * a layer below: the version, and the key figures and summary.json of an
 * analysis. cg_ingest, cg_analysis_run and the rest are the layers' own. */
#include "cgmem.h"

#include <string.h>

#include "analysis.h"
#include "summary_json.h"
#include "xalloc.h"

const char *cg_version(void)
{
	return CGMEM_VERSION;
}

uint32_t cg_analysis_device_count(const cg_analysis *a)
{
	return a ? a->tl->ndevices : 0;
}

int cg_analysis_device(cg_device_figures *out, const cg_analysis *a, uint32_t device, cg_error *err)
{
	memset(out, 0, sizeof *out);
	if (!a || device >= a->tl->ndevices)
		return cg_error_set(err, CG_EUSAGE, "no device %u: the trace has %u", device,
				    a ? a->tl->ndevices : 0);
	const cg_timeline *tl = a->tl;
	const cg_peak_device *p = &a->peak->devices[device];
	const cg_liveset_device *at_peak = &a->at_peak->devices[device], *at_end = &a->at_end->devices[device];
	out->name = cg_timeline_str(tl, tl->devices[device].name);
	out->peak_bytes = p->peak_bytes;
	out->peak_t_ns = p->peak_t_ns;
	memcpy(out->peak_by_category, at_peak->by_category, sizeof out->peak_by_category);
	out->live_at_peak = p->live_at_peak;
	out->live_at_end_bytes = at_end->bytes;
	memcpy(out->live_at_end_by_category, at_end->by_category, sizeof out->live_at_end_by_category);
	out->allocations = p->allocations;
	out->frees = p->frees;
	out->categories_known = tl->source.categories_known;
	out->out_of_memory = a->end->devices[device].kind == CG_END_OUT_OF_MEMORY;
	return 0;
}

int cg_analysis_summary_json(char **out, size_t *len, const cg_analysis *a, cg_error *err)
{
	*out = NULL;
	if (!a)
		return cg_error_set(err, CG_EUSAGE, "no analysis");
	cg_sink *s = cg_sink_memory();
	cg_summary_json_write(s, a, true);
	size_t n;
	const char *data = cg_sink_data(s, &n);
	char *copy = cg_malloc(n + 1);
	memcpy(copy, data, n);
	copy[n] = '\0';
	int rc = cg_sink_close(s, err);
	if (rc < 0) {
		cg_free(copy);
		return rc;
	}
	*out = copy;
	if (len)
		*len = n;
	return 0;
}
