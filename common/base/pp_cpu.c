// SPDX-License-Identifier: MIT
/*
 * pp_cpu.c - the CPU near the NIC: sysfs, the rule, the affinity calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_cpu.h"

/* One unsigned number at *@p; moves @p past it. */
static int parse_num(const char **p, unsigned long *v)
{
	char *end;

	if (**p < '0' || **p > '9')
		return EINVAL;
	errno = 0;
	*v = strtoul(*p, &end, 10);
	if (errno || *v >= PP_CPU_MAX)
		return ERANGE;
	*p = end;
	return 0;
}

int pp_cpuset_parse(const char *s, struct pp_cpuset *set)
{
	const char *p = s;
	int ret;

	memset(set, 0, sizeof(*set));
	if (!*p || *p == '\n')
		return EINVAL;
	for (;;) {
		unsigned long lo, hi, c;

		ret = parse_num(&p, &lo);
		if (ret)
			return ret;
		hi = lo;
		if (*p == '-') {
			p++;
			ret = parse_num(&p, &hi);
			if (ret)
				return ret;
			if (hi < lo)
				return EINVAL;
		}
		for (c = lo; c <= hi; c++)
			pp_cpuset_add(set, (unsigned int)c);
		if (*p == ',') {
			p++;
			continue;
		}
		if (*p == '\n')
			p++;
		return *p ? EINVAL : 0;
	}
}

void pp_cpuset_format(const struct pp_cpuset *set, char *buf, size_t len)
{
	size_t used = 0;
	unsigned int c = 0;

	buf[0] = '\0';
	while (c < PP_CPU_MAX) {
		unsigned int hi;
		int w;

		if (!pp_cpuset_has(set, c)) {
			c++;
			continue;
		}
		for (hi = c; hi + 1 < PP_CPU_MAX && pp_cpuset_has(set, hi + 1);
		     hi++)
			;
		if (hi == c)
			w = snprintf(buf + used, len - used, "%s%u",
				     used ? "," : "", c);
		else
			w = snprintf(buf + used, len - used, "%s%u-%u",
				     used ? "," : "", c, hi);
		if (w < 0 || (size_t)w >= len - used) {
			if (len >= 4)
				snprintf(buf + len - 4, 4, "...");
			return;
		}
		used += (size_t)w;
		c = hi + 1;
	}
}

bool pp_cpu_spec_valid(const char *spec)
{
	struct pp_cpuset set;

	return !strcmp(spec, "auto") || !strcmp(spec, "none") ||
	       !pp_cpuset_parse(spec, &set);
}

/* The first (@first) or last CPU of @a and @b; -1 when they share none. */
static int pick(const struct pp_cpuset *a, const struct pp_cpuset *b,
		bool first)
{
	int found = -1;
	unsigned int c;

	for (c = 0; c < PP_CPU_MAX; c++) {
		if (!pp_cpuset_has(a, c) || !pp_cpuset_has(b, c))
			continue;
		found = (int)c;
		if (first)
			break;
	}
	return found;
}

/* Read @root/sys/class/infiniband/@dev/device/@name into @buf. */
static int read_attr(const char *root, const char *dev, const char *name,
		     char *buf, size_t len)
{
	char path[512];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/%s/device/%s",
		 root ? root : "", dev, name);
	f = fopen(path, "re");
	if (!f)
		return errno;
	if (!fgets(buf, (int)len, f))
		ret = EINVAL;
	fclose(f);
	return ret;
}

/* The device's NUMA node and its CPUs; false when sysfs names none. */
static bool device_node(const char *root, const char *dev, int *node,
			struct pp_cpuset *local)
{
	char buf[4096];
	char *end;
	long n;

	*node = -1;
	if (read_attr(root, dev, "numa_node", buf, sizeof(buf)))
		return false;
	n = strtol(buf, &end, 10);
	if (end == buf || n < 0 || n > 65535)
		return false;
	*node = (int)n;
	if (read_attr(root, dev, "local_cpulist", buf, sizeof(buf)) ||
	    pp_cpuset_parse(buf, local))
		return false;
	return true;
}

int pp_cpu_choose(const char *root, const char *dev, const char *spec,
		  const struct pp_cpuset *allowed, bool is_server,
		  struct pp_cpu_place *place, struct pp_err *err)
{
	const char *side = is_server ? "first" : "last";
	char alist[128], llist[128];
	struct pp_cpuset local;
	bool have_node;

	memset(place, 0, sizeof(*place));
	place->cpu = -1;
	have_node = device_node(root, dev, &place->node, &local);
	pp_cpuset_format(allowed, alist, sizeof(alist));
	if (spec && !strcmp(spec, "none")) {
		snprintf(place->why, sizeof(place->why),
			 "not pinned (--cpu none)");
		return 0;
	}
	if (spec && strcmp(spec, "auto")) {
		struct pp_cpuset want;

		if (pp_cpuset_parse(spec, &want)) {
			pp_err_set(
				err,
				"--cpu %s: expected auto, none or a CPU list such as 0-3,8",
				spec);
			return EINVAL;
		}
		place->cpu = pick(&want, allowed, is_server);
		if (place->cpu < 0) {
			pp_err_set(
				err,
				"--cpu %s: none of these CPUs may be used by this process (allowed: %s)",
				spec, alist);
			return EINVAL;
		}
		snprintf(place->why, sizeof(place->why),
			 "the %s CPU of --cpu %s allowed here", side, spec);
		return 0;
	}
	if (have_node) {
		place->cpu = pick(&local, allowed, is_server);
		pp_cpuset_format(&local, llist, sizeof(llist));
		if (place->cpu >= 0) {
			snprintf(
				place->why, sizeof(place->why),
				"the %s CPU of %.64s's NUMA node %d (%s) allowed here",
				side, dev, place->node, llist);
			return 0;
		}
		place->cpu = pick(allowed, allowed, is_server);
		snprintf(
			place->why, sizeof(place->why),
			"the %s allowed CPU (%s): none of %.64s's NUMA node %d (%s) is allowed here",
			side, alist, dev, place->node, llist);
		return 0;
	}
	place->cpu = pick(allowed, allowed, is_server);
	snprintf(place->why, sizeof(place->why),
		 "the %s allowed CPU (%s): %.64s has no NUMA node in sysfs",
		 side, alist, dev);
	return 0;
}

int pp_cpu_allowed(struct pp_cpuset *set)
{
	cpu_set_t cs;
	unsigned int c;

	CPU_ZERO(&cs);
	if (sched_getaffinity(0, sizeof(cs), &cs))
		return errno;
	memset(set, 0, sizeof(*set));
	for (c = 0; c < PP_CPU_MAX && c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &cs))
			pp_cpuset_add(set, c);
	return 0;
}

int pp_cpu_pin(int cpu)
{
	cpu_set_t cs;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return EINVAL;
	CPU_ZERO(&cs);
	CPU_SET(cpu, &cs);
	return sched_setaffinity(0, sizeof(cs), &cs) ? errno : 0;
}
