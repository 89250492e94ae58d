// SPDX-License-Identifier: GPL-2.0
/*
 * test_install.c - memwatch installed like a daemon: `make install` and
 * `make uninstall` under DESTDIR and PREFIX, the memwatch(8) page as man
 * and groff read it, the systemd unit as systemd-analyze verifies it
 * offline, and the Kubernetes DaemonSet as YAML. No probe is attached.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "harness.h"

#define MAN_PAGE "user/memwatch.8"
#define UNIT "examples/memwatch.service"
#define DAEMONSET "examples/kubernetes/daemonset.yaml"
#define PREFIX "/usr"
#define DOC PREFIX "/share/doc/memwatch/examples"

/* the files `make install PREFIX=/usr` must lay out, under DESTDIR */
static const char *const installed[] = {
	PREFIX "/sbin/memwatch",
	PREFIX "/share/man/man8/memwatch.8.gz",
	DOC "/memwatch.conf",
	DOC "/memwatch.service",
	DOC "/kubernetes/daemonset.yaml",
	DOC "/kubernetes/README.md",
	DOC "/web-config.yml",
	DOC "/prometheus-tls.yml",
};
#define N_INSTALLED (sizeof(installed) / sizeof(installed[0]))

static char out[1 << 17];

/* Runs make with @goal into @destdir. A make above this one (make
 * integration) leaves its jobserver in MAKEFLAGS: this make gets none. */
static int make_goal(const char *goal, const char *destdir)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd),
		 "env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s %s DESTDIR=%s PREFIX=" PREFIX
		 " 2>&1", goal, destdir);
	return run_capture(cmd, out, sizeof(out));
}

static void install_into(char *dir)
{
	strcpy(dir, "/tmp/memwatch-install-XXXXXX");
	cr_assert(mkdtemp(dir), "temp dir");
	cr_assert_eq(make_goal("install", dir), 0, "make install DESTDIR=%s: %s", dir, out);
}

static void remove_tree(const char *dir)
{
	temp_dir_remove(dir);
}

static bool exists(const char *dir, const char *path, struct stat *st)
{
	char full[1024];

	snprintf(full, sizeof(full), "%s%s", dir, path);
	return stat(full, st) == 0;
}

Test(install, destdir_prefix__lays_out_every_file_and_uninstall_removes_them, .timeout = MW_TIMEOUT)
{
	char dir[64], cmd[1024];
	struct stat st;

	install_into(dir);
	for (size_t i = 0; i < N_INSTALLED; i++) {
		cr_expect(exists(dir, installed[i], &st) && S_ISREG(st.st_mode),
			  "make install lays out %s", installed[i]);
	}
	cr_assert(exists(dir, PREFIX "/sbin/memwatch", &st), "the binary is installed");
	cr_expect_eq(st.st_mode & 07777, 0755, "sbin/memwatch is mode 0755, not %o",
		     st.st_mode & 07777);
	cr_expect(exists(dir, DOC "/memwatch.conf", &st) && (st.st_mode & 07777) == 0644,
		  "the examples are mode 0644");

	snprintf(cmd, sizeof(cmd), "%s" PREFIX "/sbin/memwatch --version", dir);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, "the installed memwatch runs");
	cr_expect(strncmp(out, "memwatch ", 9) == 0, "--version names memwatch: %s", out);

	/* the page is gzipped whole, as Debian ships man pages */
	snprintf(cmd, sizeof(cmd),
		 "gzip -t %s" PREFIX "/share/man/man8/memwatch.8.gz && "
		 "zcat %s" PREFIX "/share/man/man8/memwatch.8.gz | cmp - " MAN_PAGE,
		 dir, dir);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0,
		     "memwatch.8.gz is gzip of " MAN_PAGE ": %s", out);

	/* the installed unit starts the installed binary */
	snprintf(cmd, sizeof(cmd), "grep -x 'ExecStart=" PREFIX "/sbin/memwatch .*' %s" DOC
		 "/memwatch.service", dir);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0,
		     "the installed unit's ExecStart is " PREFIX "/sbin/memwatch");

	cr_assert_eq(make_goal("uninstall", dir), 0, "make uninstall: %s", out);
	for (size_t i = 0; i < N_INSTALLED; i++)
		cr_expect(!exists(dir, installed[i], &st), "make uninstall removes %s", installed[i]);
	cr_expect(!exists(dir, PREFIX "/share/doc/memwatch", &st),
		  "make uninstall removes the emptied doc directory");
	snprintf(cmd, sizeof(cmd), "find %s ! -type d", dir);
	run_capture(cmd, out, sizeof(out));
	cr_expect_str_empty(out, "nothing but directories is left: %s", out);
	remove_tree(dir);
}

