/* The timeline: everything a trace says, as compact typed records.
 *
 * Ingest appends records with the cg_timeline_add_* functions, then calls
 * cg_timeline_finalize() (finalize.h), which resolves span ids, sorts memory
 * records per device by time (stably, ties keep file order) and pairs frees
 * with allocations. After that the timeline is read-only: analysis passes
 * read the arrays below directly.
 *
 *     cg_timeline *tl = cg_timeline_new(NULL);
 *     ...cg_timeline_add_memory(tl, &m)...
 *     if (cg_timeline_finalize(tl, &err) < 0) ...;
 *     for (uint32_t d = 0; d < tl->ndevices; d++) ...tl->devices[d]...
 *     cg_timeline_free(tl);
 *
 * Strings are interned (cg_str ids into tl->strings); shapes are interned
 * arrays of uint64 in tl->shapes; a memory record's tensor id is a number
 * where its spelling allows (tensorid.h). Records are fixed-size with no
 * pointers: a memory record is 40 bytes. */
#ifndef CG_TIMELINE_H
#define CG_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "enums.h"
#include "error.h"
#include "strtab.h"
#include "tensorid.h"

#define CG_NONE UINT32_MAX

/* cg_mem.flags */
enum {
	CG_MEM_PREEXISTING = 1 << 0,	/* free whose allocation happened before the trace began */
	CG_MEM_DOUBLE_FREE = 1 << 1,	/* free of an id already freed: ignored */
	CG_MEM_BYTES_MISMATCH = 1 << 2, /* free whose recorded bytes differ from its allocation */
	CG_MEM_REPLACED = 1 << 3,	/* alloc ended by a new alloc of the same live id; pair = that alloc */
	CG_MEM_REPLACES = 1 << 4,	/* alloc of an id that was still live */
};

/* One allocation or free. After finalize, memory records are grouped by
 * device and sorted by time; pair is the index (into tl->mem) of the
 * matching free for an alloc, of the matching alloc for a free, or CG_NONE.
 * A free's bytes are the bytes it released: its allocation's bytes, its own
 * for a tensor allocated before the trace began, 0 for a double free; a
 * paired free takes its allocation's category, so running sums of
 * (added - removed) per category give live bytes per category.
 * line (here and in every record) is where the record is in the file: its
 * line, or its 1-based event number for formats that are one JSON
 * document (cg_source.lines_are_events).
 *
 * The record is 40 bytes, the largest share of a trace's memory: the op,
 * shape, dtype and device, which repeat, are one interned site
 * (tl->mem_sites, read with cg_timeline_mem_op/_shape/_dtype/_device), and
 * the site, action, category and flags share one 32-bit word; a timeline
 * holds at most CG_MAX_MEM_SITES sites. Ingest appends a cg_mem_in, which
 * has them all. */
#define CG_MEM_SITE_BITS 22
#define CG_MAX_MEM_SITES ((uint32_t)1 << CG_MEM_SITE_BITS)

typedef struct cg_mem {
	uint64_t t_ns;
	uint64_t bytes;
	cg_tensor_id tensor;
	uint32_t span; /* span index, or CG_NONE */
	uint32_t pair;
	uint32_t line;
	unsigned site : CG_MEM_SITE_BITS; /* index into tl->mem_sites */
	unsigned action : 1;		  /* cg_action */
	unsigned category : 4;		  /* cg_category */
	unsigned flags : 5;
} cg_mem;

_Static_assert(CG_CAT_COUNT <= 16 && CG_FREE <= 1, "cg_mem's bit-fields hold every category and action");

/* Where a memory record was made: its op, shape, dtype and device. */
typedef struct cg_mem_site {
	cg_str op;	/* op_name, CG_STR_EMPTY when absent */
	uint32_t shape; /* into tl->shapes */
	uint16_t device;
	uint8_t dtype; /* index into tl->dtypes */
} cg_mem_site;

