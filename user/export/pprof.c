// SPDX-License-Identifier: GPL-2.0
/*
 * pprof.c - build a gzipped profile.proto from memwatch's sites. The
 * profile's tables (strings, mappings, functions, locations) are
 * deduplicated through one small open-addressing index, so that 10,000
 * sites cost a few milliseconds; protobuf-c packs it, zlib gzips it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "export/pprof.h"

/* ------------------------------------------------------------ the index */

/* byte-string keys to ids 1..n (0: absent) */
struct slot {
	char *key;
	size_t len;
	uint64_t id;
};

struct index {
	struct slot *v;
	size_t cap, n;
};

static uint64_t fnv(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	/* a multiply carries only upward: fold the high bits into the low
	 * ones the table uses (murmur3's finalizer) */
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return h;
}

static struct slot *find(struct index *x, const void *key, size_t len)
{
	size_t i = fnv(key, len) & (x->cap - 1);

	while (x->v[i].key && (x->v[i].len != len || memcmp(x->v[i].key, key, len)))
		i = (i + 1) & (x->cap - 1);
	return &x->v[i];
}

static int grow(struct index *x)
{
	struct index bigger = { .cap = x->cap ? x->cap * 2 : 256 };

	bigger.v = calloc(bigger.cap, sizeof(*bigger.v));
	if (!bigger.v)
		return -ENOMEM;
	for (size_t i = 0; i < x->cap; i++)
		if (x->v[i].key)
			*find(&bigger, x->v[i].key, x->v[i].len) = x->v[i];
	bigger.n = x->n;
	free(x->v);
	*x = bigger;
	return 0;
}

/* The id of @key, added as x->n + 1 if new (*@added then true). */
static int index_of(struct index *x, const void *key, size_t len, uint64_t *id, bool *added)
{
	struct slot *s;

	*added = false;
	if ((x->n + 1) * 2 > x->cap && grow(x))
		return -ENOMEM;
	s = find(x, key, len);
	if (!s->key) {
		s->key = malloc(len ? len : 1);
		if (!s->key)
			return -ENOMEM;
		memcpy(s->key, key, len);
		s->len = len;
		s->id = ++x->n;
		*added = true;
	}
	*id = s->id;
	return 0;
}

static void index_free(struct index *x)
{
	for (size_t i = 0; i < x->cap; i++)
		free(x->v[i].key);
	free(x->v);
}

/* ---------------------------------------------------------- the profile */

struct builder {
	Perftools__Profiles__Profile p;
	struct index strs, maps, funcs, locs;
	size_t cap_strs, cap_maps, cap_funcs, cap_locs;
	mw_pprof_where_fn *where;
	void *ctx;
};

/* Grows *@v (of *@cap elements of @size) to hold @n. */
static int reserve(void **v, size_t *cap, size_t n, size_t size)
{
	void *nv;
	size_t ncap;

	if (n <= *cap)
		return 0;
	ncap = *cap ? *cap * 2 : 64;
	while (ncap < n)
		ncap *= 2;
	nv = realloc(*v, ncap * size);
	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = ncap;
	return 0;
}

/* The string table index of @s ("" is 0). */
static int str(struct builder *b, const char *s, int64_t *out)
{
	uint64_t id;
	bool added;

	if (!s || !*s) {
		*out = 0;
		return 0;
	}
	if (index_of(&b->strs, s, strlen(s), &id, &added))
		return -ENOMEM;
	if (added) {
		if (reserve((void **)&b->p.string_table, &b->cap_strs, id + 1, sizeof(char *)))
			return -ENOMEM;
		b->p.string_table[id] = strdup(s);
		if (!b->p.string_table[id])
			return -ENOMEM;
		b->p.n_string_table = id + 1;
	}
	*out = (int64_t)id;
	return 0;
}

static int mapping(struct builder *b, int pid, const struct mw_where *w, uint64_t *out)
{
	Perftools__Profiles__Mapping *m;
	uint64_t key[2] = { (uint64_t)pid, w->map_start }, id;
	bool added;

	*out = 0;
	if (!w->object)
		return 0;
	if (index_of(&b->maps, key, sizeof(key), &id, &added))
		return -ENOMEM;
	*out = id;
	if (!added)
		return 0;
	if (reserve((void **)&b->p.mapping, &b->cap_maps, id, sizeof(*b->p.mapping)))
		return -ENOMEM;
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	b->p.mapping[id - 1] = m;
	b->p.n_mapping = id;
	perftools__profiles__mapping__init(m);
	m->id = id;
	m->memory_start = w->map_start;
	m->memory_limit = w->map_limit;
	m->file_offset = w->map_offset;
	m->has_functions = w->function != NULL;
	m->has_filenames = w->file != NULL;
	m->has_line_numbers = w->line > 0;
	if (str(b, w->object, &m->filename) || str(b, w->build_id, &m->build_id))
		return -ENOMEM;
	return 0;
}

