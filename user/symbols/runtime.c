// SPDX-License-Identifier: GPL-2.0
/*
 * runtime.c - the allocation helpers of the C++ and Rust runtimes, and
 * the functions stacks start in, by their demangled names.
 */
#include <string.h>
#include "symbols/elfsym.h"
#include "symbols/runtime.h"

/* Path prefixes: a helper is any function under them, generic or not
 * (Rust's v0 mangling may print "<alloc::...>::f" for a method). */
static const char *const helper_paths[] = {
	"alloc::",		/* Rust: raw_vec's finish_grow, Box, Vec's growth */
	"hashbrown::",		/* Rust: HashMap's table (raw::) and its growth
				 * inlined into map::HashMap::insert */
	"std::collections::",	/* Rust: std's HashMap over hashbrown */
	"core::",		/* Rust: core::alloc and the like */
	"__rust_",		/* Rust: __rust_alloc, __rust_realloc, ... */
	"__rdl_", "__rg_",	/* Rust: the default allocator's shims */
	"std::alloc::",		/* Rust: System */
	"std::allocator",	/* C++ */
	"std::__new_allocator",	/* C++ (GCC 12) */
	"__gnu_cxx::new_allocator",	/* C++ (before GCC 12) */
	"std::allocator_traits",
	"operator new",		/* C++, and its aligned and nothrow forms */
};

static const char *const roots[] = {
	"_start", "__libc_start_main", "__libc_start_call_main", "start_thread",
	"clone", "clone3", "__clone", "__clone3",
};

bool runtime__is_alloc_helper(const char *function)
{
	if (!function)
		return false;
	if (*function == '<')	/* <alloc::raw_vec::RawVec<T>>::grow_one */
		function++;
	for (size_t i = 0; i < sizeof(helper_paths) / sizeof(helper_paths[0]); i++)
		if (!strncmp(function, helper_paths[i], strlen(helper_paths[i])))
			return true;
	return false;
}

bool runtime__is_stack_root(const char *function)
{
	for (size_t i = 0; function && i < sizeof(roots) / sizeof(roots[0]); i++)
		if (!strcmp(function, roots[i]))
			return true;
	return false;
}

const char *runtime__frame_pointer_flag(const char *path)
{
	static const char *const rust_marks[] = { "rust_eh_personality", "__rust_alloc" };
	struct mw_elf *e;
	bool rust = false;

	if (elfsym__open(path, &e) == 0) {
		for (size_t i = 0; i < 2 && !rust; i++)
			rust = elfsym__find(e, rust_marks[i]) != NULL;
		elfsym__close(e);
	}
	return rust ? "RUSTFLAGS=\"-C force-frame-pointers=yes\"; Rust's std stays without them"
		    : "-fno-omit-frame-pointer";
}
