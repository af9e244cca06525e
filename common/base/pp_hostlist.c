// SPDX-License-Identifier: MIT
/*
 * pp_hostlist.c - Slurm's compressed host lists expanded (pp_hostlist.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "pp_hostlist.h"

#define RANGE_MAX 999999999UL /* the largest bound of a range */

struct walk {
	int (*fn)(const char *host, void *arg);
	void *arg;
	size_t count;
};

/* A decimal number of at most 9 digits at *@p; 0 or EINVAL. */
static int parse_bound(const char **p, const char *end, unsigned long *v,
		       int *width)
{
	const char *s = *p;

	*v = 0;
	while (*p < end && **p >= '0' && **p <= '9') {
		if (*p - s >= 9)
			return EINVAL;
		*v = *v * 10 + (unsigned long)(**p - '0');
		(*p)++;
	}
	*width = (int)(*p - s);
	return *width ? 0 : EINVAL;
}

static int expand(struct walk *w, char *buf, size_t used, const char *s,
		  const char *end);

/*
 * The group between @s and @gend (without brackets), each value with the
 * rest of the item after it.
 */
static int expand_group(struct walk *w, char *buf, size_t used, const char *s,
			const char *gend, const char *rest, const char *end)
{
	const char *p = s;
	unsigned long lo, hi, v;
	int wlo, whi, pad, n, ret;

	if (p == gend)
		return EINVAL;
	while (p < gend) {
		ret = parse_bound(&p, gend, &lo, &wlo);
		if (ret)
			return ret;
		hi = lo;
		if (p < gend && *p == '-') {
			p++;
			ret = parse_bound(&p, gend, &hi, &whi);
			if (ret)
				return ret;
		}
		if (hi < lo || (p < gend && *p != ','))
			return EINVAL;
		if (p < gend) {
			p++;
			if (p == gend)
				return EINVAL; /* "1,]" */
		}
		pad = (wlo > 1 && s[0] == '0') ? wlo : 0;
		for (v = lo; v <= hi; v++) {
			n = snprintf(buf + used, PP_HOSTLIST_HOST_MAX - used,
				     "%0*lu", pad, v);
			if (n < 0 || (size_t)n >= PP_HOSTLIST_HOST_MAX - used)
				return E2BIG;
			ret = expand(w, buf, used + (size_t)n, rest, end);
			if (ret)
				return ret;
		}
		s = p;
	}
	return 0;
}

/* One item between @s and @end, after the @used bytes already in @buf. */
static int expand(struct walk *w, char *buf, size_t used, const char *s,
		  const char *end)
{
	const char *open = memchr(s, '[', (size_t)(end - s));
	const char *close;
	size_t lit;

	lit = (size_t)((open ? open : end) - s);
	if (memchr(s, ']', lit))
		return EINVAL;
	if (used + lit >= PP_HOSTLIST_HOST_MAX)
		return E2BIG;
	memcpy(buf + used, s, lit);
	used += lit;
	if (!open) {
		buf[used] = '\0';
		if (!used)
			return EINVAL;
		if (++w->count > PP_HOSTLIST_MAX_HOSTS)
			return E2BIG;
		return w->fn(buf, w->arg);
	}
	close = memchr(open, ']', (size_t)(end - open));
	if (!close || memchr(open + 1, '[', (size_t)(close - open - 1)))
		return EINVAL;
	return expand_group(w, buf, used, open + 1, close, close + 1, end);
}

int pp_hostlist_walk(const char *list, int (*fn)(const char *host, void *arg),
		     void *arg)
{
	struct walk w = { .fn = fn, .arg = arg };
	char buf[PP_HOSTLIST_HOST_MAX];
	const char *s = list, *p;
	int depth, ret;

	if (!list || !*list)
		return EINVAL;
	while (*s) {
		/* the item: up to a comma outside brackets */
		for (p = s, depth = 0; *p && (*p != ',' || depth); p++) {
			if (*p == '[' && ++depth > 1)
				return EINVAL;
			if (*p == ']' && --depth < 0)
				return EINVAL;
			if ((unsigned char)*p <= ' ' || *p == 0x7f)
				return EINVAL;
		}
		if (depth || p == s)
			return EINVAL;
		ret = expand(&w, buf, 0, s, p);
		if (ret)
			return ret;
		if (*p == ',' && !p[1])
			return EINVAL; /* a trailing comma */
		s = *p ? p + 1 : p;
	}
	return 0;
}

static int count_one(const char *host, void *arg)
{
	(void)host;
	(*(size_t *)arg)++;
	return 0;
}

int pp_hostlist_count(const char *list, size_t *n)
{
	size_t count = 0;
	int ret = pp_hostlist_walk(list, count_one, &count);

	if (!ret)
		*n = count;
	return ret;
}

struct nth {
	size_t want, at;
	char *out;
	size_t len;
	bool found;
};

static int take_nth(const char *host, void *arg)
{
	struct nth *n = arg;

	if (n->at++ != n->want)
		return 0;
	if (strlen(host) >= n->len)
		return ENAMETOOLONG;
	memcpy(n->out, host, strlen(host) + 1);
	n->found = true;
	return -1; /* stop: found */
}

int pp_hostlist_nth(const char *list, size_t idx, char *out, size_t len)
{
	struct nth n = { .want = idx, .out = out, .len = len };
	size_t count;
	int ret;

	/* the whole list is checked first: a bad tail is an error too */
	ret = pp_hostlist_count(list, &count);
	if (ret)
		return ret;
	if (idx >= count)
		return ENOENT;
	ret = pp_hostlist_walk(list, take_nth, &n);
	if (n.found)
		return 0; /* take_nth() stopped the walk */
	return ret ? ret : ENOENT;
}
