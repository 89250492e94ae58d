// SPDX-License-Identifier: GPL-2.0
/*
 * test_pprof.c - the heap profile builder, without root: samples with a
 * made-up address space in, a gzipped profile.proto out, read back with
 * zlib and protobuf-c as a profiler would.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include "profile.pb-c.h"
#include "export/pprof.h"

/* Two objects per pid: the executable at 0x1000 (functions every 0x100,
 * with lines), a library at 0x7f0000 (no DWARF); anything else unknown. */
static void where(void *ctx, int pid, uint64_t addr, struct mw_where *w)
{
	static char fn[8][32];
	int *calls = ctx;

	(*calls)++;
	memset(w, 0, sizeof(*w));
	w->build_id = "";
	if (addr >= 0x1000 && addr < 0x2000) {
		int i = (int)((addr - 0x1000) / 0x100) & 7;

		snprintf(fn[i], sizeof(fn[i]), "func%d", i);
		w->map_start = 0x1000;
		w->map_limit = 0x2000;
		w->map_offset = 0;
		w->object = pid == 1 ? "/srv/node" : "/srv/other";
		w->build_id = "0123abcd";
		w->function = fn[i];
		w->file = "node.c";
		w->line = 10 + i;
	} else if (addr >= 0x7f0000 && addr < 0x800000) {
		w->map_start = 0x7f0000;
		w->map_limit = 0x800000;
		w->map_offset = 0x1000;
		w->object = "/usr/lib/libx.so";
		w->function = "x_alloc";
	}
}

static Perftools__Profiles__Profile *build(const struct mw_pprof_sample *v, size_t n,
					   enum mw_pprof_kind kind, int *calls)
{
	uint8_t *out[MW_PPROF__KINDS], *gz, raw[1 << 16];
	size_t lens[MW_PPROF__KINDS], len;
	uLongf rawlen = sizeof(raw);
	z_stream z = { 0 };
	Perftools__Profiles__Profile *p;

	cr_assert_eq(pprof__build(v, n, 1700000000123456789ll, where, calls, out, lens), 0);
	gz = out[kind];
	len = lens[kind];
	free(out[!kind]);
	cr_assert(len > 18 && gz[0] == 0x1f && gz[1] == 0x8b, "gzip magic");
	cr_assert_eq(inflateInit2(&z, 15 + 16), Z_OK);
	z.next_in = gz;
	z.avail_in = (uInt)len;
	z.next_out = raw;
	z.avail_out = (uInt)rawlen;
	cr_assert_eq(inflate(&z, Z_FINISH), Z_STREAM_END, "one gzip member");
	rawlen = z.total_out;
	inflateEnd(&z);
	free(gz);
	p = perftools__profiles__profile__unpack(NULL, rawlen, raw);
	cr_assert(p, "protobuf-c unpacks it");
	return p;
}

static const char *s(const Perftools__Profiles__Profile *p, int64_t i)
{
	cr_assert(i >= 0 && (size_t)i < p->n_string_table, "string %lld in the table", (long long)i);
	return p->string_table[i];
}

static const Perftools__Profiles__Location *loc(const Perftools__Profiles__Profile *p,
						uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	cr_assert_fail("location %llu", (unsigned long long)id);
	return NULL;
}

static const Perftools__Profiles__Function *fun(const Perftools__Profiles__Profile *p,
						uint64_t id)
{
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	cr_assert_fail("function %llu", (unsigned long long)id);
	return NULL;
}

