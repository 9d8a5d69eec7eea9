#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# Prints pmuvm's version.  In a git checkout: `git describe` of the newest
# vX.Y.Z tag without its "v" (0.1.0, or 0.1.0-5-g1234abc after 5 more
# commits), "-dirty" when the work tree has uncommitted changes; before the
# first tag, VERSION's number and the commit (0.1.0-g1234abc).  In a release
# tarball (no .git): the VERSION file, which `make dist` writes with the
# version resolved here.
#
#   version.sh           the work tree's version
#   version.sh --head    HEAD's, never -dirty (what `make dist` packs)
set -u
cd "$(dirname "$0")/.." || exit 1
dirty=--dirty
[ "${1:-}" = --head ] && dirty=
base=$(cat VERSION 2>/dev/null) || { echo "pmuvm: no VERSION file" >&2; exit 1; }
if [ -e .git ] && command -v git >/dev/null; then
	# shellcheck disable=SC2086
	if v=$(git describe --tags --match 'v[0-9]*' $dirty 2>/dev/null); then
		echo "${v#v}"
		exit 0
	fi
	# shellcheck disable=SC2086
	if h=$(git describe --always $dirty 2>/dev/null); then
		echo "$base-g$h"
		exit 0
	fi
fi
echo "$base"
