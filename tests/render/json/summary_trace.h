/* The trace the summary.json tests share, built by hand and worked out on
 * paper (test_summary_json.c and test_summary_device.c give its lines):
 *
 *   t    record                          live   span (phase)
 *        spans run [0, 1000], fwd [100, 400] (forward),
 *        bwd [400, 700] (backward), opt [700, 900] (optimizer)
 *   10   w   +1000 parameter  "empty"    1000   run
 *   110  a1  +400  activation "linear"   1400   fwd
 *   120  a2  +200  activation "relu"     1600   fwd
 *   410  g   +1000 gradient   "grad"     2600   bwd   <- the peak, record 3
 *   415  checkpoint used 3000, free 1000, reserved 4000
 *   420  a1  -400                        2200   bwd
 *   430  a2  -200                        2000   bwd
 *   440  ws  +300  temporary  "mm_ws"    2300   bwd
 *   450  ws  -300                        2000   bwd
 *   710  m   +500  optimizer_state       2500   opt
 *   720  g   -1000                       1500   opt
 *   800  x   +50   activation "leaky"    1550   opt   <- the end
 *
 * 11 memory records: 7 allocations of 1000 + 400 + 200 + 1000 + 300 + 500
 * + 50 = 3450 B, 4 frees; live at the end w, m, x = 1550 B. */
#ifndef CG_SUMMARY_TRACE_H
#define CG_SUMMARY_TRACE_H

#include "tlbuild.h"

#define SUMMARY_DEV "cuda:0"

/* Adds the spans, records and checkpoint above to tl (not finalized). */
static inline void summary_trace_add(cg_timeline *tl)
{
	const char *dev = SUMMARY_DEV;
	tu_span(tl, "r", NULL, "run", 0, 1000, CG_PHASE_NONE);
	tu_span(tl, "f", "r", "fwd", 100, 400, CG_PHASE_FORWARD);
	tu_span(tl, "b", "r", "bwd", 400, 700, CG_PHASE_BACKWARD);
	tu_span(tl, "o", "r", "opt", 700, 900, CG_PHASE_OPTIMIZER);
	tu_mem_shaped(tl, 10, "w", "r", dev, 1000, CG_ALLOC, CG_CAT_PARAMETER, "empty", (const uint64_t[]){250}, 1);
	tu_mem(tl, 110, "a1", "f", dev, 400, CG_ALLOC, CG_CAT_ACTIVATION, "linear");
	tu_mem(tl, 120, "a2", "f", dev, 200, CG_ALLOC, CG_CAT_ACTIVATION, "relu");
	tu_mem_shaped(tl, 410, "g", "b", dev, 1000, CG_ALLOC, CG_CAT_GRADIENT, "grad", (const uint64_t[]){25, 10}, 2);
	tu_devmem(tl, 415, dev, 3000, 1000, 4000);
	tu_mem(tl, 420, "a1", "b", dev, 400, CG_FREE, CG_CAT_ACTIVATION, "linear");
	tu_mem(tl, 430, "a2", "b", dev, 200, CG_FREE, CG_CAT_ACTIVATION, "relu");
	tu_mem(tl, 440, "ws", "b", dev, 300, CG_ALLOC, CG_CAT_TEMPORARY, "mm_ws");
	tu_mem(tl, 450, "ws", "b", dev, 300, CG_FREE, CG_CAT_TEMPORARY, "mm_ws");
	tu_mem(tl, 710, "m", "o", dev, 500, CG_ALLOC, CG_CAT_OPTIMIZER_STATE, "zeros");
	tu_mem(tl, 720, "g", "o", dev, 1000, CG_FREE, CG_CAT_GRADIENT, "grad");
	tu_mem(tl, 800, "x", "o", dev, 50, CG_ALLOC, CG_CAT_ACTIVATION, "leaky");
}

#endif
