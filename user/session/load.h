/* SPDX-License-Identifier: GPL-2.0 */
/*
 * load.h - the BPF object of a session: opened, sized by the options,
 * loaded, calibrated, its records registered, its event links attached.
 */
#ifndef MW_LOAD_H
#define MW_LOAD_H

#include "session/session.h"

/* 0, or -1 after one message. */
int load__bpf(struct mw_session *s);

#endif
