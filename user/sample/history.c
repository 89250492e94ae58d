// SPDX-License-Identifier: GPL-2.0
/*
 * history.c - the bounded history. Each target's rows sit in a list of
 * chunks of MW_HIST_CHUNK_SAMPLES rows, oldest chunk first; a row is its
 * values, 8 bytes a column, and a bit a column for the empty ones, never
 * text. Memory is counted in chunks: a target at its --history N drops
 * its oldest row for each new one (a ring), and when all targets together
 * reach the total cap the oldest chunk of all (the first made, whoever
 * holds it) is freed for the new one. A week-long run's memory stays flat.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "sample/history.h"

struct mw_hist_chunk {
	struct mw_hist_chunk *next;	/* the next newer one */
	uint64_t seq;			/* when it was made: the oldest is the least */
	uint8_t samples[];		/* MW_HIST_CHUNK_SAMPLES rows */
};

struct mw_hist_ring {
	pid_t pid;			/* 0: holds nothing */
	struct mw_hist_chunk *oldest, *newest;
	size_t first;			/* the oldest row's index in oldest */
	size_t used;			/* rows written in newest */
	size_t n;
};

struct mw_hist {
	pthread_mutex_t lock;		/* the main loop adds, HTTP copies */
	struct mw_columns cols;
	size_t sample_bytes, chunk_bytes;
	size_t per_target;
	size_t max_chunks, nchunks;
	uint64_t seq;
	struct mw_hist_ring *rings;	/* by slot */
	int nslots;
};

struct mw_hist *history__new(const struct mw_layout *l, size_t per_target,
			     size_t total_bytes, int nslots)
{
	struct mw_hist *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->rings = calloc((size_t)nslots, sizeof(*h->rings));
	if (!h->rings) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->lock, NULL);
	row__columns(l, &h->cols);
	h->sample_bytes = 8 * (size_t)h->cols.n + ((size_t)h->cols.n + 7) / 8;
	h->chunk_bytes = sizeof(struct mw_hist_chunk) + MW_HIST_CHUNK_SAMPLES * h->sample_bytes;
	h->max_chunks = total_bytes / h->chunk_bytes ? total_bytes / h->chunk_bytes : 1;
	h->per_target = per_target ? per_target : 1;
	h->nslots = nslots;
	return h;
}

/* ---------------------------------------------------------- one ring */

static void free_oldest_chunk(struct mw_hist *h, struct mw_hist_ring *r)
{
	struct mw_hist_chunk *c = r->oldest;
	size_t rows = (c == r->newest ? r->used : MW_HIST_CHUNK_SAMPLES) - r->first;

	r->oldest = c->next;
	r->first = 0;
	r->n -= rows;
	if (!r->oldest) {
		r->newest = NULL;
		r->used = 0;
	}
	free(c);
	h->nchunks--;
}

static void drop_oldest_row(struct mw_hist *h, struct mw_hist_ring *r)
{
	size_t end = r->oldest == r->newest ? r->used : MW_HIST_CHUNK_SAMPLES;

	if (r->first + 1 == end) {
		free_oldest_chunk(h, r);
		return;
	}
	r->first++;
	r->n--;
}

static void clear_ring(struct mw_hist *h, struct mw_hist_ring *r)
{
	while (r->oldest)
		free_oldest_chunk(h, r);
	r->pid = 0;
}

/* ---------------------------------------------------------- the cap */

/* Frees the oldest chunk any target holds. */
static void free_oldest_of_all(struct mw_hist *h)
{
	struct mw_hist_ring *victim = NULL;

	for (int i = 0; i < h->nslots; i++) {
		struct mw_hist_ring *r = &h->rings[i];

		if (r->oldest && (!victim || r->oldest->seq < victim->oldest->seq))
			victim = r;
	}
	if (victim)
		free_oldest_chunk(h, victim);
}

static struct mw_hist_chunk *new_chunk(struct mw_hist *h)
{
	struct mw_hist_chunk *c;

	if (h->nchunks >= h->max_chunks)
		free_oldest_of_all(h);
	c = malloc(h->chunk_bytes);
	if (!c)
		return NULL;
	c->next = NULL;
	c->seq = h->seq++;
	h->nchunks++;
	return c;
}

/* ---------------------------------------------------------- rows */

