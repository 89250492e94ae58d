// SPDX-License-Identifier: GPL-2.0
/* harness.c - process and CSV helpers for the integration tests. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "harness.h"

double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The end of the test's waits: set at its first (each test runs in a
 * process of its own) */
static double patience_end;

int patience_ms(void)
{
	double left;

	if (!patience_end)
		patience_end = now_s() + MW_PATIENCE_S;
	left = (patience_end - now_s()) * 1000;
	return left > 0 ? (int)left : 0;
}

/* Says once, on stderr, what the test was waiting for when its limit
 * ran out. */
static void gave_up(const char *fmt, va_list ap)
{
	static bool said;

	if (said)
		return;
	said = true;
	fprintf(stderr, "harness: the test's %d s ran out waiting for ", MW_PATIENCE_S);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void give_up(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	gave_up(fmt, ap);
	va_end(ap);
}

bool patience_wait(const char *what, ...)
{
	int left = patience_ms();
	va_list ap;

	if (left > 0) {
		usleep(left < 20 ? (useconds_t)left * 1000 : 20000);
		return true;
	}
	va_start(ap, what);
	gave_up(what, ap);
	va_end(ap);
	return false;
}

void proc_spawn(struct proc *p, const char *const argv[])
{
	const char *base = strrchr(argv[0], '/');
	int in[2], out[2], err[2];

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", base ? base + 1 : argv[0]);
	signal(SIGPIPE, SIG_IGN);	/* a dead peer is a failed write, not a crash */
	cr_assert(!pipe2(in, O_CLOEXEC) && !pipe2(out, O_CLOEXEC) &&
		  !pipe2(err, O_CLOEXEC), "pipes for %s", argv[0]);
	p->pid = fork();
	cr_assert(p->pid >= 0, "fork for %s", argv[0]);
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	p->in = in[1];
	p->out = out[0];
	p->err = err[0];
	fcntl(p->err, F_SETFL, O_NONBLOCK);
}

/* Reads what stdout has within @timeout_ms (0: what is there now);
 * false on timeout or EOF. */
static bool fill(struct proc *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->out, .events = POLLIN };
	ssize_t n;

	if (p->out < 0 || p->len == sizeof(p->buf) ||
	    poll(&pfd, 1, timeout_ms) <= 0)
		return false;
	n = read(p->out, p->buf + p->len, sizeof(p->buf) - p->len);
	if (n <= 0) {
		close(p->out);
		p->out = -1;
		return false;
	}
	p->len += (size_t)n;
	return true;
}

/* A complete line from the buffer, or NULL. */
static char *take_line(struct proc *p)
{
	static char line[sizeof(((struct proc *)0)->buf)];
	char *nl = memchr(p->buf, '\n', p->len);
	size_t n;

	if (!nl)
		return NULL;
	n = (size_t)(nl - p->buf);
	memcpy(line, p->buf, n);
	line[n] = '\0';
	memmove(p->buf, nl + 1, p->len - n - 1);
	p->len -= n + 1;
	return line;
}

char *proc_line(struct proc *p)
{
	for (;;) {
		char *line = take_line(p);
		int left = patience_ms();

		if (line)
			return line;
		if (p->out < 0 || p->len == sizeof(p->buf))
			return NULL;		/* closed (or a line longer than the buffer) */
		if (!left) {
			give_up("a line from %s (pid %d)", p->name, (int)p->pid);
			return NULL;
		}
		fill(p, left);
	}
}

char *proc_line_now(struct proc *p)
{
	char *line = take_line(p);

	while (!line && fill(p, 0))
		line = take_line(p);
	return line;
}

int proc_skip(struct proc *p, char *last, size_t len)
{
	int n = 0;
	char *l;

	while ((l = proc_line_now(p))) {
		if (last)
			snprintf(last, len, "%s", l);
		n++;
	}
	return n;
}

bool proc_lines(struct proc *p, int n, char *last, size_t len)
{
	for (int i = 0; i < n; i++) {
		char *l = proc_line(p);

		if (!l)
			return false;
		if (last)
			snprintf(last, len, "%s", l);
	}
	return true;
}

void proc_send(struct proc *p, const char *text)
{
	size_t n = strlen(text);

	cr_assert_eq(write(p->in, text, n), (ssize_t)n, "write to pid %d", (int)p->pid);
}

/* Reaps @p if it has exited: true then. */
static bool reap(struct proc *p)
{
	int st;

	if (p->reaped)
		return true;
	if (waitpid(p->pid, &st, WNOHANG) != p->pid)
		return false;
	p->reaped = true;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	return true;
}

bool proc_exited(struct proc *p)
{
	return reap(p);
}

int proc_wait(struct proc *p)
{
	int st;

	if (wait_until(reap(p), "%s (pid %d) to exit", p->name, (int)p->pid))
		return p->status;
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
	p->reaped = true;
	p->status = -1;
	return -1;
}

