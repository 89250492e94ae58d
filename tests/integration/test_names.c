// SPDX-License-Identifier: GPL-2.0
/*
 * test_names.c - names as people write them, on a Rust node built as a
 * release is: a unique "::" suffix of the demangled path names a
 * function (add_certificate, ConsensusState::add_certificate), generic
 * arguments may be left out (store::Table::put), a suffix two functions
 * share is refused with both named, and a near miss names the nearest
 * paths by their last segments. The same for a --read root.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "session.h"

static const char *const rust_node[] = { TARGET("rust_node"), NULL };

Test(names, rust_suffixes__each_names_its_function, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap",
				"--struct", "dag", "--insert", "ConsensusState::add_certificate",
				"--struct", "added", "--insert", "add_certificate",
				"--struct", "rows", "--insert", "store::Table::put",
				"--struct", "pool", "--insert", "mempool::Pool::insert",
				"--struct", "peers", "--read", "PEERS", NULL };
	struct session s;
	const char *err;
	char *reply;

	session_start_target(&s, rust_node, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "--insert 'ConsensusState::add_certificate' is rust_node::consensus::ConsensusState::add_certificate in"),
		  "says what the suffix named: %s", err);
	cr_expect(strstr(err, "--insert 'store::Table::put' is rust_node::store::Table<T>::put in"),
		  "a path without its generic arguments: %s", err);
	for (int round = 0; round < 2; round++) {
		reply = session_command(&s, "run 40\n");
		session_settle(&s);
		cr_expect_eq(session_int(&s, "dag_insert_calls"), reply_int(reply, "inserts"), "%s", reply);
		cr_expect_eq(session_int(&s, "added_insert_calls"), reply_int(reply, "inserts"), "%s", reply);
		cr_expect_eq(session_int(&s, "rows_insert_calls"), reply_int(reply, "rows"), "%s", reply);
		cr_expect_eq(session_int(&s, "pool_insert_calls"), reply_int(reply, "pool"),
			     "mempool's insert, not network's: %s", reply);
		cr_expect_eq(session_int(&s, "peers_length"), round + 1, "a static by its last segment");
	}
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

/* @extra refused: exit 1, one line on stderr holding each of @want. */
static void refused(const char *const extra[], const char *const want[])
{
	struct session s;
	const char *err;

	session_spawn(&s, rust_node, extra, false);
	cr_expect_eq(proc_wait(&s.mw), 1, "exit 1: %s", proc_stderr(&s.mw));
	err = proc_stderr(&s.mw);
	for (; *want; want++)
		cr_expect(strstr(err, *want), "says [%s]: %s", *want, err);
	cr_expect_eq(strchr(err, '\n') - err + 1, (long)strlen(err), "one line: %s", err);
	session_stop(&s);
}

Test(names, rust_shared_suffix__refused_with_both, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "pool", "--insert", "Pool::insert", NULL };
	const char *want[] = { "--insert 'Pool::insert' ends 2 functions' paths",
			       "rust_node::mempool::Pool::insert", "rust_node::network::Pool::insert",
			       "name one by a longer path", NULL };

	refused(extra, want);
}

Test(names, rust_near_miss__the_nearest_paths, .timeout = MW_TIMEOUT)
{
	const char *typo[] = { "--no-heap", "--struct", "dag", "--insert", "add_certifcate", NULL };
	const char *typo_want[] = { "no such function",
				    "nearest: rust_node::consensus::ConsensusState::add_certificate",
				    NULL };
	const char *path[] = { "--no-heap", "--struct", "dag", "--insert",
			       "rust_node::consensus::ConsensusState::add_certifcate", NULL };
	const char *path_want[] = { "nearest: rust_node::consensus::ConsensusState::add_certificate",
				    NULL };
	const char *root[] = { "--no-heap", "--struct", "peers", "--read", "PEER", NULL };
	const char *root_want[] = { "no such variable", "nearest: rust_node::PEERS", NULL };

	refused(typo, typo_want);
	refused(path, path_want);
	refused(root, root_want);
}

/* remove_certificate is #[inline(always)]: no symbol, two copies in DWARF
 * (one in the gc task, one in evict). Each is probed where it starts, so
 * every removal counts, whichever copy ran; and add_certificate's panics
 * before inserting add nothing: the element count is the DAG's. */
Test(names, rust_inlined_remove_and_panicking_insert__exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "dag", "--insert", "add_certificate",
				"--remove", "remove_certificate", NULL };
	struct session s;
	const char *err;
	char *reply;

	session_start_target(&s, rust_node, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "--remove 'remove_certificate': pid ") &&
		  strstr(err, "probes 2 inlined copies of rust_node::consensus::ConsensusState::remove_certificate"),
		  "says what it found in DWARF: %s", err);
	session_command(&s, "run 40\n");
	reply = session_command(&s, "gc 5\n");
	cr_assert_gt(reply_int(reply, "removed"), 1, "the gc task removed several: %s", reply);
	session_settle(&s);
	cr_expect_eq(session_int(&s, "dag_remove_calls"), reply_int(reply, "removed"),
		     "each removal in the async task counted: %s", reply);
	reply = session_command(&s, "evict\n");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "dag_remove_calls"), reply_int(reply, "removed"),
		     "and the one in evict: %s", reply);
	/* every fifth add_certificate panics before inserting: --delta one
	 * is exact, since an unwound call adds nothing */
	cr_expect_eq(session_int(&s, "dag_insert_calls"), reply_int(reply, "inserts"), "%s", reply);
	cr_expect_eq(session_int(&s, "dag_unwound_calls"), reply_int(reply, "panicked"),
		     "each panicking insert counted as unwound: %s", reply);
	cr_expect_eq(session_int(&s, "dag_elements"), reply_int(reply, "certs"),
		     "the DAG's certificates, exactly: %s", reply);
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}

Test(names, rust_inlined_only__ret_refused, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "dag", "--remove", "remove_certificate",
				"--delta", "ret", NULL };
	const char *want[] = { "is only inlined (2 copies", "a copy has no return to read",
			       "use --delta one or argN", NULL };

	refused(extra, want);
}

/* --delta ret where the target can unwind: read at the return
 * instructions, which the kernel single-steps (said, with its cost), and
 * exact: a call that panics returns nothing. */
Test(names, rust_ret_in_an_unwinding_target__said_and_exact, .timeout = MW_TIMEOUT)
{
	const char *extra[] = { "--no-heap", "--struct", "dag", "--insert", "add_certificate",
				"--delta", "ret", NULL };
	struct session s;
	const char *err;
	char *reply;

	session_start_target(&s, rust_node, extra);
	err = proc_stderr(&s.mw);
	cr_expect(strstr(err, "its return instructions are probed for --delta ret, and the kernel single-steps ret"),
		  "says what ret costs here: %s", err);
	reply = session_command(&s, "run 40\n");
	session_settle(&s);
	cr_expect_eq(session_int(&s, "dag_elements"), reply_int(reply, "added"),
		     "the sum of what the calls returned: %s", reply);
	cr_expect_eq(session_int(&s, "dag_unwound_calls"), reply_int(reply, "panicked"),
		     "the panicking calls returned nothing, and are counted: %s", reply);
	cr_expect_eq(session_int(&s, "lost_unpaired"), 0, "no call left unpaired");
	session_stop(&s);
	cr_expect_eq(s.target.status, 0, "the target exits 0");
}
