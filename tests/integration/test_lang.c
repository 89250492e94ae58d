// SPDX-License-Identifier: GPL-2.0
/*
 * test_lang.c - structures named the way C++ and Rust programmers know
 * them: demangled names (with or without the C++ parameter list, Rust
 * paths without the hash) and globs, against cpp_cache (store::Cache, a
 * std::unordered_map shared by four threads) and rust_dag (a HashMap of
 * HashMaps). Both targets tally what memwatch must report, exactly.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "session.h"

static const char *const cpp_cache[] = { TARGET("cpp_cache"), "4", "300", NULL };
static const char *const rust_dag[] = { TARGET("rust_dag"), NULL };
/* the same source built with -C symbol-mangling-version=v0, if it is */
static const char *const rust_dag_v0[] = { TARGET("rust_dag_v0"), NULL };

/* c++filt's text for the two functions, parameters and all; without
 * them, the names are unambiguous too (no overloads) */
#define CPP_STRING \
	"std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&"
#define CPP_INSERT "store::Cache::insert(" CPP_STRING ", " CPP_STRING ")"
#define CPP_ERASE "store::Cache::erase(" CPP_STRING ")"

/* Rust paths, the same for legacy (hash left out) and v0 manglings;
 * rust_dag.rs is the crate */
#define RUST_INSERT "rust_dag::dag::Consensus::insert_certificate"
#define RUST_GC "rust_dag::dag::Consensus::gc"

static long long struct_int(struct session *s, const char *name, const char *what)
{
	char column[128];

	snprintf(column, sizeof(column), "%s_%s", name, what);
	return session_int(s, column);
}

/* NAME_elements, and NAME_bytes if @bytes, equal the target's tally in
 * @reply; every call was paired. */
static void expect_tally(struct session *s, const char *name, const char *reply,
			 bool bytes)
{
	session_settle(s);
	cr_expect_eq(struct_int(s, name, "elements"), reply_int(reply, "elements"),
		     "%s_elements equals the target's count (%s)", name, reply);
	if (bytes)
		cr_expect_eq(struct_int(s, name, "bytes"), reply_int(reply, "bytes"),
			     "%s_bytes equals the bytes allocated inside insert, still live (%s)",
			     name, reply);
	cr_expect_eq(session_int(s, "lost_unpaired"), 0, "every call was paired");
	cr_expect_eq(session_int(s, "lost_scopes"), 0, "no insert scope was lost");
}

/* ---------------------------------------------------------------- C++ */

/* run and clear, twice: elements and bytes exact after each */
static void cpp_exact(const char *insert, const char *erase)
{
	const char *extra[] = { "--struct", "cache",
				"--insert", insert, "--delta", "ret",
				"--remove", erase, "--delta", "ret", NULL };
	struct session s;
	char *reply;

	session_start_target(&s, cpp_cache, extra);
	for (int i = 0; i < 2; i++) {
		expect_tally(&s, "cache", session_command(&s, "run\n"), true);
		cr_expect_gt(session_int(&s, "cache_elements"), 0, "the run left elements");
		cr_expect_gt(session_int(&s, "cache_bytes"), 0, "and bytes charged to them");
		reply = session_command(&s, "clear\n");
		expect_tally(&s, "cache", reply, true);
		cr_expect_eq(reply_int(reply, "elements"), 0, "clear erased every key");
		cr_expect_eq(reply_int(reply, "bytes"), 0,
			     "clear freed every charged block, the bucket array too");
	}
	session_stop(&s);
}

Test(lang, cpp_demangled_names__elements_and_bytes_exact, .timeout = MW_TIMEOUT)
{
	cpp_exact(CPP_INSERT, "store::Cache::erase");
}

Test(lang, cpp_names_other_way_round__elements_and_bytes_exact, .timeout = MW_TIMEOUT)
{
	cpp_exact("store::Cache::insert", CPP_ERASE);
}

Test(lang, cpp_globs__probe_the_matching_functions, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "cache",
				"--insert", "store::Cache::ins*", "--delta", "ret",
				"--remove", "store::Cache::erase(*)", "--delta", "ret",
				"--size", "64", NULL };
	struct session s;
	const char *err;

	session_start_target(&s, cpp_cache, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "'store::Cache::ins*' matches 1 function"),
		  "the insert glob matches store::Cache::insert alone: [%s]", err);
	cr_expect(strstr(err, "'store::Cache::erase(*)' matches 1 function"),
		  "a glob over the parameter list matches erase alone: [%s]", err);
	expect_tally(&s, "cache", session_command(&s, "run\n"), true);
	cr_expect_eq(session_int(&s, "cache_estimated_bytes"),
		     session_int(&s, "cache_elements") * 64,
		     "cache_estimated_bytes = elements x --size");
	expect_tally(&s, "cache", session_command(&s, "clear\n"), true);
	session_stop(&s);
}

/* ---------------------------------------------------------------- Rust */

/* run, gc, trim, run, drain: elements and bytes exact after each */
static void rust_exact(const char *const targv[])
{
	const char *extra[] = { "--struct", "dag",
				"--insert", RUST_INSERT, "--delta", "ret",
				"--remove", RUST_GC, "--delta", "ret", NULL };
	struct session s;
	char *reply;

	skip_unless_built(targv[0]);
	session_start_target(&s, targv, extra);
	expect_tally(&s, "dag", session_command(&s, "run\n"), true);
	cr_expect_gt(session_int(&s, "dag_elements"), 0, "the run left certificates");
	expect_tally(&s, "dag", session_command(&s, "gc\n"), true);
	/* shrink_to_fit outside any insert: realloc keeps the charge */
	expect_tally(&s, "dag", session_command(&s, "trim\n"), true);
	expect_tally(&s, "dag", session_command(&s, "run\n"), true);
	reply = session_command(&s, "drain\n");
	expect_tally(&s, "dag", reply, true);
	cr_expect_eq(reply_int(reply, "elements"), 0, "drain dropped every certificate");
	session_stop(&s);
}

Test(lang, rust_demangled_path__elements_and_bytes_exact, .timeout = MW_TIMEOUT)
{
	rust_exact(rust_dag);
}

/* v0 demangles an inherent method as <rust_dag::dag::Consensus>::gc; the
 * path must find it all the same */
Test(lang, rust_v0_mangling__same_path_found_and_exact, .timeout = MW_TIMEOUT)
{
	rust_exact(rust_dag_v0);
}

Test(lang, rust_globs__probe_the_matching_functions, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--struct", "dag",
				"--insert", "*::Consensus::insert_cert*", "--delta", "ret",
				"--remove", "*dag::Consensus::gc", "--delta", "ret", NULL };
	struct session s;
	const char *err;

	skip_unless_built(rust_dag[0]);
	session_start_target(&s, rust_dag, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "'*::Consensus::insert_cert*' matches 1 function"),
		  "the insert glob matches insert_certificate alone: [%s]", err);
	cr_expect(strstr(err, "'*dag::Consensus::gc' matches 1 function"),
		  "the gc glob matches gc alone: [%s]", err);
	expect_tally(&s, "dag", session_command(&s, "run\n"), true);
	expect_tally(&s, "dag", session_command(&s, "drain\n"), true);
	session_stop(&s);
}
