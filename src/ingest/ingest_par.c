/* Parallel ingest: a reader thread reads (and inflates) blocks of lines,
 * parse threads turn each block into a shard (a small unfinalized timeline
 * with its own strings), and the calling thread appends the shards to the
 * result in file order (tlmerge.c). The result is the one a single thread
 * gets: a shard that could not be merged exactly (a second meta record, a
 * limit in reach, a strict-mode error, an overlong line) is dropped and its
 * block is read again line by line into the result, where a single thread
 * would have read it.
 *
 * Blocks and shards live in a ring of slots, each slot going
 * EMPTY -> FILLED (reader) -> PARSING -> PARSED (a parse thread) -> EMPTY
 * (merged). The ring bounds memory: at most nslots blocks are in flight. */
#include "ingest_par.h"

#include <pthread.h>
#include <string.h>

#include "devgroup.h"
#include "membudget.h"
#include "tlmerge.h"
#include "xalloc.h"

enum { EMPTY, FILLED, PARSING, PARSED };

typedef struct slot {
	int state;
	cg_block block;
	cg_timeline *shard;
	bool replay; /* merge by reading the block again into the result */
} slot;

typedef struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* any state change; few threads, so broadcast */
	slot *slots;
	size_t nslots;
	uint64_t next_fill, next_parse, next_merge;
	bool reader_done;
	int reader_rc;
	cg_error reader_err;
	uint64_t bytes_in;
	bool stop;
	cg_reader *r;
	const cg_jsonl_ctx *ctx;
} pipeline;

typedef struct worker {
	pipeline *pl;
	pthread_t thread;
	cg_jsonl_parser *parser;
} worker;

static void *reader_main(void *arg)
{
	pipeline *pl = arg;
	for (;;) {
		pthread_mutex_lock(&pl->mu);
		slot *s = &pl->slots[pl->next_fill % pl->nslots];
		while (!pl->stop && s->state != EMPTY)
			pthread_cond_wait(&pl->cv, &pl->mu);
		bool stop = pl->stop;
		pthread_mutex_unlock(&pl->mu);
		if (stop)
			return NULL;

		/* The slot's old buffer goes back to the reader, which reuses it. */
		cg_reader_release(pl->r, &s->block);
		cg_error err = CG_ERROR_INIT;
		int rc = cg_reader_next(pl->r, &s->block, &err);

		pthread_mutex_lock(&pl->mu);
		if (rc <= 0) {
			pl->reader_done = true;
			pl->reader_rc = rc;
			pl->reader_err = err;
		} else {
			s->state = FILLED;
			pl->next_fill++;
			pl->bytes_in = cg_reader_bytes_in(pl->r);
		}
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		if (rc <= 0)
			return NULL;
	}
}

static void parse_slot(worker *w, slot *s)
{
	pipeline *pl = w->pl;
	s->replay = false;
	if (s->block.overlong) {
		/* Nothing to parse; its diagnostic is the result's to add. */
		s->replay = true;
		return;
	}
	cg_timeline_reset(s->shard);
	cg_jsonl_ctx ctx = *pl->ctx;
	ctx.tl = s->shard;
	ctx.parser = w->parser;
	ctx.give_up_bytes = 0; /* the result's to decide, in file order */
	cg_error err = CG_ERROR_INIT;
	if (cg_jsonl_block_add(&ctx, &s->block, &err) < 0)
		s->replay = true; /* the error is read again in file order */
}

static void *worker_main(void *arg)
{
	worker *w = arg;
	pipeline *pl = w->pl;
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->next_parse == pl->next_fill && !pl->reader_done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->stop || pl->next_parse == pl->next_fill)
			break;
		slot *s = &pl->slots[pl->next_parse++ % pl->nslots];
		s->state = PARSING;
		pthread_mutex_unlock(&pl->mu);
		parse_slot(w, s);
		pthread_mutex_lock(&pl->mu);
		s->state = PARSED;
		pthread_cond_broadcast(&pl->cv);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

/* total: the bytes of a plain file, 0 when not known; an array takes room
 * for at most most_bytes ahead of its records. */
