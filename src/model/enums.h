/* The trace's enumerations, their canonical names and the tolerant parsing
 * of spellings from other writers ("allocate", "OPTIMIZER_STATE", "torch.float16"). */
#ifndef CG_ENUMS_H
#define CG_ENUMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgmem.h"

typedef enum cg_kind {
	CG_KIND_META,
	CG_KIND_SPAN_START,
	CG_KIND_SPAN_END,
	CG_KIND_OP,
	CG_KIND_TENSOR,
	CG_KIND_MEMORY,
	CG_KIND_DEVICE_MEMORY,
	CG_KIND_GRADIENT,
	CG_KIND_EDGE,
	CG_KIND_COUNT
} cg_kind;

typedef enum cg_action { CG_ALLOC, CG_FREE } cg_action;

/* Memory categories (cg_category, cgmem.h) are in the trace's order.
 * CG_CAT_BASELINE is not written by trace producers: it holds memory
 * allocated before profiling started, which readers of PyTorch profiler
 * traces infer from the allocator's totals. */

typedef enum cg_phase {
	CG_PHASE_NONE,
	CG_PHASE_FORWARD,
	CG_PHASE_BACKWARD,
	CG_PHASE_OPTIMIZER,
	CG_PHASE_COUNT
} cg_phase;

typedef enum cg_span_kind { CG_SPAN_FUNCTION, CG_SPAN_OP, CG_SPAN_MODULE, CG_SPAN_KIND_COUNT } cg_span_kind;

typedef enum cg_grad_state {
	CG_GRAD_PRESENT,
	CG_GRAD_MISSING,
	CG_GRAD_ZERO,
	CG_GRAD_NON_FINITE,
	CG_GRAD_STATE_COUNT
} cg_grad_state;

const char *cg_kind_name(cg_kind k);
const char *cg_phase_name(cg_phase p);
const char *cg_span_kind_name(cg_span_kind k);
const char *cg_grad_state_name(cg_grad_state s);
const char *cg_action_name(cg_action a);

/* Each parser accepts the canonical snake_case name in any case, with '-',
 * ' ' or no separator, plus a few synonyms. Returns false when unknown. */
bool cg_kind_parse(const char *s, size_t n, cg_kind *out);
bool cg_action_parse(const char *s, size_t n, cg_action *out);
bool cg_category_parse(const char *s, size_t n, cg_category *out);
bool cg_phase_parse(const char *s, size_t n, cg_phase *out);
bool cg_span_kind_parse(const char *s, size_t n, cg_span_kind *out);
bool cg_grad_state_parse(const char *s, size_t n, cg_grad_state *out);

/* Canonicalises a dtype spelling into buf ("torch.float32" -> "f32"); returns
 * its length. Unknown spellings are kept, lower-cased. */
size_t cg_dtype_canonical(const char *s, size_t n, char *buf, size_t bufsize);
/* Bytes per element of a canonical dtype name, or 0 when not known. */
unsigned cg_dtype_size(const char *canonical);

#endif
