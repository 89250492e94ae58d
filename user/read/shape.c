// SPDX-License-Identifier: GPL-2.0
/*
 * shape.c - the type a --read ends on, recognised by its name and then
 * checked member by member: wrappers become plan steps, containers a
 * shape. The facts come from the anchors of each layout: the Rust
 * toolchain's debugger helpers (lib/rustlib/etc/gdb_providers.py) and
 * standard library sources, and libstdc++'s pretty printers
 * (printers.py) and headers.
 */
#include <dwarf.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "read/dwtype.h"
#include "read/plan.h"
#include "read/shape.h"

#define MW_WRAPPERS	24	/* wrappers seen through, one inside another */
#define MW_PTR_BYTES	8
#define MW_RB_NODE_BASE	32	/* libstdc++'s _Rb_tree_node_base */
#define MW_LIST_NODE_BASE 16	/* _List_node_base */
#define MW_DEQUE_BUF	512	/* _GLIBCXX_DEQUE_BUF_SIZE */

struct rec {
	struct mw_plan *p;
	struct mw_shape *s;
	char *err;
	size_t len;
	bool rust, cxx;
	char name[96];		/* the type being looked at */
};

static bool fail(struct rec *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->err, r->len, fmt, ap);
	va_end(ap);
	return false;
}

static bool push(struct rec *r, struct mw_plan_step s)
{
	struct mw_plan *p = r->p;

	if (s.op == MW_PLAN_ADD && p->nsteps && p->step[p->nsteps - 1].op == MW_PLAN_ADD) {
		p->step[p->nsteps - 1].n += s.n;	/* one add for a run of members */
		return true;
	}
	if (s.op == MW_PLAN_ADD && !s.n)
		return true;
	return plan__push(p, &s) || fail(r, "%s: too many steps to read it", r->name);
}

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return a ? (n + a - 1) / a * a : n;
}

/* The member at @path in @t, as an add step; @t becomes its type. */
static bool descend(struct rec *r, Dwarf_Die *t, const char *path)
{
	Dwarf_Die m;
	int64_t off;

	if (dwtype__path(t, path, &m, &off))
		return fail(r, "%s has no member %s where memwatch knows it: a layout it does not read",
			    r->name, path);
	*t = m;
	return push(r, (struct mw_plan_step){ .op = MW_PLAN_ADD, .n = off });
}

/* The first of @paths (NULL-ended) that @t has: an 8-byte field of the
 * shape, at @slot. */
static bool field(struct rec *r, Dwarf_Die *t, enum mw_shape_field slot, const char *const *paths)
{
	for (int i = 0; paths[i]; i++) {
		Dwarf_Die m;
		int64_t off;
		uint64_t size;

		if (dwtype__path(t, paths[i], &m, &off))
			continue;
		if (!dwtype__size(&m, &size) || size != 8 || off < 0 ||
		    off + 8 > MW_SHAPE_SPAN_MAX)
			return fail(r, "%s: its %s is not the 8-byte field memwatch knows", r->name,
				    paths[i]);
		r->s->f[slot] = (int32_t)off;
		if (slot != MW_SH_LOCAL && (uint32_t)off + 8 > r->s->span)
			r->s->span = (uint32_t)off + 8;
		return true;
	}
	return fail(r, "%s has no %s where memwatch knows it: a layout it does not read", r->name,
		    paths[0]);
}

#define FIELD(r, t, slot, ...) field(r, t, slot, (const char *const[]){ __VA_ARGS__, NULL })

/* The element type, template parameter @param of @t: its size, alignment
 * and whether it may own memory. */
static bool element(struct rec *r, Dwarf_Die *t, const char *param, Dwarf_Die *elem)
{
	Dwarf_Die e;

	if (!dwtype__param(t, param, &e))
		return fail(r, "%s: DWARF names no element type %s", r->name, param);
	if (!dwtype__size(&e, &r->s->elem_size))
		return fail(r, "%s: its elements have no size in DWARF", r->name);
	r->s->elem_align = dwtype__align(&e);
	r->s->elems_own = dwtype__may_own(&e);
	if (elem)
		*elem = e;
	return true;
}

/* ------------------------------------------------------- integers */

