// SPDX-License-Identifier: GPL-2.0
/*
 * expo.c - Prometheus and OpenMetrics exposition, from a table of metric
 * families. Counters follow OpenMetrics: family "x", samples "x_total";
 * in the 0.0.4 text format the family is declared under the sample name.
 * Families that have nothing to say (heap under --no-heap, estimates
 * without --size) are left out rather than reported as 0, and so are a
 * target's heap samples while its allocator probes are detached, and a
 * detached structure's samples (--max-overhead).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "export/expo.h"
#include "export/fields.h"

enum value {
	V_COUNTER, V_RSS, V_LOST, V_OVERHEAD, V_HEAP_ATTACHED, V_HEAP_SINCE,
	V_S_ELEMENTS, V_S_BYTES, V_S_ESTIMATED, V_S_INSERTS, V_S_REMOVES, V_S_UNWOUND,
	V_S_LENGTH, V_S_RETAINED, V_S_READ_ERRORS,	/* --read */
	V_S_READ_COMPLETE, V_S_ROOTS,
};

struct family {
	const struct mw_field *names;	/* fields.c */
	enum value value;
	const struct mw_counter_field *field;	/* for V_COUNTER */
	bool heap_only;		/* absent under --no-heap */
};

/* After the counters of fields.c, which come first. */
static const struct family families[] = {
	{ &mw_target_fields[MW_TF_LOST], V_LOST, NULL, false },
	{ &mw_target_fields[MW_TF_RSS], V_RSS, NULL, false },
	{ &mw_target_fields[MW_TF_OVERHEAD], V_OVERHEAD, NULL, false },
	{ &mw_target_fields[MW_TF_HEAP_ATTACHED], V_HEAP_ATTACHED, NULL, false },
	{ &mw_target_fields[MW_TF_HEAP_SINCE], V_HEAP_SINCE, NULL, true },
	{ &mw_struct_fields[MW_STF_ELEMENTS], V_S_ELEMENTS, NULL, false },
	{ &mw_struct_fields[MW_STF_BYTES], V_S_BYTES, NULL, true },
	{ &mw_struct_fields[MW_STF_ESTIMATED], V_S_ESTIMATED, NULL, false },
	{ &mw_struct_fields[MW_STF_INSERTS], V_S_INSERTS, NULL, false },
	{ &mw_struct_fields[MW_STF_REMOVES], V_S_REMOVES, NULL, false },
	{ &mw_struct_fields[MW_STF_UNWOUND], V_S_UNWOUND, NULL, false },
	{ &mw_struct_fields[MW_STF_LENGTH], V_S_LENGTH, NULL, false },
	{ &mw_struct_fields[MW_STF_RETAINED], V_S_RETAINED, NULL, false },
	{ &mw_struct_fields[MW_STF_READ_ERRORS], V_S_READ_ERRORS, NULL, false },
	{ &mw_struct_fields[MW_STF_READ_COMPLETE], V_S_READ_COMPLETE, NULL, false },
	{ &mw_struct_fields[MW_STF_ROOTS], V_S_ROOTS, NULL, false },
};

static bool is_struct(enum value v)
{
	return v >= V_S_ELEMENTS;
}

/* Whether structure @k has a family @fam at all. */
static bool struct_has(const struct family *fam, const struct mw_layout *l, int k)
{
	if (fam->value >= V_S_LENGTH)
		return l->structs[k].read != NULL;
	return fam->value != V_S_ESTIMATED || l->structs[k].size;
}

static bool family_present(const struct family *fam, const struct mw_layout *l)
{
	if (fam->heap_only && !l->heap)
		return false;
	if (!is_struct(fam->value))
		return true;
	for (int k = 0; k < l->nstructs; k++)
		if (struct_has(fam, l, k))
			return true;
	return false;
}

static void header(FILE *f, enum mw_expo fmt, const struct mw_field *fam)
{
	const char *suffix = fam->counter && fmt == MW_EXPO_PROMETHEUS ? "_total" : "";

	fprintf(f, "# HELP %s%s %s\n", fam->metric, suffix, fam->help);
	fprintf(f, "# TYPE %s%s %s\n", fam->metric, suffix, fam->counter ? "counter" : "gauge");
	if (fam->unit && fmt == MW_EXPO_OPENMETRICS)
		fprintf(f, "# UNIT %s %s\n", fam->metric, fam->unit);
}

static void sample(FILE *f, const struct mw_field *fam, const char *labels, int64_t v)
{
	fprintf(f, "%s%s{%s} %" PRId64 "\n", fam->metric, fam->counter ? "_total" : "", labels, v);
}

/* A gauge that is not a whole number. */
static void sample_double(FILE *f, const struct mw_field *fam, const char *labels, double v)
{
	fprintf(f, "%s{%s} %.6f\n", fam->metric, labels, v);
}

