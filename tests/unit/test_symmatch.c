// SPDX-License-Identifier: GPL-2.0
/* test_symmatch.c - the symbol matcher on real C++ and Rust manglings. */
#include <criterion/criterion.h>
#include "symmatch.h"

static bool matches(const char *pattern, const char *raw)
{
	struct mw_symname n;
	bool r;

	symname__init(&n, raw);
	r = symmatch__match(pattern, &n);
	symname__free(&n);
	return r;
}

/* rustc's legacy mangling, as in the issue: hash suffix 17h...E */
static const char rust_legacy[] = "_ZN3dag9Consensus18insert_certificate17h0123456789abcdefE";
/* rustc's v0 mangling of mycrate::foo::bar */
static const char rust_v0[] = "_RNvNtCs1234_7mycrate3foo3bar";
static const char cpp_method[] = "_ZN2ns5Cache6insertERKSsi";
static const char cpp_template[] = "_ZNSt6vectorIiSaIiEE9push_backERKi";

Test(symmatch, rust_legacy__path_without_hash__matches)
{
	cr_expect(matches("dag::Consensus::insert_certificate", rust_legacy),
		  "the demangled path finds the local symbol");
	cr_expect(matches(rust_legacy, rust_legacy), "the raw symbol matches itself");
	cr_expect(!matches("dag::Consensus::insert", rust_legacy), "a prefix is not a match");
	cr_expect(!matches("Consensus::insert_certificate", rust_legacy), "a suffix is not a match");
}

Test(symmatch, rust_v0__path__matches)
{
	cr_expect(matches("mycrate::foo::bar", rust_v0), "v0 mangling demangles to its path");
	cr_expect(!matches("mycrate::foo", rust_v0), "the parent module is not a match");
}

Test(symmatch, cpp__with_or_without_parameters__matches)
{
	cr_expect(matches("ns::Cache::insert", cpp_method), "the name without parameters");
	cr_expect(matches("ns::Cache::insert(std::string const&, int)", cpp_method),
		  "the name with c++filt's parameter list");
	cr_expect(!matches("ns::Cache::insert(int)", cpp_method), "other parameters do not match");
	cr_expect(matches("std::vector<int, std::allocator<int> >::push_back", cpp_template),
		  "template class methods");
}

Test(symmatch, glob__spans_scopes_and_raw_names)
{
	cr_expect(matches("dag::Consensus::*", rust_legacy), "glob over a Rust path");
	cr_expect(matches("*insert_cert*", rust_legacy), "glob in the middle");
	cr_expect(matches("ns::Cache::ins*", cpp_method), "glob over a C++ name");
	cr_expect(matches("table_*", "table_insert"), "glob over a C name");
	cr_expect(!matches("table_*", "index_add"), "a glob that does not match");
	cr_expect(symmatch__is_glob("a*") && !symmatch__is_glob("a::b"), "glob detection");
}

Test(symmatch, plain_c_name__exact_only)
{
	struct mw_symname n;

	symname__init(&n, "table_insert");
	cr_expect_null(n.full, "a C name is not demangled");
	cr_expect(symmatch__match("table_insert", &n), "exact match");
	cr_expect(!symmatch__match("table_inser", &n), "no prefix match");
	symname__free(&n);
}

Test(symmatch, distance__edits_counted_and_capped)
{
	cr_expect_eq(symmatch__distance("table_insrt", "table_insert", 10), 1, "one insertion");
	cr_expect_eq(symmatch__distance("abc", "abc", 10), 0, "equal");
	cr_expect_eq(symmatch__distance("kitten", "sitting", 10), 3, "the classic pair");
	cr_expect_eq(symmatch__distance("a", "completely_other", 4), 4, "capped");
}

/* rustc -C symbol-mangling-version=v0 of rust_dag::dag::Consensus::gc,
 * an inherent method: libiberty prints <rust_dag::dag::Consensus>::gc */
static const char rust_v0_method[] = "_RNvMNtCs4fqI2P2rA04_8rust_dag3dagNtB2_9Consensus2gc";

Test(symmatch, rust_v0_inherent_method__plain_path_matches)
{
	struct mw_symname n;

	symname__init(&n, rust_v0_method);
	cr_assert_not_null(n.bare, "the v0 symbol demangles");
	cr_expect_str_eq(n.bare, "rust_dag::dag::Consensus::gc", "the impl's angle brackets are dropped");
	cr_expect(symmatch__match("rust_dag::dag::Consensus::gc", &n), "the path matches");
	symname__free(&n);
}
