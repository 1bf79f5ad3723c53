/* The events of a Kineto Chrome trace as read, before they become timeline
 * records: kineto_events.c reads each event, and kineto.c, on top of it,
 * builds the timeline once the earliest timestamp is known. The device
 * names and phases of Kineto's events are decided here too. */
#ifndef CG_KINETO_EVENTS_H
#define CG_KINETO_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

#include "chrome_stream.h"
#include "ingest_options.h"
#include "jsontext.h"
#include "kineto_fields.h"
#include "spannest.h"
#include "timeline.h"

/* cg_kineto_mem.flags */
enum { CG_KM_FREE = 1 << 0, CG_KM_ADDR = 1 << 1, CG_KM_TOTAL_ALLOCATED = 1 << 2, CG_KM_TOTAL_RESERVED = 1 << 3 };

/* A [memory] event as read, times still in the trace's nanoseconds. */
typedef struct cg_kineto_mem {
	int64_t ts;
	uint64_t bytes; /* magnitude; CG_KM_FREE tells the sign */
	uint64_t total_allocated, total_reserved;
	cg_str addr;
	uint32_t ordinal;
	uint32_t thread;
	uint16_t device;
	uint8_t flags;
} cg_kineto_mem;

/* What a span carries besides its times (cg_nest_span.payload indexes these). */
typedef struct cg_kineto_span {
	cg_str name;
	uint8_t kind;
	uint8_t step;
} cg_kineto_span;

typedef struct cg_kineto_oom {
	int64_t ts;
	uint64_t bytes, total_allocated, total_reserved;
	uint32_t ordinal;
	uint16_t device;
	bool has_totals;
} cg_kineto_oom;

/* deviceProperties[]: a GPU's index and its totalGlobalMem. */
typedef struct cg_kineto_gpu {
	int64_t id;
	uint64_t total_bytes;
} cg_kineto_gpu;

typedef struct cg_kineto_events {
	cg_timeline *tl;
	const cg_ingest_options *o;
	const char *name;
	cg_strtab *threads; /* "pid/tid", normalised */
	cg_kineto_mem *mem;
	size_t nmem, mem_cap;
	cg_nest_span *nest;
	size_t nnest, nest_cap;
	cg_kineto_span *spans;
	size_t nspans, spans_cap;
	cg_kineto_oom *ooms;
	size_t nooms, ooms_cap;
	cg_json_span *raw; /* text of an event's members, for cJSON's view */
	size_t raw_cap;
	bool ts_ok; /* the current event's "ts" (ns) when it has a valid one */
	int64_t ts;
	bool slow_only; /* every event through cJSON (tests compare the two ways) */
	bool have_origin;
	int64_t origin; /* the earliest ts, ns */
	char origin_text[48];
	uint64_t zero_bytes, without_addr;
	cg_kineto_gpu *gpus;
	size_t ngpus;
} cg_kineto_events;

/* Starts reading into tl (borrowed) with options o; name is for messages. */
void cg_kineto_events_init(cg_kineto_events *k, cg_timeline *tl, const cg_ingest_options *o, const char *name);
void cg_kineto_events_free(cg_kineto_events *k);

/* "cuda:0", "hip:1", "cpu" for c10::DeviceType type and device index id. */
void cg_kineto_device_name(int64_t type, int64_t id, char *buf, size_t size);

/* The training phase a range name stands for, or CG_PHASE_NONE. */
cg_phase cg_kineto_phase(const char *name, size_t n);

/* Takes what cgmem reads from one event. A bad event is counted in the
 * timeline's diagnostics and skipped (fatal with strict: CG_EINPUT); other
 * negative codes are limits (CG_ELIMIT, message not set). */
int cg_kineto_events_add(cg_kineto_events *k, const cg_chrome_event *ev, cg_error *err);

/* The same through cJSON only (the events the scan declines). */
int cg_kineto_events_slow(cg_kineto_events *k, const cg_chrome_event *ev, cg_error *err);

/* Takes the fields of event ordinal (read either way), as add does. */
int cg_kineto_events_take(cg_kineto_events *k, const cg_kineto_fields *f, uint32_t ordinal, cg_error *err);

#endif