static void pack(const struct mw_hist *h, uint8_t *p, const struct mw_row *r)
{
	size_t nv = 8 * (size_t)h->cols.n;

	memcpy(p, r->v, nv);
	memcpy(p + nv, r->empty, ((size_t)h->cols.n + 7) / 8);
}

void history__unpack(const struct mw_hist *h, const uint8_t *buf, size_t i,
		     struct mw_row *r)
{
	const uint8_t *p = buf + i * h->sample_bytes;
	size_t nv = 8 * (size_t)h->cols.n;

	r->n = h->cols.n;
	memcpy(r->v, p, nv);
	memset(r->empty, 0, sizeof(r->empty));
	memcpy(r->empty, p + nv, ((size_t)h->cols.n + 7) / 8);
	for (int k = 0; k < h->cols.n; k++)
		r->kind[k] = (uint8_t)h->cols.col[k].kind;
}

int history__add(struct mw_hist *h, int slot, pid_t pid, const struct mw_row *row)
{
	struct mw_hist_ring *r = &h->rings[slot];
	int err = 0;

	pthread_mutex_lock(&h->lock);
	if (r->pid != pid)
		clear_ring(h, r);
	r->pid = pid;
	if (r->n >= h->per_target)
		drop_oldest_row(h, r);
	if (!r->newest || r->used == MW_HIST_CHUNK_SAMPLES) {
		struct mw_hist_chunk *c = new_chunk(h);

		if (!c) {
			err = -ENOMEM;
			goto out;
		}
		if (r->newest)		/* it may have been the one freed */
			r->newest->next = c;
		else
			r->oldest = c;
		r->newest = c;
		r->used = 0;
	}
	pack(h, r->newest->samples + r->used * h->sample_bytes, row);
	r->used++;
	r->n++;
out:
	pthread_mutex_unlock(&h->lock);
	return err;
}

void history__drop(struct mw_hist *h, int slot)
{
	pthread_mutex_lock(&h->lock);
	clear_ring(h, &h->rings[slot]);
	pthread_mutex_unlock(&h->lock);
}

/* Copies @r's rows into @out, oldest first. */
static void copy_ring(const struct mw_hist *h, const struct mw_hist_ring *r, uint8_t *out)
{
	size_t first = r->first;

	for (const struct mw_hist_chunk *c = r->oldest; c; c = c->next, first = 0) {
		size_t end = c == r->newest ? r->used : MW_HIST_CHUNK_SAMPLES;
		size_t len = (end - first) * h->sample_bytes;

		memcpy(out, c->samples + first * h->sample_bytes, len);
		out += len;
	}
}

int history__copy(struct mw_hist *h, pid_t pid, uint8_t **buf, size_t *n)
{
	int err = -ENOENT;

	*buf = NULL;
	*n = 0;
	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->nslots && err == -ENOENT; i++) {
		const struct mw_hist_ring *r = &h->rings[i];

		if (r->pid != pid || !r->n)
			continue;
		*buf = malloc(r->n * h->sample_bytes);
		if (!*buf) {
			err = -ENOMEM;
			break;
		}
		copy_ring(h, r, *buf);
		*n = r->n;
		err = 0;
	}
	pthread_mutex_unlock(&h->lock);
	return err;
}

const struct mw_columns *history__columns(const struct mw_hist *h)
{
	return &h->cols;
}

size_t history__sample_bytes(const struct mw_hist *h)
{
	return h->sample_bytes;
}

size_t history__bytes(struct mw_hist *h)
{
	size_t b;

	pthread_mutex_lock(&h->lock);
	b = h->nchunks * h->chunk_bytes;
	pthread_mutex_unlock(&h->lock);
	return b;
}

size_t history__count(struct mw_hist *h, int slot)
{
	size_t n;

	pthread_mutex_lock(&h->lock);
	n = h->rings[slot].n;
	pthread_mutex_unlock(&h->lock);
	return n;
}

size_t history__rows(struct mw_hist *h)
{
	size_t n = 0;

	pthread_mutex_lock(&h->lock);
	for (int i = 0; i < h->nslots; i++)
		n += h->rings[i].n;
	pthread_mutex_unlock(&h->lock);
	return n;
}

void history__free(struct mw_hist *h)
{
	if (!h)
		return;
	for (int i = 0; i < h->nslots; i++)
		clear_ring(h, &h->rings[i]);
	free(h->rings);
	pthread_mutex_destroy(&h->lock);
	free(h);
}
