/* SPDX-License-Identifier: GPL-2.0 */
/* privs.h - the privileges memwatch needs, checked before anything else. */
#ifndef MW_PRIVS_H
#define MW_PRIVS_H

/* 0 if the process may load BPF, attach uprobes and read other processes;
 * else -1 after one line naming what is missing. */
int privs__check(void);

#endif
