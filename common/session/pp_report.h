/* SPDX-License-Identifier: MIT */
/*
 * pp_report.h - the text every tool prints: address lines, the stock
 * rdma-core result lines, and the latency summary.  The program chooses the
 * stream; nothing here decides to print on its own.
 */
#ifndef PP_REPORT_H
#define PP_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "pp_stats.h"
#include "pp_wire.h"

/**
 * pp_report_addr() - "  local address:  LID 0x0000, QPN 0x000011, PSN
 * 0x1a2b3c, GID ::ffff:10.99.0.1" (rdma-core's layout, GID as IPv6 text)
 * @f: stream
 * @label: "local" or "remote"
 * @a: the address; for XRC the SRQ number and target QPN are appended
 */
void pp_report_addr(FILE *f, const char *label, const struct pp_addr *a);

/**
 * pp_report_path_mtu() - "  path MTU 1024 (server active 1024, client active
 * 4096)", or with -m "  path MTU 1024 (-m 1024; server active ...)"
 * @f: stream
 * @path: the path MTU of the run
 * @asked: the client's -m; 0 when not given
 * @server_active: the server port's active MTU
 * @client_active: the client port's active MTU
 */
void pp_report_path_mtu(FILE *f, uint32_t path, uint32_t asked,
			uint32_t server_active, uint32_t client_active);

/**
 * pp_report_totals() - the two stock result lines:
 * "N bytes in T seconds = X Mbit/sec" and "N iters in T seconds = Y usec/iter"
 * @f: stream
 * @size: message size
 * @iters: iterations completed
 * @seconds: wall time of those iterations
 *
 * Bytes count both directions (2 * size * iters), as rdma-core does.
 */
void pp_report_totals(FILE *f, uint64_t size, uint64_t iters, double seconds);

/**
 * pp_report_stats() - the latency summary, two lines:
 * "latency usec: n N min A median B mean C stdev D p90 E p99 F p99.9 G max H"
 * "rate: X Mbit/sec, Y msg/sec" (messages both sent and received)
 * @f: stream
 * @s: the statistics
 * @size: message size
 * @iters: iterations completed
 * @seconds: wall time of those iterations
 *
 * Figures have three decimals (nanosecond resolution in microseconds).
 */
void pp_report_stats(FILE *f, const struct pp_stats *s, uint64_t size,
		     uint64_t iters, double seconds);

/**
 * pp_report_post() - the time spent posting sends, one line:
 * "post_send usec: n N mean A max B"
 * @f: stream
 * @posts: measured sends posted
 * @post_ns: their time inside ibv_post_send(), in all
 * @max_ns: the longest of them
 *
 * Prints nothing when @posts is 0.
 */
void pp_report_post(FILE *f, uint64_t posts, uint64_t post_ns, uint64_t max_ns);

/**
 * pp_report_sweep_header() - the column names of a sweep's table
 * @f: stream
 */
void pp_report_sweep_header(FILE *f);

/**
 * pp_report_sweep_line() - one size of a sweep: bytes, iterations,
 * usec/iter, min, median, mean, stdev, p99, max (usec, three decimals),
 * Mbit/sec and lost iterations
 * @f: stream
 * @size: message size
 * @s: the statistics, or NULL (no samples: the latency columns show "-")
 * @iters: iterations completed
 * @lost: iterations lost (UD)
 * @seconds: wall time of those iterations
 */
void pp_report_sweep_line(FILE *f, uint64_t size, const struct pp_stats *s,
			  uint64_t iters, uint64_t lost, double seconds);

struct pp_run_interval;

/**
 * pp_report_interval() - one --interval line: its number, its time span
 * (seconds from the start of the measured run), round trips, usec/iter,
 * min, median, mean, p99, max (usec) and Mbit/sec
 * @f: stream
 * @iv: the interval
 */
void pp_report_interval(FILE *f, const struct pp_run_interval *iv);

#endif /* PP_REPORT_H */
