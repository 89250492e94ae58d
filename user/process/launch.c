// SPDX-License-Identifier: GPL-2.0
/* launch.c - fork the program, hold it, then let it execute the command. */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "process/launch.h"
#include "log.h"

/* What the child reports on its error pipe before it exits. */
struct child_error {
	char step;		/* 'x': exec, 'u': becoming the user, 'c': capabilities */
	int err;
};

static void child_fail(int fd, char step, int code)
{
	struct child_error e = { step, errno };
	ssize_t n = write(fd, &e, sizeof(e));

	(void)n;
	_exit(code);
}

/* No capability passes through execve: the ambient and inheritable sets
 * are emptied (root keeps what root has; --user gives it up). */
static int drop_inheritable(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2];

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -1;
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	data[0].inheritable = data[1].inheritable = 0;
	return (int)syscall(SYS_capset, &hdr, data);
}

static void child(char *const argv[], const struct passwd *pw, int go, int err)
{
	sigset_t none;
	char c;

	/* memwatch blocks and ignores signals for its own loop */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	if (pw) {
		if (initgroups(pw->pw_name, pw->pw_gid) || setgid(pw->pw_gid) ||
		    setuid(pw->pw_uid))
			child_fail(err, 'u', MW_EXIT_LAUNCH_FAIL);
		setenv("HOME", pw->pw_dir, 1);
		setenv("USER", pw->pw_name, 1);
		setenv("LOGNAME", pw->pw_name, 1);
	}
	if (drop_inheritable())
		child_fail(err, 'c', MW_EXIT_LAUNCH_FAIL);
	/* memwatch's probes go in once the command is executed: wait */
	if (read(go, &c, 1) != 1)
		_exit(MW_EXIT_LAUNCH_FAIL);	/* memwatch gave up */
	execvp(argv[0], argv);
	child_fail(err, 'x', errno == ENOENT ? MW_EXIT_NOT_FOUND : MW_EXIT_CANNOT_EXEC);
}

int launch__spawn(struct mw_launch *l, char *const argv[], const char *user)
{
	struct passwd *pw = NULL;
	int go[2], err[2];

	memset(l, 0, sizeof(*l));
	l->go_fd = l->err_fd = -1;
	if (user) {
		errno = 0;
		pw = getpwnam(user);
		if (!pw) {
			mw_err("--user '%s': no such user%s%s", user, errno ? ": " : "",
			       errno ? strerror(errno) : "");
			return -2;
		}
	}
	if (pipe2(go, O_CLOEXEC))
		goto fail;
	if (pipe2(err, O_CLOEXEC)) {
		close(go[0]);
		close(go[1]);
		goto fail;
	}
	fflush(NULL);
	l->pid = fork();
	if (l->pid == 0) {
		close(go[1]);
		close(err[0]);
		child(argv, pw, go[0], err[1]);
	}
	close(go[0]);
	close(err[1]);
	if (l->pid < 0) {
		close(go[1]);
		close(err[0]);
		l->pid = 0;
		goto fail;
	}
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
fail:
	mw_err("cannot start the program: %s", strerror(errno));
	return -1;
}

int launch__exec(struct mw_launch *l, const char *command)
{
	struct child_error e;
	ssize_t n;

	n = write(l->go_fd, "x", 1);
	close(l->go_fd);
	l->go_fd = -1;
	if (n == 1) {
		do
			n = read(l->err_fd, &e, sizeof(e));
		while (n < 0 && errno == EINTR);
	}
	close(l->err_fd);
	l->err_fd = -1;
	if (n == 0)
		return 0;	/* the pipe closed on execve */
	launch__reap(l, true);
	if (n != (ssize_t)sizeof(e)) {
		mw_err("the program exited before it could run '%s'", command);
		return MW_EXIT_LAUNCH_FAIL;
	}
	if (e.step == 'x') {
		mw_err("cannot run '%s': %s", command, strerror(e.err));
		return e.err == ENOENT ? MW_EXIT_NOT_FOUND : MW_EXIT_CANNOT_EXEC;
	}
	mw_err("cannot %s for '%s': %s",
	       e.step == 'u' ? "switch to the --user" : "clear the capabilities", command,
	       strerror(e.err));
	return MW_EXIT_LAUNCH_FAIL;
}

void launch__abort(struct mw_launch *l)
{
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
	if (l->pid > 0 && !l->reaped) {
		kill(l->pid, SIGKILL);
		launch__reap(l, true);
	}
}

bool launch__reap(struct mw_launch *l, bool block)
{
	pid_t r;

	if (l->reaped || l->pid <= 0)
		return l->reaped;
	do
		r = waitpid(l->pid, &l->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == l->pid)
		l->reaped = true;
	return l->reaped;
}

int launch__exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return MW_EXIT_SIGNALED + WTERMSIG(status);
	return MW_EXIT_LAUNCH_FAIL;
}
