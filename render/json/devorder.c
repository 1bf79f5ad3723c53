#include "devorder.h"

#include <strings.h>

#include "xalloc.h"

bool cg_device_is_cpu(const cg_timeline *tl, uint32_t d)
{
	return strncasecmp(cg_timeline_str(tl, tl->devices[d].name), "cpu", 3) == 0;
}

void cg_device_order_sort(const cg_timeline *tl, uint32_t *sel, uint32_t n)
{
	/* a stable partition: n is at most the report's few dozen devices or
	 * one pass over all of them, and a CPU is rarely more than one */
	uint32_t *tmp = cg_malloc((n ? n : 1) * sizeof *tmp);
	uint32_t k = 0;
	for (int cpu = 0; cpu < 2; cpu++)
		for (uint32_t i = 0; i < n; i++)
			if (cg_device_is_cpu(tl, sel[i]) == (bool)cpu)
				tmp[k++] = sel[i];
	for (uint32_t i = 0; i < n; i++)
		sel[i] = tmp[i];
	cg_free(tmp);
}

uint32_t *cg_device_order(const cg_timeline *tl)
{
	uint32_t *o = cg_malloc((tl->ndevices ? tl->ndevices : 1) * sizeof *o);
	for (uint32_t i = 0; i < tl->ndevices; i++)
		o[i] = i;
	cg_device_order_sort(tl, o, tl->ndevices);
	return o;
}