/* A memory record as ingest appends it (cg_timeline_add_mem): every field
 * of cg_mem, with the site's fields in place of the site. */
typedef struct cg_mem_in {
	uint64_t t_ns;
	uint64_t bytes;
	cg_tensor_id tensor;
	uint32_t span; /* the span id string, CG_STR_EMPTY for none */
	cg_str op;     /* op_name, CG_STR_EMPTY when absent */
	uint32_t shape;
	uint32_t pair;
	uint32_t line;
	uint16_t device;
	uint8_t action;	  /* cg_action */
	uint8_t category; /* cg_category */
	uint8_t dtype;	  /* index into tl->dtypes */
	uint8_t flags;
} cg_mem_in;

/* cg_span.flags */
enum { CG_SPAN_MEASURED = 1 << 0, CG_SPAN_ENDED = 1 << 1 };

typedef struct cg_span {
	uint64_t start_ns;
	uint64_t end_ns; /* start + duration of its span_end; start_ns when it never ended */
	cg_str id;
	cg_str name;
	uint32_t parent; /* span index or CG_NONE */
	uint32_t line;
	uint32_t depth;	  /* 0 for roots */
	uint8_t kind;	  /* cg_span_kind */
	uint8_t step;	  /* cg_phase the record set, CG_PHASE_NONE if it set none */
	uint8_t phase;	  /* effective: own step, else the nearest ancestor's */
	uint8_t flags;
} cg_span;

/* cg_op.flags */
enum { CG_OP_STORAGE_DERIVED = 1 << 0, CG_OP_STORAGE_UNKNOWN = 1 << 1, CG_OP_HAS_OUTPUT = 1 << 2 };

/* 60 bytes, packed to 4-byte alignment (8 would round it up to 64): op
 * i's inputs are tl->op_inputs[inputs_first ..) up to the next op's first,
 * cg_timeline_op_inputs_count of them. */
typedef struct __attribute__((packed, aligned(4))) cg_op {
	uint64_t t_ns;
	uint64_t duration_ns;
	uint64_t storage_bytes;
	uint64_t input_storage_bytes;
	cg_str name;
	cg_str output;
	uint32_t span;
	uint32_t shape;
	uint32_t inputs_first; /* into tl->op_inputs */
	uint32_t line;
	uint16_t device;
	uint8_t dtype;
	uint8_t flags;
} cg_op;

enum { CG_TENSOR_REQUIRES_GRAD = 1 << 0, CG_TENSOR_HAS_STORAGE = 1 << 1 };

typedef struct cg_tensor {
	uint64_t storage_bytes;
	cg_str tensor;
	uint32_t span;
	uint32_t shape;
	uint32_t line;
	uint16_t device;
	uint8_t dtype;
	uint8_t category;
	uint8_t flags;
} cg_tensor;

/* A device-level checkpoint: used + free is the device's capacity.
 * PyTorch profiler traces give only the allocator's reserved bytes: there
 * has_used is false and used/free are 0. */
typedef struct cg_devmem {
	uint64_t t_ns;
	uint64_t used_bytes;
	uint64_t free_bytes;
	uint64_t reserved_bytes;
	uint32_t line;
	uint16_t device;
	bool has_used;
	bool has_reserved;
} cg_devmem;

/* An allocation that failed: the moment a run hit out-of-memory (PyTorch
 * profiler "[OutOfMemory]" events). Sorted by device, then time. */
typedef struct cg_oom {
	uint64_t t_ns;
	uint64_t bytes;		  /* the request that failed */
	uint64_t total_allocated; /* allocator totals at that moment, when known */
	uint64_t total_reserved;
	uint32_t line;
	uint16_t device;
	bool has_totals;
	bool has_device_free;
	uint64_t device_free; /* bytes free on the device then (allocator snapshots) */
} cg_oom;

