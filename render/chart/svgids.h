/* cairo numbers the SVG surfaces and images it writes ("surface2009") from counters
 * of the process, so one chart's bytes would depend on what was drawn
 * before it (a job's rank reports, cgmem report beside cgmem merge). */
#ifndef CG_SVGIDS_H
#define CG_SVGIDS_H

#include <stddef.h>

#include "sink.h"

/* Writes the SVG text svg[0..n) to out with each surface id (in
 * id="surfaceN" and "#surfaceN") and each image id ("imageN")
 * renumbered 1, 2, ... in order of first appearance: the bytes of the
 * chart as if drawn alone. */
void cg_svg_write_renumbered(cg_sink *out, const char *svg, size_t n);

#endif
