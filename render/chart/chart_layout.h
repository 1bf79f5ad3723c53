/* The part of the charts' layout that needs no cairo: the canvas size
 * (so the report's chart options, charts.h, can be set without cairo) and
 * the order categories stack in, which the report's tables follow too. */
#ifndef CG_CHART_LAYOUT_H
#define CG_CHART_LAYOUT_H

#include "enums.h"

typedef struct cg_chart_size {
	int width, height; /* logical pixels */
	double scale;	   /* PNG pixels per logical pixel */
} cg_chart_size;

#define CG_CHART_SIZE_INIT {1600, 900, 1.0}
/* Smallest canvas the layout fits in. */
#define CG_CHART_MIN_WIDTH 800
#define CG_CHART_MIN_HEIGHT 450

/* Categories from the bottom of a stack to its top. */
extern const cg_category cg_chart_stack_order[CG_CAT_COUNT];

#endif
