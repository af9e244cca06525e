// SPDX-License-Identifier: MIT
/*
 * pp_clock.c - whether the cycle counter can be trusted, its calibration
 * against CLOCK_MONOTONIC, and the comparison at the end of a run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pp_clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#define CALIBRATE_NS 10000000LL /* 10 ms */

struct pp_clock pp_clock;
static bool chosen;

#define PAIR_TRIES 8

/*
 * One (monotonic, ticks) pair, the ticks read on both sides of the clock:
 * of a few tries, the one read in the shortest time, so that a thread
 * preempted between two reads does not skew the calibration by a whole
 * time slice.
 */
static void pair(int64_t *mono, uint64_t *ticks)
{
	uint64_t a, b, best = UINT64_MAX;
	int64_t m;
	int i;

	for (i = 0; i < PAIR_TRIES; i++) {
		a = pp_clock_ticks();
		m = pp_now_ns();
		b = pp_clock_ticks();
		if (i == 0 || b - a < best) {
			best = b - a;
			*mono = m;
			*ticks = a + (b - a) / 2;
		}
	}
}

/* Read the first line of @root/@path that starts with @prefix into @buf. */
static bool read_line(const char *root, const char *path, const char *prefix,
		      char *buf, size_t len)
{
	char name[512];
	bool found = false;
	FILE *f;

	snprintf(name, sizeof(name), "%s/%s", root, path);
	f = fopen(name, "re");
	if (!f)
		return false;
	while (fgets(buf, (int)len, f)) {
		if (!strncmp(buf, prefix, strlen(prefix))) {
			found = true;
			break;
		}
	}
	fclose(f);
	if (found)
		buf[strcspn(buf, "\n")] = '\0';
	return found;
}

/* Is @word one of the blank-separated words of @line? */
static bool has_word(const char *line, const char *word)
{
	size_t n = strlen(word);
	const char *p = line;

	while ((p = strstr(p, word))) {
		if ((p == line || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '\t' ||
		     p[n] == '\n'))
			return true;
		p += n;
	}
	return false;
}

/* Is the clocksource @name one the kernel keeps in step with the TSC? */
static bool tsc_based(const char *name)
{
	static const char *const based[] = { "tsc", "kvm-clock",
					     "hyperv_clocksource_tsc_page" };
	size_t i;

	for (i = 0; i < sizeof(based) / sizeof(based[0]); i++)
		if (!strcmp(name, based[i]))
			return true;
	return false;
}

bool pp_clock_trust(const char *root, bool x86, bool cpuid_invariant, char *why,
		    size_t len)
{
	static const char *const need[] = { "constant_tsc", "nonstop_tsc" };
	char line[4096], source[128];
	const char *missing = NULL, *by;
	bool flags;
	size_t i;

	why[0] = '\0';
	if (!x86)
		return true; /* aarch64's generic timer: constant by design */
	flags = read_line(root, PP_CLOCK_CPUINFO, "flags", line, sizeof(line));
	for (i = 0; flags && i < sizeof(need) / sizeof(need[0]); i++)
		if (!missing && !has_word(line, need[i]))
			missing = need[i];
	if (flags && !missing)
		by = "constant_tsc, nonstop_tsc";
	else if (cpuid_invariant)
		by = "the CPUID invariant-TSC bit";
	else if (!flags) {
		snprintf(
			why, len,
			"no CPU flags in /%s and no CPUID invariant-TSC bit to check the TSC",
			PP_CLOCK_CPUINFO);
		return false;
	} else {
		snprintf(
			why, len,
			"the CPU has no %s (/%s): its TSC may change rate or stop",
			missing, PP_CLOCK_CPUINFO);
		return false;
	}
	/* the kernel's own mark, whatever the clocksource */
	if (read_line(root, PP_CLOCK_CMDLINE, "", line, sizeof(line)) &&
	    has_word(line, "tsc=unstable")) {
		snprintf(why, len,
			 "the kernel was booted with tsc=unstable (/%s)",
			 PP_CLOCK_CMDLINE);
		return false;
	}
	/* sysfs may be absent (a container): then the CPU decides */
	if (!read_line(root, PP_CLOCK_SOURCE, "", source, sizeof(source)))
		goto trusted;
	if (!tsc_based(source)) {
		snprintf(
			why, len,
			"the kernel's clocksource is %s, not tsc, kvm-clock or hyperv_clocksource_tsc_page (/%s)",
			source[0] ? source : "empty", PP_CLOCK_SOURCE);
		return false;
	}
	if (!strcmp(source, "tsc"))
		goto trusted;
	/*
	 * A hypervisor's clocksource, built on the TSC: the kernel prefers it
	 * (migration), but lists tsc among the available ones unless it marked
	 * the TSC unstable (clocksource_unstable() clears the flag that lists
	 * it)
	 */
	if (!read_line(root, PP_CLOCK_AVAILABLE, "", line, sizeof(line))) {
		snprintf(
			why, len,
			"the kernel's clocksource is %s, and no /%s says whether the kernel marked the TSC unstable",
			source, PP_CLOCK_AVAILABLE);
		return false;
	}
	if (!has_word(line, "tsc")) {
		snprintf(
			why, len,
			"the kernel's clocksource is %s and tsc is not among the available ones (/%s): the kernel marked the TSC unstable",
			source, PP_CLOCK_AVAILABLE);
		return false;
	}
	snprintf(
		why, len,
		"the CPU's invariant TSC (%s), under the kernel's clocksource %s: tsc is still an available clocksource, not marked unstable",
		by, source);
	return true;
trusted:
	/* the plain case is not said; the CPUID bit alone is */
	if (!(flags && !missing))
		snprintf(why, len, "the CPU's invariant TSC (%s)", by);
	return true;
}

