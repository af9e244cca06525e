/* SPDX-License-Identifier: MIT */
/*
 * pp_cpu.h - where a side runs: a CPU near the NIC.
 *
 * By default (--cpu auto) each side pins itself to one CPU of its RDMA
 * device's NUMA node, as sysfs tells it (/sys/class/infiniband/DEV/device/
 * numa_node and local_cpulist), among the CPUs the process may use
 * (sched_getaffinity(): taskset, cgroups).  The server takes the first
 * CPU of that set and the client the last, so that two sides on one host
 * do not share a CPU when there are two.  A device without a NUMA node
 * (Soft-RoCE has no PCI device; a one-node machine says -1) falls back to
 * the allowed CPUs, by the same rule.  --cpu LIST takes the CPUs of LIST
 * (among the allowed ones) by the same rule; --cpu none leaves the process
 * where the scheduler puts it.
 *
 * The buffers follow the CPU: the side pins itself before it allocates
 * them, and the kernel places each page on the node of the CPU that first
 * touches it (they are zeroed right after allocation).
 *
 * The choice is pure (pp_cpu_choose() over a sysfs root and a set of
 * allowed CPUs), so tests run it over made-up trees; pp_cpu_pin() applies
 * it.
 */
#ifndef PP_CPU_H
#define PP_CPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"

#define PP_CPU_MAX 1024 /* CPUs a set can hold */

struct pp_cpuset {
	uint64_t bits[PP_CPU_MAX / 64];
};

/* The outcome of the choice: plain data, printed and put in JSON. */
struct pp_cpu_place {
	int cpu;       /* the CPU pinned to; -1: not pinned (--cpu none) */
	int node;      /* the device's NUMA node; -1: none known */
	char why[512]; /* the rule that chose it, for the line and JSON */
};

/**
 * pp_cpuset_parse() - parse a CPU list as sysfs and taskset -c write it
 * @s: "0-3,8,10-11" (no spaces; a trailing newline is allowed)
 * @set: filled
 *
 * Return: 0, EINVAL (empty, garbage, a range that goes down) or ERANGE (a
 * CPU of PP_CPU_MAX or more).
 */
int pp_cpuset_parse(const char *s, struct pp_cpuset *set);

/**
 * pp_cpuset_format() - the list form of @set ("0-3,8")
 * @set: the set
 * @buf: where to write it ("" for an empty set)
 * @len: its size; a list that does not fit ends in "..."
 */
void pp_cpuset_format(const struct pp_cpuset *set, char *buf, size_t len);

static inline bool pp_cpuset_has(const struct pp_cpuset *set, unsigned int c)
{
	return c < PP_CPU_MAX && (set->bits[c / 64] >> (c % 64)) & 1;
}

static inline void pp_cpuset_add(struct pp_cpuset *set, unsigned int c)
{
	if (c < PP_CPU_MAX)
		set->bits[c / 64] |= (uint64_t)1 << (c % 64);
}

/**
 * pp_cpu_spec_valid() - is @spec a --cpu value: "auto", "none" or a list?
 * @spec: the option's text
 */
bool pp_cpu_spec_valid(const char *spec);

/**
 * pp_cpu_choose() - the CPU this side runs on
 * @root: prefix of /sys (a made-up tree in tests); NULL: the real one
 * @dev: the RDMA device's name
 * @spec: --cpu: NULL or "auto", "none", or a list
 * @allowed: the CPUs this process may use
 * @is_server: the server takes the first CPU of the set, the client the
 *             last
 * @place: filled: the CPU, the device's node, the rule
 * @err: why there is no CPU: "--cpu 5: none of 5 may be used by this
 *       process (allowed: 0-1)"
 *
 * Return: 0 or EINVAL (@spec malformed, or no CPU of it allowed).
 */
int pp_cpu_choose(const char *root, const char *dev, const char *spec,
		  const struct pp_cpuset *allowed, bool is_server,
		  struct pp_cpu_place *place, struct pp_err *err);

/**
 * pp_cpu_allowed() - the CPUs this process may use (sched_getaffinity())
 * @set: filled
 *
 * Return: 0 or the errno of sched_getaffinity().
 */
int pp_cpu_allowed(struct pp_cpuset *set);

/**
 * pp_cpu_pin() - run this process on @cpu only (sched_setaffinity())
 * @cpu: the CPU
 *
 * Return: 0 or the errno of sched_setaffinity().
 */
int pp_cpu_pin(int cpu);

#endif /* PP_CPU_H */