typedef struct cg_gradient {
	double norm;
	cg_str event_id;
	cg_str root;
	cg_str key;
	uint32_t line;
	uint8_t state; /* cg_grad_state */
	bool has_norm;
} cg_gradient;

typedef struct cg_edge {
	uint64_t duration_ns;
	uint32_t from_span; /* span index or CG_NONE */
	uint32_t to_span;
	uint32_t line;
} cg_edge;

typedef struct cg_meta_entry {
	cg_str key;
	cg_str value; /* the string, or the JSON text of a non-string value (valid JSON: writers copy it) */
	bool is_string;
} cg_meta_entry;

/* Per device: its memory records are tl->mem[mem_first .. mem_first + mem_count). */
typedef struct cg_device {
	cg_str name;
	uint32_t mem_first;
	uint32_t mem_count;
	uint32_t devmem_count;
	/* Allocated before the trace began and freed in it, live from the
	 * start: the frees that match no allocation; when frees cannot be
	 * paired (source.pairing_known false), per category the deepest point
	 * its running sum of bytes would otherwise go below zero. */
	uint64_t preexisting_bytes;
	/* Those frees; unpaired, the most frees ever outnumbering allocations. */
	uint32_t preexisting_count;
	/* Allocated before profiling and live from the start (category
	 * CG_CAT_BASELINE): known from allocator totals (PyTorch's "Total
	 * Allocated"). */
	uint64_t baseline_bytes;
	/* The device's total memory as the trace states it (PyTorch's
	 * deviceProperties[].totalGlobalMem), when has_capacity. */
	uint64_t capacity_bytes;
	bool has_capacity;
	/* Live bytes before the first record, by category: the two above. */
	uint64_t initial_by_cat[CG_CAT_COUNT];
	uint64_t live_at_end;
	uint32_t live_count_at_end;
} cg_device;

typedef struct cg_dtype_entry {
	cg_str name;
	unsigned size; /* bytes per element, 0 when unknown */
} cg_dtype_entry;

/* Anomalies found while building the timeline, each counted with the first
 * few examples kept as text for the report. */
typedef enum cg_anomaly {
	CG_ANOM_FREE_BEFORE_TRACE,
	CG_ANOM_ALLOC_OF_LIVE_ID,
	CG_ANOM_DOUBLE_FREE,
	CG_ANOM_BYTES_MISMATCH,
	CG_ANOM_UNKNOWN_SPAN,
	CG_ANOM_DUPLICATE_SPAN,
	CG_ANOM_SPAN_END_WITHOUT_START,
	CG_ANOM_SPAN_NEVER_ENDED,
	CG_ANOM_SPAN_CYCLE,
	CG_ANOM_COUNT
} cg_anomaly;

#define CG_ANOMALY_EXAMPLES 5

typedef struct cg_anomaly_stats {
	uint64_t count;
	uint32_t nexamples;
	char *examples[CG_ANOMALY_EXAMPLES];
} cg_anomaly_stats;

const char *cg_anomaly_name(cg_anomaly a);
const char *cg_anomaly_description(cg_anomaly a);

typedef enum cg_diag_kind { CG_DIAG_WARNING, CG_DIAG_BAD_LINE } cg_diag_kind;

/* A message about one line of the trace (line 0: about the whole file). */
typedef struct cg_diag {
	uint64_t line;
	cg_diag_kind kind;
	char *msg;
} cg_diag;

/* How many diagnostics are kept with their text; all are counted. */
#define CG_MAX_DIAGS 200

