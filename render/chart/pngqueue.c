#include "pngqueue.h"

#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "png.h"
#include "xalloc.h"

#define DEPTH 2 /* images waiting: each is 5.8 MB at 1600 x 900 */
/* Buffers kept for reuse: one being drawn, DEPTH waiting, one written. */
#define SPARES (DEPTH + 2)

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
	struct spare {
		unsigned char *data;
		size_t bytes;
	} spares[SPARES];
	size_t nspares;
};

/* What a pooled surface's pixels go back to when it is destroyed. */
typedef struct pooled {
	cg_png_queue *q;
	unsigned char *data;
	size_t bytes;
} pooled;

static const cairo_user_data_key_t pooled_key;

static void give_back(void *arg)
{
	pooled *p = arg;
	cg_png_queue *q = p->q;
	pthread_mutex_lock(&q->lock);
	if (q->nspares < SPARES) {
		q->spares[q->nspares++] = (struct spare){p->data, p->bytes};
		p->data = NULL;
	}
	pthread_mutex_unlock(&q->lock);
	cg_free(p->data);
	cg_free(p);
}

cairo_surface_t *cg_png_queue_surface(cg_png_queue *q, int width, int height)
{
	int stride = cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, width);
	if (width <= 0 || height <= 0 || stride <= 0)
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height); /* its status says why */
	size_t bytes = (size_t)stride * (size_t)height; /* both below INT_MAX */
	unsigned char *data = NULL;
	pthread_mutex_lock(&q->lock);
	for (size_t i = 0; i < q->nspares && !data; i++) {
		if (q->spares[i].bytes == bytes) {
			data = q->spares[i].data;
			q->spares[i] = q->spares[--q->nspares];
		}
	}
	pthread_mutex_unlock(&q->lock);
	if (data)
		memset(data, 0, bytes); /* as cairo's own surfaces start */
	else
		data = cg_calloc(bytes, 1);
	cairo_surface_t *s = cairo_image_surface_create_for_data(data, CAIRO_FORMAT_ARGB32, width, height, stride);
	pooled *p = cg_malloc(sizeof *p);
	*p = (pooled){q, data, bytes};
	if (cairo_surface_set_user_data(s, &pooled_key, p, give_back) != CAIRO_STATUS_SUCCESS) {
		cairo_surface_destroy(s);
		cg_free(data);
		cg_free(p);
		return cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
	}
	return s;
}

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
	for (size_t i = 0; i < q->nspares; i++)
		cg_free(q->spares[i].data);
	pthread_cond_destroy(&q->changed);
	pthread_mutex_destroy(&q->lock);
	cg_free(q);
	return rc;
}
