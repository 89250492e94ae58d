// SPDX-License-Identifier: GPL-2.0
/*
 * test_watched.c - a watched process's record: its lifecycle allows the
 * moves watched.h lists and no other, and the set of objects its probes
 * cover finds what a library loaded later adds.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "session/watched.h"

static const char *const names[] = { "free", "open", "loading", "probed" };

Test(watched, lifecycle__only_the_listed_moves)
{
	/* [from][to]: true where watched.h's lifecycle allows the move */
	static const bool allowed[MW_STAGE__COUNT][MW_STAGE__COUNT] = {
		/* to:  free  open  loading probed */
		{ true, true, false, false },	/* from free */
		{ true, true, true, true },	/* from open */
		{ true, true, true, false },	/* from loading */
		{ true, true, false, true },	/* from probed */
	};

	for (int from = 0; from < MW_STAGE__COUNT; from++) {
		for (int to = 0; to < MW_STAGE__COUNT; to++) {
			struct mw_watched w = { .stage = (enum mw_stage)from };
			int r = watched__enter(&w, (enum mw_stage)to);

			cr_expect_eq(r == 0, allowed[from][to], "%s -> %s: %s", names[from],
				     names[to], allowed[from][to] ? "allowed" : "refused");
			cr_expect_eq(w.stage, allowed[from][to] ? (enum mw_stage)to :
					      (enum mw_stage)from,
				     "%s -> %s: the record is where the move left it", names[from],
				     names[to]);
		}
	}
}

Test(watched, lifecycle__in_use_and_probed_follow_the_stage)
{
	struct mw_watched w = { .stage = MW_STAGE_FREE };

	cr_expect_not(watched__in_use(&w), "a free slot is not in use");
	cr_assert_eq(watched__enter(&w, MW_STAGE_OPEN), 0, "opened");
	cr_expect(watched__in_use(&w) && !watched__probed(&w), "open: in use, not probed");
	cr_assert_eq(watched__enter(&w, MW_STAGE_LOADING), 0, "a new image, loader not done");
	cr_expect(watched__in_use(&w) && !watched__probed(&w), "loading: not probed");
	cr_assert_eq(watched__enter(&w, MW_STAGE_OPEN), 0, "the loader is done");
	cr_assert_eq(watched__enter(&w, MW_STAGE_PROBED), 0, "probed");
	cr_expect(watched__probed(&w), "probed");
}

Test(watched, objects__a_library_loaded_later_is_new)
{
	struct mw_object objs[2] = { { .shown = "/usr/bin/node" }, { .shown = "/lib/libc.so.6" } };
	struct mw_objects startup = { objs, 2 };
	struct mw_mapping maps[3] = {
		{ .path = "/usr/bin/node" }, { .path = "/lib/libc.so.6" }, { .path = "/opt/plugin.so" },
	};
	struct mw_maps now = { maps, 3 }, fresh;
	struct mw_watched w = { .stage = MW_STAGE_PROBED };

	cr_assert_eq(watched__remember(&w, &startup), 0, "the startup objects are covered");
	cr_expect(watched__seen(&w, "/lib/libc.so.6"), "libc is covered");
	cr_expect_not(watched__seen(&w, "/opt/plugin.so"), "the plugin is not yet");
	cr_assert_eq(watched__unseen_maps(&w, &now, &fresh), 0, "the unseen mappings");
	cr_expect_eq(fresh.n, 1, "one mapping is new");
	cr_expect_str_eq(fresh.v[0].path, "/opt/plugin.so", "the plugin's");
	free(fresh.v);
	cr_assert_eq(watched__remember(&w, &startup), 0, "remembered twice");
	cr_expect_eq(w.nseen, 2, "each object once");
	watched__forget_objects(&w);
	cr_expect_not(watched__seen(&w, "/usr/bin/node"), "a new image covers nothing");
}