/* Label values (symbol names, process names): escaped as both formats say. */
static void escape(const char *in, char *out, size_t len)
{
	size_t o = 0;

	for (; *in && o + 3 < len; in++) {
		if (*in == '\\' || *in == '"') {
			out[o++] = '\\';
			out[o++] = *in;
		} else if (*in == '\n') {
			out[o++] = '\\';
			out[o++] = 'n';
		} else {
			out[o++] = *in;
		}
	}
	out[o] = '\0';
}

/* pid="N",comm="NAME", the name escaped: at most twice its length */
#define MW_WHO_MAX	(2 * 256 + 32)

/* The labels that say which process: pid, and its name (comm) when
 * known, escaped. */
static void who(const struct mw_snapshot *s, char *out, size_t len)
{
	char comm[2 * sizeof(s->comm)];

	if (!s->comm[0]) {
		snprintf(out, len, "pid=\"%d\"", (int)s->pid);
		return;
	}
	escape(s->comm, comm, sizeof(comm));
	snprintf(out, len, "pid=\"%d\",comm=\"%s\"", (int)s->pid, comm);
}

static void struct_samples(FILE *f, const struct family *fam,
			   const struct mw_layout *l, const struct mw_snapshot *s)
{
	char labels[MW_WHO_MAX + 96], id[MW_WHO_MAX];

	who(s, id, sizeof(id));
	for (int k = 0; k < l->nstructs; k++) {
		const struct mw_struct_sample *ss = &s->s[k];
		int64_t v;

		if (!struct_has(fam, l, k) || ss->detached ||
		    (fam->heap_only && !fields__heap(l, s)))
			continue;
		/* a walk that did not finish has no figure, only its error */
		if ((fam->value == V_S_LENGTH || fam->value == V_S_RETAINED) && !ss->read_complete)
			continue;
		if (fam->value == V_S_LENGTH && !ss->length_known)
			continue;	/* a struct has no length */
		switch (fam->value) {
		case V_S_ELEMENTS:	v = ss->elements; break;
		case V_S_BYTES:		v = ss->bytes; break;
		case V_S_ESTIMATED:	v = ss->estimated_bytes; break;
		case V_S_INSERTS:	v = (int64_t)ss->insert_calls; break;
		case V_S_UNWOUND:	v = (int64_t)ss->unwound_calls; break;
		case V_S_LENGTH:	v = ss->length; break;
		case V_S_RETAINED:	v = (int64_t)ss->retained_bytes; break;
		case V_S_READ_ERRORS:	v = (int64_t)ss->read_errors; break;
		case V_S_READ_COMPLETE:	v = ss->read_complete; break;
		case V_S_ROOTS:		v = ss->roots; break;
		default:		v = (int64_t)ss->remove_calls; break;
		}
		/* structure names are [A-Za-z_][A-Za-z0-9_]*: nothing to escape */
		snprintf(labels, sizeof(labels), "%s,struct=\"%s\"", id, l->structs[k].name);
		sample(f, fam->names, labels, v);
	}
}

static void target_samples(FILE *f, const struct family *fam,
			   const struct mw_layout *l, const struct mw_snapshot *s)
{
	char labels[MW_WHO_MAX + 64], id[MW_WHO_MAX];

	who(s, id, sizeof(id));
	snprintf(labels, sizeof(labels), "%s", id);
	if (fam->heap_only && !is_struct(fam->value) && !fields__heap(l, s))
		return;
	switch (fam->value) {
	case V_COUNTER:
		sample(f, fam->names, labels, fields__counter(fam->field, s));
		return;
	case V_RSS:
		sample(f, fam->names, labels, (int64_t)s->rss_bytes);
		return;
	case V_OVERHEAD:
		sample_double(f, fam->names, labels, s->overhead_percent / 100);
		return;
	case V_HEAP_ATTACHED:
		sample(f, fam->names, labels, fields__heap(l, s));
		return;
	case V_HEAP_SINCE:
		sample_double(f, fam->names, labels, s->heap_since.tv_sec + s->heap_since.tv_nsec / 1e9);
		return;
	case V_LOST:
		for (size_t r = 0; r < mw_ncounter_fields; r++) {
			const struct mw_counter_field *c = &mw_counter_fields[r];

			if (!c->reason || (c->heap && !fields__heap(l, s)))
				continue;
			snprintf(labels, sizeof(labels), "%s,reason=\"%s\"", id, c->reason);
			sample(f, fam->names, labels, (int64_t)s->c[c->counter]);
		}
		/* the kernel's skipped runs: lost_missed_probes in the CSV */
		snprintf(labels, sizeof(labels), "%s,reason=\"missed_probes\"", id);
		sample(f, fam->names, labels, (int64_t)s->lost_missed);
		return;
	default:
		struct_samples(f, fam, l, s);
	}
}

