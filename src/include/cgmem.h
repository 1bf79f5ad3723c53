/* cgmem: what filled the memory of a deep-learning run, from its trace.
 *
 * The library reads a trace — candle-graph/trace/6 JSONL, a PyTorch
 * profiler (Kineto) Chrome trace or a PyTorch export_memory_timeline raw
 * file, plain or gzip, told apart by content — into a timeline, analyses
 * it, and gives the key figures of every device and the summary.json
 * document the `cgmem` command writes. It has no cairo and no terminal in
 * it: charts, report.md/html and the command line are the program's own.
 *
 *     cg_ingest_options io = CG_INGEST_OPTIONS_INIT;
 *     cg_error err = CG_ERROR_INIT;
 *     cg_timeline *tl = NULL;
 *     cg_analysis *a = NULL;
 *     if (cg_ingest(&tl, "run.jsonl.gz", &io, &err) < 0 || cg_analysis_run(&a, tl, NULL, &err) < 0) {
 *             fprintf(stderr, "%s\n", err.msg);   // "run.jsonl.gz: No such file or directory"
 *             cg_timeline_free(tl);
 *             return 1;
 *     }
 *     for (uint32_t d = 0; d < cg_analysis_device_count(a); d++) {
 *             cg_device_figures f;
 *             cg_analysis_device(&f, a, d, &err);
 *             printf("%s: peak %" PRIu64 " B at %" PRIu64 " ns\n", f.name, f.peak_bytes, f.peak_t_ns);
 *     }
 *     char *json;
 *     size_t len;
 *     cg_analysis_summary_json(&json, &len, a, &err);
 *     ...
 *     cg_free(json);
 *     cg_analysis_free(a);
 *     cg_timeline_free(tl);
 *
 * Conventions (libgit2's): a function that can fail returns 0 or a negative
 * CG_E* code and fills the cg_error it is given (NULL: no message); results
 * come back through out-parameters, which come first, belong to the caller
 * and are NULL when the function failed; every *_free accepts NULL;
 * options structs have an _INIT macro with the defaults. Running out of
 * memory prints a message and exits the process, as cmark does. Handles
 * may be used from any thread, one thread at a time; an analysis and its
 * timeline are read-only once made, so several threads may read them.
 *
 * Link with pkg-config: cc app.c $(pkg-config --cflags --libs cgmem). */
#ifndef CGMEM_H
#define CGMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CG_API __attribute__((visibility("default")))
#else
#define CG_API
#endif

/* The library's version, "0.1.0". */
CG_API const char *cg_version(void);

/* --- errors --- */

enum {
	CG_OK = 0,
	CG_EINPUT = -1, /* the trace is unusable */
	CG_EIO = -2,	/* reading or writing a file failed */
	CG_ELIMIT = -3, /* a configured resource limit was exceeded */
	CG_EUSAGE = -4, /* the call (or the command line) is wrong */
};

/* What went wrong, in words a user can act on; input errors name the file
 * and the line or event: "run.jsonl:18233: field \"bytes\" must be a
 * non-negative integer". */
typedef struct cg_error {
	int code;
	char msg[1024];
} cg_error;

#define CG_ERROR_INIT {0, ""}

/* Frees memory the library handed out (cg_analysis_summary_json's text). */
CG_API void cg_free(void *p);

/* --- reading a trace --- */

/* Progress while a file is read: bytes taken from it so far, of file_bytes
 * (0 when its size is not known, as for a pipe). Called on the thread that
 * called cg_ingest, after every block of lines or few thousand events, and
 * once more with done set when reading ends (the timeline is finalized
 * after that). */
typedef void (*cg_progress_fn)(void *ctx, uint64_t bytes_read, uint64_t file_bytes, bool done);

typedef struct cg_ingest_options {
	bool strict;		 /* the first bad line is fatal (default: skipped and counted) */
	cg_progress_fn progress; /* NULL: no progress reports */
	void *progress_ctx;	 /* handed to progress */
	size_t max_line_bytes;	 /* longer lines are bad lines (64 MiB) */
	size_t max_string_bytes; /* interned string memory; exceeding it is fatal (2 GiB) */
	unsigned threads;	 /* parse threads; 0: one per usable CPU (at most 8); 1: no threads at all */
	size_t block_bytes;	 /* lines are read and parsed in blocks this big; 0: 4 MiB */
	bool cjson_only;	 /* every line through cJSON, no fast scanner (to measure it) */
	bool stack_full;	 /* allocator snapshots: keep Python standard-library and PyTorch frames */
	uint64_t max_records;	 /* more records are fatal (CG_ELIMIT); 0: what the memory the process may
				    use holds, at about 100 bytes a record; UINT64_MAX: no limit */
	bool drop_ops;		 /* ops are read, checked and counted but not kept: nothing this library
				    returns reads them (cgmem's Chrome trace does); 60 bytes an op less */
} cg_ingest_options;

