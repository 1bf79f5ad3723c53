/* cgmem merge: partial results of a job's ranks (each rank's summary.json,
 * or earlier merges) into the top report, or with --json into one partial
 * again, so that merges form a tree (docs/ranks.md). */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd_common.h"
#include "cmd_ranks.h"
#include "commands.h"
#include "copytree.h"
#include "partial.h"
#include "ranks.h"
#include "ranks_json.h"
#include "termtext.h"
#include "xalloc.h"

static const cg_opt merge_opts[] = {
	{"output", 'o', "DIR", "write the top report into DIR"},
	{"json", 0, NULL, "print the merged partial (a ranks document) to standard output instead"},
	{"force", 'f', NULL, "replace DIR even when it holds files cgmem did not write"},
	{"no-html", 0, NULL, "do not write report.html"},
	CG_RANK_FROM_OPT,
	{"quiet", 'q', NULL, "no summary lines; errors only"},
	CG_OPT_END,
};

/* A PART that is a folder is a report cgmem wrote: a rank's (cgmem report
 * FILE -o DIR, a map step that keeps each rank's full report), whose
 * summary.json is the partial and which goes into DIR/ranks/N/ as cgmem
 * report FILE... puts it there; or a job's top report, whose ranks/ come
 * along. Then -o DIR is the very folder cgmem report FILE... writes. */
typedef struct {
	const char *dir;
	int64_t rank; /* of a rank's report; -1 for a top report */
} folder_part;

static bool is_folder(const char *path)
{
	struct stat st;
	return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static int load_all(const cg_command *cmd, const cg_args *args, const regex_t *re, cg_rankset *set,
		    folder_part *folders, size_t *nfolders)
{
	cg_error err = CG_ERROR_INIT;
	for (int i = 0; i < args->noperands; i++) {
		cg_rankset part = {0};
		const char *path = args->operands[i];
		bool folder = is_folder(path);
		char *summary = folder ? cg_asprintf("%s/summary.json", path) : NULL;
		int rc = cg_partial_load(&part, folder ? summary : path, re, &err);
		cg_free(summary);
		if (rc == 0 && folder) {
			struct stat st;
			char *ranks = cg_asprintf("%s/ranks", path);
			bool has_ranks = stat(ranks, &st) == 0 && S_ISDIR(st.st_mode);
			cg_free(ranks);
			if (part.n == 1 && !has_ranks)
				folders[(*nfolders)++] = (folder_part){path, part.ranks[0].rank};
			else if (has_ranks)
				folders[(*nfolders)++] = (folder_part){path, -1};
		}
		if (rc == 0)
			rc = cg_rankset_merge(set, &part, &err);
		cg_rankset_clear(&part);
		if (rc < 0) {
			cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
			return cg_error_exit_status(rc);
		}
	}
	return 0;
}

/* A top report's ranks/N/ folders into ranks/ (a rank already there is a
 * conflict cg_rankset_merge has refused before). */
static int copy_top_ranks(const char *from, const char *ranks, cg_error *err)
{
	DIR *d = opendir(from);
	if (!d)
		return cg_error_set(err, CG_EIO, "%s: cannot open: %s", from, strerror(errno));
	int rc = 0;
	for (struct dirent *e; rc == 0 && (e = readdir(d)) != NULL;) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *src = cg_asprintf("%s/%s", from, e->d_name);
		char *dst = cg_asprintf("%s/%s", ranks, e->d_name);
		rc = cg_copy_tree(src, dst, err);
		cg_free(src);
		cg_free(dst);
	}
	closedir(d);
	return rc;
}

/* The folders' rank reports into ranks/ of the output (named first in its
 * manifest, as cgmem report does). */
static int copy_rank_reports(cg_outdir *od, const folder_part *folders, size_t n, cg_error *err)
{
	if (n == 0)
		return 0;
	char *ranks = NULL;
	int rc = cg_outdir_file(od, "ranks", &ranks, err);
	if (rc == 0 && mkdir(ranks, 0777) != 0)
		rc = cg_error_set(err, CG_EIO, "%s: cannot create: %s", ranks, strerror(errno));
	for (size_t i = 0; rc == 0 && i < n; i++) {
		char *from = folders[i].rank >= 0 ? cg_strdup(folders[i].dir) : cg_asprintf("%s/ranks", folders[i].dir);
		if (folders[i].rank >= 0) {
			char *to = cg_asprintf("%s/%" PRId64, ranks, folders[i].rank);
			rc = cg_copy_tree(from, to, err);
			cg_free(to);
		} else {
			rc = copy_top_ranks(from, ranks, err);
		}
		cg_free(from);
	}
	cg_free(ranks);
	return rc;
}

