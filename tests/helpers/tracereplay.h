/* Test helpers of the model layer: a Chrome trace's memory counters read
 * the way Perfetto reads them, against the timeline they were written from.
 * Perfetto keeps one track per process, counter name and args key, and a
 * track holds its last value until a sample with that key arrives: a key
 * left out of a sample shows its old bytes. */
#ifndef CG_TRACEREPLAY_H
#define CG_TRACEREPLAY_H

#include "testutil.h"

#include "timeline.h"

typedef struct tu_replay_result {
	size_t samples;	  /* "live memory" and "live memory by category" events */
	size_t stale;	  /* of them, those after which a track of theirs shows other bytes than tl */
	size_t stale_tracks; /* the tracks wrong after them, summed over the samples */
	char first[512];  /* the first stale one, said for a failure message ("" when none) */
} tu_replay_result;

/* Replays the counter events of trace (the whole document) in file order
 * and, after each live-memory sample at time t, compares every track of
 * its counter (a key never written is a track that shows nothing: 0) with
 * tl's live bytes (in all, by category) after one of its records at t
 * (before them when it has none at t). The record is the one whose bytes
 * match the keys the sample does write: the sample says which moment it
 * is, the tracks show what the user sees then. Processes map to devices by
 * their process_name "memory: DEVICE". A sample whose own keys match no
 * moment at t fails the test at once. */
void tu_replay_counters(cJSON *trace, const cg_timeline *tl, tu_replay_result *r);

/* Reads a gzip (or plain) JSON file with zlib and parses it; asserts it parses. */
cJSON *tu_json_gz_file(const char *path);

#endif