/* 1: @t is an integer, the shape filled; 0: it is not; -1: failed. */
static int integer(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc = DW_ATE_signed;
	Dwarf_Die under;
	int tag = dwarf_tag(t), size = dwarf_bytesize(t);

	if (tag == DW_TAG_enumeration_type) {
		if (dwtype__of(t, &under) && dwtype__peel(&under) == DW_TAG_base_type &&
		    dwarf_attr(&under, DW_AT_encoding, &a))
			dwarf_formudata(&a, &enc);
	} else if (tag != DW_TAG_base_type || !dwarf_attr(t, DW_AT_encoding, &a) ||
		   dwarf_formudata(&a, &enc) ||
		   (enc != DW_ATE_signed && enc != DW_ATE_unsigned && enc != DW_ATE_signed_char &&
		    enc != DW_ATE_unsigned_char && enc != DW_ATE_boolean)) {
		return 0;
	}
	if (size != 1 && size != 2 && size != 4 && size != 8)
		return fail(r, "%s is an integer of %d bytes", r->name, size), -1;
	r->s->kind = MW_SHAPE_INTEGER;
	r->s->int_size = (uint8_t)size;
	r->s->span = (uint32_t)size;
	r->s->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return 1;
}

/* ----------------------------------------------------------- Rust */

/* Rust's enums: one variant with a payload (Option's Some), the others
 * without. The payload becomes the structure; the others read as empty. */
static bool rust_enum(struct rec *r, Dwarf_Die *t, Dwarf_Die *part)
{
	Dwarf_Attribute a;
	Dwarf_Die discr, dt, child, payload = { 0 };
	struct mw_plan_step empty = { .op = MW_PLAN_EMPTY_IF };
	int64_t var_off = 0, inner_off;
	uint64_t size, payload_value = 0;
	bool found = false, payload_valued = false;

	/* the discriminant: a member of the variant part, placed in the enum */
	if (!dwarf_attr(part, DW_AT_discr, &a) || !dwarf_formref_die(&a, &discr) ||
	    !dwtype__offset(&discr, &empty.n) || !dwtype__of(&discr, &dt) ||
	    !dwtype__size(&dt, &size) || !size || size > 8)
		return fail(r, "%s: an enum whose discriminant memwatch cannot place", r->name);
	empty.size = (uint8_t)size;
	empty.mask = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (dwarf_child(part, &child))
		return fail(r, "%s: an enum with no variants", r->name);
	do {
		Dwarf_Die member, vt, field;
		Dwarf_Word w = 0;
		bool valued, has_fields = false;

		if (dwarf_tag(&child) != DW_TAG_variant)
			continue;
		valued = dwarf_attr(&child, DW_AT_discr_value, &a) && !dwarf_formudata(&a, &w);
		if (dwarf_child(&child, &member) || dwarf_tag(&member) != DW_TAG_member ||
		    !dwtype__of(&member, &vt))
			continue;
		if (dwarf_child(&vt, &field) == 0)
			do
				has_fields |= dwarf_tag(&field) == DW_TAG_member;
			while (!has_fields && dwarf_siblingof(&field, &field) == 0);
		if (has_fields) {
			if (found)
				return fail(r, "%s: an enum with data in more than one variant; name the field to read",
					    r->name);
			if (!dwtype__offset(&member, &var_off))
				return fail(r, "%s: an enum whose variant memwatch cannot place", r->name);
			found = true;
			payload = vt;
			payload_valued = valued;
			payload_value = w;
			continue;
		}
		if (!valued)
			return fail(r, "%s: an enum whose empty variant has no value", r->name);
		if (empty.nvalues >= MW_PLAN_VALUES)
			return fail(r, "%s: an enum with more variants than memwatch reads", r->name);
		empty.values[empty.nvalues++] = w & empty.mask;
	} while (dwarf_siblingof(&child, &child) == 0);
	if (!found)
		return fail(r, "%s: an enum with no data in any variant", r->name);
	if (payload_valued) {	/* empty unless the discriminant names the payload */
		empty.unless = true;
		empty.nvalues = 1;
		empty.values[0] = payload_value & empty.mask;
	} else if (!empty.nvalues) {
		return fail(r, "%s: an enum memwatch cannot tell empty", r->name);
	}
	if (dwtype__member(&payload, "__0", t, &inner_off))
		return fail(r, "%s: an enum whose variant holds several fields; name the one to read",
			    r->name);
	return push(r, empty) && push(r, (struct mw_plan_step){ .op = MW_PLAN_ADD, .n = var_off + inner_off });
}

/* A std::sync::Once's state at @path of @t: the structure is empty unless
 * it is complete (futex Once: state & 3 == 0; queue Once before 1.71:
 * state & 3 == 3). */
