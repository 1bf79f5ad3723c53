/* cgmem check: limits on a run for continuous integration. One line per
 * limit and device ("ok", "FAIL" or "n/a", the measured value, the limit),
 * or with --format the verdicts as JSON, GitHub workflow commands or JUnit
 * XML; exit 0 when every limit holds (or does not apply), 3 when one
 * fails, 1 on bad input, 2 on wrong usage. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "check.h"
#include "check_ci.h"
#include "check_json.h"
#include "check_text.h"
#include "cmd_common.h"
#include "commands.h"
#include "units.h"

static const cg_opt check_opts[] = {
	{"max-peak", 0, "SIZE", "fail when a device's peak of live bytes exceeds SIZE"},
	{"device", 0, "D", "judge device D only (default: every device)"},
	{"max-fragmentation", 0, "RATIO", "fail when allocator fragmentation exceeds RATIO (0.3 or 30%)"},
	{"max-leaked", 0, "SIZE", "fail when the bytes leaked at the end (below) exceed SIZE"},
	{"baseline", 0, "FILE", "the earlier run --max-growth compares with"},
	{"max-growth", 0, "PERCENT", "fail when a device's peak grew more than PERCENT over the baseline's"},
	{"format", 0, "FMT", "text (default), json (cgmem/check/1), github or junit"},
	{"json", 0, NULL, "the same as --format json"},
	CG_INGEST_OPTS,
	CG_OPT_END,
};

/* Decimal places a limit may have: growth is judged in millionths of a percent. */
#define MAX_DECIMALS 6
#define MAX_PERCENT 1000000000ull

/* A plain decimal number, "12" or "2.5", optionally followed by '%':
 * its value in millionths. Nothing else is accepted (no sign, exponent or
 * spaces), so a typo is a usage error rather than a silent limit. */
static bool parse_decimal(const char *s, uint64_t *millionths, bool *percent)
{
	uint64_t whole = 0, frac = 0;
	int decimals = 0, digits = 0;
	const char *p = s;
	for (; *p >= '0' && *p <= '9'; p++, digits++)
		if (__builtin_mul_overflow(whole, 10, &whole) || __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
			return false;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits++) {
			if (++decimals > MAX_DECIMALS)
				return false;
			frac = frac * 10 + (uint64_t)(*p - '0');
		}
	}
	*percent = *p == '%';
	if (*percent)
		p++;
	if (digits == 0 || *p != '\0' || whole > MAX_PERCENT)
		return false;
	for (int k = decimals; k < MAX_DECIMALS; k++)
		frac *= 10;
	*millionths = whole * 1000000u + frac;
	return true;
}

static int size_limit(const cg_command *cmd, const cg_args *args, const char *name, bool *on, uint64_t *out)
{
	const char *v = cg_args_get(cmd, args, name);
	if (!v)
		return 0;
	if (cg_parse_size(v, out) < 0)
		return cg_usage_error(cmd, "--%s: '%s' is not a size (try 12GiB, 500MB, 1.5G or 4096)", name, v);
	*on = true;
	return 0;
}

static int parse_limits(const cg_command *cmd, const cg_args *args, cg_check_limits *l)
{
	int rc = size_limit(cmd, args, "max-peak", &l->peak, &l->max_peak);
	if (rc == 0)
		rc = size_limit(cmd, args, "max-leaked", &l->leaked, &l->max_leaked);
	if (rc)
		return rc;
	const char *v = cg_args_get(cmd, args, "max-fragmentation");
	uint64_t m;
	bool pct;
	if (v) {
		if (!parse_decimal(v, &m, &pct) || m > (pct ? 100u : 1u) * 1000000u)
			return cg_usage_error(cmd, "--max-fragmentation: '%s' is not a ratio from 0 to 1 (0.3) or a "
					      "percentage (30%%)", v);
		l->fragmentation = true;
		l->max_fragmentation = (double)m / (pct ? 1e8 : 1e6);
	}
	v = cg_args_get(cmd, args, "max-growth");
	if (v) {
		if (!parse_decimal(v, &m, &pct))
			return cg_usage_error(cmd, "--max-growth: '%s' is not a percentage (10, 2.5 or 2.5%%)", v);
		l->growth = true;
		l->max_growth_millionths = m;
	}
	bool baseline = cg_args_get(cmd, args, "baseline") != NULL;
	if (l->growth != baseline)
		return cg_usage_error(cmd, l->growth ? "--max-growth needs --baseline FILE" : "--baseline needs --max-growth");
	l->device = cg_args_get(cmd, args, "device");
	if (l->device && !*l->device)
		return cg_usage_error(cmd, "--device: no device name given");
	if (!l->peak && !l->fragmentation && !l->leaked && !l->growth)
		return cg_usage_error(cmd, "no limit given (--max-peak, --max-fragmentation, --max-leaked or "
				      "--baseline with --max-growth)");
	return 0;
}

typedef enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_GITHUB, FORMAT_JUNIT } format;

