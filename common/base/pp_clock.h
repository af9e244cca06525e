/* SPDX-License-Identifier: MIT */
/*
 * pp_clock.h - the clock of the hot loop: the CPU's cycle counter, scaled
 * to nanoseconds.
 *
 * clock_gettime() is a vDSO read without a system call only when the
 * kernel's clocksource is the TSC.  Under other clocksources (hpet, acpi_pm:
 * virtual machines, the project's emulated test bed) it is a system call
 * that costs microseconds and takes a lock in the hypervisor, two of them per
 * iteration.  So the ping-pong loop reads the cycle counter (rdtsc on x86-64,
 * cntvct_el0 on aarch64, as perftest does), calibrated once against
 * CLOCK_MONOTONIC.  Elsewhere, or when the calibration fails, or with
 * PP_CLOCK=monotonic in the environment, it is CLOCK_MONOTONIC itself.
 */
#ifndef PP_CLOCK_H
#define PP_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "pp_time.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

struct pp_clock {
	bool ticks;	    /* the cycle counter is in use */
	uint64_t tick0;	    /* its value at the calibration ... */
	int64_t mono0;	    /* ... and CLOCK_MONOTONIC's, in ns */
	double ns_per_tick; /* the scale */
};

extern struct pp_clock pp_clock;

/**
 * pp_clock_init() - choose and calibrate the clock (about 10 ms, once per
 * process; later calls return at once)
 *
 * Return: true when the cycle counter is in use.
 */
bool pp_clock_init(void);

/**
 * pp_clock_name() - "cycle counter (2.594 GHz)" or "CLOCK_MONOTONIC", for
 * --trace and the docs
 * @buf: output
 * @len: room in @buf
 *
 * Return: @buf.
 */
const char *pp_clock_name(char *buf, unsigned long len);

/* The raw counter; 0 when there is none here. */
static inline uint64_t pp_clock_ticks(void)
{
#if defined(__x86_64__) || defined(__i386__)
	return __rdtsc();
#elif defined(__aarch64__)
	uint64_t v;

	__asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
	return v;
#else
	return 0;
#endif
}

/**
 * pp_clock_ns_of() - a reading of the cycle counter in nanoseconds on the
 * CLOCK_MONOTONIC scale
 * @ticks: the reading (pp_clock_ticks()), with the cycle counter in use
 *
 * Return: what pp_clock_ns() would have returned at that reading.
 */
static inline int64_t pp_clock_ns_of(uint64_t ticks)
{
	/* signed: a CPU whose counter is a little behind gives a small
	   negative difference, not a huge one */
	return pp_clock.mono0 +
	       (int64_t)((double)(int64_t)(ticks - pp_clock.tick0) *
			 pp_clock.ns_per_tick);
}

/**
 * pp_clock_ns() - nanoseconds on the CLOCK_MONOTONIC scale, from the cycle
 * counter when pp_clock_init() chose it (no system call), else
 * pp_now_ns()
 */
static inline int64_t pp_clock_ns(void)
{
	if (!pp_clock.ticks)
		return pp_now_ns();
	return pp_clock_ns_of(pp_clock_ticks());
}

#endif /* PP_CLOCK_H */