static bool once_complete(struct rec *r, Dwarf_Die *t, const char *path)
{
	static const struct {
		const char *member;
		uint64_t complete;
	} impls[] = { { "state_and_queued", 0 }, { "state_and_queue", 3 } };
	char at[128];
	Dwarf_Die m;
	int64_t off;
	uint64_t size;

	for (size_t i = 0; i < sizeof(impls) / sizeof(impls[0]); i++) {
		snprintf(at, sizeof(at), "%s.inner.%s", path, impls[i].member);
		if (dwtype__path(t, at, &m, &off)) {
			snprintf(at, sizeof(at), "%s.%s", path, impls[i].member);
			if (dwtype__path(t, at, &m, &off))
				continue;
		}
		if (!dwtype__size(&m, &size) || (size != 4 && size != 8))
			break;
		return push(r, (struct mw_plan_step){ .op = MW_PLAN_EMPTY_IF, .n = off,
				.size = (uint8_t)size, .unless = true, .nvalues = 1, .mask = 3,
				.values = { impls[i].complete } });
	}
	return fail(r, "%s: a Once whose state memwatch does not know", r->name);
}

/* Arc, Rc: the shared block they point at, owned, and the value in it. */
static bool rust_shared(struct rec *r, Dwarf_Die *t, const char *value)
{
	Dwarf_Die ptr, inner;
	int64_t off;
	uint64_t size;

	if (dwtype__path(t, "ptr.pointer", &ptr, &off) || !dwtype__is_pointer(dwtype__peel(&ptr)) ||
	    !dwtype__of(&ptr, &inner) || !dwtype__size(&inner, &size))
		return fail(r, "%s: not the layout memwatch knows (ptr.pointer)", r->name);
	if (!push(r, (struct mw_plan_step){ .op = MW_PLAN_ADD, .n = off }) ||
	    !push(r, (struct mw_plan_step){ .op = MW_PLAN_OWN, .n = (int64_t)size }))
		return false;
	*t = inner;
	dwtype__name(t, r->name, sizeof(r->name));
	return descend(r, t, value);
}

/* Names that are wrappers: the member the value sits in. */
static const struct {
	const char *prefix;
	const char *member[3];
} rust_wrappers[] = {
	{ "Mutex<", { "data" } },
	{ "RwLock<", { "data" } },
	{ "ReentrantLock<", { "data" } },
	{ "RefCell<", { "value" } },
	{ "UnsafeCell<", { "value" } },
	{ "SyncUnsafeCell<", { "value" } },
	{ "Cell<", { "value" } },
	{ "ManuallyDrop<", { "value", "__0" } },
	{ "MaybeDangling<", { "value", "__0" } },
	{ "MaybeUninit<", { "value" } },
	{ "OnceCell<", { "inner" } },		/* std::cell: UnsafeCell<Option<T>> */
	{ "String", { "vec" } },
	{ "HashMap<", { "base", "table" } },	/* std's, then hashbrown's */
	{ "HashSet<", { "base", "map" } },
	{ "BTreeSet<", { "map" } },
	{ "AssertUnwindSafe<", { "__0" } },
};

static bool named(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return prefix[n - 1] == '<' ? !strncmp(name, prefix, n) : !strcmp(name, prefix);
}

/* 1: a wrapper seen through (@t is what it holds); 0: a terminal shape
 * filled; -1: failed. */
