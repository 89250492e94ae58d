// SPDX-License-Identifier: GPL-2.0
/*
 * layout.c - types known by name, checked member by member. Each
 * container's fields are found by their paths in its DWARF (the first of
 * a few, where Rust versions differ) and must be the 8-byte words the
 * walker reads.
 */
#include <dwarf.h>
#include <stdio.h>
#include <string.h>
#include "read/dwtype.h"
#include "read/layout.h"

#define MW_PTR_BYTES	8
#define MW_RB_NODE_BASE	32	/* libstdc++'s _Rb_tree_node_base */
#define MW_LIST_NODE_BASE 16	/* _List_node_base */
#define MW_HASH_NODE_BASE 8	/* _Hash_node_base: the next pointer */
#define MW_DEQUE_BUF	512	/* _GLIBCXX_DEQUE_BUF_SIZE */
#define MW_BTREE_EDGES	(MW_BTREE_CAPACITY + 1)

struct rec {
	struct mw_class_of *c;
	struct mw_shape *s;
	char *err;
	size_t len;
	char name[96];		/* the type being looked at */
};

/* false, after saying why in @r's message */
#define fail(r, ...)	({ dwtype__why((r)->err, (r)->len, __VA_ARGS__); false; })

static uint64_t align_up(uint64_t n, uint64_t a)
{
	return a ? (n + a - 1) / a * a : n;
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

int layout__lang(Dwarf_Die *t)
{
	Dwarf_Die cu;

	return dwarf_diecu(t, &cu, NULL, NULL) ? dwarf_srclang(&cu) : 0;
}

static bool is_cxx(int lang)
{
	return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
	       lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

static bool named(const char *name, const char *prefix)
{
	size_t n = strlen(prefix);

	return prefix[n - 1] == '<' ? !strncmp(name, prefix, n) : !strcmp(name, prefix);
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
		if (slot != MW_SH_LOCAL && (!dwtype__size(&m, &size) || size != 8 || off < 0 ||
					    off + 8 > MW_SHAPE_SPAN_MAX))
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

/* The element type, template parameter @param of @t, into r->c->elem:
 * its size, alignment and whether it may own memory. */
static bool element(struct rec *r, Dwarf_Die *t, const char *param)
{
	Dwarf_Die *e = &r->c->elem;

	if (!dwtype__param(t, param, e))
		return fail(r, "%s: DWARF names no element type %s", r->name, param);
	if (!dwtype__size(e, &r->s->elem_size))
		return fail(r, "%s: its elements have no size in DWARF", r->name);
	r->s->elem_align = dwtype__align(e);
	r->s->elems_own = dwtype__may_own(e);
	return true;
}

/* A container of @kind: the shape, then its fields. */
static void container(struct rec *r, enum mw_shape_kind kind)
{
	r->c->cls = MW_CLASS_CONTAINER;
	r->s->kind = kind;
}

/* The member at @path of @t: what a wrapper holds. */
static bool through(struct rec *r, Dwarf_Die *t, const char *path)
{
	int64_t off;

	if (dwtype__path(t, path, &r->c->inner, &off))
		return fail(r, "%s has no member %s where memwatch knows it: a layout it does not read",
			    r->name, path);
	r->c->cls = MW_CLASS_THROUGH;
	r->c->off = off;
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
	r->c->cls = MW_CLASS_INTEGER;
	r->s->kind = MW_SHAPE_INTEGER;
	r->s->int_size = (uint8_t)size;
	r->s->span = (uint32_t)size;
	r->s->is_signed = enc == DW_ATE_signed || enc == DW_ATE_signed_char;
	return 1;
}

/* ----------------------------------------------------------- Rust */

int layout__variants(Dwarf_Die *t, struct mw_variants *v, char *err, size_t len)
{
	struct rec r = { .err = err, .len = len };
	Dwarf_Attribute a;
	Dwarf_Die part, discr, dt, child;
	uint64_t size;
	bool found = false;

	memset(v, 0, sizeof(*v));
	dwtype__name(t, r.name, sizeof(r.name));
	if (!dwarf_child(t, &part))
		do
			found = dwarf_tag(&part) == DW_TAG_variant_part;
		while (!found && dwarf_siblingof(&part, &part) == 0);
	if (!found)
		return fail(&r, "%s: an enum with no variant part", r.name), -1;
	/* the discriminant: a member of the variant part, placed in the enum */
	if (!dwarf_attr(&part, DW_AT_discr, &a) || !dwarf_formref_die(&a, &discr) ||
	    !dwtype__offset(&discr, &v->discr_off) || !dwtype__of(&discr, &dt) ||
	    !dwtype__size(&dt, &size) || !size || size > 8)
		return fail(&r, "%s: an enum whose discriminant memwatch cannot place", r.name), -1;
	v->discr_size = (uint8_t)size;
	v->mask = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (dwarf_child(&part, &child))
		return fail(&r, "%s: an enum with no variants", r.name), -1;
	do {
		struct mw_variant *x = &v->v[v->n];
		Dwarf_Die member, field;
		Dwarf_Word w = 0;

		if (dwarf_tag(&child) != DW_TAG_variant)
			continue;
		if (v->n >= MW_VARIANTS)
			return fail(&r, "%s: an enum with more variants than memwatch reads", r.name), -1;
		if (dwarf_child(&child, &member) || dwarf_tag(&member) != DW_TAG_member ||
		    !dwtype__of(&member, &x->payload) || !dwtype__offset(&member, &x->off))
			return fail(&r, "%s: an enum whose variant memwatch cannot place", r.name), -1;
		x->valued = dwarf_attr(&child, DW_AT_discr_value, &a) && !dwarf_formudata(&a, &w);
		x->value = w & v->mask;
		if (dwarf_child(&x->payload, &field) == 0)
			do
				x->has_fields |= dwarf_tag(&field) == DW_TAG_member;
			while (!x->has_fields && dwarf_siblingof(&field, &field) == 0);
		v->n++;
	} while (dwarf_siblingof(&child, &child) == 0);
	return 0;
}

/* A std::sync::Once's state at @path of @t: complete when state & 3 is
 * 0 (the futex Once), or 3 (the queue Once before 1.71). */
static bool once(struct rec *r, Dwarf_Die *t, const char *path, const char *value)
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
		if (!through(r, t, value))
			return false;
		r->c->cls = MW_CLASS_ONCE;
		r->c->state_off = off;
		r->c->state_size = (uint8_t)size;
		r->c->complete = impls[i].complete;
		return true;
	}
	return fail(r, "%s: a Once whose state memwatch does not know", r->name);
}

/* Arc, Rc: the shared block they point at, and the value in it. */
static bool rust_shared(struct rec *r, Dwarf_Die *t, const char *value)
{
	Dwarf_Die ptr, block;
	int64_t off;

	if (dwtype__path(t, "ptr.pointer", &ptr, &off) || !dwtype__is_pointer(dwtype__peel(&ptr)) ||
	    !dwtype__of(&ptr, &block) || !dwtype__size(&block, &r->c->size) ||
	    dwtype__path(&block, value, &r->c->inner, &r->c->value_off))
		return fail(r, "%s: not the layout memwatch knows (ptr.pointer, %s)", r->name, value);
	r->c->cls = MW_CLASS_SHARED;
	r->c->off = off;
	return true;
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
	{ "Wrapping<", { "__0" } },
	{ "AtomicBool", { "v" } },
	{ "AtomicU8", { "v" } }, { "AtomicI8", { "v" } },
	{ "AtomicU16", { "v" } }, { "AtomicI16", { "v" } },
	{ "AtomicU32", { "v" } }, { "AtomicI32", { "v" } },
	{ "AtomicU64", { "v" } }, { "AtomicI64", { "v" } },
	{ "AtomicUsize", { "v" } }, { "AtomicIsize", { "v" } },
};

/* BTreeMap: its length, and the root: an Option<NodeRef> whose None is a
 * null node (NodeRef { height, node }); its nodes' layout from LeafNode's
 * DWARF, InternalNode being #[repr(C)] { LeafNode, edges: [ptr; 12] }. */
static bool rust_btree(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Die root, nref, node, leaf, m;
	struct mw_variants v;
	int64_t root_off, height, ptr, off;
	uint64_t leaf_size;
	char why[160];
	bool vals_own;
	int k;

	container(r, MW_SHAPE_RUST_BTREE);
	if (!FIELD(r, t, MW_SH_LEN, "length") || !element(r, t, "V"))
		return false;
	r->c->elem2 = r->c->elem;	/* values in elem2, keys in elem */
	r->s->elem2_size = r->s->elem_size;
	vals_own = r->s->elems_own;
	if (!element(r, t, "K"))
		return false;
	r->s->elems_own |= vals_own;
	if (dwtype__member(t, "root", &root, &root_off) ||
	    layout__variants(&root, &v, why, sizeof(why)))
		return fail(r, "%s: no root where memwatch knows it", r->name);
	for (k = 0; k < v.n && !v.v[k].has_fields; k++)
		;
	if (k == v.n || dwtype__member(&v.v[k].payload, "__0", &nref, &off) ||
	    dwtype__member(&nref, "height", &m, &height) ||
	    dwtype__path(&nref, "node.pointer", &node, &ptr) ||
	    !dwtype__is_pointer(dwtype__peel(&node)) || !dwtype__of(&node, &leaf) ||
	    !dwtype__size(&leaf, &leaf_size))
		return fail(r, "%s: a root that is not the NodeRef memwatch knows", r->name);
	off += v.v[k].off + root_off;
	r->s->f[MW_SH_HEAD] = (int32_t)(off + height);
	r->s->f[MW_SH_PTR] = (int32_t)(off + ptr);
	if ((uint32_t)r->s->f[MW_SH_HEAD] + 8 > r->s->span)
		r->s->span = (uint32_t)r->s->f[MW_SH_HEAD] + 8;
	if ((uint32_t)r->s->f[MW_SH_PTR] + 8 > r->s->span)
		r->s->span = (uint32_t)r->s->f[MW_SH_PTR] + 8;
	{
		int64_t o_len, o_keys, o_vals;

		if (dwtype__member(&leaf, "len", &m, &o_len) ||
		    dwtype__member(&leaf, "keys", &m, &o_keys) ||
		    dwtype__member(&leaf, "vals", &m, &o_vals))
			return fail(r, "%s: a LeafNode that is not the one memwatch knows", r->name);
		r->s->n_len = (uint32_t)o_len;
		r->s->n_keys = (uint32_t)o_keys;
		r->s->n_vals = (uint32_t)o_vals;
	}
	r->s->node_size = leaf_size;
	r->s->n_edges = (uint32_t)align_up(leaf_size, MW_PTR_BYTES);
	r->s->internal_size = align_up(r->s->n_edges + MW_BTREE_EDGES * MW_PTR_BYTES,
				       max_u64(dwtype__align(&leaf), MW_PTR_BYTES));
	return true;
}

/* 0: classified; -1: failed. */
static int rust_type(struct rec *r, Dwarf_Die *t, int tag, const char *name)
{
	Dwarf_Die child;

	if (dwtype__is_pointer(tag)) {
		if (name[0] == '&') {	/* a reference: read through, owned elsewhere */
			if (!dwtype__of(t, &r->c->inner))
				return fail(r, "%s: a reference to nothing", r->name), -1;
			r->c->cls = MW_CLASS_REF;
			return 0;
		}
		if (strncmp(name, "alloc::boxed::Box<", 18)) {
			r->c->cls = MW_CLASS_PLAIN;	/* a raw pointer: whose, no one says */
			return 0;
		}
		if (!dwtype__of(t, &r->c->inner) || !dwtype__size(&r->c->inner, &r->c->size))
			return fail(r, "%s: a Box of a type with no size", r->name), -1;
		r->c->cls = MW_CLASS_BOX;
		return 0;
	}
	for (size_t i = 0; i < sizeof(rust_wrappers) / sizeof(rust_wrappers[0]); i++) {
		if (!named(name, rust_wrappers[i].prefix))
			continue;
		for (int k = 0; k < 3 && rust_wrappers[i].member[k]; k++) {
			Dwarf_Die m;
			int64_t off;

			if (!dwtype__member(t, rust_wrappers[i].member[k], &m, &off))
				return through(r, t, rust_wrappers[i].member[k]) ? 0 : -1;
		}
		return fail(r, "%s: not the layout memwatch knows (no %s)", r->name,
			    rust_wrappers[i].member[0]), -1;
	}
	if (named(name, "OnceLock<"))
		return once(r, t, "once", "value") ? 0 : -1;
	if (named(name, "LazyLock<"))	/* data: UnsafeCell<union Data { value, f }> */
		return once(r, t, "once", "data.value.value") ? 0 : -1;
	if (named(name, "Arc<"))
		return rust_shared(r, t, "data") ? 0 : -1;
	if (named(name, "Rc<"))
		return rust_shared(r, t, "value") ? 0 : -1;
	if (named(name, "Vec<")) {
		container(r, MW_SHAPE_RUST_VEC);
		return FIELD(r, t, MW_SH_LEN, "len") &&
		       FIELD(r, t, MW_SH_CAP, "buf.inner.cap.__0", "buf.inner.cap", "buf.cap.__0", "buf.cap") &&
		       FIELD(r, t, MW_SH_PTR, "buf.inner.ptr", "buf.ptr") &&
		       element(r, t, "T") ? 0 : -1;
	}
	if (named(name, "VecDeque<")) {
		Dwarf_Die m;
		int64_t off;

		container(r, MW_SHAPE_RUST_DEQUE);
		if (!FIELD(r, t, MW_SH_CAP, "buf.inner.cap.__0", "buf.inner.cap", "buf.cap.__0", "buf.cap") ||
		    !FIELD(r, t, MW_SH_PTR, "buf.inner.ptr", "buf.ptr") ||
		    !FIELD(r, t, MW_SH_HEAD, "head") || !element(r, t, "T"))
			return -1;
		if (!dwtype__member(t, "len", &m, &off))	/* 1.67 on: head, len */
			return FIELD(r, t, MW_SH_LEN, "len") ? 0 : -1;
		return FIELD(r, t, MW_SH_TAIL, "tail") ? 0 : -1;	/* before: tail, head */
	}
	if (named(name, "RawTable<")) {
		container(r, MW_SHAPE_RUST_HASH);
		return FIELD(r, t, MW_SH_LEN, "table.items") &&
		       FIELD(r, t, MW_SH_CAP, "table.bucket_mask") &&
		       FIELD(r, t, MW_SH_PTR, "table.ctrl") &&
		       element(r, t, "T") ? 0 : -1;
	}
	if (named(name, "BTreeMap<"))
		return rust_btree(r, t) ? 0 : -1;
	if (tag == DW_TAG_structure_type && !dwarf_child(t, &child)) {
		do {
			if (dwarf_tag(&child) == DW_TAG_variant_part) {
				r->c->cls = MW_CLASS_ENUM;
				return 0;
			}
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	r->c->cls = dwtype__is_record(tag) && tag != DW_TAG_union_type ? MW_CLASS_RECORD :
		    tag == DW_TAG_array_type ? MW_CLASS_RECORD : MW_CLASS_PLAIN;
	return 0;
}

/* ------------------------------------------------------------ C++ */

/* libstdc++'s unordered containers' node: _Hash_node_base (the next
 * pointer), the value, and the cached hash code when the traits say so. */
static bool cxx_hash(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Die traits;
	char tn[160];
	uint64_t n;
	bool cache;

	container(r, MW_SHAPE_CXX_HASH);
	if (!FIELD(r, t, MW_SH_LEN, "_M_element_count") || !FIELD(r, t, MW_SH_CAP, "_M_bucket_count") ||
	    !FIELD(r, t, MW_SH_PTR, "_M_buckets") || !FIELD(r, t, MW_SH_LOCAL, "_M_single_bucket") ||
	    !FIELD(r, t, MW_SH_NEXT, "_M_before_begin._M_nxt") || !element(r, t, "_Value"))
		return false;
	if (!dwtype__param(t, "_Traits", &traits) ||
	    strncmp(dwtype__name(&traits, tn, sizeof(tn)), "_Hashtable_traits<", 18))
		return fail(r, "%s: no _Hashtable_traits to tell its node's size", r->name);
	cache = !strncmp(tn + 18, "true", 4);
	r->s->val_off = (uint32_t)align_up(MW_HASH_NODE_BASE, r->s->elem_align);
	n = r->s->val_off + r->s->elem_size;
	if (cache)
		n = align_up(n, sizeof(size_t)) + sizeof(size_t);
	r->s->node_size = align_up(n, max_u64(r->s->elem_align, MW_PTR_BYTES));
	return true;
}

/* A node-based container: @base bytes of links, then the value. */
static bool cxx_nodes(struct rec *r, Dwarf_Die *t, enum mw_shape_kind kind, const char *count,
		      const char *param, uint64_t base)
{
	container(r, kind);
	if (!FIELD(r, t, MW_SH_LEN, count) || !element(r, t, param))
		return false;
	r->s->val_off = (uint32_t)align_up(base, r->s->elem_align);
	r->s->node_size = align_up(r->s->val_off + r->s->elem_size,
				   max_u64(r->s->elem_align, MW_PTR_BYTES));
	return true;
}

/* unique_ptr<T> with the default deleter: an owning pointer. */
static bool cxx_unique(struct rec *r, Dwarf_Die *t)
{
	Dwarf_Die del;
	char dn[96];

	if (!dwtype__param(t, "_Tp", &r->c->inner) ||
	    dwtype__peel(&r->c->inner) == DW_TAG_array_type || !dwtype__param(t, "_Dp", &del) ||
	    strncmp(dwtype__name(&del, dn, sizeof(dn)), "default_delete<", 15) ||
	    !dwtype__size(&r->c->inner, &r->c->size))
		return fail(r, "%s: a unique_ptr to an array or with its own deleter, which memwatch does not read",
			    r->name);
	if (!through(r, t, "_M_t._M_t._M_head_impl"))
		return false;
	dwtype__param(t, "_Tp", &r->c->inner);
	r->c->cls = MW_CLASS_BOX;
	r->c->nullable = true;
	return true;
}

static bool cxx_deque(struct rec *r, Dwarf_Die *t)
{
	uint64_t es;

	container(r, MW_SHAPE_CXX_DEQUE);
	if (!FIELD(r, t, MW_SH_PTR, "_M_impl._M_map") ||
	    !FIELD(r, t, MW_SH_CAP, "_M_impl._M_map_size") ||
	    !FIELD(r, t, MW_SH_START_CUR, "_M_impl._M_start._M_cur") ||
	    !FIELD(r, t, MW_SH_START_LAST, "_M_impl._M_start._M_last") ||
	    !FIELD(r, t, MW_SH_START_NODE, "_M_impl._M_start._M_node") ||
	    !FIELD(r, t, MW_SH_FINISH_CUR, "_M_impl._M_finish._M_cur") ||
	    !FIELD(r, t, MW_SH_FINISH_FIRST, "_M_impl._M_finish._M_first") ||
	    !FIELD(r, t, MW_SH_FINISH_NODE, "_M_impl._M_finish._M_node") ||
	    !element(r, t, "_Tp"))
		return false;
	es = r->s->elem_size;
	if (!es)
		return fail(r, "%s: a deque of empty elements", r->name);
	r->s->node_size = (es < MW_DEQUE_BUF ? MW_DEQUE_BUF / es : 1) * es;
	return true;
}

/* 0: classified; -1: failed. */
static int cxx_type(struct rec *r, Dwarf_Die *t, int tag, const char *name)
{
	if (named(name, "unordered_map<") || named(name, "unordered_set<") ||
	    named(name, "unordered_multimap<") || named(name, "unordered_multiset<"))
		return through(r, t, "_M_h") ? 0 : -1;
	if (named(name, "map<") || named(name, "set<") || named(name, "multimap<") ||
	    named(name, "multiset<"))
		return through(r, t, "_M_t") ? 0 : -1;
	if (named(name, "unique_ptr<"))
		return cxx_unique(r, t) ? 0 : -1;
	if (named(name, "shared_ptr<")) {
		if (!dwtype__param(t, "_Tp", &r->c->inner) || !dwtype__size(&r->c->inner, &r->c->size))
			return fail(r, "%s: a shared_ptr whose object has no size", r->name), -1;
		r->c->cls = MW_CLASS_SHARED_CXX;
		return 0;
	}
	if (named(name, "vector<bool"))
		return fail(r, "%s: vector<bool> packs bits, which memwatch does not read", r->name), -1;
	if (named(name, "vector<")) {
		container(r, MW_SHAPE_CXX_VECTOR);
		return FIELD(r, t, MW_SH_PTR, "_M_impl._M_start") &&
		       FIELD(r, t, MW_SH_END, "_M_impl._M_finish") &&
		       FIELD(r, t, MW_SH_STORE_END, "_M_impl._M_end_of_storage") &&
		       element(r, t, "_Tp") ? 0 : -1;
	}
	if (named(name, "basic_string<")) {
		container(r, MW_SHAPE_CXX_STRING);
		if (!FIELD(r, t, MW_SH_PTR, "_M_dataplus._M_p") ||
		    !FIELD(r, t, MW_SH_LEN, "_M_string_length") ||
		    !FIELD(r, t, MW_SH_CAP, "_M_allocated_capacity") || !element(r, t, "_CharT"))
			return -1;
		/* the local buffer shares the capacity's place */
		r->s->f[MW_SH_LOCAL] = r->s->f[MW_SH_CAP];
		r->s->elems_own = false;
		return 0;
	}
	if (named(name, "_Hashtable<"))
		return cxx_hash(r, t) ? 0 : -1;
	if (named(name, "_Rb_tree<"))
		return cxx_nodes(r, t, MW_SHAPE_CXX_TREE, "_M_impl._M_node_count", "_Val",
				 MW_RB_NODE_BASE) &&
		       FIELD(r, t, MW_SH_NEXT, "_M_impl._M_header._M_parent") ? 0 : -1;
	if (named(name, "list<"))
		return cxx_nodes(r, t, MW_SHAPE_CXX_LIST, "_M_impl._M_node._M_size", "_Tp",
				 MW_LIST_NODE_BASE) &&
		       FIELD(r, t, MW_SH_NEXT, "_M_impl._M_node._M_next") &&
		       FIELD(r, t, MW_SH_LOCAL, "_M_impl._M_node") ? 0 : -1;
	if (named(name, "deque<"))
		return cxx_deque(r, t) ? 0 : -1;
	r->c->cls = (dwtype__is_record(tag) && tag != DW_TAG_union_type) ||
		    tag == DW_TAG_array_type ? MW_CLASS_RECORD : MW_CLASS_PLAIN;
	return 0;
}

/* ------------------------------------------------------------------ */

int layout__classify(Dwarf_Die *t, int lang, struct mw_class_of *c, struct mw_shape *s,
		     char *err, size_t len)
{
	struct rec r = { .c = c, .s = s, .err = err, .len = len };
	int tag = dwtype__peel(t), got;
	const char *name = dwarf_diename(t) ? dwarf_diename(t) : "";

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < MW_SH__COUNT; i++)
		s->f[i] = -1;
	s->elem_prog = s->elem2_prog = -1;
	dwtype__name(t, r.name, sizeof(r.name));
	snprintf(s->type, sizeof(s->type), "%s", r.name);
	if (!tag)
		return fail(&r, "a value of type void"), -1;
	got = integer(&r, t);
	if (got)
		return got > 0 ? 0 : -1;
	if (lang == DW_LANG_Rust)
		return rust_type(&r, t, tag, name);
	if (is_cxx(lang) && dwtype__is_record(tag))
		return cxx_type(&r, t, tag, name);
	c->cls = (dwtype__is_record(tag) && tag != DW_TAG_union_type) || tag == DW_TAG_array_type ?
		 MW_CLASS_RECORD : MW_CLASS_PLAIN;
	return 0;
}
