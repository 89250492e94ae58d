/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pathname.h - names as paths of "::" segments, as people write them:
 * C++'s ns::Cls::f, Rust's crate::module::Type::f. A unique suffix on
 * segment boundaries names a function or a variable (add_certificate,
 * ConsensusState::add_certificate), generic arguments may be left out
 * (store::Table::put for store::Table<u64>::put), and a near miss is
 * measured against as many trailing segments as the user wrote.
 * Segments are split at the "::" outside <>, () and [] only: both
 * <a::X as b::Tr>::m and Vec<a::B>::push have two.
 */
#ifndef MW_PATHNAME_H
#define MW_PATHNAME_H

#include <stdbool.h>
#include <stddef.h>

/* How many segments @name has. */
size_t pathname__segments(const char *name);
/* The last @k segments of @name, pointing into it; @name if it has no
 * more than @k. */
const char *pathname__tail(const char *name, size_t k);
/* @want is @name's whole path or a suffix of it that starts at a segment. */
bool pathname__is_suffix(const char *name, const char *want);
/*
 * @name without its generic arguments ("a::B<T>::f<U>" -> "a::B::f",
 * "f::<T>" -> "f"), in a new string; NULL when it has none to drop (or is
 * an operator's, whose '<' is its name: operator<, operator<<), or out of
 * memory. A leading "<A as Tr>" stays: it names the first segment.
 */
char *pathname__plain(const char *name);

/* Edit distance between @a and @b, capped at @cap. */
unsigned pathname__distance(const char *a, const char *b, unsigned cap);

#endif
