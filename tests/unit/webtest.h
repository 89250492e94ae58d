/* SPDX-License-Identifier: GPL-2.0 */
/* webtest.h - fixture text shared by test_webconfig.c and test_webauth.c. */
#ifndef MW_WEBTEST_H
#define MW_WEBTEST_H

#define FILE_NAME "/etc/memwatch/web.yml"
/* htpasswd -nbBC 4 "" secret, hunter2; -C 6 other */
#define HASH_SECRET  "$2y$04$JcdHGLPpmRvzKoBJGrzss.NtLuDQDQKEQejy.9I7Ptp/kHVotMQJm"
#define HASH_HUNTER2 "$2y$04$vu8vdGMSCAA7YFY6.cVOsOZEEDLTgxI5NRFv4F3uw7chz9e88TYUC"
#define HASH_OTHER   "$2y$06$dHP47qLDBALqwu.l3wF.0ukZHg3loqYhkeLiS/x9XJhOT.XbtSLPe"
#define USERS "basic_auth_users:\n  alice: " HASH_SECRET "\n"
#define TLS_OK "tls_server_config:\n  cert_file: c.pem\n  key_file: k.pem\n"

#endif
