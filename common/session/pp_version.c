// SPDX-License-Identifier: MIT
/*
 * pp_version.c - the versions that --version and the JSON document show.
 *
 * The git commit comes from pp_gitversion.h, which the build rewrites when
 * `git describe` changes (common/gitversion.cmake); the libibverbs version
 * from the file the dynamic loader mapped (see pp_version.h).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "pp_gitversion.h"
#include "pp_version.h"

#ifndef PP_VERSION
#define PP_VERSION PP_VERSION_UNKNOWN
#endif
#ifndef PP_IBVERBS_BUILT
#define PP_IBVERBS_BUILT PP_VERSION_UNKNOWN
#endif

#define IBVERBS_FILE "libibverbs.so."

bool pp_version_from_path(const char *path, char *buf, size_t len)
{
	const char *base = strrchr(path, '/');
	const char *v;
	size_t n;

	base = base ? base + 1 : path;
	if (strncmp(base, IBVERBS_FILE, strlen(IBVERBS_FILE)))
		return false;
	v = base + strlen(IBVERBS_FILE);
	n = strlen(v);
	if (!n || n >= len || strspn(v, "0123456789.") != n || v[0] == '.')
		return false;
	memcpy(buf, v, n + 1);
	return true;
}

struct ibverbs_search {
	char *buf;
	size_t len;
	bool found;
};

/* dl_iterate_phdr(): stop at the first loaded libibverbs.so.* */
static int find_ibverbs(struct dl_phdr_info *info, size_t size, void *data)
{
	struct ibverbs_search *s = data;
	const char *name = info->dlpi_name;
	const char *base;
	char real[PATH_MAX];

	if (!name || !*name)
		return 0;
	base = strrchr(name, '/');
	base = base ? base + 1 : name;
	if (strncmp(base, IBVERBS_FILE, strlen(IBVERBS_FILE)))
		return 0;
	/* libibverbs.so.1 is a link to libibverbs.so.1.14.44.0: follow it */
	if (!realpath(name, real) ||
	    !pp_version_from_path(real, s->buf, s->len))
		s->found = pp_version_from_path(name, s->buf, s->len);
	else
		s->found = true;
	return 1;
}

void pp_version_get(struct pp_version *v)
{
	struct ibverbs_search s = {
		.buf = v->ibverbs,
		.len = sizeof(v->ibverbs),
	};

	v->project = PP_VERSION;
	v->git = PP_GIT_VERSION[0] ? PP_GIT_VERSION : PP_VERSION_UNKNOWN;
	v->ibverbs_built = PP_IBVERBS_BUILT[0] ? PP_IBVERBS_BUILT :
						 PP_VERSION_UNKNOWN;
	dl_iterate_phdr(find_ibverbs, &s);
	if (!s.found)
		snprintf(v->ibverbs, sizeof(v->ibverbs), "%s",
			 PP_VERSION_UNKNOWN);
}

void pp_version_write(FILE *f, enum pp_tool tool)
{
	struct pp_version v;

	pp_version_get(&v);
	fprintf(f, "%s %s (git %s) libibverbs %s\n", pp_tool_name(tool),
		v.project, v.git, v.ibverbs);
}
