/* Compares the two JSONL paths on one line: the fast scanner must either
 * decline or give exactly the fields cJSON gives. Shared by the fuzz target
 * and its standalone replay in the test suite. */
#ifndef CG_JSONL_DIFF_H
#define CG_JSONL_DIFF_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonl.h"

static int jd_value_differs(const cg_jval *a, const cg_jval *b)
{
	if (a->type != b->type || a->n != b->n || a->first != b->first || a->count != b->count ||
	    a->boolean != b->boolean)
		return 1;
	if (a->type == CG_JT_STRING && (a->s[a->n] != '\0' || b->s[b->n] != '\0'))
		return 1; /* strings are NUL-terminated */
	return a->n && memcmp(a->s, b->s, a->n) != 0;
}

/* Returns NULL when the paths agree, else what differs (why[] is static). */
static const char *jd_compare(cg_jsonl_parser *fast, cg_jsonl_parser *ref, const char *line,
			      size_t len, int *fast_accepted)
{
	static char why[256];
	const cg_fields *ff, *rf;
	char msg[200];
	*fast_accepted = cg_jsonl_parse_fast(fast, line, len, &ff);
	int rc = cg_jsonl_parse_cjson(ref, line, len, &rf, msg, sizeof msg);
	if (!*fast_accepted)
		return NULL;
	if (rc != 0) {
		snprintf(why, sizeof why, "fast path accepted a line cJSON rejects (%s)", msg);
		return why;
	}
	if (rf->is_meta || ff->is_meta)
		return "fast path accepted a meta line";
	for (int k = 0; k < CG_F_COUNT; k++) {
		if (jd_value_differs(&ff->v[k], &rf->v[k])) {
			snprintf(why, sizeof why, "field \"%s\" differs", cg_field_name((cg_field_key)k));
			return why;
		}
	}
	if (ff->nelems != rf->nelems)
		return "number of array elements differs";
	for (size_t i = 0; i < ff->nelems; i++) {
		if (jd_value_differs(&ff->elems[i], &rf->elems[i])) {
			snprintf(why, sizeof why, "array element %zu differs", i);
			return why;
		}
	}
	return NULL;
}

#endif
