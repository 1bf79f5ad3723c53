/* Compares the two ways of reading a Kineto event's fields (kineto_fields.h)
 * on one event's text: the scan must either decline or give exactly the
 * fields cJSON's tree gives, every field's type and bytes. Shared by the
 * fuzz target fuzz_kineto_fields and the test that replays its corpus
 * (tests/ingest/test_kineto_fields.c). */
#ifndef CG_KINETO_FIELDS_DIFF_H
#define CG_KINETO_FIELDS_DIFF_H

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsontext.h"
#include "kineto_fields.h"

/* Returns NULL when the two agree (or the scan declined, *accepted 0),
 * else what differs (why[] is static). */
static const char *kfd_compare(const char *text, size_t len, int *accepted)
{
	static char why[256];
	static cg_json_span *raw;
	static size_t raw_cap;
	cg_kineto_fields fast, ref;
	*accepted = cg_kineto_fields_fast(text, len, &fast);
	if (!*accepted)
		return NULL;
	cJSON *root = cJSON_ParseWithLengthOpts(text, len, NULL, 0);
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return "the scan accepted an event cJSON does not read as an object";
	}
	cg_kineto_fields_cjson(root, text, len, &raw, &raw_cap, &ref);
	const char *res = NULL;
	for (int k = 0; k < CG_KF_COUNT && !res; k++) {
		const cg_kv *a = &fast.f[k], *b = &ref.f[k];
		if (a->type != b->type)
			snprintf(why, sizeof why, "\"%s\": type %d by the scan, %d by cJSON", cg_kineto_field_names[k],
				 a->type, b->type);
		else if (a->type != CG_KV_NONE && a->type != CG_KV_OBJECT &&
			 (a->n != b->n || memcmp(a->s, b->s, a->n) != 0))
			snprintf(why, sizeof why, "\"%s\": \"%.*s\" by the scan, \"%.*s\" by cJSON",
				 cg_kineto_field_names[k], (int)(a->n < 60 ? a->n : 60), a->s,
				 (int)(b->n < 60 ? b->n : 60), b->s);
		else
			continue;
		res = why;
	}
	cJSON_Delete(root);
	return res;
}

#endif
