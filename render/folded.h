/* Collapsed ("folded") stacks of memory, the text format flamegraph.pl,
 * inferno, speedscope and Perfetto read: one line per distinct stack,
 * frames root first joined by ';', a space, then the bytes.
 *
 *     cg_sink *s = cg_sink_memory();
 *     cg_folded_peak_write(s, a, 0);        // what was live at device 0's peak
 *     if (cg_folded_leaks_available(a, 0))
 *         cg_folded_leaks_write(s, a, 0);   // the leak candidates at its end
 *
 * The frames of an allocation (docs/exports.md): its span path, root first
 * ("(no span)" outside every span), then its op when recorded and not the
 * name of its innermost span, then "[category]" when the format records
 * categories. Memory from before the trace and before profiling has a
 * frame of its own. Lines are sorted by their stack text (bytes), so the
 * output depends on the trace only. */
#ifndef CG_FOLDED_H
#define CG_FOLDED_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"
#include "sink.h"

/* The live set at device d's peak; the bytes of the lines add up to the
 * device's peak bytes. Writes nothing for a device without memory. */
void cg_folded_peak_write(cg_sink *out, const cg_analysis *a, uint32_t d);

/* Does device d have leak candidates (frees paired, at least one)? */
bool cg_folded_leaks_available(const cg_analysis *a, uint32_t d);
/* The leak candidates of device d at its end, step spans written as the
 * steps' label ("train_step#*") as in the leaks table; the bytes add up to
 * the leak analysis's candidate bytes. */
void cg_folded_leaks_write(cg_sink *out, const cg_analysis *a, uint32_t d);

#endif
