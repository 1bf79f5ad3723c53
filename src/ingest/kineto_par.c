/* Blocks of events live in a ring of slots, each going EMPTY -> FILLED
 * (reader thread) -> PARSING -> PARSED (a parse thread) -> EMPTY (taken by
 * the calling thread), as in ingest_par.c. The ring bounds memory: at most
 * nslots blocks of about BLOCK_BYTES (and their fields) are in flight. The reader thread alone
 * touches the stream and the reader until it is done. */
#include "kineto_par.h"

#include <pthread.h>
#include <string.h>

#include "xalloc.h"

/* Big enough that the locking is rare, small enough that the threads
 * start early and memory stays small. */
#define BLOCK_BYTES ((size_t)256 << 10)
#define BLOCK_EVENTS 1024

enum { EMPTY, FILLED, PARSING, PARSED };

typedef struct slot {
	int state;
	char *bytes; /* the events' text, one after another */
	size_t nbytes, bytes_cap;
	cg_chrome_event *evs; /* data an offset into bytes until the block is filled */
	cg_kineto_fields *fields;
	bool *fast;
	size_t nev, ev_cap;
	uint64_t bytes_in; /* of the reader, once the block was filled */
} slot;

typedef struct pipeline {
	pthread_mutex_t mu;
	pthread_cond_t cv; /* any state change; few threads, so broadcast */
	slot *slots;
	size_t nslots;
	uint64_t next_fill, next_parse, next_take;
	bool reader_done;
	int reader_rc;
	cg_error reader_err;
	bool stop;
	bool fast;
	cg_chrome_stream *s;
	cg_reader *r;
} pipeline;

/* Fills s with events from the stream; returns the stream's last code
 * (1: the block is full and there is more). */
static int fill(pipeline *pl, slot *s, cg_error *err)
{
	s->nbytes = 0;
	s->nev = 0;
	int rc;
	cg_chrome_event ev;
	while (s->nbytes < BLOCK_BYTES && s->nev < BLOCK_EVENTS) {
		if ((rc = cg_chrome_stream_next(pl->s, &ev, err)) <= 0)
			return rc;
		if (s->nev == s->ev_cap) {
			s->ev_cap = s->ev_cap ? 2 * s->ev_cap : 1024;
			s->evs = cg_realloc(s->evs, s->ev_cap * sizeof *s->evs);
			s->fields = cg_realloc(s->fields, s->ev_cap * sizeof *s->fields);
			s->fast = cg_realloc(s->fast, s->ev_cap * sizeof *s->fast);
		}
		if (!ev.overlong) {
			CG_GROW(s->bytes, s->bytes_cap, s->nbytes + ev.len + 1);
			memcpy(s->bytes + s->nbytes, ev.data, ev.len);
			ev.data = (const char *)(uintptr_t)s->nbytes;
			s->nbytes += ev.len;
		}
		s->evs[s->nev++] = ev;
	}
	return 1;
}

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

		cg_error err = CG_ERROR_INIT;
		int rc = fill(pl, s, &err);
		/* offsets into pointers, now that bytes has stopped moving */
		for (size_t i = 0; i < s->nev; i++)
			if (!s->evs[i].overlong)
				s->evs[i].data = s->bytes + (uintptr_t)s->evs[i].data;
		s->bytes_in = cg_reader_bytes_in(pl->r);

		pthread_mutex_lock(&pl->mu);
		if (s->nev > 0) {
			s->state = FILLED;
			pl->next_fill++;
		}
		if (rc <= 0) {
			pl->reader_done = true;
			pl->reader_rc = rc;
			pl->reader_err = err;
		}
		pthread_cond_broadcast(&pl->cv);
		pthread_mutex_unlock(&pl->mu);
		if (rc <= 0)
			return NULL;
	}
}

static void parse(const pipeline *pl, slot *s)
{
	for (size_t i = 0; i < s->nev; i++) {
		const cg_chrome_event *ev = &s->evs[i];
		s->fast[i] = pl->fast && !ev->overlong && cg_kineto_fields_fast(ev->data, ev->len, &s->fields[i]);
	}
}

