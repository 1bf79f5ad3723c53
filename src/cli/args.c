#include "args.h"

#include <stdarg.h>
#include <string.h>

#include "termtext.h"
#include "xalloc.h"

static int find_opt(const cg_command *cmd, const char *name, size_t len, char short_name)
{
	for (int i = 0; cmd->opts[i].name; i++) {
		const cg_opt *o = &cmd->opts[i];
		if (short_name ? o->short_name == short_name
			       : (strlen(o->name) == len && strncmp(o->name, name, len) == 0))
			return i;
	}
	return -1;
}

int cg_args_parse(const cg_command *cmd, int argc, char **argv, cg_args *args, cg_error *err)
{
	memset(args, 0, sizeof *args);
	args->operands = cg_calloc((size_t)argc + 1, sizeof *args->operands);
	bool only_operands = false;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (only_operands || a[0] != '-' || strcmp(a, "-") == 0) {
			args->operands[args->noperands++] = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			only_operands = true;
			continue;
		}
		int k;
		const char *inline_value = NULL;
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			k = find_opt(cmd, name, len, 0);
			if (k < 0)
				return cg_error_set(err, CG_EUSAGE, "unknown option --%.*s", (int)len, name);
			if (eq)
				inline_value = eq + 1;
		} else {
			k = find_opt(cmd, NULL, 0, a[1]);
			if (k < 0)
				return cg_error_set(err, CG_EUSAGE, "unknown option -%c", a[1]);
			if (a[2])
				inline_value = a + 2;
		}
		const cg_opt *o = &cmd->opts[k];
		if (!o->arg) {
			if (inline_value)
				return cg_error_set(err, CG_EUSAGE, "option --%s takes no value", o->name);
			args->value[k] = "";
			continue;
		}
		if (!inline_value) {
			if (i + 1 >= argc)
				return cg_error_set(err, CG_EUSAGE, "option --%s needs a value (%s)", o->name, o->arg);
			inline_value = argv[++i];
		}
		args->value[k] = inline_value;
	}
	return 0;
}

void cg_args_free(cg_args *args)
{
	cg_free(args->operands);
	args->operands = NULL;
}

const char *cg_args_get(const cg_command *cmd, const cg_args *args, const char *name)
{
	int k = find_opt(cmd, name, strlen(name), 0);
	return k < 0 ? NULL : args->value[k];
}

bool cg_args_flag(const cg_command *cmd, const cg_args *args, const char *name)
{
	return cg_args_get(cmd, args, name) != NULL;
}

void cg_command_help(const cg_command *cmd, FILE *out)
{
	fprintf(out, "usage: cgmem %s [options] %s\n\n%s\n\noptions:\n", cmd->name, cmd->operands, cmd->summary);
	for (int i = 0; cmd->opts[i].name; i++) {
		const cg_opt *o = &cmd->opts[i];
		char left[64];
		if (o->short_name)
			snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		else
			snprintf(left, sizeof left, "    --%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
		fprintf(out, "  %-28s %s\n", left, o->help);
	}
	if (cmd->details)
		fprintf(out, "\n%s", cmd->details);
	fprintf(out, "\nexit status: 0 success; 1 bad input or a file that cannot be read or written;\n"
		     "2 wrong usage%s.\n", strcmp(cmd->name, "check") == 0 ? "; 3 a limit was exceeded" : "");
}

int cg_usage_error(const cg_command *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "cgmem %s: ", cmd->name);
	va_start(ap, fmt);
	cg_termtext_vline(stderr, fmt, ap); /* it quotes arguments, and names from traces */
	va_end(ap);
	fprintf(stderr, "Try 'cgmem help %s'.\n", cmd->name);
	return CG_EXIT_USAGE;
}