/* The top N sites of each target, and who grows each structure. */
static void site_samples(FILE *f, enum mw_expo fmt, const struct mw_layout *l,
			 const struct mw_snapshot *const *snaps, int n)
{
	char site[512], labels[MW_WHO_MAX + 640], id[MW_WHO_MAX];

	for (size_t k = 0; k < MW_SITE__COUNT; k++) {
		const struct mw_field *fam = &mw_site_fields[k];

		if (k == MW_SITE_INSERT_CALLS && !l->nstructs)
			continue;
		header(f, fmt, fam);
		for (int t = 0; t < n; t++) {
			const struct mw_sites *s = snaps[t]->sites;

			/* a detached heap's sites are stale: its structures'
			 * insert sites go on */
			if (!s || (k != MW_SITE_INSERT_CALLS && !fields__heap(l, snaps[t])))
				continue;
			who(snaps[t], id, sizeof(id));
			if (k == MW_SITE_INSERT_CALLS) {
				for (size_t i = 0; i < s->nins && i < (size_t)l->top; i++) {
					if (snaps[t]->s[s->ins[i].struct_id].detached)
						continue;	/* its counts stopped */
					escape(s->ins[i].name, site, sizeof(site));
					snprintf(labels, sizeof(labels), "%s,struct=\"%s\",site=\"%s\"",
						 id, l->structs[s->ins[i].struct_id].name, site);
					sample(f, fam, labels, (int64_t)s->ins[i].calls);
				}
				continue;
			}
			for (size_t i = 0; i < s->nrows && i < (size_t)l->top; i++) {
				const struct mw_site_row *r = &s->rows[i];

				escape(r->name, site, sizeof(site));
				snprintf(labels, sizeof(labels), "%s,site=\"%s\"", id, site);
				sample(f, fam, labels, k == MW_SITE_LIVE_BYTES ? r->live_bytes :
						       k == MW_SITE_LIVE_ALLOCS ? r->live_blocks : r->suspect);
			}
		}
	}
}

/* glibc's families only when some target has its figures. */
static bool any_glibc(const struct mw_snapshot *const *snaps, int n)
{
	for (int t = 0; t < n; t++)
		if (snaps[t]->has_glibc)
			return true;
	return false;
}

static void glibc_samples(FILE *f, enum mw_expo fmt, const struct mw_snapshot *const *snaps,
			  int n)
{
	char labels[MW_WHO_MAX];

	for (size_t k = 0; k < mw_nglibc_fields; k++) {
		const struct mw_glibc_field *g = &mw_glibc_fields[k];
		struct mw_field fam = { .metric = g->metric, .unit = g->unit, .help = g->help };

		header(f, fmt, &fam);
		for (int t = 0; t < n; t++) {
			if (!snaps[t]->has_glibc)
				continue;
			who(snaps[t], labels, sizeof(labels));
			if (g->kind == MW_G_RATIO)
				fprintf(f, "%s{%s} %.6f\n", g->metric, labels,
					snaps[t]->glibc.fragmentation);
			else
				sample(f, &fam, labels, (int64_t)fields__glibc(g, &snaps[t]->glibc));
		}
	}
}

/* One family per entry: from fields.c, then the table above. */
static void family_samples(FILE *f, enum mw_expo fmt, const struct family *fam,
			   const struct mw_layout *l, const struct mw_snapshot *const *snaps,
			   int n)
{
	if (!family_present(fam, l))
		return;
	header(f, fmt, fam->names);
	for (int t = 0; t < n; t++)
		target_samples(f, fam, l, snaps[t]);
}

int expo__write(FILE *f, enum mw_expo fmt, const struct mw_layout *l,
		const struct mw_snapshot *const *snaps, int n)
{
	for (size_t i = 0; i < mw_ncounter_fields; i++) {
		const struct mw_counter_field *c = &mw_counter_fields[i];
		struct mw_field names = { .metric = c->metric, .counter = c->counter >= 0,
					  .unit = c->unit, .help = c->help };
		struct family fam = { .names = &names, .value = V_COUNTER, .field = c,
				      .heap_only = c->heap };

		if (c->metric)
			family_samples(f, fmt, &fam, l, snaps, n);
	}
	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		family_samples(f, fmt, &families[i], l, snaps, n);
	if (l->sites)
		site_samples(f, fmt, l, snaps, n);
	if (any_glibc(snaps, n))
		glibc_samples(f, fmt, snaps, n);
	if (fmt == MW_EXPO_OPENMETRICS)
		fputs("# EOF\n", f);
	if (fflush(f) || ferror(f))
		return errno ? -errno : -EIO;
	return 0;
}