static int function(struct builder *b, const char *name, const char *file, uint64_t *out)
{
	Perftools__Profiles__Function *f;
	char key[2048];
	int len = snprintf(key, sizeof(key), "%s%c%s", name, 0, file ? file : "");
	uint64_t id;
	bool added;

	if (len < 0 || (size_t)len >= sizeof(key))
		len = sizeof(key) - 1;
	if (index_of(&b->funcs, key, (size_t)len, &id, &added))
		return -ENOMEM;
	*out = id;
	if (!added)
		return 0;
	if (reserve((void **)&b->p.function, &b->cap_funcs, id, sizeof(*b->p.function)))
		return -ENOMEM;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	b->p.function[id - 1] = f;
	b->p.n_function = id;
	perftools__profiles__function__init(f);
	f->id = id;
	if (str(b, name, &f->name) || str(b, name, &f->system_name) ||
	    str(b, file, &f->filename))
		return -ENOMEM;
	return 0;
}

/* The location of @addr in @pid, or of the pseudo frame @pseudo. */
static int location(struct builder *b, int pid, uint64_t addr, const char *pseudo,
		    uint64_t *out)
{
	Perftools__Profiles__Location *l;
	Perftools__Profiles__Line *line;
	struct mw_where w = { .build_id = "" };
	uint64_t key[2] = { (uint64_t)pid, addr }, id, fid;
	char kbuf[512];
	const void *k = key;
	size_t klen = sizeof(key);
	bool added;

	if (pseudo) {
		klen = (size_t)snprintf(kbuf, sizeof(kbuf), "%d%c%s", pid, 0, pseudo);
		k = kbuf;
	}
	if (index_of(&b->locs, k, klen, &id, &added))
		return -ENOMEM;
	*out = id;
	if (!added)
		return 0;
	if (reserve((void **)&b->p.location, &b->cap_locs, id, sizeof(*b->p.location)))
		return -ENOMEM;
	l = calloc(1, sizeof(*l));
	line = calloc(1, sizeof(*line));
	if (!l || !line) {
		free(l);
		free(line);
		return -ENOMEM;
	}
	b->p.location[id - 1] = l;
	b->p.n_location = id;
	perftools__profiles__location__init(l);
	perftools__profiles__line__init(line);
	l->id = id;
	l->line = calloc(1, sizeof(*l->line));
	if (!l->line) {
		free(line);
		return -ENOMEM;
	}
	l->line[0] = line;
	l->n_line = 1;
	if (pseudo)
		return function(b, pseudo, NULL, &line->function_id);
	b->where(b->ctx, pid, addr, &w);
	l->address = addr;
	if (mapping(b, pid, &w, &l->mapping_id))
		return -ENOMEM;
	if (!w.function) {	/* no symbol: the address names it */
		snprintf(kbuf, sizeof(kbuf), "0x%llx", (unsigned long long)addr);
		return function(b, kbuf, NULL, &line->function_id);
	}
	if (function(b, w.function, w.file, &fid))
		return -ENOMEM;
	line->function_id = fid;
	line->line = w.line;
	return 0;
}

static int sample_type(struct builder *b, size_t i, const char *type, const char *unit)
{
	Perftools__Profiles__ValueType *t = calloc(1, sizeof(*t));

	if (!t)
		return -ENOMEM;
	perftools__profiles__value_type__init(t);
	b->p.sample_type[i] = t;
	return str(b, type, &t->type) || str(b, unit, &t->unit) ? -ENOMEM : 0;
}

static int sample(struct builder *b, const struct mw_pprof_sample *s, size_t i)
{
	Perftools__Profiles__Sample *out = calloc(1, sizeof(*out));
	Perftools__Profiles__Label *pid = calloc(1, sizeof(*pid));
	size_t n = s->pseudo ? 1 : s->naddrs;

	if (!out || !pid) {
		free(out);
		free(pid);
		return -ENOMEM;
	}
	b->p.sample[i] = out;
	perftools__profiles__sample__init(out);
	perftools__profiles__label__init(pid);
	out->label = calloc(1, sizeof(*out->label));
	out->location_id = calloc(n ? n : 1, sizeof(*out->location_id));
	out->value = calloc(4, sizeof(*out->value));
	if (!out->label || !out->location_id || !out->value) {
		free(pid);
		return -ENOMEM;
	}
	out->label[0] = pid;
	out->n_label = 1;
	pid->num = s->pid;
	if (str(b, "pid", &pid->key))
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		if (location(b, s->pid, s->pseudo ? 0 : s->addrs[k], s->pseudo,
			     &out->location_id[k]))
			return -ENOMEM;
		out->n_location_id = k + 1;
	}
	out->value[0] = s->alloc_objects;
	out->value[1] = s->alloc_space;
	out->value[2] = s->inuse_objects;
	out->value[3] = s->inuse_space;
	out->n_value = 4;
	return 0;
}