/* Where the timeline came from and how reading it went. Filled by ingest. */
typedef struct cg_source {
	char *path;	      /* as given; "-" for standard input */
	char *display_name;   /* for messages: the path, or "<stdin>" */
	char *format;	      /* "candle-graph/trace/6 JSONL", ... */
	bool gzip;
	uint64_t file_bytes;  /* bytes read from the file */
	uint64_t data_bytes;  /* bytes after decompression */
	uint64_t lines;	      /* lines read, blank and bad ones included; events for JSON documents */
	/* Chrome traces and the raw memory timeline number events, not lines:
	 * every `line` field (records, diagnostics, truncated_line) is then
	 * the event's 1-based position in the file. */
	bool lines_are_events;
	/* Allocator snapshots without time_us: t_ns is the trace entry's
	 * index, not a time, and charts say so. */
	bool time_is_index;
	uint64_t records[CG_KIND_COUNT];
	uint64_t blank_lines;
	uint64_t bad_lines;
	uint64_t unknown_kinds;
	uint64_t unknown_categories;
	uint64_t unknown_values; /* other enum values not understood, mapped to a default */
	uint64_t warnings;
	bool truncated;		/* the trace ends mid-record */
	uint64_t truncated_line;
	char *truncation_note;
	bool meta_seen;
	uint64_t meta_count;
	uint64_t meta_line;
	cg_str schema;
	/* Where t_ns = 0 is, for formats with absolute timestamps: nanoseconds
	 * since the Unix epoch, and the trace's own timestamp there as written
	 * ("1419247332500.684 us"); NULL when the trace does not say. */
	bool time_origin_known;
	int64_t time_origin_unix_ns;
	char *time_origin;
	bool categories_known;	/* false for formats that do not record categories */
	/* the categories were inferred by cgmem (analysis/infer.c), not recorded */
	bool categories_inferred;
	bool pairing_known;	/* false when frees could not be matched to allocations */
	/* This process's place in a distributed run (PyTorch's
	 * distributedInfo.rank and world_size), when has_rank / has_world_size. */
	bool has_rank, has_world_size;
	int64_t rank, world_size;
	cg_diag *diags;		/* the first CG_MAX_DIAGS, in the order found */
	size_t ndiags, diags_cap;
} cg_source;

/* Whether records carry categories: recorded, or inferred by cgmem. */
static inline bool cg_source_has_categories(const cg_source *s)
{
	return s->categories_known || s->categories_inferred;
}

typedef struct cg_timeline_limits {
	size_t max_string_bytes; /* 0: unlimited */
	bool drop_ops;		 /* keep each op's span reference only (cg_timeline.drop_ops) */
} cg_timeline_limits;

#define CG_TIMELINE_LIMITS_INIT {(size_t)2 << 30, false}

/* What is kept of an op when ops are dropped: its span id, for finalize to
 * report a span that never started as it would for the op. */
typedef struct cg_op_ref {
	cg_str span;
	uint32_t line;
} cg_op_ref;

/* Bytes of memory a record costs from ingest to report, with its share of
 * strings, array growth, sorting and pairing, rounded up: 56 B measured on
 * 5 M memory records of 1,000 tensor ids (peak RSS 280 MB), 87 B on 2 M
 * lines of tests/bench/gentrace --mix memory, 900,000 distinct ids (174 MB).
 * It sizes the default record limit and is said in its message. */
#define CG_RECORD_COST 100

/* Which limit a CG_ELIMIT of the functions below hit: the string memory
 * (--max-string-memory), 65535 devices, the record limit (--max-records),
 * 2^32 - 2 records of one kind (the records' uint32_t indexes), or
 * CG_MAX_MEM_SITES memory record sites (cg_mem's site bits). */
typedef enum cg_limit {
	CG_LIMIT_NONE,
	CG_LIMIT_STRINGS,
	CG_LIMIT_DEVICES,
	CG_LIMIT_RECORDS,
	CG_LIMIT_INDEX,
	CG_LIMIT_SITES
} cg_limit;

