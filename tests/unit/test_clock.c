// SPDX-License-Identifier: MIT
/*
 * test_clock.c - pp_clock: whether the cycle counter can be trusted, over
 * made-up /proc/cpuinfo and clocksource files; the end-of-run bound; the
 * fallback and the recalibration of a long-lived process.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_clock.h"

#define FLAGS_GOOD \
	"flags\t\t: fpu vme de pse tsc msr pae constant_tsc rep_good nopl nonstop_tsc cpuid tsc_known_freq pni"

/* A root with @flags as the first CPU's flags line (NULL: no cpuinfo) and
 * @source as the current clocksource (NULL: no sysfs). */
static void make_root(char *root, size_t len, const char *flags,
		      const char *source)
{
	char path[512];
	FILE *f;

	snprintf(root, len, "/tmp/test_clock.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	if (flags) {
		snprintf(path, sizeof(path), "%s/" PP_CLOCK_CPUINFO, root);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f,
			"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Made Up CPU\n%s\nbugs\t\t: spectre_v1\n\nprocessor\t: 1\n%s\n",
			flags, flags);
		fclose(f);
	}
	if (source) {
		snprintf(
			path, sizeof(path),
			"mkdir -p %s/sys/devices/system/clocksource/clocksource0 && printf '%%s\\n' '%s' > %s/" PP_CLOCK_SOURCE,
			root, source, root);
		ck_assert_int_eq(system(path), 0);
	}
}

static void drop_root(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

static const struct trust_case {
	const char *flags;
	const char *source;
	bool x86;
	bool trusted;
	const char *why;
} trust_cases[] = {
	{ FLAGS_GOOD, "tsc", true, true, "" },
	{ FLAGS_GOOD, NULL, true, true, "" }, /* no sysfs: the flags decide */
	{ "flags\t\t: fpu tsc msr constant_tsc pni", "tsc", true, false,
	  "the CPU has no nonstop_tsc (/proc/cpuinfo): its TSC may change rate or stop" },
	{ "flags\t\t: fpu tsc msr nonstop_tsc pni", "tsc", true, false,
	  "the CPU has no constant_tsc (/proc/cpuinfo): its TSC may change rate or stop" },
	/* a word inside another is not the flag */
	{ "flags\t\t: tsc xconstant_tsc nonstop_tscx", "tsc", true, false,
	  "the CPU has no constant_tsc (/proc/cpuinfo): its TSC may change rate or stop" },
	/* the kernel found the TSC unstable and switched */
	{ FLAGS_GOOD, "hpet", true, false,
	  "the kernel's clocksource is hpet, not tsc (/sys/devices/system/clocksource/clocksource0/current_clocksource): the kernel does not trust the TSC" },
	{ FLAGS_GOOD, "acpi_pm", true, false,
	  "the kernel's clocksource is acpi_pm, not tsc (/sys/devices/system/clocksource/clocksource0/current_clocksource): the kernel does not trust the TSC" },
	{ NULL, "tsc", true, false,
	  "no CPU flags in /proc/cpuinfo to check the TSC" },
	/* aarch64's generic timer: no TSC rules */
	{ NULL, NULL, false, true, "" },
};

START_TEST(trust)
{
	const struct trust_case *c = &trust_cases[_i];
	char root[64], why[256];

	make_root(root, sizeof(root), c->flags, c->source);
	ck_assert_int_eq(pp_clock_trust(root, c->x86, why, sizeof(why)),
			 c->trusted);
	ck_assert_str_eq(why, c->why);
	drop_root(root);
}
END_TEST

START_TEST(bound)
{
	/* at least 100 us */
	ck_assert(!pp_clock_differs(100000, 1000000));
	ck_assert(pp_clock_differs(100001, 1000000));
	ck_assert(pp_clock_differs(-100001, 1000000));
	/* 0.1 % of 10 s: 10 ms */
	ck_assert(!pp_clock_differs(10000000, 10000000000LL));
	ck_assert(pp_clock_differs(10000001, 10000000000LL));
	ck_assert(pp_clock_differs(-10000001, 10000000000LL));
}
END_TEST

/* PP_CLOCK=monotonic: the fallback, said; pp_clock_reset() chooses anew. */
START_TEST(fallback_and_reset)
{
	int64_t diff, elapsed;
	char name[256];

	setenv("PP_CLOCK", "monotonic", 1);
	pp_clock_reset();
	ck_assert(!pp_clock_init());
	ck_assert(!pp_clock_compare(&diff, &elapsed));
	ck_assert_str_eq(
		pp_clock_name(name, sizeof(name)),
		"CLOCK_MONOTONIC (PP_CLOCK=monotonic in the environment)");
	/* chosen once: the environment is read again only after a reset */
	setenv("PP_CLOCK", "cycles", 1);
	ck_assert(!pp_clock_init());
	pp_clock_reset();
	if (!pp_clock_ticks())
		return; /* no counter here */
	ck_assert(pp_clock_init());
	ck_assert_str_eq(pp_clock.why, "");
	ck_assert(pp_clock_compare(&diff, &elapsed));
	ck_assert(elapsed >= 0);
	ck_assert_msg(!pp_clock_differs(diff, elapsed),
		      "diff %lld ns over %lld ns", (long long)diff,
		      (long long)elapsed);
	ck_assert(!strncmp(pp_clock_name(name, sizeof(name)), "cycle counter (",
			   15));
	unsetenv("PP_CLOCK");
}
END_TEST

/* The longest reason fits the name's room, its parenthesis closed. */
START_TEST(name_fits)
{
	char name[PP_CLOCK_NAME_MAX];
	size_t n = sizeof(pp_clock.why) - 1;

	setenv("PP_CLOCK", "monotonic", 1);
	pp_clock_reset();
	ck_assert(!pp_clock_init());
	memset(pp_clock.why, 'x', n);
	pp_clock.why[n] = '\0';
	pp_clock_name(name, sizeof(name));
	ck_assert_uint_eq(strlen(name), strlen("CLOCK_MONOTONIC ()") + n);
	ck_assert_int_eq(name[strlen(name) - 1], ')');
	pp_clock_reset();
	unsetenv("PP_CLOCK");
}
END_TEST

#define N(x) (int)(sizeof(x) / sizeof(x[0]))

static Suite *clock_suite(void)
{
	Suite *s = suite_create("clock");
	TCase *tc = tcase_create("clock");

	tcase_add_loop_test(tc, trust, 0, N(trust_cases));
	tcase_add_test(tc, bound);
	tcase_add_test(tc, fallback_and_reset);
	tcase_add_test(tc, name_fits);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(clock_suite)