static int rust_type(struct rec *r, Dwarf_Die *t, int tag, const char *name)
{
	Dwarf_Die child;

	if (dwtype__is_pointer(tag)) {
		uint64_t size;

		if (name[0] == '&') {	/* a reference: read through, owned elsewhere */
			if (!dwtype__of(t, t))
				return fail(r, "%s: a reference to nothing", r->name), -1;
			return push(r, (struct mw_plan_step){ .op = MW_PLAN_DEREF }) ? 1 : -1;
		}
		if (strncmp(name, "alloc::boxed::Box<", 18))
			return fail(r, "%s is a raw pointer: memwatch does not know what it points at, nor who owns it",
				    r->name), -1;
		if (!dwtype__of(t, t) || !dwtype__size(t, &size))
			return fail(r, "%s: a Box of a type with no size", r->name), -1;
		if (!push(r, (struct mw_plan_step){ .op = MW_PLAN_OWN, .n = (int64_t)size }))
			return -1;
		return 1;
	}
	for (size_t i = 0; i < sizeof(rust_wrappers) / sizeof(rust_wrappers[0]); i++) {
		if (!named(name, rust_wrappers[i].prefix))
			continue;
		for (int k = 0; k < 3 && rust_wrappers[i].member[k]; k++) {
			Dwarf_Die m;
			int64_t off;

			if (!dwtype__member(t, rust_wrappers[i].member[k], &m, &off))
				return descend(r, t, rust_wrappers[i].member[k]) ? 1 : -1;
		}
		return fail(r, "%s: not the layout memwatch knows (no %s)", r->name,
			    rust_wrappers[i].member[0]), -1;
	}
	if (named(name, "OnceLock<"))
		return once_complete(r, t, "once") && descend(r, t, "value") ? 1 : -1;
	if (named(name, "LazyLock<"))	/* data: UnsafeCell<union Data { value, f }> */
		return once_complete(r, t, "once") && descend(r, t, "data.value.value") ? 1 : -1;
	if (named(name, "Arc<"))
		return rust_shared(r, t, "data") ? 1 : -1;
	if (named(name, "Rc<"))
		return rust_shared(r, t, "value") ? 1 : -1;
	if (named(name, "Vec<")) {
		r->s->kind = MW_SHAPE_RUST_VEC;
		return FIELD(r, t, MW_SH_LEN, "len") &&
		       FIELD(r, t, MW_SH_CAP, "buf.inner.cap.__0", "buf.inner.cap", "buf.cap.__0", "buf.cap") &&
		       FIELD(r, t, MW_SH_PTR, "buf.inner.ptr", "buf.ptr") &&
		       element(r, t, "T", NULL) ? 0 : -1;
	}
	if (named(name, "VecDeque<")) {
		Dwarf_Die m;
		int64_t off;

		r->s->kind = MW_SHAPE_RUST_DEQUE;
		if (!FIELD(r, t, MW_SH_CAP, "buf.inner.cap.__0", "buf.inner.cap", "buf.cap.__0", "buf.cap") ||
		    !FIELD(r, t, MW_SH_PTR, "buf.inner.ptr", "buf.ptr") ||
		    !FIELD(r, t, MW_SH_HEAD, "head") || !element(r, t, "T", NULL))
			return -1;
		if (!dwtype__member(t, "len", &m, &off))	/* 1.67 on: head, len */
			return FIELD(r, t, MW_SH_LEN, "len") ? 0 : -1;
		return FIELD(r, t, MW_SH_TAIL, "tail") ? 0 : -1;	/* before: tail, head */
	}
	if (named(name, "RawTable<")) {
		r->s->kind = MW_SHAPE_RUST_HASH;
		return FIELD(r, t, MW_SH_LEN, "table.items") &&
		       FIELD(r, t, MW_SH_CAP, "table.bucket_mask") &&
		       FIELD(r, t, MW_SH_PTR, "table.ctrl") &&
		       element(r, t, "T", NULL) ? 0 : -1;
	}
	if (named(name, "BTreeMap<")) {
		Dwarf_Die k, v;

		r->s->kind = MW_SHAPE_RUST_BTREE;
		if (!FIELD(r, t, MW_SH_LEN, "length") || !element(r, t, "K", &k) ||
		    !element(r, t, "V", &v))
			return -1;
		r->s->elems_own = dwtype__may_own(&k) || dwtype__may_own(&v);
		return 0;
	}
	/* Option and other enums with one payload */
	if (tag == DW_TAG_structure_type && !dwarf_child(t, &child)) {
		do
			if (dwarf_tag(&child) == DW_TAG_variant_part)
				return rust_enum(r, t, &child) ? 1 : -1;
		while (dwarf_siblingof(&child, &child) == 0);
	}
	return fail(r, "%s is neither an integer nor a container memwatch reads (Vec, String, VecDeque, HashMap, HashSet, BTreeMap, in Box, Arc, Rc, Option, Mutex, RwLock, RefCell, OnceLock, LazyLock); name one inside it",
		    r->name), -1;
}

/* ------------------------------------------------------------ C++ */

/* libstdc++'s unordered containers' node: _Hash_node_base (the next
 * pointer), the value, and the cached hash code when the traits say so. */
