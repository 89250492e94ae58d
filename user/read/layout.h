/* SPDX-License-Identifier: GPL-2.0 */
/*
 * layout.h - what a type is to a walk, known by its name and then checked
 * member by member against its DWARF: an integer; a wrapper whose value
 * sits at an offset (Mutex, RwLock, RefCell, the cells, String's Vec, a
 * std HashMap's table, libstdc++'s containers' implementation); a
 * OnceLock or LazyLock, set once its Once completes; a Rust enum; a
 * reference; an owning pointer (Box, unique_ptr); a shared one (Arc, Rc,
 * shared_ptr); a container whose header gives its length and buffers
 * (shape.h); a struct, tuple or array, whose fields are walked; or plain
 * data that owns nothing. Layouts are those of rustc 1.63 to 1.95 and of
 * GCC 12's libstdc++; a type named like one whose members are not the
 * ones memwatch knows is refused by name, never guessed at. The anchors:
 * the Rust toolchain's debugger helpers (lib/rustlib/etc/gdb_providers.py)
 * and standard library sources, libstdc++'s pretty printers (printers.py)
 * and headers.
 */
#ifndef MW_LAYOUT_H
#define MW_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <elfutils/libdw.h>
#include "read/shape.h"

enum mw_class {
	MW_CLASS_PLAIN,		/* owns nothing: a float, a raw pointer, a union */
	MW_CLASS_INTEGER,	/* an integer: the shape filled */
	MW_CLASS_THROUGH,	/* a wrapper: its value at off, of type inner */
	MW_CLASS_ONCE,		/* its value at off, once the state at state_off
				 * masked with 3 reads complete */
	MW_CLASS_ENUM,		/* a Rust enum: see layout__variants */
	MW_CLASS_REF,		/* a reference: what it points at, owned elsewhere */
	MW_CLASS_BOX,		/* an owning pointer at off to a block of size
				 * bytes holding inner (nullable: unique_ptr) */
	MW_CLASS_SHARED,	/* Arc, Rc: the pointer at off to a block of size
				 * bytes, its value at value_off; once a walk */
	MW_CLASS_SHARED_CXX,	/* std::shared_ptr at off: the object pointer, then
				 * the control block's */
	MW_CLASS_CONTAINER,	/* the shape filled; its element types in elem
				 * (BTreeMap: keys in elem, values in elem2) */
	MW_CLASS_RECORD,	/* a struct, tuple or array: its fields */
};

struct mw_class_of {
	enum mw_class cls;
	int64_t off;
	Dwarf_Die inner;	/* THROUGH, ONCE, REF, BOX, SHARED, SHARED_CXX */
	Dwarf_Die elem, elem2;	/* CONTAINER */
	uint64_t size;		/* BOX, SHARED */
	int64_t value_off;	/* SHARED */
	bool nullable;		/* BOX */
	int64_t state_off;	/* ONCE */
	uint8_t state_size;
	uint64_t complete;
};

/* A Rust enum's discriminant and variants, each with its payload (the
 * variant's struct, whose members are its fields), if it has fields. */
#define MW_VARIANTS	16
struct mw_variants {
	int64_t discr_off;
	uint8_t discr_size;
	uint64_t mask;
	int n;
	struct mw_variant {
		bool valued;	/* false: the default variant, every other value */
		uint64_t value;	/* masked */
		bool has_fields;
		int64_t off;	/* the payload's offset in the enum */
		Dwarf_Die payload;
	} v[MW_VARIANTS];
};

/* The DW_LANG_* of @t's unit. */
int layout__lang(Dwarf_Die *t);

/*
 * What @t (peeled of typedefs and qualifiers) is, in a unit of language
 * @lang; the shape of an integer or container filled into @s. 0; -1 with
 * why in @err (a layout memwatch does not know).
 */
int layout__classify(Dwarf_Die *t, int lang, struct mw_class_of *c, struct mw_shape *s,
		     char *err, size_t len);

/* The variants of the Rust enum @t. 0; -1 with why in @err. */
int layout__variants(Dwarf_Die *t, struct mw_variants *v, char *err, size_t len);

#endif