#define CG_INGEST_OPTIONS_INIT {false, NULL, NULL, (size_t)64 << 20, (size_t)2 << 30, 0, 0, false, false, 0, false}

/* A trace read into memory: allocations and frees per device, spans, ops,
 * checkpoints. Opaque here; read it through an analysis. */
typedef struct cg_timeline cg_timeline;

/* Reads the trace at path ("-": standard input); o NULL for the defaults.
 * Bad lines are skipped and counted (with strict, the first is fatal); a
 * trace cut off mid-record (a crashed run) is read up to the cut. Fails
 * with CG_EIO (cannot read), CG_EINPUT (no record could be read, corrupt
 * gzip, strict and a bad line) or CG_ELIMIT. On success *out is the
 * caller's (cg_timeline_free). */
CG_API int cg_ingest(cg_timeline **out, const char *path, const cg_ingest_options *o, cg_error *err);
/* The same from len bytes at data (plain or gzip; copied as read, not
 * kept), named name in messages ("<memory>" when NULL). */
CG_API int cg_ingest_memory(cg_timeline **out, const void *data, size_t len, const char *name,
			    const cg_ingest_options *o, cg_error *err);
CG_API void cg_timeline_free(cg_timeline *tl);

/* --- analysing it --- */

typedef struct cg_analysis_options {
	unsigned top_n;	  /* allocations listed at the peak and at the end, leak groups, ... (20) */
	unsigned threads; /* for the passes that run in parallel; 0: one per usable CPU; 1: no threads */
} cg_analysis_options;

#define CG_ANALYSIS_OPTIONS_INIT {20, 0}

/* Every figure of docs/analysis.md for every device of a timeline. */
typedef struct cg_analysis cg_analysis;

/* Analyses tl (o NULL for the defaults). tl is borrowed and must outlive
 * *out, which is the caller's (cg_analysis_free). */
CG_API int cg_analysis_run(cg_analysis **out, const cg_timeline *tl, const cg_analysis_options *o,
			   cg_error *err);
CG_API void cg_analysis_free(cg_analysis *a);

/* Memory categories, as traces record them. CG_CAT_BASELINE is memory
 * allocated before profiling began, which PyTorch's allocator totals reveal. */
typedef enum cg_category {
	CG_CAT_PARAMETER,
	CG_CAT_OPTIMIZER_STATE,
	CG_CAT_INPUT,
	CG_CAT_TEMPORARY,
	CG_CAT_ACTIVATION,
	CG_CAT_GRADIENT,
	CG_CAT_AUTOGRAD_DETAIL,
	CG_CAT_UNKNOWN,
	CG_CAT_BASELINE,
	CG_CAT_COUNT
} cg_category;

/* "parameter", "optimizer_state", ..., "baseline": the names summary.json uses. */
CG_API const char *cg_category_name(cg_category c);

/* The key figures of one device. */
typedef struct cg_device_figures {
	const char *name;	       /* "cuda:0", "cpu"; borrowed from the timeline */
	uint64_t peak_bytes;	       /* the most bytes live at once */
	uint64_t peak_t_ns;	       /* when live bytes first reached it, ns from the trace's start */
	uint64_t peak_by_category[CG_CAT_COUNT]; /* live at the peak, by category */
	uint32_t live_at_peak;	       /* allocations live at the peak */
	uint64_t live_at_end_bytes;    /* live when the trace ends (or the run ran out of memory) */
	uint64_t live_at_end_by_category[CG_CAT_COUNT];
	uint64_t allocations, frees;   /* memory records of each kind */
	bool categories_known;	       /* false: the format records none, all is CG_CAT_UNKNOWN */
	bool out_of_memory;	       /* the trace shows an allocation that failed */
} cg_device_figures;

/* Devices of the trace, in the order it names them. */
CG_API uint32_t cg_analysis_device_count(const cg_analysis *a);
/* Fills *out with the figures of device (0 .. count - 1); CG_EUSAGE for
 * another index. */
CG_API int cg_analysis_device(cg_device_figures *out, const cg_analysis *a, uint32_t device, cg_error *err);

/* The summary.json document of a (docs/summary-format.md), the same bytes
 * `cgmem report` writes, NUL-terminated. *out is the caller's (cg_free);
 * *len (when not NULL) is its length without the NUL. */
CG_API int cg_analysis_summary_json(char **out, size_t *len, const cg_analysis *a, cg_error *err);

#ifdef __cplusplus
}
#endif

#endif
