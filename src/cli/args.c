#include "args.h"

#include <stdarg.h>
#include <string.h>

#include "termtext.h"
#include "xalloc.h"

/* -h and --help are every command's, beside its table: they take part in
 * clusters (-qh) and prefixes (--he) like the options of the table. */
static const cg_opt help_opt = {"help", 'h', NULL, "show this help"};

static int count_opts(const cg_opt *opts)
{
	int n = 0;
	while (opts[n].name)
		n++;
	return n;
}

/* Option k of opts, the help option when k is the table's length. */
static const cg_opt *opt_at(const cg_opt *opts, int n, bool with_help, int k)
{
	return with_help && k == n ? &help_opt : &opts[k];
}

/* Edits from a[0..n) to b, counting a swap of neighbours as one edit
 * (optimal string alignment, as typos go); words longer than
 * CG_SUGGEST_MAX count as too far. */
#define CG_SUGGEST_MAX 64
static size_t edit_distance(const char *a, size_t n, const char *b)
{
	size_t m = strlen(b);
	if (n > CG_SUGGEST_MAX || m > CG_SUGGEST_MAX)
		return SIZE_MAX;
	size_t d[CG_SUGGEST_MAX + 1][CG_SUGGEST_MAX + 1];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best)
				best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best)
				best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

void cg_args_suggest(char *buf, size_t size, const char *word, size_t len, const char *const *names, size_t n,
		     const char *prefix)
{
	size_t best = CG_SUGGEST_EDITS + 1;
	for (size_t i = 0; i < n; i++) {
		size_t d = edit_distance(word, len, names[i]);
		if (d < best)
			best = d;
	}
	if (size)
		buf[0] = '\0';
	if (best > CG_SUGGEST_EDITS || size == 0)
		return;
	size_t used = (size_t)snprintf(buf, size, "; did you mean");
	const char *sep = " ";
	for (size_t i = 0; i < n && used < size; i++)
		if (edit_distance(word, len, names[i]) == best) {
			used += (size_t)snprintf(buf + used, size - used, "%s'%s%s'", sep, prefix, names[i]);
			sep = " or ";
		}
	if (used < size)
		snprintf(buf + used, size - used, "?");
}

/* The option named name[0..len) or the only one whose name it begins. */
static int find_long(const cg_opt *opts, bool with_help, const char *name, size_t len, cg_error *err)
{
	int n = count_opts(opts), total = n + with_help, found = -1, matches = 0;
	for (int k = 0; k < total && len > 0; k++) {
		const char *o = opt_at(opts, n, with_help, k)->name;
		if (strncmp(o, name, len) != 0)
			continue;
		if (o[len] == '\0')
			return k;
		found = k;
		matches++;
	}
	if (matches == 1)
		return found;
	if (matches > 1) {
		char list[512];
		size_t used = 0;
		for (int k = 0; k < total && used < sizeof list; k++) {
			const char *o = opt_at(opts, n, with_help, k)->name;
			if (strncmp(o, name, len) == 0)
				used += (size_t)snprintf(list + used, sizeof list - used, "%s--%s", used ? ", " : "", o);
		}
		return cg_error_set(err, CG_EUSAGE, "option --%.*s is ambiguous (%s)", (int)len, name, list);
	}
	const char *names[CG_MAX_OPTS + 1];
	size_t nnames = 0;
	for (int k = 0; k < total && nnames < CG_MAX_OPTS + 1; k++)
		names[nnames++] = opt_at(opts, n, with_help, k)->name;
	char hint[256];
	cg_args_suggest(hint, sizeof hint, name, len, names, nnames, "--");
	return cg_error_set(err, CG_EUSAGE, "unknown option --%.*s%s", (int)len, name, hint);
}

static int find_short(const cg_opt *opts, bool with_help, char c)
{
	int n = count_opts(opts);
	for (int k = 0; k < n + with_help; k++)
		if (opt_at(opts, n, with_help, k)->short_name == c)
			return k;
	return -1;
}

int cg_opt_lookup(const cg_opt *opts, const char *name, size_t len, cg_error *err)
{
	return find_long(opts, false, name, len, err);
}

/* Stores option k's value: "" for a flag, else the inline value or the
 * next word (*i moves past it). */
static int take(const cg_command *cmd, int k, const char *inline_value, int argc, char **argv, int *i,
		cg_args *args, cg_error *err)
{
	int n = count_opts(cmd->opts);
	const cg_opt *o = opt_at(cmd->opts, n, true, k);
	if (!o->arg) {
		if (inline_value)
			return cg_error_set(err, CG_EUSAGE, "option --%s takes no value", o->name);
		if (k == n)
			args->help = true;
		else
			args->value[k] = "";
		return 0;
	}
	if (!inline_value) {
		if (*i + 1 >= argc)
			return cg_error_set(err, CG_EUSAGE, "option --%s needs a value (%s)", o->name, o->arg);
		inline_value = argv[++*i];
	}
	args->value[k] = inline_value;
	return 0;
}

int cg_args_parse(const cg_command *cmd, int argc, char **argv, cg_args *args, cg_error *err)
{
	memset(args, 0, sizeof *args);
	args->operands = cg_calloc((size_t)argc + 1, sizeof *args->operands);
	/* value[] holds one slot per option of the table */
	if (count_opts(cmd->opts) > CG_MAX_OPTS)
		return cg_error_set(err, CG_EUSAGE, "cgmem %s has more than %d options", cmd->name, CG_MAX_OPTS);
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
		int rc;
		if (a[1] == '-') {
			/* --name, --name=value, or an unambiguous prefix of the name */
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			int k = find_long(cmd->opts, true, name, len, err);
			if (k < 0)
				return k;
			rc = take(cmd, k, eq ? eq + 1 : NULL, argc, argv, &i, args, err);
		} else {
			/* -abc is -a -b -c; the first that takes a value takes the
			 * rest of the word ("-n7"), or the next word when none is left */
			rc = 0;
			for (const char *c = a + 1; *c && rc == 0; c++) {
				int k = find_short(cmd->opts, true, *c);
				if (k < 0)
					return cg_error_set(err, CG_EUSAGE, "unknown option -%c", *c);
				const cg_opt *o = opt_at(cmd->opts, count_opts(cmd->opts), true, k);
				if (o->arg) {
					rc = take(cmd, k, c[1] ? c + 1 : NULL, argc, argv, &i, args, err);
					break;
				}
				rc = take(cmd, k, NULL, argc, argv, &i, args, err);
			}
		}
		if (rc < 0)
			return rc;
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
	/* exact names only: a prefix is the user's shorthand, not the code's */
	for (int k = 0; cmd->opts[k].name; k++)
		if (strcmp(cmd->opts[k].name, name) == 0)
			return args->value[k];
	return NULL;
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
