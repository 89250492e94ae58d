/* SPDX-License-Identifier: GPL-2.0 */
/*
 * exitcodes.h - memwatch's exit statuses, the contract scripts rely on,
 * defined here only. --help, memwatch.8's EXIT STATUS and the README list
 * them; tests/unit/test_exitcodes.c fails when one of those misses one.
 */
#ifndef MW_EXITCODES_H
#define MW_EXITCODES_H

#define MW_EXIT_OK		0	/* count reached, signal, target exited */
#define MW_EXIT_FAIL		1	/* runtime failure */
#define MW_EXIT_USAGE		2	/* bad command line */
/* launch mode, as env(1) and timeout(1) have them; else the program's */
#define MW_EXIT_LAUNCH_FAIL	125	/* memwatch itself failed */
#define MW_EXIT_CANNOT_EXEC	126	/* found, but cannot be executed */
#define MW_EXIT_NOT_FOUND	127	/* not found */
#define MW_EXIT_SIGNALED	128	/* + N: the program was killed by signal N */

#endif