static bool cxx_hash(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Die traits;
	char tn[160];
	uint64_t al, n;
	bool cache;

	r->s->kind = MW_SHAPE_CXX_HASH;
	if (!FIELD(r, t, MW_SH_LEN, "_M_element_count") || !FIELD(r, t, MW_SH_CAP, "_M_bucket_count") ||
	    !FIELD(r, t, MW_SH_PTR, "_M_buckets") || !FIELD(r, t, MW_SH_LOCAL, "_M_single_bucket") ||
	    !element(r, t, "_Value", NULL))
		return false;
	if (!dwtype__param(t, "_Traits", &traits) ||
	    strncmp(dwtype__name(&traits, tn, sizeof(tn)), "_Hashtable_traits<", 18))
		return fail(r, "%s: no _Hashtable_traits to tell its node's size", r->name);
	cache = !strncmp(tn + 18, "true", 4);
	al = r->s->elem_align > MW_PTR_BYTES ? r->s->elem_align : MW_PTR_BYTES;
	n = align_up(MW_PTR_BYTES, r->s->elem_align) + r->s->elem_size;
	if (cache)
		n = align_up(n, sizeof(size_t)) + sizeof(size_t);
	r->s->node_size = align_up(n, al);
	return true;
}

/* A node-based container of @base bytes of links before the value. */
static bool cxx_nodes(struct rec *r, Dwarf_Die *t, const char *count, const char *param,
		      uint64_t base)
{
	uint64_t al;

	r->s->kind = MW_SHAPE_CXX_NODES;
	if (!FIELD(r, t, MW_SH_LEN, count) || !element(r, t, param, NULL))
		return false;
	al = r->s->elem_align > MW_PTR_BYTES ? r->s->elem_align : MW_PTR_BYTES;
	r->s->node_size = align_up(align_up(base, r->s->elem_align) + r->s->elem_size, al);
	return true;
}

static int cxx_type(struct rec *r, Dwarf_Die *t, const char *name)
{
	if (named(name, "unordered_map<") || named(name, "unordered_set<") ||
	    named(name, "unordered_multimap<") || named(name, "unordered_multiset<"))
		return descend(r, t, "_M_h") ? 1 : -1;
	if (named(name, "map<") || named(name, "set<") || named(name, "multimap<") ||
	    named(name, "multiset<"))
		return descend(r, t, "_M_t") ? 1 : -1;
	if (named(name, "unique_ptr<")) {
		Dwarf_Die pointee, del;
		char dn[96];
		uint64_t size;

		if (!dwtype__param(t, "_Tp", &pointee) || dwtype__peel(&pointee) == DW_TAG_array_type ||
		    !dwtype__param(t, "_Dp", &del) ||
		    strncmp(dwtype__name(&del, dn, sizeof(dn)), "default_delete<", 15) ||
		    !dwtype__size(&pointee, &size))
			return fail(r, "%s: a unique_ptr to an array or with its own deleter, which memwatch does not read",
				    r->name), -1;
		if (!descend(r, t, "_M_t._M_t._M_head_impl") ||
		    !push(r, (struct mw_plan_step){ .op = MW_PLAN_OWN, .n = (int64_t)size }))
			return -1;
		*t = pointee;
		return 1;
	}
	if (named(name, "vector<bool"))
		return fail(r, "%s: vector<bool> packs bits, which memwatch does not read", r->name), -1;
	if (named(name, "vector<")) {
		r->s->kind = MW_SHAPE_CXX_VECTOR;
		return FIELD(r, t, MW_SH_PTR, "_M_impl._M_start") &&
		       FIELD(r, t, MW_SH_END, "_M_impl._M_finish") &&
		       FIELD(r, t, MW_SH_STORE_END, "_M_impl._M_end_of_storage") &&
		       element(r, t, "_Tp", NULL) ? 0 : -1;
	}
	if (named(name, "basic_string<")) {
		r->s->kind = MW_SHAPE_CXX_STRING;
		if (!FIELD(r, t, MW_SH_PTR, "_M_dataplus._M_p") ||
		    !FIELD(r, t, MW_SH_LEN, "_M_string_length") ||
		    !FIELD(r, t, MW_SH_CAP, "_M_allocated_capacity") ||
		    !element(r, t, "_CharT", NULL))
			return -1;
		/* the local buffer shares the capacity's place */
		r->s->f[MW_SH_LOCAL] = r->s->f[MW_SH_CAP];
		return 0;
	}
	if (named(name, "_Hashtable<"))
		return cxx_hash(r, t) ? 0 : -1;
	if (named(name, "_Rb_tree<"))
		return cxx_nodes(r, t, "_M_impl._M_node_count", "_Val", MW_RB_NODE_BASE) ? 0 : -1;
	if (named(name, "list<"))
		return cxx_nodes(r, t, "_M_impl._M_node._M_size", "_Tp", MW_LIST_NODE_BASE) ? 0 : -1;
	if (named(name, "deque<")) {
		uint64_t es;

		r->s->kind = MW_SHAPE_CXX_DEQUE;
		if (!FIELD(r, t, MW_SH_PTR, "_M_impl._M_map") ||
		    !FIELD(r, t, MW_SH_CAP, "_M_impl._M_map_size") ||
		    !FIELD(r, t, MW_SH_START_CUR, "_M_impl._M_start._M_cur") ||
		    !FIELD(r, t, MW_SH_START_LAST, "_M_impl._M_start._M_last") ||
		    !FIELD(r, t, MW_SH_START_NODE, "_M_impl._M_start._M_node") ||
		    !FIELD(r, t, MW_SH_FINISH_CUR, "_M_impl._M_finish._M_cur") ||
		    !FIELD(r, t, MW_SH_FINISH_FIRST, "_M_impl._M_finish._M_first") ||
		    !FIELD(r, t, MW_SH_FINISH_NODE, "_M_impl._M_finish._M_node") ||
		    !element(r, t, "_Tp", NULL))
			return -1;
		es = r->s->elem_size;
		if (!es)
			return fail(r, "%s: a deque of empty elements", r->name), -1;
		r->s->node_size = (es < MW_DEQUE_BUF ? MW_DEQUE_BUF / es : 1) * es;
		return 0;
	}
	return fail(r, "%s is neither an integer nor a container memwatch reads (vector, string, unordered_map, unordered_set, map, set, list, deque, in unique_ptr); name one inside it",
		    r->name), -1;
}

