/* Reading a JSON document back by path, for the tests of the JSON
 * writers: AT(doc, "devices", "0", "peak") and typed forms that assert the
 * type they read. */
#ifndef CG_JSONPATH_H
#define CG_JSONPATH_H

#include "testutil.h"

static inline const char *json_str(const cJSON *j)
{
	if (!cJSON_IsString(j))
		fail_msg("not a string");
	return j->valuestring;
}

static inline double json_double(const cJSON *j)
{
	if (!cJSON_IsNumber(j))
		fail_msg("not a number");
	return j->valuedouble;
}

#define AT(j, ...) tu_json_at(j, __VA_ARGS__, NULL)
#define U64(j, ...) tu_json_u64(j, __VA_ARGS__, NULL)
#define DBL(j, ...) json_double(AT(j, __VA_ARGS__))
#define STR(j, ...) json_str(AT(j, __VA_ARGS__))
#define IS_NULL(j, ...) assert_true(cJSON_IsNull(AT(j, __VA_ARGS__)))
#define IS_TRUE(j, ...) assert_true(cJSON_IsTrue(AT(j, __VA_ARGS__)))
#define IS_FALSE(j, ...) assert_true(cJSON_IsFalse(AT(j, __VA_ARGS__)))
#define LEN(j, ...) cJSON_GetArraySize(AT(j, __VA_ARGS__))

#endif