/* --format, or --json; a usage error when they disagree. */
static int parse_format(const cg_command *cmd, const cg_args *args, format *f)
{
	static const char *const names[] = {"text", "json", "github", "junit"};
	const char *v = cg_args_get(cmd, args, "format");
	bool json = cg_args_flag(cmd, args, "json");
	*f = json ? FORMAT_JSON : FORMAT_TEXT;
	if (!v)
		return 0;
	for (size_t k = 0; k < sizeof names / sizeof names[0]; k++) {
		if (strcmp(v, names[k]) == 0) {
			if (json && k != FORMAT_JSON)
				return cg_usage_error(cmd, "--json and --format %s disagree: give one", v);
			*f = (format)k;
			return 0;
		}
	}
	return cg_usage_error(cmd, "--format: '%s' is not text, json, github or junit", v);
}

static int print_verdicts(const cg_command *cmd, const cg_args *args, format f, const cg_check_result *r,
			  const cg_check_limits *l)
{
	cg_sink *s = cg_sink_memory();
	const char *file = args->operands[0], *baseline = cg_args_get(cmd, args, "baseline");
	switch (f) {
	case FORMAT_JSON: {
		cg_check_json_write(s, r, l, file, baseline);
		size_t len;
		const char *json = cg_sink_data(s, &len);
		if (len == 0 || json[len - 1] != '\n')
			cg_sink_putc(s, '\n');
		break;
	}
	case FORMAT_GITHUB:
		cg_check_github_write(s, r, l, file);
		break;
	case FORMAT_JUNIT:
		cg_check_junit_write(s, r, l, file, baseline);
		break;
	case FORMAT_TEXT:
		cg_check_text_write(s, r, l);
		break;
	}
	int status = cg_cmd_print(cmd, s);
	if (status)
		return status;
	return r->failed ? CG_EXIT_CHECK : CG_EXIT_OK;
}

static int run_check(const cg_command *cmd, const cg_args *args)
{
	if (args->noperands != 1)
		return cg_usage_error(cmd, args->noperands ? "give exactly one trace file" : "no trace file given");
	cg_check_limits l = CG_CHECK_LIMITS_INIT;
	cg_cmd_input in;
	format f;
	int status = cg_cmd_input_options(cmd, args, &in);
	if (status == 0)
		status = parse_limits(cmd, args, &l);
	if (status == 0)
		status = parse_format(cmd, args, &f);
	if (status)
		return status;
	cg_timeline *tl[2] = {NULL, NULL};
	cg_analysis *a[2] = {NULL, NULL};
	cg_check_result *r = NULL;
	status = cg_cmd_analyse(cmd, &in, args->operands[0], &tl[0], &a[0]);
	if (status == 0 && l.growth)
		status = cg_cmd_analyse(cmd, &in, cg_args_get(cmd, args, "baseline"), &tl[1], &a[1]);
	if (status == 0) {
		cg_error err = CG_ERROR_INIT;
		if (cg_check_run(&r, a[0], a[1], &l, &err) < 0)
			status = err.code == CG_EUSAGE ? cg_usage_error(cmd, "%s", err.msg) : cg_error_exit_status(err.code);
		else
			status = print_verdicts(cmd, args, f, r, &l);
	}
	cg_check_free(r);
	for (int s = 0; s < 2; s++) {
		cg_analysis_free(a[s]);
		cg_timeline_free(tl[s]);
	}
	return status;
}

const cg_command cg_cmd_check = {
	"check",
	"FILE",
	"check a run against memory limits, for CI (exit 3 when one is exceeded)",
	"Each limit is judged per device (every device, or --device D only) and\n"
	"printed on one line: ok, FAIL or n/a, the limit, the device, the measured\n"
	"value and the limit's value (for n/a, why the limit does not apply).\n"
	"--format json prints the same verdicts as JSON (--json too); github as\n"
	"GitHub Actions workflow commands (::error for a FAIL, ::notice for an n/a,\n"
	"the text line for an ok); junit as a JUnit XML report (a test case per\n"
	"limit and device, <failure> for a FAIL, <skipped> for an n/a).\n"
	"  --max-peak            the device's peak of live bytes\n"
	"  --max-fragmentation   the largest (reserved - live) / reserved at a device\n"
	"                        checkpoint; without checkpoints that record reserved\n"
	"                        bytes, the allocator replay's estimate at the peak\n"
	"                        (on a CPU, which has no caching allocator: n/a, holds)\n"
	"  --max-leaked          bytes live at the end outside parameters, optimizer\n"
	"                        state and memory from before profiling\n"
	"  --max-growth          (peak - baseline peak) / baseline peak, devices matched\n"
	"                        by name; a device the baseline lacks grew without bound\n"
	"A figure that cannot be measured fails. SIZE is plain bytes or has a suffix:\n"
	"KiB, MiB, GiB, TiB (or K, M, G, T) are powers of 1024; kB, MB, GB, TB powers\n"
	"of 1000 (12GiB, 500MB, 1.5G). RATIO is 0.3 or 30%; PERCENT is 10, 2.5 or 2.5%,\n"
	"with at most 6 decimals. A bad value is a usage error.\n"
	"\nexample:\n"
	"  cgmem check run.jsonl --max-peak 12GiB --baseline last.jsonl --max-growth 5%\n",
	check_opts,
	run_check,
};
