#include "frames.h"

#include <string.h>

bool cg_stack_is_frames(const cg_timeline *tl)
{
	const char *f = tl->source.format;
	return tl->snapshot != NULL || (f && strstr(f, "(PyTorch profiler)") != NULL);
}

static bool has_prefix(const char *s, const char *p)
{
	return strncmp(s, p, strlen(p)) == 0;
}

bool cg_stack_boring(const char *s)
{
	if (has_prefix(s, "multiprocessing/") || strstr(s, "/multiprocessing/"))
		return true;
	if (has_prefix(s, "<string>("))
		return true;
	if (has_prefix(s, "nn/modules/module.py(") || strstr(s, "/nn/modules/module.py("))
		return true;
	return has_prefix(s, "<built-in method ") && strstr(s, " at 0x") != NULL;
}

uint32_t cg_stack_module(const cg_timeline *tl, uint32_t span)
{
	uint32_t s = span;
	for (int hops = 0; s != CG_NONE && s < tl->nspans && hops < 256; hops++, s = tl->spans[s].parent)
		if (tl->spans[s].kind == CG_SPAN_MODULE)
			return s;
	return CG_NONE;
}