/* ------------------------------------------------------------------ */

static void language(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Die cu;
	int lang;

	if (!dwarf_diecu(t, &cu, NULL, NULL))
		return;
	lang = dwarf_srclang(&cu);
	r->rust = lang == DW_LANG_Rust;
	r->cxx = lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
		 lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

int shape__recognize(Dwarf_Die *type, struct mw_plan *p, char *err, size_t len)
{
	struct rec r = { .p = p, .s = &p->shape, .err = err, .len = len };
	Dwarf_Die t = *type;

	memset(r.s, 0, sizeof(*r.s));
	for (int i = 0; i < MW_SH__COUNT; i++)
		r.s->f[i] = -1;
	language(&r, &t);
	for (int depth = 0; depth < MW_WRAPPERS; depth++) {
		int tag = dwtype__peel(&t), got;
		const char *name = dwarf_diename(&t) ? dwarf_diename(&t) : "";

		dwtype__name(&t, r.name, sizeof(r.name));
		snprintf(r.s->type, sizeof(r.s->type), "%s", r.name);
		if (!tag)
			return fail(&r, "it names a value of type void"), -1;
		got = integer(&r, &t);
		if (got)
			return got > 0 ? 0 : -1;
		if (r.rust)
			got = rust_type(&r, &t, tag, name);
		else if (r.cxx && dwtype__is_record(tag))
			got = cxx_type(&r, &t, name);
		else
			return fail(&r, "names %s, which is no integer: memwatch reads an integer there, or a Rust or C++ container",
				    r.name), -1;
		if (got <= 0)
			return got;
	}
	return fail(&r, "%s: more wrappers than memwatch follows", r.name), -1;
}

const char *shape__kind_name(enum mw_shape_kind kind)
{
	static const char *const names[MW_SHAPE__COUNT] = {
		[MW_SHAPE_INTEGER] = "an integer",
		[MW_SHAPE_RUST_VEC] = "a Vec",
		[MW_SHAPE_RUST_DEQUE] = "a VecDeque",
		[MW_SHAPE_RUST_HASH] = "a HashMap",
		[MW_SHAPE_RUST_BTREE] = "a BTreeMap",
		[MW_SHAPE_CXX_VECTOR] = "a std::vector",
		[MW_SHAPE_CXX_STRING] = "a std::string",
		[MW_SHAPE_CXX_HASH] = "an unordered container",
		[MW_SHAPE_CXX_NODES] = "a node container",
		[MW_SHAPE_CXX_DEQUE] = "a std::deque",
	};

	return kind < MW_SHAPE__COUNT ? names[kind] : "?";
}
