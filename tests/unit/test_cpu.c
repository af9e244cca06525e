// SPDX-License-Identifier: MIT
/*
 * test_cpu.c - the CPU a side runs on (pp_cpu.h), over made-up sysfs trees:
 * a device on node 1 with CPUs 4-7, one whose node is -1 (a one-node
 * machine), one with no device directory at all (Soft-RoCE), a node none of
 * whose CPUs is allowed, --cpu lists and none; and the CPU-list parser.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_cpu.h"
#include "pp_opts.h"

static char root[64];

/* A device @dev whose numa_node and local_cpulist hold @node and @cpus
 * (NULL: the file is missing). */
static void make_dev(const char *dev, const char *node, const char *cpus)
{
	char path[256], cmd[512];
	FILE *f;

	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/class/infiniband/%s/device",
		 root, dev);
	ck_assert_int_eq(system(cmd), 0);
	if (node) {
		snprintf(path, sizeof(path),
			 "%s/sys/class/infiniband/%s/device/numa_node", root,
			 dev);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "%s\n", node);
		fclose(f);
	}
	if (cpus) {
		snprintf(path, sizeof(path),
			 "%s/sys/class/infiniband/%s/device/local_cpulist",
			 root, dev);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fprintf(f, "%s\n", cpus);
		fclose(f);
	}
}

static void setup(void)
{
	char cmd[256];

	snprintf(root, sizeof(root), "/tmp/pp_cpu.%d", (int)getpid());
	snprintf(cmd, sizeof(cmd), "rm -rf %s && mkdir -p %s", root, root);
	ck_assert_int_eq(system(cmd), 0);
	make_dev("mlx5_0", "1", "4-7");
	make_dev("mlx5_1", "-1", "0-7");
	make_dev("far", "0", "0-1");
	/* rxe0: /sys/class/infiniband/rxe0 exists, but not its device/ */
	snprintf(cmd, sizeof(cmd), "mkdir -p %s/sys/class/infiniband/rxe0",
		 root);
	ck_assert_int_eq(system(cmd), 0);
}

static void teardown(void)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	ck_assert_int_eq(system(cmd), 0);
}

static struct pp_cpuset set_of(const char *list)
{
	struct pp_cpuset s;

	ck_assert_int_eq(pp_cpuset_parse(list, &s), 0);
	return s;
}

/* The choice for @dev, @spec, @allowed, @server: CPU @cpu, a rule with @why. */
static void expect(const char *dev, const char *spec, const char *allowed,
		   bool server, int cpu, int node, const char *why)
{
	struct pp_cpuset a = set_of(allowed);
	struct pp_cpu_place p;
	struct pp_err err;

	pp_err_clear(&err);
	ck_assert_msg(!pp_cpu_choose(root, dev, spec, &a, server, &p, &err),
		      "%s %s: %s", dev, spec ? spec : "auto", err.msg);
	ck_assert_msg(p.cpu == cpu && p.node == node,
		      "%s %s %s: CPU %d node %d, want %d %d (%s)", dev,
		      spec ? spec : "auto", allowed, p.cpu, p.node, cpu, node,
		      p.why);
	ck_assert_msg(strstr(p.why, why), "'%s' lacks '%s'", p.why, why);
}

START_TEST(test_node)
{
	/* the device's node, server first and client last */
	expect("mlx5_0", NULL, "0-15", true, 4, 1,
	       "the first CPU of mlx5_0's NUMA node 1 (4-7) allowed here");
	expect("mlx5_0", "auto", "0-15", false, 7, 1,
	       "the last CPU of mlx5_0's NUMA node 1 (4-7)");
	/* within what taskset or the cgroup allows */
	expect("mlx5_0", NULL, "5-6,9", true, 5, 1, "node 1");
	expect("mlx5_0", NULL, "5-6,9", false, 6, 1, "node 1");
	/* none of the node allowed: the allowed ones, saying so */
	expect("mlx5_0", NULL, "0-3", false, 3, 1,
	       "the last allowed CPU (0-3): none of mlx5_0's NUMA node 1 (4-7) is allowed here");
}
END_TEST