Test(install, man_page__renders_with_every_option_and_no_warning, .timeout = MW_TIMEOUT)
{
	static char help[1 << 15], name[64];
	const char *const wanted[] = {
		"NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "LAUNCH MODE", "FOLLOW MODE",
		"OUTPUT", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO",
		"memwatch -p PID", "memwatch [options] -- CMD", "--exe", "--comm", "--cgroup",
		"--max-targets", "--user", "125", "126", "127", "128+N",
		"heap_live_bytes", "memwatch_struct_elements", "/metrics",
		"/debug/pprof/heap", "/debug/pprof/allocs", "bpftool(8)",
	};
	const char *p;

	cr_assert_eq(run_capture("MANWIDTH=80 man -l " MAN_PAGE " 2>&1 | col -b", out,
				 sizeof(out)), 0, "man -l renders " MAN_PAGE);
	for (size_t i = 0; i < sizeof(wanted) / sizeof(wanted[0]); i++)
		cr_expect(strstr(out, wanted[i]), "the rendered page has '%s'", wanted[i]);

	/* every long option of --help is documented */
	cr_assert_eq(run_capture(MEMWATCH " --help", help, sizeof(help)), 0, "--help");
	for (p = strstr(help, "--"); p; p = strstr(p + 2, "--")) {
		size_t n = strspn(p + 2, "abcdefghijklmnopqrstuvwxyz-");

		if (!n || n >= sizeof(name) - 2)
			continue;
		snprintf(name, sizeof(name), "--%.*s", (int)n, p + 2);
		cr_expect(strstr(out, name), "memwatch(8) documents %s from --help", name);
	}

	cr_expect_eq(run_capture("groff -man -ww -z " MAN_PAGE " 2>&1", out, sizeof(out)), 0,
		     "groff reads " MAN_PAGE);
	cr_expect_str_empty(out, "groff -man -ww warns about nothing: %s", out);
	/* mandoc's linter where it is installed (it is not in DEB_PKGS) */
	cr_expect_eq(run_capture("! command -v mandoc >/dev/null || "
				 "mandoc -T lint -W warning " MAN_PAGE " 2>&1", out, sizeof(out)),
		     0, "mandoc -T lint: %s", out);
	cr_expect_str_empty(out, "mandoc -T lint warns about nothing: %s", out);
}

/*
 * systemd-analyze verify works offline (this machine's PID 1 need not be
 * systemd), but it checks that ExecStart's binary exists and that the man
 * page Documentation= names is found, and it exits 0 on unknown keys and
 * bad values while printing them. So the installed unit is verified with
 * ExecStart pointed at the DESTDIR binary and MANPATH at the DESTDIR man
 * pages, and its output must be empty.
 */
Test(install, systemd_unit__verifies_offline_with_no_complaint, .timeout = MW_TIMEOUT)
{
	char dir[64], cmd[2048];

	install_into(dir);
	snprintf(cmd, sizeof(cmd),
		 "sed 's|^ExecStart=" PREFIX "/sbin/memwatch |ExecStart=%s" PREFIX "/sbin/memwatch |' "
		 "%s" DOC "/memwatch.service > %s/memwatch.service && "
		 "grep -q '^ExecStart=%s/' %s/memwatch.service",
		 dir, dir, dir, dir, dir);
	cr_assert_eq(run_capture(cmd, out, sizeof(out)), 0, "a copy of the installed unit");

	snprintf(cmd, sizeof(cmd),
		 "MANPATH=%s" PREFIX "/share/man systemd-analyze verify %s/memwatch.service 2>&1",
		 dir, dir);
	cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, "systemd-analyze verify: %s", out);
	cr_expect_str_empty(out, "systemd-analyze verify says nothing: %s", out);

	/* the same check does see a broken unit */
	snprintf(cmd, sizeof(cmd),
		 "sed 's/^RestartSec=.*/RestartSec=soon/' %s/memwatch.service > %s/broken.service && "
		 "MANPATH=%s" PREFIX "/share/man systemd-analyze verify %s/broken.service 2>&1",
		 dir, dir, dir, dir);
	run_capture(cmd, out, sizeof(out));
	cr_expect(strstr(out, "RestartSec") || strstr(out, "soon"),
		  "verify reports a bad value, so its silence means something: %s", out);
	remove_tree(dir);
}

