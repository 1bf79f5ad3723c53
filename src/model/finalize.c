#include "finalize.h"

#include "pairing.h"
#include "spantree.h"

int cg_timeline_finalize(cg_timeline *tl, cg_error *err)
{
	return cg_timeline_finalize_threads(tl, 0, err);
}

int cg_timeline_finalize_threads(cg_timeline *tl, unsigned threads, cg_error *err)
{
	if (tl->finalized)
		return 0;
	if (tl->first_t_ns == UINT64_MAX)
		tl->first_t_ns = 0;
	cg_spantree_resolve(tl, threads);
	int rc = cg_pairing_run(tl, threads, err);
	if (rc < 0)
		return rc;
	tl->finalized = true;
	return 0;
}

int cg_timeline_set_baseline(cg_timeline *tl, uint16_t device, uint64_t bytes, cg_error *err)
{
	if (device >= tl->ndevices)
		return cg_error_set(err, CG_EINPUT, "no device %u", device);
	return cg_pairing_set_baseline(tl, device, bytes, err);
}
