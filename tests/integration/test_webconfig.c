// SPDX-License-Identifier: GPL-2.0
/*
 * test_webconfig.c - --web-config through the binary: a real Prometheus
 * scrapes memwatch over TLS with basic auth and stores the target's own
 * count, while its scrapes without a password, with a wrong one and over
 * plain HTTP fail; curl sees 401 with WWW-Authenticate on every path and
 * nothing at all over plain HTTP; client certificates by policy; the TLS
 * version floor; bad files exit 2 with their one line and nothing
 * listens; an open --listen warns once. Certificates are made here with
 * openssl, hashes with htpasswd (apache2-utils).
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "prom.h"
#include "session.h"

static const char *const script[] = { TARGET("struct_script"), "100", NULL };
static char dir[] = "/tmp/memwatch-web-XXXXXX";
static char hash[128];		/* bcrypt of "secret", by htpasswd */
static char out[1 << 16];

static void write_file(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void write_file(const char *name, const char *fmt, ...)
{
	char path[256];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	cr_assert_not_null(f, "write %s", path);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* A CA; a server certificate for 127.0.0.1 and a client one, both signed
 * by it; a client certificate signed by it for servers only; a
 * self-signed one; and the bcrypt hash of "secret". */
static void make_pki(void)
{
	static const char *const steps[] = {
		"openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
		"-keyout ca.key -out ca.crt -days 2 -subj /CN=memwatch-test-ca",
		"openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes "
		"-keyout rogue.key -out rogue.crt -days 2 -subj /CN=rogue",
		"printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\\nextendedKeyUsage=serverAuth\\n' > server.ext",
		"printf 'extendedKeyUsage=clientAuth\\n' > client.ext",
		"printf 'extendedKeyUsage=serverAuth\\n' > wrong.ext",
		"for n in server client wrong; do "
		"openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout $n.key "
		"-out $n.csr -subj /CN=$n && openssl x509 -req -in $n.csr -CA ca.crt -CAkey ca.key "
		"-CAcreateserial -days 2 -extfile $n.ext -out $n.crt || exit 1; done",
	};
	char cmd[1024];

	cr_assert(mkdtemp(dir), "temp dir");
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		snprintf(cmd, sizeof(cmd), "cd %s && { %s; } >/dev/null 2>&1", dir, steps[i]);
		cr_assert_eq(system(cmd), 0, "%s", steps[i]);
	}
	cr_assert_eq(run_capture("htpasswd -nbBC 5 '' secret | tr -d ':\\n'", hash, sizeof(hash)), 0,
		     "htpasswd makes a bcrypt hash");
	cr_assert_eq(strncmp(hash, "$2y$05$", 7), 0, "bcrypt, got '%s'", hash);
}

static void remove_pki(void)
{
	temp_dir_remove(dir);
}

/* memwatch on struct_script (the table structure), serving on @host and
 * a free port (written to @port) with DIR/web.yml holding @yaml. */
static void start_on(struct session *s, const char *host, char *port, const char *yaml)
{
	char path[256], spec[64];

	write_file("web.yml", "%s", yaml);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	snprintf(port, 16, "%d", free_port());
	snprintf(spec, sizeof(spec), "%s:%s", host, port);
	const char *extra[] = { "-l", spec, "--web-config", path, "--struct", "table",
				"--insert", "table_insert", "--delta", "ret", "--remove",
				"table_remove", "--delta", "ret", NULL };
	session_start_target(s, script, extra);
}

static void start(struct session *s, char *port, const char *yaml)
{
	start_on(s, "127.0.0.1", port, yaml);
}

/* curl @args against the server (DIR/ca.crt trusted), the body into
 * DIR/body: its headers and "status=CODE" (000: no HTTP answer) in out. */
static const char *curl(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *curl(const char *fmt, ...)
{
	char args[1024], cmd[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(args, sizeof(args), fmt, ap);
	va_end(ap);
	/* an answer takes what it takes: bounded by the test's limit alone */
	snprintf(cmd, sizeof(cmd), "cd %s && curl -sS --max-time %d --cacert ca.crt -o body -D - "
		 "-w 'status=%%{http_code}\\n' %s 2>&1", dir, patience_ms() / 1000 + 1, args);
	run_capture(cmd, out, sizeof(out));
	return out;
}

static bool answered(const char *status)
{
	char want[32];

	snprintf(want, sizeof(want), "status=%s\n", status);
	return strstr(out, want) != NULL;
}

/* The server on @port answers 401 without a password, 200 with @userpass
 * ("USER:PASSWORD"). */
static void expect_password_needed(const char *port, const char *userpass)
{
	curl("https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "no password: 401, got %s", out);
	curl("-u %s https://127.0.0.1:%s/metrics", userpass, port);
	cr_expect(answered("200"), "%s: 200, got %s", userpass, out);
}

#define TLS_AND_USERS \
	"tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n" \
	"basic_auth_users:\n  prometheus: %s\n"

Test(webconfig, prometheus__scrapes_over_tls_with_basic_auth, .init = make_pki,
     .fini = remove_pki, .timeout = MW_TIMEOUT)
{
	static const char *const refused[] = { "no_password", "wrong_password", "plain_http" };
	static struct prom prom;
	char yaml[512], scrape[2048], query[128], port[16];
	double stored = -1, up[3] = { -1, -1, -1 };
	struct session s;
	long long want;
	bool done = false;

	snprintf(yaml, sizeof(yaml), TLS_AND_USERS, hash);
	start(&s, port, yaml);
	want = reply_int(session_command(&s, "run\n"), "table_elements");
	cr_assert_gt(want, 0, "the target holds elements");
	snprintf(scrape, sizeof(scrape),
		 "  - job_name: memwatch\n    scheme: https\n    tls_config: {ca_file: %s/ca.crt}\n"
		 "    basic_auth: {username: prometheus, password: secret}\n"
		 "    static_configs: [{targets: ['127.0.0.1:%s']}]\n"
		 "  - job_name: no_password\n    scheme: https\n    tls_config: {ca_file: %s/ca.crt}\n"
		 "    static_configs: [{targets: ['127.0.0.1:%s']}]\n"
		 "  - job_name: wrong_password\n    scheme: https\n    tls_config: {ca_file: %s/ca.crt}\n"
		 "    basic_auth: {username: prometheus, password: guess}\n"
		 "    static_configs: [{targets: ['127.0.0.1:%s']}]\n"
		 "  - job_name: plain_http\n    scheme: http\n"
		 "    basic_auth: {username: prometheus, password: secret}\n"
		 "    static_configs: [{targets: ['127.0.0.1:%s']}]\n",
		 dir, port, dir, port, dir, port, port);
	prom_start(&prom, dir, scrape);
	/* until the value is stored and each refused job has been tried */
	while (!done && patience_wait("Prometheus to store the count and try each refused job")) {
		usleep(500000);		/* it scrapes every 2 s: ask twice a second */
		stored = prom_query(&prom, "memwatch_struct_elements%7Bstruct%3D%22table%22%7D");
		done = stored == (double)want;
		for (int j = 0; j < 3; j++) {
			snprintf(query, sizeof(query), "up%%7Bjob%%3D%%22%s%%22%%7D", refused[j]);
			up[j] = prom_query(&prom, query);
			done &= up[j] == 0;
		}
	}
	cr_expect_eq(stored, (double)want,
		     "Prometheus stored memwatch_struct_elements = the target's count %lld, over TLS with basic auth (last answer: %s; Prometheus said: %.2000s)",
		     want, http_body(prom.answer), prom_log(&prom));
	for (int j = 0; j < 3; j++)
		cr_expect_eq(up[j], 0, "the %s scrape fails: up = %g", refused[j], up[j]);
	cr_expect_eq(prom_query(&prom, "up%7Bjob%3D%22memwatch%22%7D"), 1, "the good scrape is up");
	prom_stop(&prom);
	session_stop(&s);
}

Test(webconfig, rejections__401_on_every_path_nothing_over_plain_http, .init = make_pki,
     .fini = remove_pki, .timeout = MW_TIMEOUT)
{
	static const char *const paths[] = { "/metrics", "/", "/debug/pprof/heap", "/nope" };
	char yaml[512], port[16], raw[4096];
	struct session s;

	snprintf(yaml, sizeof(yaml), TLS_AND_USERS, hash);
	start(&s, port, yaml);
	session_command(&s, "run\n");
	session_settle(&s);
	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		curl("https://127.0.0.1:%s%s", port, paths[i]);
		cr_expect(answered("401"), "%s without a password: 401, got %s", paths[i], out);
		cr_expect(strstr(out, "WWW-Authenticate: Basic realm=\"memwatch\"\r\n"),
			  "%s: WWW-Authenticate names the scheme and realm: %s", paths[i], out);
	}
	curl("-X POST https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "another method: 401 before 405, got %s", out);
	curl("-u prometheus:guess https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "a wrong password: 401, got %s", out);
	curl("-u nobody:secret https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "an unknown user: 401, got %s", out);
	curl("-u prometheus: https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "an empty password: 401, got %s", out);
	curl("-u prometheus:secret https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("200"), "the right password: 200, got %s", out);
	snprintf(raw, sizeof(raw), "grep -c '^memwatch_struct_elements{' %s/body", dir);
	cr_expect_eq(run_capture(raw, raw, sizeof(raw)), 0, "and the metrics: %s", raw);
	/* the scheme in any case (RFC 7235), as exporter-toolkit takes it:
	 * cHJvbWV0aGV1czpzZWNyZXQ= is prometheus:secret */
	curl("-H 'Authorization: basic cHJvbWV0aGV1czpzZWNyZXQ=' https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("200"), "'basic' in lower case: 200, got %s", out);
	curl("-H 'Authorization: BASIC cHJvbWV0aGV1czpndWVzcw==' https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("401"), "'BASIC' with a wrong password: 401, got %s", out);
	curl("-u prometheus:secret https://127.0.0.1:%s/nope", port);
	cr_expect(answered("404"), "paths behave as before once admitted, got %s", out);

	curl("-u prometheus:secret http://127.0.0.1:%s/metrics", port);
	cr_expect(answered("000"), "plain HTTP to the TLS port: no HTTP answer, got %s", out);
	cr_expect_eq(http_request(atoi(port), "GET", "/metrics", NULL, raw, sizeof(raw)), -1,
		     "a raw plain request gets no status line");
	cr_expect_null(strstr(raw, "HTTP/"), "nor any HTTP at all: %s", raw);
	session_stop(&s);
}

Test(webconfig, client_certificates__by_policy, .init = make_pki, .fini = remove_pki,
     .timeout = MW_TIMEOUT)
{
	/* what each client shows: no certificate, a self-signed one, one of
	 * the authority's meant for servers, and a client one */
	static const struct {
		const char *args, *what;
	} clients[] = {
		{ "", "no certificate" },
		{ "--cert rogue.crt --key rogue.key", "a self-signed certificate" },
		{ "--cert wrong.crt --key wrong.key", "the authority's certificate for servers only" },
		{ "--cert client.crt --key client.key", "a client certificate from the authority" },
	};
	static const struct {
		const char *policy;
		const char *status[4];	/* by client: "200", or "000" (refused) */
	} cases[] = {
		{ "RequireAndVerifyClientCert\n  client_ca_file: ca.crt", { "000", "000", "000", "200" } },
		{ "VerifyClientCertIfGiven\n  client_ca_file: ca.crt", { "200", "000", "000", "200" } },
		{ "RequireAnyClientCert", { "000", "200", "200", "200" } },
		{ "NoClientCert", { "200", "200", "200", "200" } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char yaml[512], port[16];
		struct session s;

		snprintf(yaml, sizeof(yaml), "tls_server_config:\n  cert_file: server.crt\n"
			 "  key_file: server.key\n  client_auth_type: %s\n", cases[i].policy);
		start(&s, port, yaml);
		for (int c = 0; c < 4; c++) {
			curl("%s https://127.0.0.1:%s/metrics", clients[c].args, port);
			cr_expect(answered(cases[i].status[c]), "%s, %s: %s, got %s", cases[i].policy,
				  clients[c].what, cases[i].status[c], out);
		}
		session_stop(&s);
	}
}

Test(webconfig, min_version__older_clients_refused, .init = make_pki, .fini = remove_pki,
     .timeout = MW_TIMEOUT)
{
	char port[16];
	struct session s;

	start(&s, port, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		  "  min_version: TLS13\n");
	curl("--tlsv1.2 --tls-max 1.2 https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("000"), "TLS 1.2 below min_version TLS13: refused, got %s", out);
	curl("--tlsv1.3 https://127.0.0.1:%s/metrics", port);
	cr_expect(answered("200"), "TLS 1.3: served, got %s", out);
	session_stop(&s);
}

/* The web config given in a config file (-c): the same protection. */
Test(webconfig, config_file__web_config_key, .init = make_pki, .fini = remove_pki,
     .timeout = MW_TIMEOUT)
{
	char conf[256], port[16];
	struct session s;

	snprintf(port, sizeof(port), "%d", free_port());
	write_file("web.yml", TLS_AND_USERS, hash);
	write_file("memwatch.conf", "listen %s\nweb-config %s/web.yml\n", port, dir);
	snprintf(conf, sizeof(conf), "%s/memwatch.conf", dir);
	const char *extra[] = { "-c", conf, NULL };
	session_start_target(&s, script, extra);
	expect_password_needed(port, "prometheus:secret");
	session_stop(&s);
}

Test(webconfig, bad_files__exit_2_one_line_nothing_listens, .init = make_pki,
     .fini = remove_pki, .timeout = MW_TIMEOUT)
{
	static const struct {
		const char *yaml;	/* NULL: no file */
		const char *line;	/* how stderr starts, after "memwatch: DIR/" */
	} cases[] = {
		{ NULL, "none.yml: cannot read the web config: No such file or directory\n" },
		{ "tls_server_config: [\n", "web.yml:2: not YAML: " },
		{ "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  keyfile: x\n",
		  "web.yml:4: tls_server_config: unknown key 'keyfile'\n" },
		{ "tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n",
		  "web.yml:2: tls_server_config.cert_file: %s/server.key: no certificate GnuTLS can load (PEM expected): " },
		{ "tls_server_config:\n  cert_file: server.crt\n  key_file: client.key\n",
		  "web.yml:3: tls_server_config.key_file: %s/client.key: does not go with the certificate: " },
		{ "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
		  "web.yml:2: tls_server_config.cert_file: %s/missing.crt: cannot read: No such file or directory\n" },
		{ "basic_auth_users:\n  prometheus: secret\n",
		  "web.yml:2: basic_auth_users.prometheus: not a bcrypt hash ($2y$, $2b$ or $2a$, cost, '$', 53 characters); make one with: htpasswd -nBC 10 \"\" | tr -d ':\\n'\n" },
		{ "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n"
		  "  client_auth_type: RequireAndVerifyClientCert\n",
		  "web.yml: tls_server_config.client_auth_type: RequireAndVerifyClientCert needs client_ca_file: the authority that signs the clients' certificates\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char path[256], port[16], fmt[512], want[1024], raw[256];
		const char *err;
		struct proc mw;

		if (cases[i].yaml)
			write_file("web.yml", "%s", cases[i].yaml);
		snprintf(path, sizeof(path), "%s/%s", dir, cases[i].yaml ? "web.yml" : "none.yml");
		snprintf(port, sizeof(port), "%d", free_port());
		const char *argv[] = { MEMWATCH, "-p", "1", "-l", port, "--web-config", path, NULL };
		proc_spawn(&mw, argv);
		cr_expect_eq(proc_wait(&mw), 2, "case %zu exits 2", i);
		err = proc_stderr(&mw);
		snprintf(fmt, sizeof(fmt), "memwatch: %%s/%s", cases[i].line);
		snprintf(want, sizeof(want), fmt, dir, dir);
		cr_expect(!strncmp(err, want, strlen(want)), "case %zu: the line starts '%s', got '%s'",
			  i, want, err);
		cr_expect(strchr(err, '\n') && !strchr(err, '\n')[1], "case %zu: one line, got '%s'", i, err);
		cr_expect_null(strstr(err, ": secret"), "a password given by mistake is not repeated");
		cr_expect_eq(http_request(atoi(port), "GET", "/metrics", NULL, raw, sizeof(raw)), -1,
			     "case %zu: nothing listens, no plain HTTP", i);
	}
}

Test(webconfig, web_config_without_listen__usage_error, .init = make_pki, .fini = remove_pki)
{
	char path[256];
	struct proc mw;

	write_file("web.yml", TLS_AND_USERS, hash);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	const char *argv[] = { MEMWATCH, "-p", "1", "--web-config", path, NULL };
	proc_spawn(&mw, argv);
	cr_expect_eq(proc_wait(&mw), 2, "exit 2");
	cr_expect_str_eq(proc_stderr(&mw), "memwatch: --web-config protects the HTTP endpoint: give --listen [ADDR:]PORT too (see memwatch --help)\n",
			 "one line");
}

/* Lines of memwatch's stderr that warn about --listen. */
static int listen_warnings(struct session *s)
{
	const char *e = proc_stderr(&s->mw);
	int n = 0;

	for (const char *p = e; (p = strstr(p, "memwatch: warning: --listen ")); p++)
		n++;
	return n;
}

Test(webconfig, open_listen__one_warning, .init = make_pki, .fini = remove_pki, .timeout = MW_TIMEOUT)
{
	char spec[32], port[16];
	struct session s;

	snprintf(spec, sizeof(spec), "0.0.0.0:%d", free_port());
	const char *open_extra[] = { "-l", spec, NULL };
	session_start_target(&s, script, open_extra);
	cr_expect_eq(listen_warnings(&s), 1, "all interfaces, no web config: one warning, stderr: %s",
		     proc_stderr(&s.mw));
	cr_expect(strstr(proc_stderr(&s.mw), "is open to other hosts with no TLS and no password"),
		  "it says why");
	session_stop(&s);

	snprintf(spec, sizeof(spec), "127.0.0.1:%d", free_port());
	const char *loopback[] = { "-l", spec, NULL };
	session_start_target(&s, script, loopback);
	cr_expect_eq(listen_warnings(&s), 0, "loopback: no warning, stderr: %s", proc_stderr(&s.mw));
	session_stop(&s);

	start_on(&s, "0.0.0.0", port, "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n");
	cr_expect_eq(listen_warnings(&s), 0, "all interfaces with TLS: no warning, stderr: %s",
		     proc_stderr(&s.mw));
	session_stop(&s);
}

/* examples/web-config.yml as shipped, with a certificate made here: its
 * placeholder hash is of "change-me"; promtool takes the scrape block. */
Test(webconfig, examples__serve_and_parse, .init = make_pki, .fini = remove_pki, .timeout = MW_TIMEOUT)
{
	char cmd[512], port[16], path[256];
	struct session s;

	snprintf(cmd, sizeof(cmd), "cp examples/web-config.yml %s/ && cd %s && cp server.crt memwatch.crt "
		 "&& cp server.key memwatch.key", dir, dir);
	cr_assert_eq(system(cmd), 0, "the example beside a certificate");
	snprintf(path, sizeof(path), "%s/web-config.yml", dir);
	snprintf(port, sizeof(port), "%d", free_port());
	const char *extra[] = { "-l", port, "--web-config", path, NULL };
	session_start_target(&s, script, extra);
	expect_password_needed(port, "prometheus:change-me");
	session_stop(&s);
	cr_expect_eq(run_capture("promtool check config examples/prometheus-tls.yml 2>&1", out, sizeof(out)),
		     0, "promtool takes examples/prometheus-tls.yml: %s", out);
}
