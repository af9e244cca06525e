// SPDX-License-Identifier: MIT
/*
 * pp_thresh.c - --expect-mtu and --max-rtt: the rules and their lines.
 */
#include <stdio.h>

#include "pp_thresh.h"

/* "(netdev MTU 1500)", "(InfiniBand: no netdev)", "(netdev MTU unknown)" */
static const char *netdev_text(const struct pp_thresh_side *s, char *buf,
			       size_t len)
{
	if (s->ib)
		snprintf(buf, len, "InfiniBand: no netdev");
	else if (s->netdev_mtu)
		snprintf(buf, len, "netdev MTU %u", s->netdev_mtu);
	else
		snprintf(buf, len, "netdev MTU unknown");
	return buf;
}

/* What raises the active MTU of @s (or of both, @both) to @expect. */
static const char *raise_text(const struct pp_thresh_side *s, bool both,
			      uint32_t expect, char *buf, size_t len)
{
	if (s->ib)
		snprintf(buf, len,
			 "raise %s port MTU to %u (the subnet manager sets it)",
			 both ? "both sides'" : "its", expect);
	else
		snprintf(
			buf, len,
			"raise %s netdev MTU to at least %u (%u and the RoCE headers)",
			both ? "both sides'" : "its", expect + PP_ROCE_HEADERS,
			expect);
	return buf;
}

bool pp_thresh_mtu(uint32_t expect, uint32_t path, uint32_t asked,
		   const struct pp_thresh_side *a,
		   const struct pp_thresh_side *b, char *buf, size_t len)
{
	const struct pp_thresh_side *lo = a, *hi = b;
	char nd[64], nd2[64], fix[128];

	if (!expect || path >= expect)
		return false;
	if (!b->known) {
		/* a stock peer: nothing of its port comes over the wire */
		snprintf(
			buf, len,
			"path MTU %u is below --expect-mtu %u: -m %u, which the stock exchange cannot negotiate; %s's active MTU is %u (%s), the stock peer's active MTU and netdev MTU cannot be known: give -m %u on both sides if both ports allow it, or --expect-mtu %u",
			path, expect, path, a->name, a->active_mtu,
			netdev_text(a, nd, sizeof(nd)), expect, path);
		return true;
	}
	if (asked && asked == path && asked < a->active_mtu &&
	    asked < b->active_mtu) {
		snprintf(
			buf, len,
			"path MTU %u is below --expect-mtu %u: -m %u set it (active MTU %u on %s, %u on %s): give -m %u or drop -m, or give --expect-mtu %u",
			path, expect, asked, a->active_mtu, a->name,
			b->active_mtu, b->name, expect, path);
		return true;
	}
	if (b->active_mtu < a->active_mtu) {
		lo = b;
		hi = a;
	}
	if (lo->active_mtu == hi->active_mtu)
		snprintf(
			buf, len,
			"path MTU %u is below --expect-mtu %u: the active MTU of both %s (%s) and %s (%s) is %u: %s, or give --expect-mtu %u",
			path, expect, a->name, netdev_text(a, nd, sizeof(nd)),
			b->name, netdev_text(b, nd2, sizeof(nd2)),
			a->active_mtu,
			raise_text(a, true, expect, fix, sizeof(fix)), path);
	else
		snprintf(
			buf, len,
			"path MTU %u is below --expect-mtu %u: the active MTU of %s is %u (%s), of %s %u: %s, or give --expect-mtu %u",
			path, expect, lo->name, lo->active_mtu,
			netdev_text(lo, nd, sizeof(nd)), hi->name,
			hi->active_mtu,
			raise_text(lo, false, expect, fix, sizeof(fix)), path);
	return true;
}

bool pp_thresh_rtt(double max_us, double median_us, uint64_t size,
		   unsigned int more, char *buf, size_t len)
{
	char tail[64] = "";

	if (!(max_us > 0.0) || !(median_us > max_us))
		return false;
	if (more)
		snprintf(tail, sizeof(tail), "; %u larger size%s too", more,
			 more == 1 ? "" : "s");
	snprintf(
		buf, len,
		"median round trip %.3f usec is above --max-rtt %g usec (size %llu%s)",
		median_us, max_us, (unsigned long long)size, tail);
	return true;
}