static int merge_slot(cg_jsonl_ctx *ctx, slot *s, uint64_t total, uint64_t most_bytes, cg_error *err)
{
	/* A block that reaches the give-up offset while the result has no
	 * record yet is read again, which tells at which line to give up. */
	const cg_block *b = &s->block;
	uint64_t through = b->offset + b->len;
	bool reaches = cg_jsonl_gives_up_at(ctx, through);
	if (!s->replay && !reaches && cg_timeline_mergeable(ctx->tl, s->shard)) {
		/* the file's share read so far foretells the arrays' sizes */
		double scale = total > through && through ? 1.05 * (double)total / (double)through : 1.0;
		cg_timeline_merge_expecting(ctx->tl, s->shard, scale, most_bytes);
		return 0;
	}
	return cg_jsonl_block_add(ctx, &s->block, err);
}

int cg_jsonl_parallel(cg_jsonl_ctx *ctx, cg_reader *r, unsigned threads, cg_error *err)
{
	pipeline pl = {0};
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.nslots = 2 * (size_t)threads + 2;
	/* room taken ahead is address space: a quarter of what the machine
	 * could give at most, per array */
	uint64_t total = cg_reader_is_gzip(r) ? 0 : cg_reader_file_size(r), most_bytes = cg_memory_budget() / 4;
	pl.slots = cg_calloc(pl.nslots, sizeof *pl.slots);
	/* blocks bound shards; the result counts records */
	cg_timeline_limits lim = {cg_strtab_limit(ctx->tl->strings), ctx->tl->drop_ops};
	for (size_t i = 0; i < pl.nslots; i++) {
		pl.slots[i].shard = cg_timeline_new(&lim);
		cg_timeline_defer_span_ends(pl.slots[i].shard);
	}
	pl.r = r;
	pl.ctx = ctx;
	cg_timeline_split_devices(ctx->tl); /* most records need not move at finalize */

	worker *workers = cg_calloc(threads, sizeof *workers);
	pthread_t reader;
	bool reader_started = pthread_create(&reader, NULL, reader_main, &pl) == 0;
	unsigned started = 0;
	for (unsigned i = 0; i < threads && reader_started; i++) {
		workers[i].pl = &pl;
		workers[i].parser = cg_jsonl_parser_new();
		cg_jsonl_parser_set_cjson_only(workers[i].parser, ctx->o->cjson_only);
		if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
			cg_jsonl_parser_free(workers[i].parser);
			break;
		}
		started++;
	}

	int rc = 0;
	if (!reader_started || started == 0)
		rc = cg_error_set(err, CG_EIO, "%s: cannot start threads", ctx->name);
	pthread_mutex_lock(&pl.mu);
	while (rc == 0) {
		slot *s = &pl.slots[pl.next_merge % pl.nslots];
		while (s->state != PARSED && !(pl.reader_done && pl.next_merge == pl.next_fill))
			pthread_cond_wait(&pl.cv, &pl.mu);
		if (s->state != PARSED) {
			rc = pl.reader_rc < 0 ? pl.reader_rc : 0;
			if (rc < 0)
				*err = pl.reader_err;
			break;
		}
		uint64_t bytes_in = pl.bytes_in;
		pthread_mutex_unlock(&pl.mu);
		rc = merge_slot(ctx, s, total, most_bytes, err);
		cg_ingest_progress(ctx->o, bytes_in, cg_reader_file_size(r), false);
		pthread_mutex_lock(&pl.mu);
		s->state = EMPTY;
		pl.next_merge++;
		pthread_cond_broadcast(&pl.cv);
	}
	pl.stop = true;
	pthread_cond_broadcast(&pl.cv);
	pthread_mutex_unlock(&pl.mu);

	for (unsigned i = 0; i < started; i++) {
		pthread_join(workers[i].thread, NULL);
		cg_jsonl_parser_free(workers[i].parser);
	}
	if (reader_started)
		pthread_join(reader, NULL);
	cg_ingest_progress(ctx->o, cg_reader_bytes_in(r), cg_reader_file_size(r), true);
	for (size_t i = 0; i < pl.nslots; i++) {
		cg_reader_release(r, &pl.slots[i].block);
		cg_timeline_free(pl.slots[i].shard);
	}
	cg_free(pl.slots);
	cg_free(workers);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	cg_timeline_join_devices(ctx->tl, threads);
	return rc;
}