Test(pprof, header__go_heap_convention)
{
	static const uint64_t a[] = { 0x1010 };
	struct mw_pprof_sample v[] = { { 1, a, 1, NULL, 3, 300, 2, 200 } };
	int calls = 0;
	Perftools__Profiles__Profile *p = build(v, 1, MW_PPROF_HEAP, &calls);
	static const char *const types[][2] = {
		{ "alloc_objects", "count" }, { "alloc_space", "bytes" },
		{ "inuse_objects", "count" }, { "inuse_space", "bytes" },
	};

	cr_assert_eq(p->n_sample_type, 4);
	for (int i = 0; i < 4; i++) {
		cr_expect_str_eq(s(p, p->sample_type[i]->type), types[i][0]);
		cr_expect_str_eq(s(p, p->sample_type[i]->unit), types[i][1]);
	}
	cr_expect_str_eq(s(p, 0), "", "string 0 is empty");
	cr_expect_str_eq(s(p, p->period_type->type), "space");
	cr_expect_str_eq(s(p, p->period_type->unit), "bytes");
	cr_expect_eq(p->period, 1, "exact, not sampled");
	cr_expect_eq(p->time_nanos, 1700000000123456789ll);
	cr_expect_str_eq(s(p, p->default_sample_type), "inuse_space");
	perftools__profiles__profile__free_unpacked(p, NULL);

	p = build(v, 1, MW_PPROF_ALLOCS, &calls);
	cr_expect_str_eq(s(p, p->default_sample_type), "alloc_space", "allocs: as Go's");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

Test(pprof, samples__values_pids_locations_shared)
{
	static const uint64_t site1[] = { 0x1010 }, site2[] = { 0x1210 };
	static const uint64_t stack[] = { 0x7f0040, 0x1010, 0x1310 };	/* leaf first */
	struct mw_pprof_sample v[] = {
		{ 1, site1, 1, NULL, 10, 640, 4, 256 },
		{ 1, site2, 1, NULL, 1, 24, 1, 24 },
		{ 1, stack, 3, NULL, 7, 700, 0, 0 },
		{ 2, site1, 1, NULL, 5, 50, 5, 50 },	/* same address, another pid */
		{ 1, NULL, 0, "[unattributed]", 0, 0, 3, 96 },
	};
	int calls = 0;
	Perftools__Profiles__Profile *p = build(v, 5, MW_PPROF_HEAP, &calls);
	const Perftools__Profiles__Location *l;
	const Perftools__Profiles__Mapping *m;

	cr_assert_eq(p->n_sample, 5);
	for (size_t i = 0; i < 5; i++) {
		const Perftools__Profiles__Sample *x = p->sample[i];

		cr_assert_eq(x->n_value, 4);
		cr_expect_eq(x->value[0], v[i].alloc_objects, "sample %zu alloc_objects", i);
		cr_expect_eq(x->value[1], v[i].alloc_space, "sample %zu alloc_space", i);
		cr_expect_eq(x->value[2], v[i].inuse_objects, "sample %zu inuse_objects", i);
		cr_expect_eq(x->value[3], v[i].inuse_space, "sample %zu inuse_space", i);
		cr_assert_eq(x->n_label, 1);
		cr_expect_str_eq(s(p, x->label[0]->key), "pid");
		cr_expect_eq(x->label[0]->num, v[i].pid, "sample %zu pid label", i);
	}
	/* 0x1010 of pid 1 is one location for samples 0 and 2 */
	cr_expect_eq(p->sample[0]->location_id[0], p->sample[2]->location_id[1]);
	cr_expect_neq(p->sample[0]->location_id[0], p->sample[3]->location_id[0],
		      "another pid's address is another location");
	cr_expect_eq(p->n_location, 6, "1010, 1210, 7f0040, 1310, pid 2's 1010, [unattributed]");
	cr_expect_eq(calls, 5, "each address resolved once");

	cr_assert_eq(p->sample[2]->n_location_id, 3, "the stack, leaf first");
	l = loc(p, p->sample[2]->location_id[0]);
	cr_expect_eq(l->address, 0x7f0040);
	cr_expect_str_eq(s(p, fun(p, l->line[0]->function_id)->name), "x_alloc");
	l = loc(p, p->sample[1]->location_id[0]);
	cr_expect_eq(l->address, 0x1210);
	cr_assert_eq(l->n_line, 1);
	cr_expect_str_eq(s(p, fun(p, l->line[0]->function_id)->name), "func2");
	cr_expect_str_eq(s(p, fun(p, l->line[0]->function_id)->filename), "node.c");
	cr_expect_eq(l->line[0]->line, 12);
	cr_assert(l->mapping_id >= 1 && l->mapping_id <= p->n_mapping);
	m = p->mapping[l->mapping_id - 1];
	cr_expect_eq(m->id, l->mapping_id);
	cr_expect_eq(m->memory_start, 0x1000);
	cr_expect_eq(m->memory_limit, 0x2000);
	cr_expect_eq(m->file_offset, 0);
	cr_expect_str_eq(s(p, m->filename), "/srv/node");
	cr_expect_str_eq(s(p, m->build_id), "0123abcd");
	cr_expect(m->has_functions && m->has_filenames && m->has_line_numbers);
	cr_expect_eq(p->n_mapping, 3, "exe of pid 1, the library, exe of pid 2");

	l = loc(p, p->sample[4]->location_id[0]);
	cr_expect_eq(l->address, 0, "a pseudo location has no address");
	cr_expect_eq(l->mapping_id, 0);
	cr_expect_str_eq(s(p, fun(p, l->line[0]->function_id)->name), "[unattributed]");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

Test(pprof, unknown_address__named_by_itself)
{
	static const uint64_t a[] = { 0xdead0000 };
	struct mw_pprof_sample v[] = { { 1, a, 1, NULL, 1, 8, 1, 8 } };
	int calls = 0;
	Perftools__Profiles__Profile *p = build(v, 1, MW_PPROF_HEAP, &calls);
	const Perftools__Profiles__Location *l = loc(p, p->sample[0]->location_id[0]);

	cr_expect_eq(l->address, 0xdead0000);
	cr_expect_eq(l->mapping_id, 0, "no mapping known");
	cr_expect_str_eq(s(p, fun(p, l->line[0]->function_id)->name), "0xdead0000");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

Test(pprof, many_sites__tables_grow_and_dedupe)
{
	enum { N = 20000 };
	static uint64_t addrs[N];
	static struct mw_pprof_sample v[N];
	int calls = 0;
	uint8_t *gz[MW_PPROF__KINDS];
	size_t len[MW_PPROF__KINDS];

	for (int i = 0; i < N; i++) {
		addrs[i] = 0x1000 + (uint64_t)(i % 4096);	/* 4096 distinct */
		v[i] = (struct mw_pprof_sample){ 1 + (i / 4096) % 2, &addrs[i], 1, NULL, 1, i, 1, i };
	}
	cr_assert_eq(pprof__build(v, N, 0, where, &calls, gz, len), 0);
	free(gz[0]);
	free(gz[1]);
	cr_expect_eq(calls, 8192, "4096 addresses in each of 2 pids, resolved once each");
}