const char *proc_stderr(struct proc *p)
{
	static char text[1 << 16];
	static pid_t owner;
	static size_t len;
	ssize_t n;

	if (owner != p->pid) {
		owner = p->pid;
		len = 0;
	}
	if (p->reaped)
		fcntl(p->err, F_SETFL, 0);	/* the writer is gone: read to EOF */
	while (len < sizeof(text) - 1 &&
	       (n = read(p->err, text + len, sizeof(text) - 1 - len)) > 0)
		len += (size_t)n;
	text[len] = '\0';
	return text;
}

void proc_kill(struct proc *p, int sig)
{
	if (!p->reaped)
		kill(p->pid, sig);
}

int csv_nfields(const char *line)
{
	int n = 1;

	for (; *line; line++)
		n += *line == ',';
	return n;
}

int csv_col(const char *header, const char *name)
{
	size_t len = strlen(name);
	int col = 0;

	for (const char *s = header; ; col++) {
		const char *e = strchr(s, ',');
		size_t n = e ? (size_t)(e - s) : strlen(s);

		if (n == len && !strncmp(s, name, len))
			return col;
		if (!e)
			return -1;
		s = e + 1;
	}
}

bool csv_field(const char *row, int col, char *out, size_t len)
{
	const char *s = row;

	for (int i = 0; i < col; i++) {
		s = strchr(s, ',');
		if (!s)
			return false;
		s++;
	}
	size_t n = strcspn(s, ",");
	if (n >= len)
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

long long csv_int(const char *header, const char *row, const char *name)
{
	int col = csv_col(header, name);
	char field[64], *end;
	long long v;

	cr_assert_geq(col, 0, "column %s in the header [%s]", name, header);
	cr_assert(csv_field(row, col, field, sizeof(field)), "field %s in row [%s]", name, row);
	v = strtoll(field, &end, 10);
	cr_assert(*field && !*end, "field %s is a number in row [%s]", name, row);
	return v;
}

long long reply_int(const char *line, const char *key)
{
	char pat[64];
	const char *s;

	cr_assert(line, "a reply line containing %s", key);
	snprintf(pat, sizeof(pat), "%s=", key);
	for (s = strstr(line, pat); s && s != line && s[-1] != ' '; s = strstr(s + 1, pat))
		;	/* a whole key: "set=" is not the end of "unset=" */
	cr_assert(s, "key %s in reply [%s]", key, line);
	return strtoll(s + strlen(pat), NULL, 0);
}

int peek_byte(pid_t pid, uint64_t addr)
{
	char path[64];
	unsigned char b;
	int fd, ok;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	ok = pread(fd, &b, 1, (off_t)addr) == 1;
	close(fd);
	return ok ? b : -1;
}

long text_changes(pid_t pid, char *where, size_t len)
{
	static unsigned char mem[1 << 16], file[1 << 16];
	char path[320], line[512];
	size_t said = 0;
	long changed = 0;
	FILE *maps;
	int memfd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	memfd = open(path, O_RDONLY);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	maps = fopen(path, "r");
	if (memfd < 0 || !maps) {
		if (memfd >= 0)
			close(memfd);
		if (maps)
			fclose(maps);
		return -1;
	}
	if (len)
		where[0] = '\0';
	while (fgets(line, sizeof(line), maps)) {
		unsigned long start, end, off;
		char perms[8], object[256] = "";
		int fd;

		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %255s", &start, &end, perms, &off,
			   object) < 4 || perms[2] != 'x' || object[0] != '/')
			continue;
		/* the mapped file itself, even if replaced or deleted since */
		snprintf(path, sizeof(path), "/proc/%d/map_files/%lx-%lx", (int)pid, start, end);
		fd = open(path, O_RDONLY);
		if (fd < 0)
			continue;
		for (unsigned long at = start; at < end; at += sizeof(mem)) {
			size_t want = end - at < sizeof(mem) ? end - at : sizeof(mem);
			ssize_t m = pread(memfd, mem, want, (off_t)at);
			ssize_t f = pread(fd, file, want, (off_t)(off + (at - start)));
			ssize_t n = m < f ? m : f;	/* past the file's end: zeros */

			for (ssize_t i = 0; i < n; i++) {
				if (mem[i] == file[i])
					continue;
				if (changed++ < 4 && said < len)
					said += (size_t)snprintf(where + said, len - said, "%s%s+%#lx",
								 said ? " " : "",
								 strrchr(object, '/') + 1,
								 off + (at - start) + (unsigned long)i);
			}
		}
		close(fd);
	}
	fclose(maps);
	close(memfd);
	return changed;
}

