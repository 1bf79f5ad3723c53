#include "gzwriter.h"

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "deflate.h"
#include "parallel.h"
#include "xalloc.h"

#define DICT ((size_t)32 << 10) /* deflate's window */
#define MAX_WORKERS 8

typedef enum job_state { JOB_FREE, JOB_FILLING, JOB_QUEUED, JOB_RUNNING, JOB_DONE } job_state;

/* One block: its input follows the dictionary (the input just before it),
 * so dictionary and block are one contiguous run of bytes. */
typedef struct job {
	char *mem; /* DICT + CG_GZWRITER_BLOCK bytes; the block starts at mem + DICT */
	size_t dict_len, len;
	bool last;
	unsigned char *out;
	size_t out_len, out_cap;
	uint32_t crc;
	bool failed; /* zlib refused */
	job_state state;
} job;

/* Level 1 compresses with cgmem's encoder (deflate.h), faster than
 * zlib's level 1 and smaller; levels 2-9 with zlib. */
typedef struct worker {
	cg_gzwriter *g;
	pthread_t thread;
	cg_deflater *fast; /* level 1 */
	z_stream z;	   /* levels 2-9 */
	bool z_ready;
} worker;

struct cg_gzwriter {
	int fd;
	int level;
	pthread_mutex_t lock;
	pthread_cond_t changed;
	worker workers[MAX_WORKERS];
	unsigned nworkers; /* threads running */
	worker inline_worker; /* compresses on the caller's thread when there are none */
	bool closing;
	job *jobs;
	size_t depth;
	/* Sequence numbers of blocks: filled < queued to take < written. */
	uint64_t fill, take, write;
	uint32_t crc;
	uint64_t total;
	int err; /* first errno */
};

static void init_worker(worker *w, cg_gzwriter *g)
{
	w->g = g;
	if (g->level == 1) {
		w->fast = cg_deflater_new();
		return;
	}
	memset(&w->z, 0, sizeof w->z);
	/* Raw deflate: the gzip header and trailer are the writer's. */
	w->z_ready = deflateInit2(&w->z, g->level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) == Z_OK;
}

static void end_worker(worker *w)
{
	cg_deflater_free(w->fast);
	w->fast = NULL;
	if (w->z_ready)
		deflateEnd(&w->z);
	w->z_ready = false;
}

/* Room for a block's output: what the encoder may need. */
static size_t out_room(cg_gzwriter *g)
{
	if (g->level == 1)
		return cg_deflate_bound(CG_GZWRITER_BLOCK);
	return deflateBound(&g->inline_worker.z, CG_GZWRITER_BLOCK) + 64;
}

/* Deflates one block: reset, prime with the dictionary, compress, and end
 * with a sync flush (byte-aligned, so blocks concatenate) or, for the last
 * block, the final block of the stream. */
static void compress_job(worker *w, job *j)
{
	z_stream *z = &w->z;
	j->crc = (uint32_t)crc32(0, (const Bytef *)j->mem + DICT, (uInt)j->len);
	j->out_len = 0;
	if (w->fast) {
		j->out_len = cg_deflate_chunk(w->fast, (const unsigned char *)j->mem + DICT, j->dict_len, j->len, j->last,
					      j->out);
		return;
	}
	if (!w->z_ready || deflateReset(z) != Z_OK ||
	    (j->dict_len && deflateSetDictionary(z, (const Bytef *)j->mem + DICT - j->dict_len, (uInt)j->dict_len) != Z_OK)) {
		j->failed = true;
		return;
	}
	int flush = j->last ? Z_FINISH : Z_SYNC_FLUSH;
	z->next_in = (Bytef *)j->mem + DICT;
	z->avail_in = (uInt)j->len;
	for (;;) {
		z->next_out = j->out + j->out_len;
		z->avail_out = (uInt)(j->out_cap - j->out_len);
		int rc = deflate(z, flush);
		j->out_len = j->out_cap - z->avail_out;
		if (rc == Z_STREAM_ERROR) {
			j->failed = true;
			return;
		}
		if (z->avail_out != 0 && (flush != Z_FINISH || rc == Z_STREAM_END))
			return;
		/* deflateBound said it fits; if not, keep going in a larger buffer.
		 * Only this worker touches the job while it runs. */
		j->out_cap *= 2;
		j->out = cg_realloc(j->out, j->out_cap);
	}
}

