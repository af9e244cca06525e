// SPDX-License-Identifier: MIT
/*
 * pp_report.c - address lines, the stock rdma-core result lines and the
 * latency summary, printed to a stream the caller chooses.
 */
#include <arpa/inet.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "pp_gid.h"
#include "pp_report.h"
#include "pp_run.h"
#include "pp_stats.h"

/* "remote" is the longest label; shorter ones are padded so LIDs align. */
#define PP_LABEL_WIDTH 6

void pp_report_path_mtu(FILE *f, uint32_t path, uint32_t asked,
			uint32_t server_active, uint32_t client_active)
{
	fprintf(f, "  path MTU %u (", path);
	if (asked)
		fprintf(f, "-m %u; ", asked);
	fprintf(f, "server active %u, client active %u)\n", server_active,
		client_active);
}

void pp_report_addr(FILE *f, const char *label, const struct pp_addr *a)
{
	char gid[INET6_ADDRSTRLEN];
	int pad = PP_LABEL_WIDTH + 1 - (int)strlen(label);

	if (pad < 1)
		pad = 1;
	pp_gid_format(a->gid, gid, sizeof(gid));
	fprintf(f, "  %s address:%*sLID 0x%04x, QPN 0x%06x, PSN 0x%06x, GID %s",
		label, pad, "", (unsigned int)a->lid, (unsigned int)a->qpn,
		(unsigned int)a->psn, gid);
	if (a->srqn || a->tgt_qpn)
		fprintf(f, ", SRQN 0x%06x, TQPN 0x%06x", (unsigned int)a->srqn,
			(unsigned int)a->tgt_qpn);
	fputc('\n', f);
}

/* A usable divisor: positive and finite. */
static bool good_seconds(double seconds)
{
	return seconds > 0.0 && isfinite(seconds);
}

void pp_report_totals(FILE *f, uint64_t size, uint64_t iters, double seconds)
{
	unsigned long long bytes = 2ULL * size * iters;
	double mbps = 0.0, usec_iter = 0.0;

	if (good_seconds(seconds)) {
		mbps = (double)bytes * 8.0 / (seconds * 1e6);
		if (iters)
			usec_iter = seconds * 1e6 / (double)iters;
	}
	fprintf(f, "%llu bytes in %.2f seconds = %.2f Mbit/sec\n", bytes,
		seconds, mbps);
	fprintf(f, "%llu iters in %.2f seconds = %.2f usec/iter\n",
		(unsigned long long)iters, seconds, usec_iter);
}

void pp_report_stats(FILE *f, const struct pp_stats *s, uint64_t size,
		     uint64_t iters, double seconds)
{
	double mbps = 0.0, msgs = 0.0;

	if (good_seconds(seconds)) {
		mbps = 2.0 * (double)size * (double)iters * 8.0 /
		       (seconds * 1e6);
		msgs = 2.0 * (double)iters / seconds;
	}
	fprintf(f,
		"latency usec: n %zu min %.3f median %.3f mean %.3f stdev %.3f p90 %.3f p99 %.3f p99.9 %.3f max %.3f\n",
		s->n, s->min, s->median, s->mean, s->stdev, s->p90, s->p99,
		s->p999, s->max);
	fprintf(f, "rate: %.2f Mbit/sec, %.0f msg/sec\n", mbps, msgs);
}

void pp_report_post(FILE *f, uint64_t posts, uint64_t post_ns, uint64_t max_ns)
{
	if (!posts)
		return;
	fprintf(f, "post_send usec: n %llu mean %.3f max %.3f\n",
		(unsigned long long)posts,
		(double)post_ns / 1e3 / (double)posts, (double)max_ns / 1e3);
}

void pp_report_sweep_header(FILE *f)
{
	fprintf(f, "%10s %10s %11s %10s %10s %10s %10s %10s %10s %11s %6s\n",
		"bytes", "iters", "usec/iter", "min", "median", "mean", "stdev",
		"p99", "max", "Mbit/sec", "lost");
}

void pp_report_sweep_line(FILE *f, uint64_t size, const struct pp_stats *s,
			  uint64_t iters, uint64_t lost, double seconds)
{
	double mbps = 0.0, usec_iter = 0.0;

	if (good_seconds(seconds)) {
		mbps = 2.0 * (double)size * (double)iters * 8.0 /
		       (seconds * 1e6);
		if (iters)
			usec_iter = seconds * 1e6 / (double)iters;
	}
	fprintf(f, "%10llu %10llu %11.3f ", (unsigned long long)size,
		(unsigned long long)iters, usec_iter);
	if (s)
		fprintf(f, "%10.3f %10.3f %10.3f %10.3f %10.3f %10.3f ", s->min,
			s->median, s->mean, s->stdev, s->p99, s->max);
	else
		fprintf(f, "%10s %10s %10s %10s %10s %10s ", "-", "-", "-", "-",
			"-", "-");
	fprintf(f, "%11.2f %6llu\n", mbps, (unsigned long long)lost);
}

void pp_report_interval(FILE *f, const struct pp_run_interval *iv)
{
	double seconds = iv->end_s - iv->start_s;
	double mbps = 0.0, usec_iter = 0.0;
	const struct pp_stats *s = iv->stats;

	if (good_seconds(seconds)) {
		mbps = 2.0 * (double)iv->size * (double)iv->samples * 8.0 /
		       (seconds * 1e6);
		if (iv->samples)
			usec_iter = seconds * 1e6 / (double)iv->samples;
	}
	fprintf(f,
		"  interval %llu: %.3f-%.3f s, %llu round trips, %.3f usec/iter",
		(unsigned long long)iv->index, iv->start_s, iv->end_s,
		(unsigned long long)iv->samples, usec_iter);
	if (s)
		fprintf(f,
			", usec min %.3f median %.3f mean %.3f p99 %.3f max %.3f",
			s->min, s->median, s->mean, s->p99, s->max);
	fprintf(f, ", %.2f Mbit/sec\n", mbps);
	fflush(f);
}
