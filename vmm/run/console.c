/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "dev/devices.h"
#include "log.h"
#include "machine/vm.h"
#include "run/console.h"

static struct termios saved;
static volatile sig_atomic_t raw_on;
static pthread_t input_thread;
static bool input_started;
static int stop_pipe[2] = { -1, -1 };
static bool input_escaped;

void run_console_restore(void)
{
	if (raw_on) {
		tcsetattr(0, TCSAFLUSH, &saved);
		raw_on = 0;
	}
}

/* Signals that end pmuvm at once, without its own handler: the terminal first. */
static void restore_and_reraise(int sig)
{
	run_console_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

int run_console_raw(void)
{
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGABRT, SIGILL, SIGFPE, SIGQUIT };
	struct termios t;
	unsigned int i;

	if (!isatty(0))
		return 0;
	if (tcgetattr(0, &saved) < 0)
		return -errno;
	t = saved;
	cfmakeraw(&t);
	if (tcsetattr(0, TCSAFLUSH, &t) < 0)
		return -errno;
	raw_on = 1;
	atexit(run_console_restore);
	for (i = 0; i < sizeof(fatal) / sizeof(fatal[0]); i++)
		signal(fatal[i], restore_and_reraise);
	return 0;
}

size_t run_console_escape(const uint8_t *in, size_t len, uint8_t *out)
{
	size_t i, n = 0;

	for (i = 0; i < len; i++) {
		if (in[i] == RUN_CONSOLE_ESC)
			out[n++] = RUN_CONSOLE_ESC;
		out[n++] = in[i];
	}
	return n;
}

static int send_bytes(struct vm *vm, const uint8_t *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (uart_receive(vm, b[i]))
			return -ESHUTDOWN;
	return 0;
}

static void *input_main(void *arg)
{
	struct vm *vm = arg;
	uint8_t in[256], out[512];
	struct pollfd p[2] = { { .fd = 0, .events = POLLIN }, { .fd = stop_pipe[0], .events = POLLIN } };
	static const uint8_t eof[2] = { RUN_CONSOLE_ESC, RUN_CONSOLE_EOF };

	for (;;) {
		ssize_t n;

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (p[1].revents)
			break;
		n = read(0, in, sizeof(in));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			if (input_escaped)
				send_bytes(vm, eof, sizeof(eof));
			break;
		}
		if (input_escaped ? send_bytes(vm, out, run_console_escape(in, (size_t)n, out)) :
				    send_bytes(vm, in, (size_t)n))
			break;
	}
	return NULL;
}

int run_console_start(struct vm *vm, bool escaped)
{
	sigset_t all, old;
	int e;

	input_escaped = escaped;
	if (pipe2(stop_pipe, O_CLOEXEC) < 0)
		return -errno;
	/* The vCPUs' kick signal and the stop signals stay with their threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_create(&input_thread, NULL, input_main, vm);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e)
		return -e;
	input_started = true;
	return 0;
}

void run_console_stop(struct vm *vm)
{
	if (input_started) {
		uart_close_input(vm);
		if (write(stop_pipe[1], "", 1) < 0)
			pr_debug("console: %s", strerror(errno));
		pthread_join(input_thread, NULL);
		input_started = false;
	}
	if (stop_pipe[0] >= 0) {
		close(stop_pipe[0]);
		close(stop_pipe[1]);
		stop_pipe[0] = stop_pipe[1] = -1;
	}
	run_console_restore();
}
