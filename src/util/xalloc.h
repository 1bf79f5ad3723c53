/* Memory allocation for cgmem: every heap allocation goes through here.
 *
 * Running out of memory is not recoverable for a command-line analyzer, so
 * these functions print a message and exit(1) instead of returning NULL
 * (cmark makes the same choice). Tests can swap in a counting allocator
 * with cg_set_allocator(). */
#ifndef CG_XALLOC_H
#define CG_XALLOC_H

#include <stddef.h>
#include <stdint.h>

#include "cgmem.h" /* cg_free is public */

typedef struct cg_allocator {
	void *(*malloc)(size_t n);
	void *(*realloc)(void *p, size_t n);
	void (*free)(void *p);
} cg_allocator;

/* Replaces the allocator; NULL restores malloc/realloc/free. */
void cg_set_allocator(const cg_allocator *a);

void *cg_malloc(size_t n);
void *cg_calloc(size_t count, size_t size);
void *cg_realloc(void *p, size_t n);
/* realloc for count * size bytes, overflow-checked. */
void *cg_reallocarray(void *p, size_t count, size_t size);
char *cg_strndup(const char *s, size_t n);
char *cg_strdup(const char *s);
/* Hands the bytes of a block from *released up to `to` back to the system
 * in whole 2 MiB pages, rounded inwards (the bytes around stay, and those
 * handed back read as zero), and moves *released on. A block being copied
 * into a new one gives its pages back as the copy passes them: a huge page
 * handed back whole is taken again by the next one faulted in, whereas the
 * pieces of a split one are not, and a page the system has not handed out
 * lately costs much more to fault in on a virtual machine. */
void cg_release_pages(uintptr_t *released, uintptr_t to);

/* Formats into a new heap string. */
char *cg_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grows *items (of elem_size each) so that it holds at least need elements;
 * *cap is updated. Doubling growth, overflow-checked. */
void cg_grow(void **items, size_t *cap, size_t need, size_t elem_size);
/* The same, never to more than most elements when need fits in them: an
 * array bounded by a limit need not double past it. */
void cg_grow_at_most(void **items, size_t *cap, size_t need, size_t elem_size, size_t most);

/* The check inline: most calls find the room there already. */
static inline void cg_grow_if_full(void **items, size_t *cap, size_t need, size_t elem_size)
{
	if (need > *cap)
		cg_grow(items, cap, need, elem_size);
}

#define CG_GROW(items, cap, need) \
	cg_grow_if_full((void **)&(items), &(cap), (need), sizeof(*(items)))

#endif