typedef struct cg_timeline {
	cg_strtab *strings;
	cg_strtab *shapes; /* each a byte string of uint64 dims; id 0 = [] */

	cg_mem *mem;
	size_t nmem, mem_cap;
	cg_mem_site *mem_sites; /* in order of first use */
	size_t nmem_sites, mem_sites_cap;
	cg_span *spans;
	size_t nspans, spans_cap;
	cg_op *ops;
	size_t nops, ops_cap;
	cg_str *op_inputs;
	size_t nop_inputs, op_inputs_cap;
	/* Only the Chrome trace reads ops (60 bytes each, 61 MB of a 10 M-line
	 * trace). Without it they are dropped: counted as records, their times
	 * seen, their strings interned as before (string ids stay the same),
	 * and of each op naming a span only that reference kept. */
	bool drop_ops;
	cg_op_ref *op_refs; /* in file order, as ops are */
	size_t nop_refs, op_refs_cap;
	cg_tensor *tensors;
	size_t ntensors, tensors_cap;
	cg_devmem *devmem; /* sorted by device, then time, after finalize */
	size_t ndevmem, devmem_cap;
	cg_gradient *gradients;
	size_t ngradients, gradients_cap;
	cg_edge *edges;
	size_t nedges, edges_cap;
	cg_oom *ooms;
	size_t nooms, ooms_cap;
	cg_meta_entry *meta;
	size_t nmeta, meta_cap;

	cg_device *devices;
	uint32_t ndevices, devices_cap;
	cg_dtype_entry *dtypes; /* dtypes[0] is "unknown" */
	uint32_t ndtypes, dtypes_cap;

	cg_source source;
	cg_anomaly_stats anomalies[CG_ANOM_COUNT];
	/* What only an allocator snapshot knows (snapshot.h); NULL for other formats. */
	struct cg_snapshot *snapshot;

	/* Allocations ended by a new allocation of the same live id:
	 * (new alloc index, replaced alloc index), sorted by the first. */
	struct cg_replacement {
		uint32_t alloc;
		uint32_t replaced;
	} *replacements;
	size_t nreplacements, replacements_cap;

	/* The span of time the trace covers: earliest timestamp, and the latest
	 * moment anything covers (record times, span and op ends). */
	uint64_t first_t_ns, last_t_ns;
	bool finalized;
	/* Spans added already resolved (cg_timeline_add_span_resolved, Chrome
	 * traces): every span's parent is a span index, its end is set, its id
	 * is not interned (cg_timeline_span_id gives its text, "#" and its
	 * line), and the memory records' span fields are span indices. A trace
	 * of 0.9 M complete events spent most of its string table on them. */
	bool spans_indexed;

	/* ingest-time state */
	struct cg_span_end_rec {
		uint64_t duration_ns;
		cg_str id;
		uint32_t line;
	} *span_ends;
	size_t nspan_ends, span_ends_cap;
	/* Span ends are applied as they come when their span started earlier
	 * in the file (cg_timeline_add_span_end); only the others wait in
	 * span_ends for finalize. By span id: the first span + 1 (0: none),
	 * and whether an end of that id waits (later ones then wait too). A
	 * shard merged later defers them all (cg_timeline_defer_span_ends). */
	uint32_t *span_by_id;
	size_t span_by_id_cap;
	uint8_t *end_waits;
	size_t end_waits_cap;
	bool defer_span_ends;
	/* Split by device (devgroup.h): device 0's memory records go to mem,
	 * the others' here, each part in file order, until joined. */
	cg_mem *mem_rest;
	size_t nmem_rest, mem_rest_cap;
	bool split_devices;
	/* mem was grouped by device before finalize (devgroup.h), no longer in
	 * file order: what finalize reports of the records comes in line order. */
	bool mem_regrouped;
	uint64_t nrecords, max_records; /* every record appended, and the limit on them (0: none) */
	cg_limit limit_hit;		/* the last limit a function returned CG_ELIMIT for */
	uint32_t last_device; /* cache for device lookups */
	uint32_t *device_index; /* open addressing: interned name -> device + 1 (0: empty) */
	size_t device_index_cap;
	uint32_t *site_index; /* open addressing: site -> index + 1 (0: empty) */
	size_t site_index_cap;
	uint32_t last_site; /* cache for site lookups, CG_NONE when none */
} cg_timeline;

