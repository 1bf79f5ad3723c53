#include "export.h"

#include <inttypes.h>
#include <stdio.h>

#include "csv.h"
#include "folded.h"
#include "sink.h"
#include "xalloc.h"

typedef void (*device_writer)(cg_sink *out, const cg_analysis *a, uint32_t d);

static void peak_csv(cg_sink *out, const cg_analysis *a, uint32_t d)
{
	cg_csv_write(out, a, CG_CSV_PEAK, d);
}

static void steps_csv(cg_sink *out, const cg_analysis *a, uint32_t d)
{
	(void)d;
	cg_csv_write(out, a, CG_CSV_STEPS, CG_NONE);
}

static int save(cg_outdir *od, const char *name, device_writer fn, const cg_analysis *a, uint32_t d, cg_error *err)
{
	char *path = NULL;
	cg_sink *s = NULL;
	int rc = cg_outdir_file(od, name, &path, err);
	if (rc == 0)
		rc = cg_sink_open(&s, path, 0, err);
	if (rc == 0) {
		fn(s, a, d);
		rc = cg_sink_close(s, err);
	}
	cg_free(path);
	return rc;
}

/* Which devices get files: all of them, or the max with the largest peaks. */
static bool *chosen_devices(const cg_analysis *a, uint32_t max)
{
	uint32_t n = a->tl->ndevices;
	bool *chosen = cg_calloc(n ? n : 1, sizeof *chosen);
	for (uint32_t k = 0; k < n && k < max; k++)
		chosen[n <= max ? k : a->peak->by_peak[k]] = true;
	return chosen;
}

static int device_files(cg_outdir *od, const cg_analysis *a, const cg_export_options *o, uint32_t d, const char *slug,
			const char *skipped, cg_chart_list *list, cg_error *err)
{
	const char *device = cg_timeline_str(a->tl, a->tl->devices[d].name);
	char name[CG_CHART_SLUG_MAX + 64], title[400];
	int rc = 0;
	if (o->folded) {
		snprintf(name, sizeof name, "live_at_peak.%s.folded", slug);
		snprintf(title, sizeof title, "Live memory at the peak on %s, as collapsed stacks", device);
		if (!skipped)
			rc = save(od, name, cg_folded_peak_write, a, d, err);
		cg_chart_list_add_device(list, CG_EXPORT_KIND, d, name, title, skipped);
		snprintf(name, sizeof name, "leaks.%s.folded", slug);
		snprintf(title, sizeof title, "Leak candidates on %s, as collapsed stacks", device);
		const char *why = skipped;
		if (!why && !cg_folded_leaks_available(a, d))
			why = a->leaks->devices[d].available ? "no leak candidates" : "the trace's frees could not be paired";
		if (rc == 0 && !why)
			rc = save(od, name, cg_folded_leaks_write, a, d, err);
		cg_chart_list_add_device(list, CG_EXPORT_KIND, d, name, title, why);
	}
	if (rc == 0 && o->csv) {
		snprintf(name, sizeof name, "peak.%s.csv", slug);
		snprintf(title, sizeof title, "Allocations live at the peak on %s (CSV)", device);
		if (!skipped)
			rc = save(od, name, peak_csv, a, d, err);
		cg_chart_list_add_device(list, CG_EXPORT_KIND, d, name, title, skipped);
	}
	return rc;
}

int cg_export_write(cg_outdir *od, const cg_analysis *a, const cg_export_options *o, cg_chart_list *list,
		    cg_error *err)
{
	const cg_timeline *tl = a->tl;
	if (!o->folded && !o->csv)
		return 0;
	const char **names = cg_calloc(tl->ndevices ? tl->ndevices : 1, sizeof *names);
	for (uint32_t d = 0; d < tl->ndevices; d++)
		names[d] = cg_timeline_str(tl, tl->devices[d].name);
	char **slugs = cg_chart_device_slugs(names, tl->ndevices);
	cg_free(names);
	bool *chosen = chosen_devices(a, o->max_devices);
	char too_many[160];
	snprintf(too_many, sizeof too_many, "files are written for the %" PRIu32 " devices with the largest peaks, of %"
		 PRIu32, o->max_devices, tl->ndevices);
	int rc = 0;
	for (uint32_t d = 0; d < tl->ndevices && rc == 0; d++) {
		const char *skipped = !chosen[d] ? too_many : !tl->devices[d].mem_count ? "no memory records" : NULL;
		rc = device_files(od, a, o, d, slugs[d], skipped, list, err);
	}
	if (rc == 0 && o->csv) {
		const char *title = "The steps table (CSV)";
		if (a->steps->nsteps)
			rc = save(od, "steps.csv", steps_csv, a, CG_NONE, err);
		cg_chart_list_add_device(list, CG_EXPORT_KIND, CG_NONE, "steps.csv", title,
					 a->steps->nsteps ? NULL : "the run has no repeating steps");
	}
	cg_free(chosen);
	cg_chart_slugs_free(slugs, tl->ndevices);
	return rc;
}
