/* SPDX-License-Identifier: GPL-2.0-only */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "run/which.h"

const char *run_which(const char *name, const char *const *places, unsigned int n, char *buf,
		      size_t len)
{
	const char *path = getenv("PATH");
	unsigned int i;

	for (i = 0; i < n; i++)
		if (access(places[i], X_OK) == 0)
			return places[i];
	while (path && *path) {
		const char *end = strchr(path, ':');
		int k = end ? (int)(end - path) : (int)strlen(path);

		snprintf(buf, len, "%.*s/%s", k, path, name);
		if (k && access(buf, X_OK) == 0)
			return buf;
		path = end ? end + 1 : NULL;
	}
	return NULL;
}