/* limits may be NULL for the defaults. Never fails (out of memory exits). */
cg_timeline *cg_timeline_new(const cg_timeline_limits *limits);
/* At most n records of every kind together but metadata (--max-records;
 * 0, the default: no limit); more is CG_ELIMIT with limit_hit RECORDS. */
void cg_timeline_set_max_records(cg_timeline *tl, uint64_t n);
/* The most records any one array can come to hold under that limit. */
static inline size_t cg_timeline_record_room(const cg_timeline *tl)
{
	return tl->max_records && tl->max_records < SIZE_MAX ? (size_t)tl->max_records : SIZE_MAX;
}
void cg_timeline_free(cg_timeline *tl);

/* What the last CG_ELIMIT was, for a message after "FILE: " or "FILE:LINE: ":
 * "more than 1000 records (--max-records 1000): ...", "more than 65535
 * devices", ... Empty when no limit was hit. Returns buf. */
char *cg_timeline_limit_text(const cg_timeline *tl, char *buf, size_t size);
/* 0 when n more records fit under the record limit, else CG_ELIMIT (and
 * limit_hit says so): for readers that hold records of their own before
 * they append them, so that they stop as early as the timeline would. */
int cg_timeline_records_fit(cg_timeline *tl, uint64_t n);

/* Interning; each returns 0 or CG_ELIMIT when the string memory limit is hit. */
int cg_timeline_intern(cg_timeline *tl, const char *s, size_t n, cg_str *out);
int cg_timeline_intern_shape(cg_timeline *tl, const uint64_t *dims, size_t ndims, uint32_t *out);
/* Device by name; CG_ELIMIT beyond 65535 devices. */
int cg_timeline_device(cg_timeline *tl, const char *name, size_t n, uint16_t *out);
/* Device by interned name, added when new; CG_ELIMIT beyond 65535 devices. */
int cg_timeline_device_by_str(cg_timeline *tl, cg_str name, uint16_t *out);
/* Dtype by spelling (canonicalised); beyond 255 distinct dtypes maps to "unknown". */
int cg_timeline_dtype(cg_timeline *tl, const char *name, size_t n, uint8_t *out);

/* Shape access: number of dims, and dims copied into out (up to max). */
size_t cg_timeline_shape_ndims(const cg_timeline *tl, uint32_t shape);
uint64_t cg_timeline_shape_dim(const cg_timeline *tl, uint32_t shape, size_t i);
/* Formats a shape as "[512, 784]" into buf; returns buf. */
char *cg_timeline_shape_format(const cg_timeline *tl, uint32_t shape, char *buf, size_t size);

static inline const char *cg_timeline_str(const cg_timeline *tl, cg_str id)
{
	return cg_strtab_get(tl->strings, id);
}

/* Room for n more memory records, made at once: a reader that knows how
 * many it will add spares the array's growth (copies of a large array). */
void cg_timeline_reserve_mem(cg_timeline *tl, size_t n);

/* Appending. While ingesting, span, parent and edge fields hold the interned
 * span id string (CG_STR_EMPTY for none); finalize resolves them to indices.
 * Each returns 0 or CG_ELIMIT (more than 2^32 - 2 records of a kind). */
int cg_timeline_add_mem(cg_timeline *tl, const cg_mem_in *m);
/* The site (op, shape, dtype, device) by value, added when new; CG_ELIMIT
 * (limit_hit SITES) beyond CG_MAX_MEM_SITES sites. */
int cg_timeline_mem_site(cg_timeline *tl, cg_str op, uint32_t shape, uint8_t dtype, uint16_t device, uint32_t *out);
int cg_timeline_add_span(cg_timeline *tl, const cg_span *s);
int cg_timeline_add_span_end(cg_timeline *tl, cg_str id, uint64_t duration_ns, uint32_t line);
/* For a shard merged into another timeline: its span ends all wait, as
 * only the timeline merged into knows every span that came before. */
