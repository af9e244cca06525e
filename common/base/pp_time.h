/* SPDX-License-Identifier: MIT */
/*
 * pp_time.h - the monotonic clock, inline so the hot loop pays no call.
 */
#ifndef PP_TIME_H
#define PP_TIME_H

#include <stdint.h>
#include <time.h>

/**
 * pp_now_ns() - CLOCK_MONOTONIC in nanoseconds (a vDSO read when the
 * kernel's clocksource is the TSC; else a system call: pp_clock.h)
 */
static inline int64_t pp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/**
 * pp_deadline() - the absolute time @timeout_ms from now
 * @timeout_ms: milliseconds; negative: no deadline (INT64_MAX)
 */
static inline int64_t pp_deadline(int timeout_ms)
{
	if (timeout_ms < 0)
		return INT64_MAX;
	return pp_now_ns() + (int64_t)timeout_ms * 1000000;
}

/**
 * pp_deadline_ms() - the absolute time @ms from now, for bounds that may
 * be larger than an int holds (a mesh's pair: hours)
 * @ms: milliseconds; at most about 292 years
 */
static inline int64_t pp_deadline_ms(uint64_t ms)
{
	if (ms > (uint64_t)INT64_MAX / 1000000 / 2)
		return INT64_MAX;
	return pp_now_ns() + (int64_t)ms * 1000000;
}

#endif /* PP_TIME_H */