static int write_dir(const cg_command *cmd, const cg_args *args, const char *dir, cg_rankset *set,
		     const folder_part *folders, size_t nfolders)
{
	cg_error err = CG_ERROR_INIT;
	cg_outdir *od = NULL;
	int rc = cg_outdir_begin(&od, dir, cg_args_flag(cmd, args, "force"), &err);
	if (rc == 0)
		rc = copy_rank_reports(od, folders, nfolders, &err);
	if (rc == 0)
		rc = cg_cmd_ranks_write_top(od, set, !cg_args_flag(cmd, args, "no-html"), &err);
	if (rc == 0)
		rc = cg_outdir_commit(od, &err);
	else
		cg_outdir_abort(od);
	if (rc < 0) {
		cg_termtext_line(stderr, "cgmem %s: %s", cmd->name, err.msg);
		return cg_error_exit_status(rc);
	}
	if (cg_args_flag(cmd, args, "quiet"))
		return 0;
	cg_cmd_ranks_print(set);
	size_t n = strlen(dir);
	while (n > 1 && dir[n - 1] == '/')
		n--;
	cg_termtext_line(stdout, "top report of %zu ranks written to %.*s/ (report.html, report.md, summary.json)",
			 set->n, (int)n, dir);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "cgmem merge: cannot write to standard output (the report in %s is complete)\n", dir);
		return CG_EXIT_INPUT;
	}
	return 0;
}

static int run_merge(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands < 1)
		return cg_usage_error(cmd, "no partial result given (each rank's cgmem summary --json)");
	const char *dir = cg_args_get(cmd, args, "output");
	bool json = cg_args_flag(cmd, args, "json");
	if (json == (dir != NULL))
		return cg_usage_error(cmd, json ? "--json prints the merged partial; -o DIR writes the report: give one"
						: "give -o DIR (the top report) or --json (the merged partial)");
	if (dir && !*dir)
		return cg_usage_error(cmd, "-o: the output folder is empty");
	if (json && (cg_args_flag(cmd, args, "force") || cg_args_flag(cmd, args, "no-html")))
		return cg_usage_error(cmd, "--force and --no-html are for -o DIR; --json prints one document");
	regex_t re;
	bool has_re;
	int status = cg_cmd_rank_regex(cmd, args, &re, &has_re);
	if (status)
		return status;
	cg_rankset set = {0};
	folder_part *folders = cg_calloc((size_t)args->noperands, sizeof *folders);
	size_t nfolders = 0;
	status = load_all(cmd, args, has_re ? &re : NULL, &set, folders, &nfolders);
	if (status == 0 && json) {
		cg_ranks_result *f;
		cg_ranks_run(&f, &set);
		cg_sink *s = cg_sink_memory();
		cg_ranks_json_write(s, &set, f);
		cg_ranks_free(f);
		status = cg_cmd_print(cmd, s);
	} else if (status == 0) {
		status = write_dir(cmd, args, dir, &set, folders, nfolders);
	}
	cg_free(folders);
	cg_rankset_clear(&set);
	if (has_re)
		regfree(&re);
	return status;
}

const cg_command cg_cmd_merge = {
	"merge",
	"PART...",
	"merge the partial results of a job's ranks into its top report (or --json: one partial)",
	"Each PART is a rank's partial result, the summary.json that\n"
	"`cgmem summary FILE --json` prints (the map step), or a ranks document that\n"
	"`cgmem merge --json` printed: merges form a tree, and any grouping and any\n"
	"order of the same ranks give byte-identical output. -o DIR writes the top\n"
	"report (summary.json with its \"ranks\" section, report.md, report.html), the\n"
	"same files as `cgmem report FILE... -o DIR` over the ranks' traces. A PART\n"
	"may also be a report folder: a rank's (`cgmem report FILE -o DIR`, a map step\n"
	"that keeps each rank's full report), copied into DIR/ranks/N/, or a job's top\n"
	"report, whose ranks/ come along; then DIR is byte for byte the folder\n"
	"`cgmem report FILE...` writes.\n"
	"A rank's number is its trace's distributedInfo.rank, else --rank-from on\n"
	"the trace's file name, else rank[-_]?N in the name, else a trailing _N\n"
	"before the first '.' (docs/ranks.md). Two parts of one rank are an error;\n"
	"ranks missing from world_size are a finding of the report.\n",
	merge_opts,
	run_merge,
};
