/* The order in which reports show devices: accelerators first, in the
 * trace's order, then the CPUs. A PyTorch trace meets "cpu" first, yet its
 * story is nearly always the GPU's; summary.json keeps the trace's order
 * in "devices" (indexes stay stable) and gives this one as "device_order". */
#ifndef CG_DEVORDER_H
#define CG_DEVORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "timeline.h"

/* Whether device d is a CPU: its name starts with "cpu", in any case. */
bool cg_device_is_cpu(const cg_timeline *tl, uint32_t d);

/* Stably reorders sel[0..n) (device indexes) accelerators first. */
void cg_device_order_sort(const cg_timeline *tl, uint32_t *sel, uint32_t n);

/* Every device of tl in report order, into a new array of tl->ndevices
 * (at least one element); caller frees. */
uint32_t *cg_device_order(const cg_timeline *tl);

#endif
