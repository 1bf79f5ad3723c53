#include "compare.h"

#include "xalloc.h"

int cg_diff_view_new(cg_diff_view **out, const cg_analysis *base, const cg_analysis *new_run, cg_align_mode mode,
		     unsigned top, cg_error *err)
{
	*out = NULL;
	cg_diff_result *d = NULL;
	int rc = cg_diff_run(&d, base, new_run, err);
	if (rc < 0)
		return rc;
	cg_alignment *al = NULL;
	cg_align_run(&al, base, new_run, mode);
	cg_diff_view *v = cg_malloc(sizeof *v);
	*v = (cg_diff_view){{base, new_run}, d, al, top};
	*out = v;
	return 0;
}

void cg_diff_view_free(cg_diff_view *v)
{
	if (!v)
		return;
	cg_diff_free(v->diff);
	cg_align_free(v->align);
	cg_free(v);
}
