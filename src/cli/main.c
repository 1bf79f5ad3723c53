/* cgmem: the table of commands, the top-level help and the dispatch to a
 * command (each in its own cmd_*.c, options parsed by args.c). */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "args.h"
#include "charts.h"
#include "commands.h"
#include "outdir.h"
#include "termtext.h"

static const cg_command *const commands[] = {
	&cg_cmd_report,
	&cg_cmd_summary,
	&cg_cmd_diff,
	&cg_cmd_check,
	&cg_cmd_merge,
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void main_help(FILE *out)
{
	fprintf(out, "usage: cgmem COMMAND [options] ...\n\n"
		     "cgmem analyses the memory of a deep-learning run from its trace and says what\n"
		     "filled memory at the peak. It reads candle-graph/trace/6 JSONL, PyTorch profiler\n"
		     "traces (profile_memory=True), export_memory_timeline files and CUDA allocator\n"
		     "snapshots (_dump_snapshot pickles, never run), plain or gzip.\n\n"
		     "commands:\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(out, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(out, "  %-10s %s\n", "help", "show the options of a command: cgmem help report");
	fprintf(out, "\noptions:\n  -h, --help     show this help\n  -V, --version  show the version\n"
		     "\nexample:\n  cgmem report run.jsonl -o out/\n"
		     "\nexit status: 0 success; 1 bad input or a file (standard output too) that cannot\n"
		     "be read or written; 2 wrong usage; 3 cgmem check found a limit exceeded.\n");
}

/* The options before a command. */
static const cg_opt top_opts[] = {
	{"help", 'h', NULL, "show this help"},
	{"version", 'V', NULL, "show the version"},
	CG_OPT_END,
};

static const cg_command *find_command(const char *name)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i]->name, name) == 0)
			return commands[i];
	return NULL;
}

/* "; did you mean 'report'?" for a mistyped command, or "". */
static void suggest_command(char *buf, size_t size, const char *name)
{
	const char *names[NCOMMANDS + 1];
	for (size_t i = 0; i < NCOMMANDS; i++)
		names[i] = commands[i]->name;
	names[NCOMMANDS] = "help";
	cg_args_suggest(buf, size, name, strlen(name), names, NCOMMANDS + 1, "");
}

/* cgmem -h, --help, -V, --version, or a prefix: --vers. Returns the exit
 * status. */
static int top_option(const char *a)
{
	int k = -1;
	cg_error err = CG_ERROR_INIT;
	if (a[1] == '-') {
		const char *eq = strchr(a + 2, '=');
		size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
		k = cg_opt_lookup(top_opts, a + 2, len, &err);
		if (k >= 0 && eq)
			k = cg_error_set(&err, CG_EUSAGE, "option --%s takes no value", top_opts[k].name);
	} else {
		for (int i = 0; top_opts[i].name && k < 0; i++)
			if (a[1] == top_opts[i].short_name && a[2] == '\0')
				k = i;
		if (k < 0)
			k = cg_error_set(&err, CG_EUSAGE, "unknown option %s", a);
	}
	if (k < 0) {
		cg_termtext_line(stderr, "cgmem: %s", err.msg);
		fprintf(stderr, "Try 'cgmem --help'.\n");
		return CG_EXIT_USAGE;
	}
	if (strcmp(top_opts[k].name, "help") == 0) {
		main_help(stdout);
		return CG_EXIT_OK;
	}
	printf("cgmem %s\n", CGMEM_VERSION);
	return CG_EXIT_OK;
}

static int run_command(const cg_command *cmd, int argc, char **argv)
{
	for (int i = 0; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			cg_command_help(cmd, stdout);
			return CG_EXIT_OK;
		}
	}
	cg_args args;
	cg_error err = CG_ERROR_INIT;
	if (cg_args_parse(cmd, argc, argv, &args, &err) < 0) {
		cg_args_free(&args);
		return cg_usage_error(cmd, "%s", err.msg);
	}
	if (args.help) { /* in a cluster or as a prefix: -qh, --he */
		cg_args_free(&args);
		cg_command_help(cmd, stdout);
		return CG_EXIT_OK;
	}
	int status = cmd->run(cmd, &args);
	cg_args_free(&args);
	return status;
}

static int run(int argc, char **argv)
{
	if (argc < 2) {
		main_help(stderr);
		return CG_EXIT_USAGE;
	}
	const char *first = argv[1];
	if (first[0] == '-' && first[1] != '\0')
		return top_option(first);
	char hint[128];
	if (strcmp(first, "help") == 0) {
		if (argc < 3) {
			main_help(stdout);
			return CG_EXIT_OK;
		}
		const cg_command *cmd = find_command(argv[2]);
		if (!cmd) {
			suggest_command(hint, sizeof hint, argv[2]);
			cg_termtext_line(stderr, "cgmem: no command named '%s'%s", argv[2],
					 *hint ? hint : "; see 'cgmem --help'");
			return CG_EXIT_USAGE;
		}
		cg_command_help(cmd, stdout);
		return CG_EXIT_OK;
	}
	const cg_command *cmd = find_command(first);
	if (!cmd) {
		suggest_command(hint, sizeof hint, first);
		cg_termtext_line(stderr, "cgmem: '%s' is not a command%s", first, *hint ? hint : "; see 'cgmem --help'");
		return CG_EXIT_USAGE;
	}
	return run_command(cmd, argc - 2, argv + 2);
}

/* glibc raises its mmap threshold to the size of each mapped block freed,
 * so after the first the megabyte-sized buffers of parsing and rendering
 * (blocks, chart surfaces, page text) come from the heaps of whichever
 * threads made them and stay there when freed: the peak of a report grew by
 * 25-30 MB of such freed memory at 10 M lines. A fixed threshold keeps
 * them mapped, handed back on free (docs/performance.md). */
static void keep_big_blocks_mapped(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
#endif
}

int main(int argc, char **argv)
{
	keep_big_blocks_mapped();
	/* A report's temporary folder goes with the process, whatever ends it. */
	cg_outdir_catch_signals();
	int status = run(argc, argv);
	cg_charts_shutdown();
	return status;
}
