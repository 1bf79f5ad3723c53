#include "analysis.h"

#include "xalloc.h"

int cg_analysis_run(cg_analysis **out, const cg_timeline *tl, const cg_analysis_options *o,
		    cg_error *err)
{
	cg_analysis_options defaults = CG_ANALYSIS_OPTIONS_INIT;
	*out = NULL;
	cg_analysis *a = cg_calloc(1, sizeof *a);
	a->tl = tl;
	a->options = o ? *o : defaults;
	int rc = cg_peak_run(&a->peak, tl, err);
	if (rc < 0) {
		cg_analysis_free(a);
		return rc;
	}
	*out = a;
	return 0;
}

void cg_analysis_free(cg_analysis *a)
{
	if (!a)
		return;
	cg_peak_free(a->peak);
	cg_free(a);
}