static void *worker_main(void *arg)
{
	pipeline *pl = arg;
	pthread_mutex_lock(&pl->mu);
	for (;;) {
		while (!pl->stop && pl->next_parse == pl->next_fill && !pl->reader_done)
			pthread_cond_wait(&pl->cv, &pl->mu);
		if (pl->stop || pl->next_parse == pl->next_fill)
			break;
		slot *s = &pl->slots[pl->next_parse++ % pl->nslots];
		s->state = PARSING;
		pthread_mutex_unlock(&pl->mu);
		parse(pl, s);
		pthread_mutex_lock(&pl->mu);
		s->state = PARSED;
		pthread_cond_broadcast(&pl->cv);
	}
	pthread_mutex_unlock(&pl->mu);
	return NULL;
}

static int take(const slot *s, cg_kineto_each each, void *ctx, cg_error *err)
{
	for (size_t i = 0; i < s->nev; i++) {
		int rc = each(ctx, &s->evs[i], s->fast[i] ? &s->fields[i] : NULL, err);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int cg_kineto_read_parallel(cg_chrome_stream *cs, cg_reader *r, const cg_ingest_options *o, unsigned workers,
			    bool fast, cg_kineto_each each, void *ctx, cg_error *err)
{
	pipeline pl = {0};
	pthread_mutex_init(&pl.mu, NULL);
	pthread_cond_init(&pl.cv, NULL);
	pl.nslots = (size_t)workers + 2;
	pl.slots = cg_calloc(pl.nslots, sizeof *pl.slots);
	pl.fast = fast;
	pl.s = cs;
	pl.r = r;

	pthread_t *threads = cg_calloc(workers, sizeof *threads);
	pthread_t reader;
	bool reader_started = pthread_create(&reader, NULL, reader_main, &pl) == 0;
	unsigned started = 0;
	for (unsigned i = 0; i < workers && reader_started; i++, started++)
		if (pthread_create(&threads[i], NULL, worker_main, &pl) != 0)
			break;

	int rc = 0;
	if (!reader_started || started == 0)
		rc = cg_error_set(err, CG_EIO, "%s: cannot start threads", cg_reader_name(r));
	pthread_mutex_lock(&pl.mu);
	while (rc == 0) {
		slot *s = &pl.slots[pl.next_take % pl.nslots];
		while (s->state != PARSED && !(pl.reader_done && pl.next_take == pl.next_fill))
			pthread_cond_wait(&pl.cv, &pl.mu);
		if (s->state != PARSED) {
			rc = pl.reader_rc < 0 ? pl.reader_rc : 0;
			if (rc < 0)
				*err = pl.reader_err;
			break;
		}
		pthread_mutex_unlock(&pl.mu);
		rc = take(s, each, ctx, err);
		if (s->bytes_cap > 4 * BLOCK_BYTES) { /* one very long event: not kept for later blocks */
			cg_free(s->bytes);
			s->bytes = NULL;
			s->bytes_cap = 0;
		}
		cg_ingest_progress(o, s->bytes_in, cg_reader_file_size(r), false);
		pthread_mutex_lock(&pl.mu);
		s->state = EMPTY;
		pl.next_take++;
		pthread_cond_broadcast(&pl.cv);
	}
	pl.stop = true;
	pthread_cond_broadcast(&pl.cv);
	pthread_mutex_unlock(&pl.mu);

	for (unsigned i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	if (reader_started)
		pthread_join(reader, NULL);
	for (size_t i = 0; i < pl.nslots; i++) {
		cg_free(pl.slots[i].bytes);
		cg_free(pl.slots[i].evs);
		cg_free(pl.slots[i].fields);
		cg_free(pl.slots[i].fast);
	}
	cg_free(pl.slots);
	cg_free(threads);
	pthread_cond_destroy(&pl.cv);
	pthread_mutex_destroy(&pl.mu);
	return rc;
}