bool file_changed(const char *path, struct stat *was)
{
	struct stat st;

	if (stat(path, &st))
		return false;
	if (st.st_ino == was->st_ino && st.st_ctim.tv_sec == was->st_ctim.tv_sec &&
	    st.st_ctim.tv_nsec == was->st_ctim.tv_nsec)
		return false;
	*was = st;
	return true;
}

bool file_replaced(const char *path, int n)
{
	struct stat was = { 0 };

	stat(path, &was);
	for (int i = 0; i < n; i++)
		if (!wait_until(file_changed(path, &was), "%s written anew (%d of %d times)", path,
				i + 1, n))
			return false;
	return true;
}

/* The pids of the processes @holder's pidfds name, as their fdinfo
 * says ("Pid:\tN"; -1 once reaped), written into @out as "N N ...". */
int pidfd_pids(pid_t holder, char *out, size_t len)
{
	char dir[64], path[320], link[64], line[128];
	struct dirent *e;
	size_t used = 0;
	int n = 0;
	DIR *d;

	out[0] = '\0';
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)holder);
	d = opendir(dir);
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		ssize_t l;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		l = readlink(path, link, sizeof(link) - 1);
		if (l <= 0)
			continue;
		link[l] = '\0';
		if (strcmp(link, "anon_inode:[pidfd]"))
			continue;
		snprintf(path, sizeof(path), "/proc/%d/fdinfo/%s", (int)holder, e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "Pid:", 4)) {
				if (used + 16 < len)
					used += (size_t)snprintf(out + used, len - used, "%s%ld",
								 n ? " " : "",
								 strtol(line + 4, NULL, 10));
				n++;
			}
		fclose(f);
	}
	closedir(d);
	return n;
}

int pidfds_held(pid_t holder)
{
	char pids[1024];

	return pidfd_pids(holder, pids, sizeof(pids));
}

bool holds_pidfd(pid_t holder, pid_t pid)
{
	char pids[1024], want[16];
	const char *p = pids;

	if (pidfd_pids(holder, pids, sizeof(pids)) <= 0)
		return false;
	snprintf(want, sizeof(want), "%d", (int)pid);
	for (; *p; p += strcspn(p, " "), p += *p == ' ')
		if (!strncmp(p, want, strlen(want)) && (p[strlen(want)] == ' ' || !p[strlen(want)]))
			return true;
	return false;
}

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

int http_request(int port, const char *method, const char *path,
		 const char *accept, char *buf, size_t len)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int left = patience_ms(), fd, n, status = -1;
	/* a reply takes what it takes: bounded by the test's limit alone */
	struct timeval tv = { left / 1000, (left % 1000) * 1000 + 1 };
	char req[512];
	size_t got = 0;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		close(fd);
		return -1;
	}
	n = snprintf(req, sizeof(req), "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\n%s%s%s\r\n",
		     method, path, accept ? "Accept: " : "", accept ? accept : "",
		     accept ? "\r\n" : "");
	if (write(fd, req, (size_t)n) == n) {
		ssize_t r;

		while (got < len - 1 && (r = read(fd, buf + got, len - 1 - got)) > 0)
			got += (size_t)r;
		buf[got] = '\0';
		if (sscanf(buf, "HTTP/1.%*d %d", &status) != 1)
			status = -1;
	}
	close(fd);
	return status;
}

const char *http_body(const char *response)
{
	const char *b = strstr(response, "\r\n\r\n");

	return b ? b + 4 : "";
}

/* A port the kernel says is free now, none this process was given
 * before (a guess from the pid collided with a server still listening,
 * in a guest whose pids are small); 0 if it says none. */
static int kernel_free_port(void)
{
	static int given[64];
	static size_t ngiven;

	for (int tries = 0; tries < 16; tries++) {
		struct sockaddr_in a = { .sin_family = AF_INET,
					 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
		socklen_t len = sizeof(a);
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), port = 0;
		bool again = false;

		if (fd < 0)
			return 0;
		if (!bind(fd, (struct sockaddr *)&a, sizeof(a)) &&
		    !getsockname(fd, (struct sockaddr *)&a, &len))
			port = ntohs(a.sin_port);
		close(fd);
		if (!port)
			return 0;
		for (size_t i = 0; i < ngiven && i < 64 && !again; i++)
			again = given[i] == port;
		if (again)
			continue;
		given[ngiven++ % 64] = port;
		return port;
	}
	return 0;
}

int free_port(void)
{
	static int next;
	int port = kernel_free_port();

	if (port)
		return port;
	if (!next)
		next = 20000 + (int)(getpid() % 20000);
	return next++;
}

