// SPDX-License-Identifier: MIT
/*
 * pp_mesh_dev.c - -d's device lists under --mesh (pp_mesh_dev.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pp_mesh_dev.h"

bool pp_mesh_dev_is_list(const char *d)
{
	return d && (strchr(d, ',') || !strcmp(d, "auto"));
}

int pp_mesh_dev_list_check(const char *list, struct pp_err *err)
{
	const char *p = list, *q, *e;
	size_t n;

	if (!strcmp(list, "auto"))
		return 0;
	for (;; p = e + 1) {
		e = strchr(p, ',');
		n = e ? (size_t)(e - p) : strlen(p);
		if (!n) {
			pp_err_set(
				err,
				"-d '%.200s': an empty name in the list (give names separated by single commas, e.g. -d mlx5_0,mlx5_1)",
				list);
			return EINVAL;
		}
		if (n >= PP_MESH_DEV_MAX) {
			pp_err_set(
				err,
				"-d '%.200s': a device name longer than %u characters",
				list, PP_MESH_DEV_MAX - 1);
			return EINVAL;
		}
		/* the same name earlier in the list: two ranks on one NIC */
		for (q = list; q < p;) {
			const char *qe = strchr(q, ',');

			if ((size_t)(qe - q) == n && !strncmp(q, p, n)) {
				pp_err_set(
					err,
					"-d '%.200s' names %.*s twice (a list gives each rank of a host its own device)",
					list, (int)n, p);
				return EINVAL;
			}
			q = qe + 1;
		}
		if (!e)
			return 0;
	}
}

int pp_mesh_dev_nth(const char *list, uint32_t k, char *out, size_t len)
{
	const char *p = list, *e;
	size_t n;

	for (; k; k--) {
		p = strchr(p, ',');
		if (!p)
			return ENOENT;
		p++;
	}
	e = strchr(p, ',');
	n = e ? (size_t)(e - p) : strlen(p);
	if (!n)
		return ENOENT;
	if (n >= len)
		return ENAMETOOLONG;
	memcpy(out, p, n);
	out[n] = '\0';
	return 0;
}
