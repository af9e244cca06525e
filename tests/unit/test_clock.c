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

#define SRC_DIR "sys/devices/system/clocksource/clocksource0"
#define NOT_INVARIANT "its TSC may change rate or stop"

/* Write @text and a newline to @root/@path. */
static void put(const char *root, const char *path, const char *text)
{
	char name[512];
	FILE *f;

	snprintf(name, sizeof(name), "%s/%s", root, path);
	f = fopen(name, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

/*
 * A root with @flags as the CPUs' flags lines (NULL: no cpuinfo), @cmdline
 * as the kernel's command line (NULL: none), @source as the current
 * clocksource and @avail as the available ones (NULL: no such file; both
 * NULL: no sysfs).
 */
static void make_root(char *root, size_t len, const char *flags,
		      const char *cmdline, const char *source,
		      const char *avail)
{
	char path[512], text[4096];

	snprintf(root, len, "/tmp/test_clock.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(path, sizeof(path), "%s/proc", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	if (flags) {
		snprintf(
			text, sizeof(text),
			"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Made Up CPU\n%s\nbugs\t\t: spectre_v1\n\nprocessor\t: 1\n%s",
			flags, flags);
		put(root, PP_CLOCK_CPUINFO, text);
	}
	if (cmdline)
		put(root, PP_CLOCK_CMDLINE, cmdline);
	if (source || avail) {
		snprintf(path, sizeof(path), "mkdir -p %s/" SRC_DIR, root);
		ck_assert_int_eq(system(path), 0);
	}
	if (source)
		put(root, PP_CLOCK_SOURCE, source);
	if (avail)
		put(root, PP_CLOCK_AVAILABLE, avail);
}

static void drop_root(const char *root)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}

#define FLAGS_NO_NONSTOP "flags\t\t: fpu tsc msr constant_tsc pni"
#define CMDLINE "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro quiet"
#define VM_TRUSTED(src)                                                   \
	"the CPU's invariant TSC (constant_tsc, nonstop_tsc), under the " \
	"kernel's clocksource " src                                       \
	": tsc is still an available clocksource, "                       \
	"not marked unstable"

static const struct trust_case {
	const char *name;
	const char *flags, *cmdline, *source, *avail;
	bool cpuid; /* the CPUID invariant-TSC bit */
	bool x86;
	bool trusted;
	const char *why;
} trust_cases[] = {
	/* bare metal: the plain case, nothing to say */
	{ "bare metal", FLAGS_GOOD, CMDLINE, "tsc", "tsc hpet acpi_pm ", true,
	  true, true, "" },
	/* KVM and Hyper-V guests: their clocksource is built on the TSC */
	{ "KVM", FLAGS_GOOD, CMDLINE, "kvm-clock", "kvm-clock tsc acpi_pm ",
	  true, true, true, VM_TRUSTED("kvm-clock") },
	{ "Hyper-V", FLAGS_GOOD, CMDLINE, "hyperv_clocksource_tsc_page",
	  "hyperv_clocksource_tsc_page tsc hyperv_clocksource_msr acpi_pm ",
	  false, true, true, VM_TRUSTED("hyperv_clocksource_tsc_page") },
	/* no sysfs (a container): the CPU decides */
	{ "no sysfs", FLAGS_GOOD, NULL, NULL, NULL, false, true, true, "" },
	/* no invariant TSC */
	{ "no nonstop_tsc", FLAGS_NO_NONSTOP, CMDLINE, "tsc", "tsc hpet ",
	  false, true, false,
	  "the CPU has no nonstop_tsc (/proc/cpuinfo): " NOT_INVARIANT },
	{ "no constant_tsc", "flags\t\t: fpu tsc msr nonstop_tsc pni", CMDLINE,
	  "tsc", "tsc hpet ", false, true, false,
	  "the CPU has no constant_tsc (/proc/cpuinfo): " NOT_INVARIANT },
	/* a word inside another is not the flag */
	{ "flag inside a word", "flags\t\t: tsc xconstant_tsc nonstop_tscx",
	  CMDLINE, "tsc", "tsc ", false, true, false,
	  "the CPU has no constant_tsc (/proc/cpuinfo): " NOT_INVARIANT },
	/* ... on KVM too */
	{ "KVM, no invariant TSC", FLAGS_NO_NONSTOP, CMDLINE, "kvm-clock",
	  "kvm-clock tsc acpi_pm ", false, true, false,
	  "the CPU has no nonstop_tsc (/proc/cpuinfo): " NOT_INVARIANT },
	/* the CPUID bit is enough where the flags are not (no procfs) */
	{ "CPUID bit, no cpuinfo", NULL, NULL, "kvm-clock", "kvm-clock tsc ",
	  true, true, true,
	  "the CPU's invariant TSC (the CPUID invariant-TSC bit), under the "
	  "kernel's clocksource kvm-clock: tsc is still an available "
	  "clocksource, not marked unstable" },
	{ "CPUID bit, flags without", FLAGS_NO_NONSTOP, CMDLINE, "tsc", "tsc ",
	  true, true, true,
	  "the CPU's invariant TSC (the CPUID invariant-TSC bit)" },
	{ "neither flags nor CPUID bit", NULL, NULL, "tsc", "tsc ", false, true,
	  false,
	  "no CPU flags in /proc/cpuinfo and no CPUID invariant-TSC bit to check the TSC" },
	/* the kernel marked the TSC unstable: it left the available list */
	{ "TSC unstable, KVM", FLAGS_GOOD, CMDLINE, "kvm-clock",
	  "kvm-clock acpi_pm ", true, true, false,
	  "the kernel's clocksource is kvm-clock and tsc is not among the available ones (/" PP_CLOCK_AVAILABLE
	  "): the kernel marked the TSC unstable" },
	{ "TSC unstable, bare metal", FLAGS_GOOD, CMDLINE, "hpet",
	  "hpet acpi_pm ", true, true, false,
	  "the kernel's clocksource is hpet, not tsc, kvm-clock or hyperv_clocksource_tsc_page (/" PP_CLOCK_SOURCE
	  ")" },
	{ "TSC unstable, booted so", FLAGS_GOOD,
	  "BOOT_IMAGE=/vmlinuz ro tsc=unstable quiet", "kvm-clock",
	  "kvm-clock tsc acpi_pm ", true, true, false,
	  "the kernel was booted with tsc=unstable (/proc/cmdline)" },
	/* a clocksource not built on the TSC, whatever is available */
	{ "acpi_pm", FLAGS_GOOD, CMDLINE, "acpi_pm", "tsc hpet acpi_pm ", true,
	  true, false,
	  "the kernel's clocksource is acpi_pm, not tsc, kvm-clock or hyperv_clocksource_tsc_page (/" PP_CLOCK_SOURCE
	  ")" },
	/* a VM's clocksource, and nothing says whether tsc is available */
	{ "KVM, no available list", FLAGS_GOOD, CMDLINE, "kvm-clock", NULL,
	  true, true, false,
	  "the kernel's clocksource is kvm-clock, and no /" PP_CLOCK_AVAILABLE
	  " says whether the kernel marked the TSC unstable" },
	/* aarch64's generic timer: no TSC rules */
	{ "not x86", NULL, NULL, NULL, NULL, false, false, true, "" },
};

START_TEST(trust)
{
	const struct trust_case *c = &trust_cases[_i];
	char root[64], why[256];

	make_root(root, sizeof(root), c->flags, c->cmdline, c->source,
		  c->avail);
	ck_assert_msg(pp_clock_trust(root, c->x86, c->cpuid, why,
				     sizeof(why)) == c->trusted,
		      "%s: %s, expected %s (why: %s)", c->name,
		      c->trusted ? "distrusted" : "trusted",
		      c->trusted ? "trusted" : "distrusted", why);
	ck_assert_msg(!strcmp(why, c->why), "%s: why '%s', expected '%s'",
		      c->name, why, c->why);
	ck_assert_uint_lt(strlen(why), sizeof(pp_clock.why));
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
