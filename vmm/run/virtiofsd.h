/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * virtiofsd, the back end of pmuvm run's shares: started with a listening
 * socket of pmuvm's (--fd), in its own process group so that the
 * terminal's signals go to pmuvm alone, killed at the end.
 */
#ifndef PMUVM_RUN_VIRTIOFSD_H
#define PMUVM_RUN_VIRTIOFSD_H

#include <sys/types.h>

struct virtiofsd {
	pid_t pid;
	char socket[108];	/* sockaddr_un.sun_path */
};

/*
 * The virtiofsd to run: $PMUVM_VIRTIOFSD, else the first of Debian's
 * places and PATH; NULL when there is none.
 */
const char *virtiofsd_find(void);

/*
 * Starts `bin` sharing `dir`, listening on `dir_sock`/`name`.sock (`dir_sock`
 * a private directory pmuvm made): 0, or -errno after one line.
 */
int virtiofsd_start(struct virtiofsd *d, const char *bin, const char *dir,
		    const char *dir_sock, const char *name);
/* Kills and reaps it; removes the socket. */
void virtiofsd_stop(struct virtiofsd *d);

#endif