void cg_timeline_defer_span_ends(cg_timeline *tl);
/* For merging: span i joins the spans ends can find by id, and an end
 * (with its line) is applied at once when it can be (true) or must wait in
 * span_ends (false). */
void cg_timeline_note_span(cg_timeline *tl, size_t i);
bool cg_timeline_end_span_now(cg_timeline *tl, cg_str id, uint64_t duration_ns, uint32_t line);
/* A span already resolved, for an ingest that numbers spans itself: s->parent
 * is the index of a span added before it (or CG_NONE), s->end_ns its end
 * (>= start_ns), s->id unused; the timeline's spans are then all added so
 * (spans_indexed) and its memory records name spans by index. Counts as two
 * records, the span and its end, as a span and a span_end would. */
int cg_timeline_add_span_resolved(cg_timeline *tl, const cg_span *s);
/* An op and its inputs; with drop_ops only its span reference is kept. */
int cg_timeline_add_op(cg_timeline *tl, const cg_op *op, const cg_str *inputs, size_t ninputs);
int cg_timeline_add_tensor(cg_timeline *tl, const cg_tensor *t);
int cg_timeline_add_devmem(cg_timeline *tl, const cg_devmem *d);
int cg_timeline_add_gradient(cg_timeline *tl, const cg_gradient *g);
int cg_timeline_add_edge(cg_timeline *tl, const cg_edge *e);
int cg_timeline_add_oom(cg_timeline *tl, const cg_oom *o);
int cg_timeline_add_meta(cg_timeline *tl, cg_str key, cg_str value, bool is_string);