/* @in gzipped into *@out, *@len. */
static int gzip(const uint8_t *in, size_t n, uint8_t **out, size_t *len)
{
	z_stream z = { 0 };
	size_t cap;
	uint8_t *buf;
	int rc;

	/* the fastest level: a profile is built every interval */
	if (deflateInit2(&z, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	cap = deflateBound(&z, n) + 64;
	buf = malloc(cap);
	if (!buf) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = buf;
	z.avail_out = (uInt)cap;
	rc = deflate(&z, Z_FINISH);
	*len = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(buf);
		return -ENOMEM;
	}
	*out = buf;
	return 0;
}

/* Every table the builder allocated. protobuf-c's free_unpacked is for
 * unpacked messages (its allocator), so these are freed here. */
static void builder_free(struct builder *b)
{
	Perftools__Profiles__Profile *p = &b->p;

	for (size_t i = 0; i < p->n_sample_type; i++)
		free(p->sample_type[i]);
	free(p->sample_type);
	free(p->period_type);
	for (size_t i = 0; i < p->n_sample; i++) {
		if (!p->sample[i])
			continue;
		if (p->sample[i]->label)
			free(p->sample[i]->label[0]);
		free(p->sample[i]->label);
		free(p->sample[i]->location_id);
		free(p->sample[i]->value);
		free(p->sample[i]);
	}
	free(p->sample);
	for (size_t i = 0; i < p->n_mapping; i++)
		free(p->mapping[i]);
	free(p->mapping);
	for (size_t i = 0; i < p->n_location; i++) {
		if (p->location[i]->line)
			free(p->location[i]->line[0]);
		free(p->location[i]->line);
		free(p->location[i]);
	}
	free(p->location);
	for (size_t i = 0; i < p->n_function; i++)
		free(p->function[i]);
	free(p->function);
	for (size_t i = 1; i < p->n_string_table; i++)
		free(p->string_table[i]);
	free(p->string_table);
	index_free(&b->strs);
	index_free(&b->maps);
	index_free(&b->funcs);
	index_free(&b->locs);
}

int pprof__build(const struct mw_pprof_sample *v, size_t n, int64_t time_nanos,
		 mw_pprof_where_fn *where, void *ctx, uint8_t *out[MW_PPROF__KINDS],
		 size_t len[MW_PPROF__KINDS])
{
	static const char *const first[MW_PPROF__KINDS] = { "inuse_space", "alloc_space" };
	struct builder b = { .where = where, .ctx = ctx };
	Perftools__Profiles__Profile *p = &b.p;
	uint8_t *packed = NULL;
	int64_t dflt[MW_PPROF__KINDS];
	size_t size;
	int err = -ENOMEM;

	for (int k = 0; k < MW_PPROF__KINDS; k++) {
		out[k] = NULL;
		len[k] = 0;
	}
	perftools__profiles__profile__init(p);
	if (reserve((void **)&p->string_table, &b.cap_strs, 1, sizeof(char *)))
		goto out;
	p->string_table[0] = "";
	p->n_string_table = 1;
	p->sample_type = calloc(4, sizeof(*p->sample_type));
	p->period_type = calloc(1, sizeof(*p->period_type));
	p->sample = calloc(n ? n : 1, sizeof(*p->sample));
	if (!p->sample_type || !p->period_type || !p->sample)
		goto out;
	p->n_sample_type = 4;
	if (sample_type(&b, 0, "alloc_objects", "count") ||
	    sample_type(&b, 1, "alloc_space", "bytes") ||
	    sample_type(&b, 2, "inuse_objects", "count") ||
	    sample_type(&b, 3, "inuse_space", "bytes"))
		goto out;
	perftools__profiles__value_type__init(p->period_type);
	if (str(&b, "space", &p->period_type->type) || str(&b, "bytes", &p->period_type->unit))
		goto out;
	p->period = 1;
	p->time_nanos = time_nanos;
	for (int k = 0; k < MW_PPROF__KINDS; k++)
		if (str(&b, first[k], &dflt[k]))
			goto out;
	for (size_t i = 0; i < n; i++) {
		p->n_sample = i + 1;
		if (sample(&b, &v[i], i))
			goto out;
	}
	/* the kinds differ only in the sample type shown first */
	for (int k = 0; k < MW_PPROF__KINDS; k++) {
		p->default_sample_type = dflt[k];
		size = perftools__profiles__profile__get_packed_size(p);
		free(packed);
		packed = malloc(size ? size : 1);
		if (!packed)
			goto out;
		perftools__profiles__profile__pack(p, packed);
		if (gzip(packed, size, &out[k], &len[k]))
			goto out;
	}
	err = 0;
out:
	free(packed);
	builder_free(&b);
	if (err)
		for (int k = 0; k < MW_PPROF__KINDS; k++) {
			free(out[k]);
			out[k] = NULL;
			len[k] = 0;
		}
	return err;
}
