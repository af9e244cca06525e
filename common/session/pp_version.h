/* SPDX-License-Identifier: MIT */
/*
 * pp_version.h - what --version and the JSON document say about the build.
 *
 * Three things: the project's version (CMake's project() version), the git
 * commit it was built from (git describe --always --dirty, taken at every
 * build; "unknown" outside a git checkout) and the version of the libibverbs
 * that the process runs with.  libibverbs has no call that returns its
 * version, so the last one is read from the file name of the library the
 * dynamic loader actually mapped: rdma-core names it libibverbs.so.1.ABI.REL,
 * e.g. libibverbs.so.1.14.44.0 for rdma-core 44.0, which gives "1.14.44.0".
 * The version pkg-config reported at build time is kept too, for comparison.
 */
#ifndef PP_VERSION_H
#define PP_VERSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "pp_opts.h"

#define PP_VERSION_UNKNOWN "unknown"

struct pp_version {
	const char *project;	   /* "0.1.0" */
	const char *git;	   /* "aef06da", "aef06da-dirty" or "unknown" */
	char ibverbs[64];	   /* at run time: "1.14.44.0" or "unknown" */
	const char *ibverbs_built; /* pkg-config's at build time, or "unknown" */
};

/**
 * pp_version_get() - the versions of this build and of the libibverbs loaded
 * @v: filled; every string is set (PP_VERSION_UNKNOWN where not known)
 */
void pp_version_get(struct pp_version *v);

/**
 * pp_version_from_path() - the version in a libibverbs file name
 * @path: a path whose last component is libibverbs.so.VERSION
 * @buf: where to write VERSION
 * @len: size of @buf
 *
 * "/usr/lib/x86_64-linux-gnu/libibverbs.so.1.14.44.0" gives "1.14.44.0";
 * "libibverbs.so.1" gives "1".
 *
 * Return: true with @buf set; false (and @buf untouched) when the name is
 * not libibverbs.so.VERSION, VERSION has characters other than digits and
 * dots, or does not fit @buf.
 */
bool pp_version_from_path(const char *path, char *buf, size_t len);

/**
 * pp_version_write() - the --version line of @tool
 * @f: the stream (stdout for --version)
 * @tool: which binary
 *
 * One line: "rc_pingpong 0.1.0 (git aef06da) libibverbs 1.14.44.0".
 */
void pp_version_write(FILE *f, enum pp_tool tool);

#endif /* PP_VERSION_H */