static void *work(void *arg)
{
	worker *w = arg;
	cg_gzwriter *g = w->g;
	pthread_mutex_lock(&g->lock);
	for (;;) {
		while (g->take == g->fill && !g->closing)
			pthread_cond_wait(&g->changed, &g->lock);
		if (g->take == g->fill)
			break;
		job *j = &g->jobs[g->take++ % g->depth];
		j->state = JOB_RUNNING;
		pthread_mutex_unlock(&g->lock);
		compress_job(w, j);
		pthread_mutex_lock(&g->lock);
		j->state = JOB_DONE;
		pthread_cond_broadcast(&g->changed);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

static void write_all(cg_gzwriter *g, const void *p, size_t n)
{
	const char *c = p;
	while (n > 0 && !g->err) {
		ssize_t k = write(g->fd, c, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			g->err = errno ? errno : EIO;
			return;
		}
		c += k;
		n -= (size_t)k;
	}
}

/* Writes the oldest unwritten block once it is compressed (waiting for
 * it when wait is set; with the lock held). Returns whether it wrote. */
static bool write_oldest(cg_gzwriter *g, bool wait)
{
	if (g->write == g->fill)
		return false;
	job *j = &g->jobs[g->write % g->depth];
	while (j->state != JOB_DONE) {
		if (!wait)
			return false;
		pthread_cond_wait(&g->changed, &g->lock);
	}
	/* The block is the caller's now: write without the lock. */
	pthread_mutex_unlock(&g->lock);
	if (j->failed && !g->err)
		g->err = EIO;
	write_all(g, j->out, j->out_len);
	g->crc = (uint32_t)crc32_combine(g->crc, j->crc, (z_off_t)j->len);
	g->total += j->len;
	pthread_mutex_lock(&g->lock);
	j->state = JOB_FREE;
	g->write++;
	return true;
}

static job *slot_for_filling(cg_gzwriter *g, size_t dict_len, const char *dict_end)
{
	job *j = &g->jobs[g->fill % g->depth];
	pthread_mutex_lock(&g->lock);
	while (j->state != JOB_FREE)
		write_oldest(g, true);
	pthread_mutex_unlock(&g->lock);
	if (!j->mem) {
		j->mem = cg_malloc(DICT + CG_GZWRITER_BLOCK);
		j->out_cap = out_room(g);
		j->out = cg_malloc(j->out_cap);
	}
	if (dict_len)
		memcpy(j->mem + DICT - dict_len, dict_end - dict_len, dict_len);
	j->dict_len = dict_len;
	j->state = JOB_FILLING; /* no worker looks at it before it is queued */
	return j;
}

cg_gzwriter *cg_gzwriter_new(int fd, int level, unsigned threads)
{
	cg_gzwriter *g = cg_calloc(1, sizeof *g);
	g->fd = fd;
	g->level = level;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->changed, NULL);
	if (threads == 0) {
		/* the CPUs this process may use (affinity, cgroup quota) */
		unsigned cores = cg_cpu_count();
		threads = cores > 1 ? cores : 0;
	}
	if (threads > MAX_WORKERS)
		threads = MAX_WORKERS;
	/* Two blocks per worker keep it busy while the caller fills the next. */
	g->depth = 2 * (size_t)threads + 2;
	g->jobs = cg_calloc(g->depth, sizeof *g->jobs);
	init_worker(&g->inline_worker, g);
	for (unsigned t = 0; t < threads; t++) {
		worker *w = &g->workers[g->nworkers];
		init_worker(w, g);
		if (pthread_create(&w->thread, NULL, work, w) != 0) {
			end_worker(w);
			break;
		}
		g->nworkers++;
	}
	/* The gzip header zlib writes: no name, no time, OS Unix; the extra
	 * flags say "fastest" for level 1 and "best" for level 9. */
	unsigned char header[10] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, level == 9 ? 2 : level == 1 ? 4 : 0, 3};
	write_all(g, header, sizeof header);
	g->crc = (uint32_t)crc32(0, NULL, 0);
	slot_for_filling(g, 0, NULL);
	return g;
}

char *cg_gzwriter_block(cg_gzwriter *g)
{
	return g->jobs[g->fill % g->depth].mem + DICT;
}

/* Queues the block being filled; returns the next one. */
static char *queue(cg_gzwriter *g, size_t len, bool last)
{
	job *j = &g->jobs[g->fill % g->depth];
	j->len = len;
	j->last = last;
	/* The next block's dictionary: the last DICT bytes of input so far,
	 * which end this block (and may reach into its own dictionary). */
	size_t dict = j->dict_len + len < DICT ? j->dict_len + len : DICT;
	const char *end = j->mem + DICT + len;
	if (g->nworkers == 0)
		compress_job(&g->inline_worker, j);
	pthread_mutex_lock(&g->lock);
	j->state = g->nworkers == 0 ? JOB_DONE : JOB_QUEUED;
	g->fill++;
	pthread_cond_broadcast(&g->changed);
	/* Write what is ready, without waiting. */
	while (write_oldest(g, false))
		;
	pthread_mutex_unlock(&g->lock);
	if (last)
		return NULL;
	/* The dictionary is copied before this block can be reused: the ring
	 * holds more than one block. */
	return slot_for_filling(g, dict, end)->mem + DICT;
}

char *cg_gzwriter_push(cg_gzwriter *g, char *block, size_t len)
{
	if (g->err)
		return block; /* the file is lost anyway: drop the bytes */
	return queue(g, len, false);
}

int cg_gzwriter_finish(cg_gzwriter *g, char *block, size_t len)
{
	(void)block;
	queue(g, len, true);
	pthread_mutex_lock(&g->lock);
	while (write_oldest(g, true))
		;
	g->closing = true;
	pthread_cond_broadcast(&g->changed);
	pthread_mutex_unlock(&g->lock);
	for (unsigned t = 0; t < g->nworkers; t++) {
		pthread_join(g->workers[t].thread, NULL);
		end_worker(&g->workers[t]);
	}
	unsigned char trailer[8];
	for (int k = 0; k < 4; k++) {
		trailer[k] = (unsigned char)(g->crc >> (8 * k));
		trailer[4 + k] = (unsigned char)(g->total >> (8 * k));
	}
	write_all(g, trailer, sizeof trailer);
	int err = g->err;
	end_worker(&g->inline_worker);
	for (size_t i = 0; i < g->depth; i++) {
		cg_free(g->jobs[i].mem);
		cg_free(g->jobs[i].out);
	}
	cg_free(g->jobs);
	pthread_cond_destroy(&g->changed);
	pthread_mutex_destroy(&g->lock);
	cg_free(g);
	return err;
}
