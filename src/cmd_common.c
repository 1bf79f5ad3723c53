#include "cmd_common.h"

#include <stdio.h>
#include <unistd.h>

#include "diag.h"
#include "units.h"

static int size_option(const cg_command *cmd, const cg_args *args, const char *name, size_t *out)
{
	const char *v = cg_args_get(cmd, args, name);
	if (!v)
		return 0;
	uint64_t n;
	if (cg_parse_size(v, &n) < 0 || n == 0 || n > SIZE_MAX / 2)
		return cg_usage_error(cmd, "--%s: '%s' is not a size (try 64MiB or 1000000)", name, v);
	*out = (size_t)n;
	return 0;
}

int cg_cmd_ingest_options(const cg_command *cmd, const cg_args *args, cg_ingest_options *o)
{
	*o = (cg_ingest_options)CG_INGEST_OPTIONS_INIT;
	o->strict = cg_args_flag(cmd, args, "strict");
	bool quiet = cg_args_flag(cmd, args, "quiet");
	o->progress = !quiet && isatty(STDERR_FILENO) ? stderr : NULL;
	int rc = size_option(cmd, args, "max-line-bytes", &o->max_line_bytes);
	if (rc)
		return rc;
	return size_option(cmd, args, "max-string-memory", &o->max_string_bytes);
}

int cg_cmd_top_option(const cg_command *cmd, const cg_args *args, unsigned *top)
{
	const char *v = cg_args_get(cmd, args, "top");
	*top = 20;
	if (!v)
		return 0;
	uint64_t n;
	/* plain digits only: "20", not "20k" */
	bool digits = *v != '\0';
	for (const char *p = v; *p; p++)
		digits &= *p >= '0' && *p <= '9';
	if (!digits || cg_parse_size(v, &n) < 0 || n == 0 || n > 100000)
		return cg_usage_error(cmd, "--top: '%s' is not a number from 1 to 100000", v);
	*top = (unsigned)n;
	return 0;
}

int cg_cmd_ingest(const cg_command *cmd, const char *path, const cg_ingest_options *o, bool quiet,
		  cg_timeline **out)
{
	cg_error err = CG_ERROR_INIT;
	if (cg_ingest(out, path, o, &err) < 0) {
		fprintf(stderr, "cgmem %s: %s\n", cmd->name, err.msg);
		return cg_error_exit_status(err.code);
	}
	if (!quiet)
		cg_diag_print(*out, stderr, 20);
	return 0;
}
