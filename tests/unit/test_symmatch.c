// SPDX-License-Identifier: GPL-2.0
/* test_symmatch.c - the symbol matcher on real C++ and Rust manglings. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "symbols/nearest.h"
#include "symbols/pathname.h"
#include "symbols/symmatch.h"

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
	cr_expect_eq(pathname__distance("table_insrt", "table_insert", 10), 1, "one insertion");
	cr_expect_eq(pathname__distance("abc", "abc", 10), 0, "equal");
	cr_expect_eq(pathname__distance("kitten", "sitting", 10), 3, "the classic pair");
	cr_expect_eq(pathname__distance("a", "completely_other", 4), 4, "capped");
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

/* What one raw name parses to: its clone kinds, suffix and display. */
static void expect_clone(const char *raw, unsigned clone, const char *suffix,
			 const char *display, const char *source)
{
	struct mw_symname n;
	char buf[256];

	symname__init(&n, raw);
	cr_expect_eq(n.clone, clone, "%s: clone kinds %#x, got %#x", raw, clone, n.clone);
	cr_expect_str_eq(n.suffix, suffix, "%s: suffix", raw);
	cr_expect_str_eq(symname__display(&n, buf, sizeof(buf)), display, "%s: shown", raw);
	cr_expect_str_eq(symname__source(&n), source, "%s: source name", raw);
	symname__free(&n);
}

Test(symmatch, clones__parsed_with_their_kinds)
{
	expect_clone("item_push.constprop.0", MW_CLONE_CONSTPROP, ".constprop.0",
		     "item_push.constprop.0", "item_push");
	expect_clone("pair_put.isra.12", MW_CLONE_ISRA, ".isra.12", "pair_put.isra.12", "pair_put");
	expect_clone("cache_add.part.0.isra.0.cold", MW_CLONE_PART | MW_CLONE_ISRA | MW_CLONE_COLD,
		     ".part.0.isra.0.cold", "cache_add.part.0.isra.0.cold", "cache_add");
	expect_clone("f.cold.3", MW_CLONE_COLD, ".cold.3", "f.cold.3", "f");
	expect_clone("helper.llvm.123456789", MW_CLONE_RENAMED, ".llvm.123456789",
		     "helper.llvm.123456789", "helper");
	expect_clone("_Z10reg_insertPKc.cold", MW_CLONE_COLD, ".cold",
		     "reg_insert(char const*) [clone .cold]", "reg_insert");
	expect_clone("_Z10reg_insertPKc.constprop.0.isra.0", MW_CLONE_CONSTPROP | MW_CLONE_ISRA,
		     ".constprop.0.isra.0",
		     "reg_insert(char const*) [clone .constprop.0] [clone .isra.0]", "reg_insert");
	/* Rust's ThinLTO renames a promoted local */
	expect_clone("_ZN3dag9Consensus2gc17h0123456789abcdefE.llvm.4242", MW_CLONE_RENAMED,
		     ".llvm.4242", "dag::Consensus::gc [clone .llvm.4242]", "dag::Consensus::gc");
}

Test(symmatch, not_clones__left_alone)
{
	/* a dot that starts no whole clone suffix: the name is its own */
	expect_clone("f.localalias", 0, "", "f.localalias", "f.localalias");
	expect_clone("f.part", 0, "", "f.part", "f.part");	/* no number */
	expect_clone("f.isra.0x", 0, "", "f.isra.0x", "f.isra.0x");
	expect_clone(".cold", 0, "", ".cold", ".cold");		/* only a suffix */
	expect_clone("", 0, "", "", "");
	expect_clone("table_insert", 0, "", "table_insert", "table_insert");
}

Test(symmatch, clones__match_by_source_name)
{
	cr_expect(matches("item_push", "item_push.constprop.0"), "C clone by its name");
	cr_expect(matches("item_push.constprop.0", "item_push.constprop.0"), "or its raw name");
	cr_expect(!matches("item_pus", "item_push.constprop.0"), "no prefix match");
	cr_expect(matches("reg_insert(char const*)", "_Z10reg_insertPKc.isra.0"),
		  "C++ clone by its signature");
	cr_expect(matches("reg_insert", "_Z10reg_insertPKc.isra.0"), "and by its bare name");
	cr_expect(matches("dag::Consensus::gc", "_ZN3dag9Consensus2gc17h0123456789abcdefE.llvm.4242"),
		  "Rust ThinLTO rename by its path");
	cr_expect(matches("item_*", "item_push.isra.0"), "a glob over the source name");
}

/* Names as people write them: a unique "::" suffix of the demangled
 * path, with or without generic arguments (pathname.c). */
Test(symmatch, paths__segments_and_tails)
{
	cr_expect_eq(pathname__segments("add"), 1);
	cr_expect_eq(pathname__segments("a::B::add"), 3);
	cr_expect_eq(pathname__segments("<a::X as b::Tr>::m"), 2, "inside brackets is not split");
	cr_expect_eq(pathname__segments("a::Vec<b::C>::push"), 3);
	cr_expect_eq(pathname__segments("ns::operator<<"), 2, "an operator's '<' is no bracket");
	cr_expect_str_eq(pathname__tail("a::B::add", 2), "B::add");
	cr_expect_str_eq(pathname__tail("a::B::add", 5), "a::B::add", "fewer: the whole");
	cr_expect_str_eq(pathname__tail("a::Vec<b::C>::push", 2), "Vec<b::C>::push");
}

