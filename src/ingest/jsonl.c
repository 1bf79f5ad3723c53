#include "jsonl.h"

#include <pthread.h>
#include <string.h>

#include "jsonl_parser.h"
#include "xalloc.h"

static pthread_once_t hooks_once = PTHREAD_ONCE_INIT;

cg_jsonl_parser *cg_jsonl_parser_new(void)
{
	pthread_once(&hooks_once, cg_jsonl_init);
	return cg_calloc(1, sizeof(cg_jsonl_parser));
}

void cg_jsonl_parser_free(cg_jsonl_parser *p)
{
	if (!p)
		return;
	cg_jsonl_arena_free(p);
	cg_free(p->fields.elems);
	cg_free(p->fields.members);
	cg_free(p->members);
	cg_free(p->elems);
	cg_free(p->scratch);
	cg_free(p->line_copy);
	cg_free(p);
}

void cg_jsonl_parser_set_cjson_only(cg_jsonl_parser *p, bool cjson_only)
{
	p->cjson_only = cjson_only;
}

void cg_jsonl_parser_counts(const cg_jsonl_parser *p, uint64_t *fast, uint64_t *cjson)
{
	*fast = p->fast_lines;
	*cjson = p->cjson_lines;
}

int cg_jsonl_parse(cg_jsonl_parser *p, const char *line, size_t len, const cg_fields **out,
		   char *msg, size_t msgsize)
{
	if (!p->cjson_only && cg_jsonl_parse_fast(p, line, len, out)) {
		p->fast_lines++;
		return 0;
	}
	p->cjson_lines++;
	/* cJSON reads up to a NUL, which the line's buffer may not have room
	 * for; the copy also keeps the members' raw text while *out is used. */
	CG_GROW(p->line_copy, p->line_copy_cap, len + 1);
	memcpy(p->line_copy, line, len);
	p->line_copy[len] = '\0';
	return cg_jsonl_parse_cjson(p, p->line_copy, len, out, msg, msgsize);
}