int pipe_to(const char *cmd, const char *input)
{
	FILE *p = popen(cmd, "w");
	int st;

	if (!p)
		return -1;
	fputs(input, p);
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int run_capture(const char *cmd, char *out, size_t len)
{
	FILE *p = popen(cmd, "r");
	size_t n;

	cr_assert(p, "popen %s", cmd);
	n = fread(out, 1, len - 1, p);
	out[n] = '\0';
	return WEXITSTATUS(pclose(p));
}

/* What memwatch says with MEMWATCH_DEBUG on a short launch of true(1),
 * run once a test process. */
static const char *debug_lines(void)
{
	static char out[1 << 16];
	static bool ran;

	if (!ran) {
		run_capture("MEMWATCH_DEBUG=1 " MEMWATCH " -n 1 -o /tmp/memwatch-debug.csv -- /bin/true"
			    " 2>&1 >/dev/null | grep -v '^libbpf: '", out, sizeof(out));
		unlink("/tmp/memwatch-debug.csv");
		ran = true;
	}
	return out;
}

/* The rest of memwatch's first debug line that starts with @prefix,
 * into @buf; "" if none. */
static const char *debug_line(const char *prefix, char *buf, size_t len)
{
	const char *at = debug_lines(), *end;

	for (; at && *at; at = strchr(at, '\n') ? strchr(at, '\n') + 1 : NULL) {
		if (strncmp(at, prefix, strlen(prefix)))
			continue;
		at += strlen(prefix);
		end = strchr(at, '\n');
		snprintf(buf, len, "%.*s", (int)(end ? end - at : (long)strlen(at)), at);
		return buf;
	}
	snprintf(buf, len, "%s", "");
	return buf;
}

const char *kernel_mechanism(void)
{
	static char buf[256];
	const char *line = debug_line("memwatch: Linux ", buf, sizeof(buf)), *at = strstr(line, ": ");

	return at ? at + 2 : "";
}

bool kernel_emulates_nopl(void)
{
	char buf[256];

	return !strcmp(debug_line("memwatch: this kernel ", buf, sizeof(buf)),
		       "emulates multi-byte nops");
}

long long newest_map_count(const char *name, const char *expr)
{
	char cmd[1024], out[64];

	snprintf(cmd, sizeof(cmd),
		 "bpftool -j map dump id \"$(bpftool -j map show | python3 -c '"
		 "import json,sys\n"
		 "print(max(m[\"id\"] for m in json.load(sys.stdin) if m.get(\"name\") == \"%s\"))')\" | "
		 "python3 -c '"
		 "import json,sys\n"
		 "ks = [int.from_bytes(bytes(int(x, 16) for x in e[\"value\"][:8]), \"little\") for e in json.load(sys.stdin)]\n"
		 "print(sum(bool(%s) for k in ks))'",
		 name, expr);
	if (run_capture(cmd, out, sizeof(out)) != 0 || !out[0])
		return -1;
	return atoll(out);
}

int file_rows(const char *path, char *header, size_t hlen, char *last, size_t llen)
{
	FILE *f = fopen(path, "r");
	char line[8192];
	int rows = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (!n || line[n - 1] != '\n')
			break;		/* a row being written */
		line[n - 1] = '\0';
		if (rows++ < 0)
			snprintf(header, hlen, "%s", line);
		else
			snprintf(last, llen, "%s", line);
	}
	fclose(f);
	return rows < 0 ? 0 : rows;
}

int file_wait_rows(const char *path, int rows, char *header, size_t hlen,
		   char *last, size_t llen)
{
	int n;

	wait_until((n = file_rows(path, header, hlen, last, llen)) >= rows,
		   "%d rows in %s (%d there)", rows, path, n);
	return n;
}

int run_memwatch(const char *const argv[], const char **err)
{
	static struct proc p;
	int code;

	proc_spawn(&p, argv);
	code = proc_wait(&p);
	*err = proc_stderr(&p);
	return code;
}

int http_fetch(int port, const char *path, const char *file, char *hdr, size_t len)
{
	char cmd[768], out[64];

	snprintf(cmd, sizeof(cmd), "curl -s -D %s.hdr -o %s -w '%%{http_code}' 'http://127.0.0.1:%d%s'",
		 file, file, port, path);
	run_capture(cmd, out, sizeof(out));
	if (hdr) {
		snprintf(cmd, sizeof(cmd), "cat %s.hdr", file);
		run_capture(cmd, hdr, len);
	}
	snprintf(cmd, sizeof(cmd), "%s.hdr", file);
	unlink(cmd);
	return atoi(out);
}

void skip_unless_built(const char *path)
{
	if (!access(path, X_OK))
		return;
	if (getenv("MEMWATCH_ALL_TARGETS"))
		cr_assert_fail("%s was not built: make test builds every target", path);
	cr_skip_test("%s not built (no rustc?)", path);
}

void temp_dir_remove(const char *dir)
{
	char cmd[512];

	cr_assert(!strncmp(dir, "/tmp/memwatch-", 14), "only memwatch's temporary directories: %s", dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0, "%s removed", dir);
}
