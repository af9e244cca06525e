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
 * cntvct_el0 on aarch64, as perftest does), calibrated against
 * CLOCK_MONOTONIC, where it can be trusted: on x86 the TSC must be
 * invariant (constant_tsc and nonstop_tsc, or the CPUID bit), and the
 * kernel must not have marked it unstable: its clocksource tsc, or a
 * hypervisor's built on the TSC (kvm-clock, hyperv_clocksource_tsc_page)
 * with tsc still available (pp_clock_trust()).  On aarch64 the generic
 * timer's virtual counter runs at a fixed rate by the architecture, and is
 * trusted.  Elsewhere, when the calibration fails, or with
 * PP_CLOCK=monotonic in the environment, it is CLOCK_MONOTONIC itself;
 * PP_CLOCK=cycles uses the cycle counter whatever the checks say.  At the
 * end of a run the two are compared (pp_clock_compare()).
 */
#ifndef PP_CLOCK_H
#define PP_CLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "pp_time.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

/* Where pp_clock_trust() looks, under its root. */
#define PP_CLOCK_CPUINFO "proc/cpuinfo"
#define PP_CLOCK_SOURCE \
	"sys/devices/system/clocksource/clocksource0/current_clocksource"
#define PP_CLOCK_AVAILABLE \
	"sys/devices/system/clocksource/clocksource0/available_clocksource"
#define PP_CLOCK_CMDLINE "proc/cmdline"

/*
 * The end-of-run comparison: the cycle counter's time and CLOCK_MONOTONIC's
 * may differ by this much (0.1 % of the time since the calibration, at
 * least 100 us: the calibration's own uncertainty is about 0.02 %).
 */
#define PP_CLOCK_BOUND_PPM 1000
#define PP_CLOCK_BOUND_MIN_NS 100000LL

#if defined(__x86_64__) || defined(__i386__)
#define PP_CLOCK_X86 true
#else
#define PP_CLOCK_X86 false
#endif

struct pp_clock {
	bool ticks;	    /* the cycle counter is in use */
	uint64_t tick0;	    /* its value at the calibration ... */
	int64_t mono0;	    /* ... and CLOCK_MONOTONIC's, in ns */
	double ns_per_tick; /* the scale (1 under CLOCK_MONOTONIC) */
	/* CLOCK_MONOTONIC: why not the counter; the counter: what was
	   trusted, when more than the plain case (pp_clock_trust()) */
	char why[256];
};

extern struct pp_clock pp_clock;

/**
 * pp_clock_trust() - may this host's cycle counter be trusted?
 * @root: "" for the host, or a directory holding a made-up
 *        PP_CLOCK_CPUINFO, PP_CLOCK_CMDLINE, PP_CLOCK_SOURCE and
 *        PP_CLOCK_AVAILABLE (tests)
 * @x86: the counter is the TSC (the rules are x86's; others: trusted)
 * @cpuid_invariant: the CPUID invariant-TSC bit (pp_clock_cpuid_invariant())
 * @why: when not, one phrase saying why ("the CPU has no nonstop_tsc
 *       (/proc/cpuinfo): its TSC may change rate or stop"); when trusted
 *       on more than the plain case (the flags, clocksource tsc or no
 *       sysfs), what was trusted; else ""
 * @len: room in @why
 *
 * Return: true when the TSC is invariant (constant_tsc and nonstop_tsc in
 * the CPU's flags, or the CPUID bit), the kernel was not booted with
 * tsc=unstable, and the kernel's clocksource, when sysfs says it, is tsc,
 * or kvm-clock or hyperv_clocksource_tsc_page with tsc still among the
 * available clocksources (a kernel that marks the TSC unstable takes it
 * off that list).
 */
bool pp_clock_trust(const char *root, bool x86, bool cpuid_invariant, char *why,
		    size_t len);

/* The CPU's CPUID invariant-TSC bit (leaf 0x80000007, EDX bit 8); false
 * off x86. */
bool pp_clock_cpuid_invariant(void);

/**
 * pp_clock_init() - choose and calibrate the clock (about 10 ms); later
 * calls return at once, until pp_clock_reset()
 *
 * Return: true when the cycle counter is in use; else pp_clock.why says why.
 */
bool pp_clock_init(void);

/**
 * pp_clock_reset() - the next pp_clock_init() chooses and calibrates anew
 * (a --persistent server, for each client)
 */
void pp_clock_reset(void);

/**
 * pp_clock_compare() - the cycle counter against CLOCK_MONOTONIC now
 * @diff_ns: the counter's time minus CLOCK_MONOTONIC's
 * @elapsed_ns: CLOCK_MONOTONIC's time since the calibration
 *
 * Return: false when the cycle counter is not in use (nothing compared).
 */
bool pp_clock_compare(int64_t *diff_ns, int64_t *elapsed_ns);

/**
 * pp_clock_differs() - do the two clocks differ by more than the bound?
 * @diff_ns: pp_clock_compare()'s difference
 * @elapsed_ns: over this time
 *
 * Return: true past PP_CLOCK_BOUND_PPM of @elapsed_ns and
 * PP_CLOCK_BOUND_MIN_NS.
 */
bool pp_clock_differs(int64_t diff_ns, int64_t elapsed_ns);

/**
 * pp_clock_name() - "cycle counter (2.594 GHz)" (with what was trusted,
 * when pp_clock.why says it) or "CLOCK_MONOTONIC" with the reason in
 * parentheses, for --trace
 * @buf: output
 * @len: room in @buf (PP_CLOCK_NAME_MAX holds any name)
 *
 * Return: @buf.
 */
const char *pp_clock_name(char *buf, unsigned long len);

/* Room for any pp_clock_name(): "cycle counter (N GHz; " or
 * "CLOCK_MONOTONIC (", the why, ")". */
#define PP_CLOCK_NAME_MAX (sizeof(pp_clock.why) + 40)

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
 * pp_clock_now() - the loop's clock in its own unit: the cycle counter's
 * ticks when @ticks (pp_clock.ticks), else CLOCK_MONOTONIC's nanoseconds,
 * which pp_clock_init() then scales 1 to 1: pp_clock_ns_of() and
 * pp_clock.ns_per_tick hold for both.  The lean loops pass @ticks as a
 * constant, one copy of the loop for each clock.
 */
static inline uint64_t pp_clock_now(bool ticks)
{
	return ticks ? pp_clock_ticks() : (uint64_t)pp_now_ns();
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

/**
 * pp_clock_look_ns() - the time for a look between empty polls (deadlines,
 * the peer's DONE, ALIVE): pp_clock_ns() under the cycle counter; under
 * CLOCK_MONOTONIC, CLOCK_MONOTONIC_COARSE (the kernel's last tick, up to a
 * tick behind, on the same scale), which the vDSO gives without a system
 * call whatever the clocksource: the loop's one read per round trip stays
 * one however long it polls
 */
static inline int64_t pp_clock_look_ns(void)
{
	struct timespec ts;

	if (pp_clock.ticks)
		return pp_clock_ns_of(pp_clock_ticks());
	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif /* PP_CLOCK_H */
