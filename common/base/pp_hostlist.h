/* SPDX-License-Identifier: MIT */
/*
 * pp_hostlist.h - Slurm's compressed host lists ("node[01-04,07]",
 * "a[1-3,5]", "a[01-10]b", "x,y[2-3]", "r[1-2]n[1-2]") expanded, in order.
 *
 * The grammar: a list is items separated by commas outside brackets; an item
 * is text with any number of bracket groups; a group is ranges separated by
 * commas, each "N" or "N-M" (N <= M, decimal).  A range whose lower bound has
 * leading zeros is zero-padded to that width ("01-10": 01, 02, ..., 10), as
 * Slurm prints it.  Items expand left to right, the last group fastest.
 */
#ifndef PP_HOSTLIST_H
#define PP_HOSTLIST_H

#include <stddef.h>

#define PP_HOSTLIST_HOST_MAX 256     /* a host name, with its NUL */
#define PP_HOSTLIST_MAX_HOSTS 100000 /* more hosts than this: E2BIG */

/**
 * pp_hostlist_walk() - call @fn for each host of @list, in order
 * @list: the compressed list
 * @fn: called with each host name; a non-zero return stops the walk and is
 *      returned
 * @arg: passed to @fn
 *
 * Return: 0; EINVAL (empty item, unbalanced or nested bracket, a range that
 * is not "N" or "N-M" with N <= M); E2BIG (a host name longer than
 * PP_HOSTLIST_HOST_MAX - 1, or more than PP_HOSTLIST_MAX_HOSTS hosts); or
 * @fn's return.
 */
int pp_hostlist_walk(const char *list, int (*fn)(const char *host, void *arg),
		     void *arg);

/**
 * pp_hostlist_nth() - host @idx (from 0) of @list
 * @list: the compressed list
 * @idx: which host
 * @out: the host name
 * @len: room in @out
 *
 * Return: 0; ENOENT (the list has fewer hosts); ENAMETOOLONG (@out is too
 * small); or an error of pp_hostlist_walk().
 */
int pp_hostlist_nth(const char *list, size_t idx, char *out, size_t len);

/**
 * pp_hostlist_count() - the number of hosts in @list
 * @list: the compressed list
 * @n: the count
 *
 * Return: 0, or an error of pp_hostlist_walk().
 */
int pp_hostlist_count(const char *list, size_t *n);

#endif /* PP_HOSTLIST_H */
