/* SPDX-License-Identifier: GPL-2.0-only */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "exitcode.h"
#include "log.h"
#include "machine/vm.h"
#include "out/outfile.h"
#include "progress.h"
#include "signals.h"

static pthread_mutex_t signals_lock = PTHREAD_MUTEX_INITIALIZER;
static struct vm *signals_vm;		/* attached VM, under signals_lock */
static int signals_first;		/* the first stop signal, under signals_lock */
static sigset_t signals_set;

static void signals_stop(int sig)
{
	if (signals_first) {
		/* The second: at once, leaving no temporary file behind. */
		outfile_abandon();
		_exit(PMUVM_EXIT_SIGNAL_BASE + sig);
	}
	signals_first = sig;
	pr_notice("terminating on signal %d (SIG%s)", sig, sigabbrev_np(sig));
	if (signals_vm)
		vm_signal(signals_vm, sig);
}

static void *signals_thread(void *arg)
{
	(void)arg;
	for (;;) {
		int sig = sigwaitinfo(&signals_set, NULL);

		if (sig < 0)
			continue;	/* EINTR */
		pthread_mutex_lock(&signals_lock);
		if (sig == SIGUSR1) {
			if (signals_vm)
				progress_print(signals_vm);
		} else {
			signals_stop(sig);
		}
		pthread_mutex_unlock(&signals_lock);
	}
	return NULL;
}

int signals_init(void)
{
	struct sigaction ign = { .sa_handler = SIG_IGN };
	pthread_attr_t attr;
	pthread_t thread;
	int e;

	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
	sigemptyset(&signals_set);
	sigaddset(&signals_set, SIGINT);
	sigaddset(&signals_set, SIGTERM);
	sigaddset(&signals_set, SIGHUP);
	sigaddset(&signals_set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &signals_set, NULL);	/* inherited by every thread */
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 << 10);
	e = pthread_create(&thread, &attr, signals_thread, NULL);
	pthread_attr_destroy(&attr);
	if (e) {
		pr_err("cannot start the signal thread: %s", strerror(e));
		return -e;
	}
	return 0;
}

void signals_attach(struct vm *vm)
{
	pthread_mutex_lock(&signals_lock);
	signals_vm = vm;
	if (signals_first)
		vm_signal(vm, signals_first);
	pthread_mutex_unlock(&signals_lock);
}

void signals_detach(void)
{
	pthread_mutex_lock(&signals_lock);
	signals_vm = NULL;
	pthread_mutex_unlock(&signals_lock);
}