Test(install, systemd_unit__is_an_exporter_without_full_root)
{
	const char *const lines[] = {
		"AmbientCapabilities=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH",
		"CapabilityBoundingSet=CAP_BPF CAP_PERFMON CAP_SYS_PTRACE CAP_DAC_READ_SEARCH",
		"User=memwatch", "NoNewPrivileges=yes", "ProtectSystem=strict",
		"ProtectHome=read-only", "PrivateTmp=yes", "Restart=on-failure", "RestartSec=5",
		"LimitNOFILE=65536", "KillMode=mixed",
		"ExecStart=/usr/local/sbin/memwatch --config /etc/memwatch/memwatch.conf",
	};
	const char *const conf[] = { "exe /usr/bin/redis-server", "listen 127.0.0.1:9464" };
	char cmd[512];

	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		snprintf(cmd, sizeof(cmd), "grep -qx '%s' " UNIT, lines[i]);
		cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, UNIT " has %s", lines[i]);
	}
	/* the config the unit reads follows by executable and listens */
	for (size_t i = 0; i < sizeof(conf) / sizeof(conf[0]); i++) {
		snprintf(cmd, sizeof(cmd), "grep -qx '%s' examples/memwatch.conf", conf[i]);
		cr_expect_eq(run_capture(cmd, out, sizeof(out)), 0, "memwatch.conf has %s", conf[i]);
	}
	/* every key of the example config is an option memwatch(8) documents */
	cr_expect_eq(run_capture("MANWIDTH=200 man -l " MAN_PAGE " 2>/dev/null | col -b > "
				 "/tmp/memwatch-install-man.txt && "
				 "sed -n 's/^#\\{0,1\\}\\([a-z][a-z-]*\\)\\( .*\\)\\{0,1\\}$/\\1/p' "
				 "examples/memwatch.conf | sort -u | while read k; do "
				 "grep -q -- \"--$k\\b\" /tmp/memwatch-install-man.txt || echo $k; done",
				 out, sizeof(out)), 0, "config keys against the page");
	cr_expect_str_empty(out, "keys of memwatch.conf that are not options: %s", out);
	unlink("/tmp/memwatch-install-man.txt");
}

Test(install, daemonset__parses_and_follows_pods_by_cgroup, .timeout = MW_TIMEOUT)
{
	/* Debian's python3 and python3-yaml, not one earlier in PATH */
	int status = run_capture(
		"/usr/bin/python3 - " DAEMONSET " 2>&1 <<'EOF'\n"
		"import sys, yaml\n"
		"docs = [d for d in yaml.safe_load_all(open(sys.argv[1])) if d]\n"
		"ds = [d for d in docs if d['kind'] == 'DaemonSet']\n"
		"assert len(ds) == 1, 'one DaemonSet'\n"
		"pod = ds[0]['spec']['template']\n"
		"ann = pod['metadata']['annotations']\n"
		"assert ann['prometheus.io/scrape'] == 'true', ann\n"
		"assert ann['prometheus.io/port'] == '9464', ann\n"
		"assert ann['prometheus.io/path'] == '/metrics', ann\n"
		"spec = pod['spec']\n"
		"assert spec['hostPID'] is True, 'hostPID'\n"
		"c = spec['containers'][0]\n"
		"args = c['args']\n"
		"cg = args[args.index('--cgroup') + 1]\n"
		"assert cg.startswith('/sys/fs/cgroup/kubepods'), cg\n"
		"assert args[args.index('--listen') + 1] == '0.0.0.0:9464', args\n"
		"assert all(isinstance(a, str) for a in args), 'args are strings'\n"
		"sc = c['securityContext']\n"
		"assert sc['privileged'] is False, 'not privileged'\n"
		"need = {'BPF', 'PERFMON', 'SYS_PTRACE', 'DAC_READ_SEARCH', 'SYS_RESOURCE'}\n"
		"assert set(sc['capabilities']['add']) == need, sc['capabilities']\n"
		"assert sc['capabilities']['drop'] == ['ALL'], sc['capabilities']\n"
		"mounts = {m['mountPath'] for m in c['volumeMounts']}\n"
		"assert {'/sys/fs/cgroup', '/sys/kernel/btf'} <= mounts, mounts\n"
		"assert c['ports'][0]['containerPort'] == 9464, c['ports']\n"
		"print('ok')\n"
		"EOF", out, sizeof(out));

	cr_expect_eq(status, 0, DAEMONSET " parses and holds what it must: %s", out);
	cr_expect_str_eq(out, "ok\n", "the checks ran: %s", out);
}