/* The CPUID invariant-TSC bit: leaf 0x80000007, EDX bit 8. */
bool pp_clock_cpuid_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000000, &a, &b, &c, &d) || a < 0x80000007)
		return false;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return d & (1U << 8);
#else
	return false;
#endif
}

bool pp_clock_init(void)
{
	const char *env = getenv("PP_CLOCK");
	uint64_t t0, t1;
	int64_t m0, m1;
	double scale;
	char why[sizeof(pp_clock.why)];
	bool trusted;

	if (chosen)
		return pp_clock.ticks;
	chosen = true;
	/*
	 * CLOCK_MONOTONIC until the counter is calibrated: its "ticks" are
	 * its nanoseconds (pp_clock_now()), one to the nanosecond, so that
	 * pp_clock_ns_of() holds for both
	 */
	m0 = pp_now_ns();
	pp_clock = (struct pp_clock){
		.ticks = false,
		.tick0 = (uint64_t)m0,
		.mono0 = m0,
		.ns_per_tick = 1.0,
	};
	if (env && !strcmp(env, "monotonic")) {
		snprintf(pp_clock.why, sizeof(pp_clock.why),
			 "PP_CLOCK=monotonic in the environment");
		return false;
	}
	if (!pp_clock_ticks()) {
		snprintf(pp_clock.why, sizeof(pp_clock.why),
			 "no cycle counter on this architecture");
		return false;
	}
	trusted = pp_clock_trust("", PP_CLOCK_X86, pp_clock_cpuid_invariant(),
				 why, sizeof(why));
	if (env && !strcmp(env, "cycles"))
		why[0] = '\0'; /* forced: nothing to say */
	else if (!trusted) {
		snprintf(pp_clock.why, sizeof(pp_clock.why), "%s", why);
		return false;
	}
	pair(&m0, &t0);
	do
		pair(&m1, &t1);
	while (m1 - m0 < CALIBRATE_NS);
	scale = t1 > t0 ? (double)(m1 - m0) / (double)(t1 - t0) : 0;
	/* a counter from 1 MHz to 100 GHz; anything else is not one */
	if (!(scale > 0.01 && scale < 1000.0)) {
		snprintf(
			pp_clock.why, sizeof(pp_clock.why),
			"the calibration gave no rate between 1 MHz and 100 GHz");
		return false;
	}
	pp_clock = (struct pp_clock){
		.ticks = true,
		.tick0 = t1,
		.mono0 = m1,
		.ns_per_tick = scale,
	};
	snprintf(pp_clock.why, sizeof(pp_clock.why), "%s", why);
	return true;
}

void pp_clock_reset(void)
{
	chosen = false;
}

bool pp_clock_compare(int64_t *diff_ns, int64_t *elapsed_ns)
{
	int64_t mono, ticks_ns;
	uint64_t t;

	if (!pp_clock.ticks)
		return false;
	pair(&mono, &t);
	ticks_ns = pp_clock_ns_of(t);
	*elapsed_ns = mono - pp_clock.mono0;
	*diff_ns = ticks_ns - mono;
	return true;
}

bool pp_clock_differs(int64_t diff_ns, int64_t elapsed_ns)
{
	int64_t d = diff_ns < 0 ? -diff_ns : diff_ns;
	int64_t bound = elapsed_ns / 1000000 * PP_CLOCK_BOUND_PPM;

	if (bound < PP_CLOCK_BOUND_MIN_NS)
		bound = PP_CLOCK_BOUND_MIN_NS;
	return d > bound;
}

const char *pp_clock_name(char *buf, unsigned long len)
{
	if (pp_clock.ticks)
		snprintf(buf, len, "cycle counter (%.3f GHz%s%s)",
			 1.0 / pp_clock.ns_per_tick,
			 pp_clock.why[0] ? "; " : "", pp_clock.why);
	else if (pp_clock.why[0])
		snprintf(buf, len, "CLOCK_MONOTONIC (%s)", pp_clock.why);
	else
		snprintf(buf, len, "CLOCK_MONOTONIC");
	return buf;
}