/* Counts an anomaly and keeps the message as an example while there is room. */
void cg_timeline_anomaly(cg_timeline *tl, cg_anomaly a, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A moment of the timeline as text: "0.138 s", or "entry 1,402" when its
 * times are entry numbers (source.time_is_index). Returns buf. */
char *cg_timeline_fmt_time(const cg_timeline *tl, char *buf, size_t size, uint64_t t_ns);

/* "line", or "event" for formats that number events (source.lines_are_events). */
static inline const char *cg_timeline_position_word(const cg_timeline *tl)
{
	return tl->source.lines_are_events ? "event" : "line";
}

/* Where a record is, for a message: "run.jsonl:18233", or "trace.json:
 * event 18233" for formats that number events. Returns buf. */
char *cg_timeline_where(const cg_timeline *tl, uint64_t line, char *buf, size_t size);

/* A memory record's op (CG_STR_EMPTY when absent), shape, dtype and device. */
static inline cg_str cg_timeline_mem_op(const cg_timeline *tl, const cg_mem *m)
{
	return tl->mem_sites[m->site].op;
}
static inline uint32_t cg_timeline_mem_shape(const cg_timeline *tl, const cg_mem *m)
{
	return tl->mem_sites[m->site].shape;
}
static inline uint8_t cg_timeline_mem_dtype(const cg_timeline *tl, const cg_mem *m)
{
	return tl->mem_sites[m->site].dtype;
}
static inline uint16_t cg_timeline_mem_device(const cg_timeline *tl, const cg_mem *m)
{
	return tl->mem_sites[m->site].device;
}

/* How many inputs op i has: they end where the next op's begin. */
static inline uint32_t cg_timeline_op_inputs_count(const cg_timeline *tl, size_t i)
{
	size_t end = i + 1 < tl->nops ? tl->ops[i + 1].inputs_first : tl->nop_inputs;
	return (uint32_t)(end - tl->ops[i].inputs_first);
}

/* Bytes that memory record i adds to and removes from its device's live
 * bytes (after finalize). An alloc that replaces a live id also removes the
 * replaced allocation's bytes. */
static inline uint64_t cg_mem_added(const cg_mem *m)
{
	return m->action == CG_ALLOC ? m->bytes : 0;
}
/* For an alloc flagged CG_MEM_REPLACES: the index of the allocation it
 * ended (whose category its removed bytes belong to); CG_NONE otherwise. */
uint32_t cg_timeline_mem_replaced(const cg_timeline *tl, uint32_t i);
/* Inline because every sweep over the records asks it of each one; only
 * the rare replacing alloc needs the search. */
static inline uint64_t cg_timeline_mem_removed(const cg_timeline *tl, uint32_t i)
{
	const cg_mem *m = &tl->mem[i];
	if (m->action == CG_FREE)
		return m->bytes;
	if (!(m->flags & CG_MEM_REPLACES))
		return 0;
	uint32_t r = cg_timeline_mem_replaced(tl, i);
	return r == CG_NONE ? 0 : tl->mem[r].bytes;
}

/* Live bytes of a device before its first record: allocated before the
 * trace (freed in it) and before profiling. Fits: finalize checks it. */
static inline uint64_t cg_device_initial_live(const cg_device *dev)
{
	return dev->preexisting_bytes + dev->baseline_bytes;
}
/* Live bytes after record i, given live bytes before it (finalize checked
 * that every such sum fits). */
static inline uint64_t cg_timeline_live_after(const cg_timeline *tl, uint32_t i, uint64_t live)
{
	return live + cg_mem_added(&tl->mem[i]) - cg_timeline_mem_removed(tl, i);
}

/* Applies memory record i to its device's live bytes, in all and by
 * category (the bytes an alloc removes by replacing a live id leave the
 * replaced allocation's category). */
static inline void cg_timeline_apply_live(const cg_timeline *tl, uint32_t i, uint64_t *total,
					  uint64_t by_cat[CG_CAT_COUNT])
{
	const cg_mem *m = &tl->mem[i];
	uint64_t add = cg_mem_added(m), rem = cg_timeline_mem_removed(tl, i);
	*total += add;
	*total -= rem;
	by_cat[m->category] += add;
	if (rem) {
		uint32_t r = m->action == CG_ALLOC ? cg_timeline_mem_replaced(tl, i) : CG_NONE;
		by_cat[r == CG_NONE ? m->category : tl->mem[r].category] -= rem;
	}
}

/* The longest span path cgmem writes, in bytes: paths are cut there, so a
 * trace of huge span names cannot make every list and document huge. */
#define CG_SPAN_PATH_MAX 4096

/* The span path of span index s, names joined by '/': "run/train_step#0/forward".
 * Writes into buf (truncated to size) and returns buf. */
char *cg_timeline_span_path(const cg_timeline *tl, uint32_t span, char *buf, size_t size);

/* The spelling of a memory record's tensor id, *len its length: the
 * interned string, or a packed id's text written into buf. The text is
 * borrowed from tl or buf. */
const char *cg_timeline_tensor_text(const cg_timeline *tl, cg_tensor_id t, char buf[CG_TENSOR_ID_BUF], size_t *len);

/* Room for any span id cg_timeline_span_id writes into its buffer. */
#define CG_SPAN_ID_BUF 16

/* The id of span index s as text, *len its length: the interned id string,
 * or for a timeline of spans_indexed "#" and the span's line, written into
 * buf (CG_SPAN_ID_BUF bytes). The text is borrowed from tl or buf. */
const char *cg_timeline_span_id(const cg_timeline *tl, uint32_t span, char buf[CG_SPAN_ID_BUF], size_t *len);
/* Phase of a memory record: its span's effective step. */
static inline cg_phase cg_timeline_mem_phase(const cg_timeline *tl, const cg_mem *m)
{
	return m->span == CG_NONE ? CG_PHASE_NONE : (cg_phase)tl->spans[m->span].phase;
}

#endif