Test(symmatch, paths__suffix_only_at_a_segment)
{
	cr_expect(pathname__is_suffix("node::State::add", "add"));
	cr_expect(pathname__is_suffix("node::State::add", "State::add"));
	cr_expect(pathname__is_suffix("node::State::add", "node::State::add"), "the whole path");
	cr_expect(!pathname__is_suffix("node::State::add", "dd"), "not mid-segment");
	cr_expect(!pathname__is_suffix("node::State::add", "tate::add"));
	cr_expect(!pathname__is_suffix("node::State::add", ""), "nothing names nothing");
	cr_expect(!pathname__is_suffix("a::Vec<b::C>::push", "C>::push"), "not inside brackets");
	cr_expect(!pathname__is_suffix(NULL, "add"));
}

Test(symmatch, paths__generic_arguments_dropped)
{
	char *p;

	cr_expect_str_eq((p = pathname__plain("g::store::Table<u64>::put")), "g::store::Table::put");
	free(p);
	cr_expect_str_eq((p = pathname__plain("a::f<Vec<u8>, b::C<d::E>>")), "a::f", "nested");
	free(p);
	cr_expect_str_eq((p = pathname__plain("core::ptr::drop_in_place::<a::B<u8>>")),
			 "core::ptr::drop_in_place", "Rust's turbofish");
	free(p);
	cr_expect_str_eq((p = pathname__plain("<a::X<u8> as b::Tr<u16>>::m::<u32>")),
			 "<a::X<u8> as b::Tr<u16>>::m", "a qualified path's first segment stays");
	free(p);
	cr_expect_null(pathname__plain("a::b::c"), "none to drop");
	cr_expect_null(pathname__plain("std::operator<<"), "an operator keeps its name");
	cr_expect_null(pathname__plain("<a::X as b::Tr>::m"), "nothing else to drop");
}

/* What real rustc manglings answer to: 1.95's legacy and v0 forms of
 * g::store::Table<T>::put and g::consensus::ConsensusState::add_certificate. */
Test(symmatch, rust_paths__suffix_and_without_generics)
{
	static const char *const put[] = {
		"_ZN1g5store14Table$LT$T$GT$3put17hc937acc9921ba91eE",
		"_RNvMNtCshhNdl82Kjmm_1g5storeINtB2_5TableyE3putB4_",
	};
	static const char *const add[] = {
		"_ZN1g9consensus14ConsensusState15add_certificate17h0d4f7e7d3b53f03eE",
		"_RNvMNtCshhNdl82Kjmm_1g9consensusNtB2_14ConsensusState15add_certificate",
	};
	struct mw_symname n;

	for (int i = 0; i < 2; i++) {
		symname__init(&n, put[i]);
		cr_expect(symmatch__match("g::store::Table::put", &n), "%s: the path without <T>", put[i]);
		cr_expect(symmatch__suffix("Table::put", &n), "%s: a suffix without <T>", put[i]);
		cr_expect(symmatch__suffix("put", &n), "%s: the method", put[i]);
		cr_expect(!symmatch__suffix("ut", &n), "%s: not mid-segment", put[i]);
		cr_expect(!symmatch__suffix("*put", &n), "a glob is no suffix");
		symname__free(&n);
		symname__init(&n, add[i]);
		cr_expect(symmatch__suffix("ConsensusState::add_certificate", &n), "%s", add[i]);
		cr_expect(symmatch__suffix("add_certificate", &n), "%s", add[i]);
		cr_expect(!symmatch__match("add_certificate", &n), "%s: a suffix is not whole", add[i]);
		symname__free(&n);
	}
	symname__init(&n, "add_certificate");
	cr_expect(!symmatch__suffix("add_certificate", &n), "a C name has no path: matched whole");
	symname__free(&n);
}

Test(symmatch, nearest__by_as_many_segments_as_written)
{
	static const char *const names[] = {
		"rustnode::consensus::ConsensusState::add_certificate",
		"rustnode::consensus::ConsensusState::heap_bytes",
		"rustnode::mempool::Pool::insert",
		"core::fmt::write",
	};
	struct mw_nearest near;
	char buf[512];

	nearest__init(&near, "add_certifcate");
	for (size_t i = 0; i < 4; i++)
		nearest__offer(&near, names[i]);
	nearest__format(&near, buf, sizeof(buf));
	cr_expect_str_eq(buf, "; nearest: rustnode::consensus::ConsensusState::add_certificate",
			 "a misspelt method: its last segment weighed, the whole path named");
	nearest__init(&near, "rustnode::consensus::ConsensusState::add_certifcate");
	for (size_t i = 0; i < 4; i++)
		nearest__offer(&near, names[i]);
	nearest__format(&near, buf, sizeof(buf));
	cr_expect_str_eq(buf, "; nearest: rustnode::consensus::ConsensusState::add_certificate",
			 "a misspelt full path: the right function, not heap_bytes");
	nearest__init(&near, "nothing_like_it");
	for (size_t i = 0; i < 4; i++)
		nearest__offer(&near, names[i]);
	nearest__format(&near, buf, sizeof(buf));
	cr_expect_str_empty(buf, "nothing near: nothing said");
}

Test(symmatch, paths__operators_and_arrows)
{
	char *p;

	cr_expect_str_eq((p = pathname__plain("app::Cooperator<u64>::add")), "app::Cooperator::add",
			 "a name that holds 'operator' is a name");
	free(p);
	cr_expect_str_eq((p = pathname__plain("a::f::<fn() -> u8>::g")), "a::f::g",
			 "the arrow inside generic arguments closes nothing");
	free(p);
	cr_expect_eq(pathname__segments("a::B<fn(x::Y) -> z::W>::m"), 3, "nor splits there");
	cr_expect(!pathname__is_suffix("std::map<a::K,V>::operator[]", "K,V>::operator[]"),
		  "not inside an operator's class's arguments");
	cr_expect_null(pathname__plain("ns::operator<<"), "an operator keeps its '<'");
}
