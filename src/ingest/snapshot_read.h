/* Reading a CUDA allocator snapshot (a pickle, pickle.h) into a timeline
 * and its cg_snapshot (snapshot.h). Two halves share this state:
 * snapshot_ingest.c loads the pickle, takes the trace entries while they
 * stream past and builds the timeline's records; snapshot_tree.c reads the
 * rest of the tree (segments, blocks, settings, annotations) and turns
 * frame lists into stacks. */
#ifndef CG_SNAPSHOT_READ_H
#define CG_SNAPSHOT_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "ingest_options.h"
#include "pickle.h"
#include "prefault.h"
#include "snapshot.h"
#include "timeline.h"
#include "u64map.h"

#define CG_SNAP_ACTION_CACHE 16

/* The regions of cg_snap_reader.pf: the large arrays filled while reading. */
enum { CG_SNAP_PF_ENTRIES, CG_SNAP_PF_STACKS, CG_SNAP_PF_MEMO, CG_SNAP_PF_RECORDS };

/* A frame dict as a stack holds it: "file:line function", and whether
 * the default folding (kept_user) and --stack full (kept_full) keep it. */
typedef struct cg_snap_frame {
	cg_str str;
	bool kept_user, kept_full;
} cg_snap_frame;

typedef struct cg_snap_reader {
	cg_timeline *tl;
	cg_snapshot *s;
	cg_pickle *pk;
	const cg_ingest_options *o;
	const char *name;
	cg_prefault *pf; /* the large arrays' pages made present ahead (NULL: not) */

	/* Trace entries go straight into s->entries as they stream past:
	 * while reading, t_ns holds time_us as written and device the entry's
	 * list (into lists); entry_stack[i] is entry i's stack. */
	uint32_t *entry_stack;
	size_t entry_stack_cap;
	uint32_t *block_stack; /* block i's stack */
	uint64_t *early_bytes; /* per device: blocks from before the trace made allocations at its start */
	bool all_timed; /* every entry so far has a non-negative time_us */
	/* Lists that received trace entries, in order of first entry, with
	 * the entries each has lost to the hook (list->len counts the rest). */
	struct cg_snap_list {
		const cg_pk *list;
		uint32_t taken;
		uint64_t unknown_actions;
		uint64_t with_frames;
		uint16_t device; /* timeline device, once matched to device_traces */
		bool matched;
	} *lists;
	size_t nlists, lists_cap;
	size_t last_list;
	cg_u64map list_index; /* list node -> index + 1 */

	/* Stacks: stack k >= 1 holds frame string ids
	 * stack_frames[stack_first[k - 1] .. stack_first[k]), outermost
	 * first; stack 0 is empty. */
	cg_strtab *stack_index; /* a stack's ids as bytes -> its number (dense ids) */
	uint32_t *stack_first;
	size_t nstacks, stacks_cap;
	cg_str *stack_frames;
	size_t nstack_frames, stack_frames_cap;
	/* frame list node -> index + 1 into cached: its stack at the length
	 * it had (real files share one list among thousands of entries; a
	 * list only grows, so one of that length still has those items) */
	cg_u64map stack_cache;
	struct cg_snap_cached {
		uint32_t len, stack;
	} *cached;
	size_t ncached, cached_cap;
	cg_u64map not_utf8; /* string nodes counted in s->strings_not_utf8 */
	cg_u64map frame_cache; /* frame dict node -> index into frames + 1 */
	cg_strtab *seq_index;  /* a sequence of kept frame dict nodes (their addresses) -> id */
	uint32_t *seq_stack;   /* id -> its stack */
	size_t seq_stack_cap;
	cg_snap_frame *frames;
	size_t nframes, frames_cap;
	cg_str *scratch; /* one stack being built */
	size_t scratch_cap;

	/* device number (as in the file) -> timeline device + 1, 0: none */
	uint16_t *device_of;
	size_t device_of_cap;
	const cg_pk *action_node[CG_SNAP_ACTION_CACHE]; /* action strings seen (snapshot_ingest.c) */
	uint8_t action_code[CG_SNAP_ACTION_CACHE];
	unsigned action_next;
	uint64_t unknown_keys;
	uint64_t bad_entries; /* dicts in a trace list that could not be read */
} cg_snap_reader;

/* snapshot_tree.c */

/* The stack of frame list frames (outermost first, folded unless
 * o->stack_full): into *stack, 0 for none. Returns 0 or CG_ELIMIT. */
int cg_snap_stack_of(cg_snap_reader *x, const cg_pk *frames, uint32_t *stack);
/* Formats frame dict f as "file:line function" and interns it. */
int cg_snap_frame_str(cg_snap_reader *x, const cg_pk *f, cg_str *out);
/* Timeline device for device number n, created "cuda:N" when new. */
int cg_snap_device_of(cg_snap_reader *x, int64_t n, uint16_t *out, cg_error *err);
/* Segments and their blocks, from the root's segment list. */
int cg_snap_read_segments(cg_snap_reader *x, const cg_pk *segments, cg_error *err);
/* allocator_settings, verbatim. */
int cg_snap_read_settings(cg_snap_reader *x, const cg_pk *settings, cg_error *err);
/* Writes v as JSON text into tl's strings (depth-bounded). */
int cg_snap_json(cg_snap_reader *x, const cg_pk *v, cg_str *out);

/* snapshot_build.c */

/* From the entries and segments read: groups them by device, sets times,
 * adds the timeline's memory records, spans (stacks under annotations),
 * reserved-bytes checkpoints and OOM entries, finalizes it and sets the
 * memory from before the trace. */
int cg_snap_build(cg_snap_reader *x, const cg_pk *annotations, cg_error *err);

#endif