START_TEST(test_fallback)
{
	/* Soft-RoCE: no device directory */
	expect("rxe0", NULL, "0-1", true, 0, -1,
	       "the first allowed CPU (0-1): rxe0 has no NUMA node in sysfs");
	expect("rxe0", NULL, "0-1", false, 1, -1,
	       "the last allowed CPU (0-1): rxe0 has no NUMA node in sysfs");
	/* a one-node machine says -1 */
	expect("mlx5_1", NULL, "2,3", false, 3, -1, "no NUMA node");
	/* no such device at all */
	expect("nodev", NULL, "0", true, 0, -1, "nodev has no NUMA node");
}
END_TEST

START_TEST(test_spec)
{
	struct pp_cpuset a = set_of("0-3");
	struct pp_cpu_place p;
	struct pp_err err;

	expect("mlx5_0", "2-3", "0-3", true, 2, 1,
	       "the first CPU of --cpu 2-3 allowed here");
	expect("mlx5_0", "1,3", "0-3", false, 3, 1,
	       "the last CPU of --cpu 1,3");
	expect("far", "none", "0-3", true, -1, 0, "not pinned (--cpu none)");
	ck_assert_int_eq(pp_cpu_choose(root, "far", "8-9", &a, true, &p, &err),
			 EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--cpu 8-9: none of these CPUs may be used by this process (allowed: 0-3)");
	ck_assert_int_eq(pp_cpu_choose(root, "far", "x", &a, true, &p, &err),
			 EINVAL);
}
END_TEST

START_TEST(test_parse)
{
	struct pp_cpuset s;
	char buf[64];

	ck_assert_int_eq(pp_cpuset_parse("0-3,8,10-11\n", &s), 0);
	pp_cpuset_format(&s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-3,8,10-11");
	ck_assert(pp_cpuset_has(&s, 3) && !pp_cpuset_has(&s, 4));
	ck_assert_int_eq(pp_cpuset_parse("1023", &s), 0);
	ck_assert_int_eq(pp_cpuset_parse("1024", &s), ERANGE);
	ck_assert_int_eq(pp_cpuset_parse("", &s), EINVAL);
	ck_assert_int_eq(pp_cpuset_parse("3-1", &s), EINVAL);
	ck_assert_int_eq(pp_cpuset_parse("1,", &s), EINVAL);
	ck_assert_int_eq(pp_cpuset_parse("-1", &s), EINVAL);
	ck_assert_int_eq(pp_cpuset_parse("1 2", &s), EINVAL);
	ck_assert_int_eq(pp_cpuset_parse("a", &s), EINVAL);
	ck_assert(pp_cpu_spec_valid("auto") && pp_cpu_spec_valid("none") &&
		  pp_cpu_spec_valid("0,2"));
	ck_assert(!pp_cpu_spec_valid("some") && !pp_cpu_spec_valid(""));
}
END_TEST

START_TEST(test_option)
{
	char *good[] = { "prog", "--cpu", "0-1,4", NULL };
	char *bad[] = { "prog", "--cpu=4-2", NULL };
	struct pp_opts o;
	struct pp_err err;

	pp_opts_init(&o, PP_TOOL_RC, "prog");
	ck_assert_ptr_null(o.cpu_spec);
	ck_assert_int_eq(pp_opts_parse(&o, 3, good, &err), 0);
	ck_assert_str_eq(o.cpu_spec, "0-1,4");
	pp_opts_init(&o, PP_TOOL_SRQ, "prog");
	ck_assert_int_eq(pp_opts_parse(&o, 2, bad, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"invalid value '4-2' for --cpu: expected auto, none or a CPU list such as 0-3,8");
}
END_TEST

static Suite *cpu_suite(void)
{
	Suite *s = suite_create("cpu");
	TCase *tc = tcase_create("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_node);
	tcase_add_test(tc, test_fallback);
	tcase_add_test(tc, test_spec);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_option);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(cpu_suite)
