/* SPDX-License-Identifier: MIT */
/*
 * pp_thresh.h - the thresholds that flag a run that ran (exit status 4):
 * --expect-mtu (a path MTU below it) and --max-rtt (a median round trip
 * above it).  Pure: each rule gives a bool and the one line that says why
 * and what to do, the same line for a pair run's two sides and for a
 * mesh's rank 0 (docs/thresholds.md).
 */
#ifndef PP_THRESH_H
#define PP_THRESH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* About 104 bytes of RoCE v2 headers: a netdev MTU of 4200 gives 4096. */
#define PP_ROCE_HEADERS 104

/* One side of a path, as the MTU line names it. */
struct pp_thresh_side {
	const char *name;    /* "the server", "node3 (rank 2)" */
	bool known;	     /* false: a stock peer, which tells nothing */
	bool ib;	     /* InfiniBand: no netdev */
	uint32_t active_mtu; /* the port's active MTU, bytes */
	uint32_t netdev_mtu; /* the netdev's MTU; 0: not known */
};

/**
 * pp_thresh_mtu() - is the path MTU below --expect-mtu, and why
 * @expect: --expect-mtu (0: none: never below)
 * @path: the path MTU the QPs were brought up with
 * @asked: -m (0: none), which set @path when below both active MTUs
 * @a: one side (the server)
 * @b: the other side (the client)
 * @buf: the line when below: which side's active MTU is lower, its netdev
 *       MTU (or that InfiniBand has none, or that it cannot be known), and
 *       the fix
 * @len: room in @buf
 *
 * Return: true when @path < @expect (@buf then holds the line).
 */
bool pp_thresh_mtu(uint32_t expect, uint32_t path, uint32_t asked,
		   const struct pp_thresh_side *a,
		   const struct pp_thresh_side *b, char *buf, size_t len);

/**
 * pp_thresh_rtt() - is a median round trip above --max-rtt
 * @max_us: --max-rtt in microseconds (0: none: never above)
 * @median_us: the median round trip, microseconds
 * @size: the message size it was measured at
 * @more: further sizes above the limit (a sweep), named as a count
 * @buf: the line when above: the median, the limit and the size
 * @len: room in @buf
 *
 * Return: true when @median_us > @max_us.
 */
bool pp_thresh_rtt(double max_us, double median_us, uint64_t size,
		   unsigned int more, char *buf, size_t len);

#endif /* PP_THRESH_H */
