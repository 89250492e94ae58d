/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h - helpers for the integration tests: spawn real processes
 * (memwatch and the targets under tests/targets) with pipes, read their
 * lines with timeouts, and look up CSV fields by column name.
 */
#ifndef MW_HARNESS_H
#define MW_HARNESS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MEMWATCH "build/memwatch"
#define TARGET(name) "build/targets/" name

struct proc {
	pid_t pid;
	int in, out, err;	/* -1 when closed */
	char buf[1 << 16];	/* stdout bytes not yet returned as lines */
	size_t len;
	int status;		/* exit code once reaped, or 128 + signal */
	bool reaped;
};

/* Starts argv[0] with stdin, stdout and stderr on pipes. */
void proc_spawn(struct proc *p, const char *const argv[]);
/* Next stdout line (without newline) in a static buffer, or NULL when
 * nothing arrives within @timeout_ms or stdout is closed. */
char *proc_line(struct proc *p, int timeout_ms);
/* Every complete stdout line available within @wait_ms; the last one
 * copied into @last (if any). Returns the number of lines read. */
int proc_drain(struct proc *p, int wait_ms, char *last, size_t len);
void proc_send(struct proc *p, const char *text);
/* Waits for exit; returns the exit code, 128 + signal, or -1 on timeout
 * (the process is then killed). */
int proc_wait(struct proc *p, int timeout_ms);
/* All of stderr so far (reads until EOF if the process has exited). */
const char *proc_stderr(struct proc *p);
void proc_kill(struct proc *p, int sig);

/* CSV: the column index of @name in @header, or -1. */
int csv_col(const char *header, const char *name);
/* Field @col of @row, copied into @out. Returns false if absent. */
bool csv_field(const char *row, int col, char *out, size_t len);
/* Integer field by column name; fails the test if absent or not a number. */
long long csv_int(const char *header, const char *row, const char *name);
int csv_nfields(const char *line);

/* "key=value" out of a target's reply line; fails the test if absent. */
long long reply_int(const char *line, const char *key);
/* Byte at @addr in process @pid's memory (for probe breakpoints). */
int peek_byte(pid_t pid, uint64_t addr);
double now_s(void);

#endif

/* HTTP/1.0 request to 127.0.0.1:@port; the whole response (headers and
 * body) into @buf. Returns the status code, or -1 (no connection, timeout). */
int http_request(int port, const char *method, const char *path,
		 const char *accept, char *buf, size_t len);
/* The body of a response read by http_request (after the blank line). */
const char *http_body(const char *response);
/* A port number unlikely to be in use, different for each caller. */
int free_port(void);
/* Runs the shell command @cmd, its stdout into @out; returns its exit
 * status. */
int run_capture(const char *cmd, char *out, size_t len);
/* Entries of the BPF map @name created last (the newest memwatch's) whose
 * first 8 bytes, as an integer k, make the Python expression @expr true
 * (read with bpftool): a count, or -1. */
long long newest_map_count(const char *name, const char *expr);
/* Runs @cmd with @input on its stdin; returns its exit status. */
int pipe_to(const char *cmd, const char *input);

/* Removes the temporary directory @dir (from mkdtemp) and all in it. */
void temp_dir_remove(const char *dir);
/* Runs memwatch (or anything) with @argv to its end: its exit code, its
 * stderr in @err (valid until the next call). */
int run_memwatch(const char *const argv[], const char **err);
/* GET @path from 127.0.0.1:@port into the file @file (binary bodies, as
 * curl writes them); the response's headers into @hdr if not NULL.
 * Returns the status. */
int http_fetch(int port, const char *path, const char *file, char *hdr, size_t len);
/* Skips the test when the target at @path was not built (no rustc); under
 * make test (MEMWATCH_ALL_TARGETS set) that is a failure instead. */
void skip_unless_built(const char *path);

/* A CSV feed written to a file: its header and last complete row, and
 * the number of rows (0 with only a header; -1 if unreadable). */
int file_rows(const char *path, char *header, size_t hlen, char *last, size_t llen);
/* The same, polled until at least @rows rows are there or @timeout_ms. */
int file_wait_rows(const char *path, int rows, int timeout_ms, char *header, size_t hlen,
		   char *last, size_t llen);
