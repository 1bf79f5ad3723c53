#include "error.h"

#include <stdarg.h>
#include <stdio.h>

#include "utf8.h"

int cg_error_set(cg_error *err, int code, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		cg_utf8_vformat(err->msg, sizeof err->msg, fmt, ap); /* cut at a character */
		va_end(ap);
		err->code = code;
	}
	return code;
}

int cg_error_exit_status(int code)
{
	if (code == CG_OK)
		return 0;
	return code == CG_EUSAGE ? 2 : 1;
}
