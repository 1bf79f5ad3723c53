#include "pngqueue.h"

#include <pthread.h>
#include <stdbool.h>

#include "png.h"
#include "xalloc.h"

#define DEPTH 2 /* images waiting: each is 5.8 MB at 1600 x 900 */

typedef struct job {
	cairo_surface_t *image;
	char *path, *title;
	double scale;
} job;

struct cg_png_queue {
	pthread_mutex_t lock;
	pthread_cond_t changed;
	pthread_t worker;
	bool threaded, closing;
	job jobs[DEPTH];
	size_t head, count;
	int rc;	   /* the first error */
	cg_error err;
};

static void write_one(cg_png_queue *q, job j, bool locked)
{
	cg_error err = CG_ERROR_INIT;
	cg_png_image image = cg_png_image_of(j.image);
	image.title = j.title;
	image.scale = j.scale;
	int rc = cg_png_write(&image, j.path, &err);
	cairo_surface_destroy(j.image);
	cg_free(j.path);
	cg_free(j.title);
	if (!locked)
		pthread_mutex_lock(&q->lock);
	if (rc < 0 && q->rc == 0) {
		q->rc = rc;
		q->err = err;
	}
	if (!locked)
		pthread_mutex_unlock(&q->lock);
}

static void *work(void *arg)
{
	cg_png_queue *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (q->count == 0 && !q->closing)
			pthread_cond_wait(&q->changed, &q->lock);
		if (q->count == 0)
			break;
		job j = q->jobs[q->head];
		q->head = (q->head + 1) % DEPTH;
		q->count--;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->lock);
		write_one(q, j, false);
		pthread_mutex_lock(&q->lock);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

cg_png_queue *cg_png_queue_new(void)
{
	cg_png_queue *q = cg_calloc(1, sizeof *q);
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->changed, NULL);
	q->threaded = pthread_create(&q->worker, NULL, work, q) == 0;
	return q;
}

void cg_png_queue_push(cg_png_queue *q, cairo_surface_t *image, char *path, char *title, double scale)
{
	job j = {image, path, title, scale};
	if (!q->threaded) {
		write_one(q, j, true);
		return;
	}
	pthread_mutex_lock(&q->lock);
	while (q->count == DEPTH)
		pthread_cond_wait(&q->changed, &q->lock);
	q->jobs[(q->head + q->count) % DEPTH] = j;
	q->count++;
	pthread_cond_broadcast(&q->changed);
	pthread_mutex_unlock(&q->lock);
}

int cg_png_queue_finish(cg_png_queue *q, cg_error *err)
{
	if (!q)
		return 0;
	if (q->threaded) {
		pthread_mutex_lock(&q->lock);
		q->closing = true;
		pthread_cond_broadcast(&q->changed);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->worker, NULL);
	}
	int rc = q->rc;
	if (rc < 0 && err)
		*err = q->err;
	pthread_cond_destroy(&q->changed);
	pthread_mutex_destroy(&q->lock);
	cg_free(q);
	return rc;
}
