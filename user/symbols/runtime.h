/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runtime.h - what a language's runtime puts between the program and its
 * allocator, and where a stack begins: an allocation's site is the first
 * frame of the program's own code past the allocation helpers (Rust's
 * alloc::, hashbrown::, core::; C++'s std::allocator,
 * __gnu_cxx::new_allocator, operator new), and a stack is whole when its
 * outermost frame is where a thread starts.
 */
#ifndef MW_RUNTIME_H
#define MW_RUNTIME_H

#include <stdbool.h>

/* @function (demangled, without parameters) is an allocation helper. */
bool runtime__is_alloc_helper(const char *function);
/* @function is where a process's or a thread's stack starts. */
bool runtime__is_stack_root(const char *function);
/* How to build the program at @path with frame pointers, in its language:
 * Rust's RUSTFLAGS or C and C++'s compiler flag. */
const char *runtime__frame_pointer_flag(const char *path);

#endif
