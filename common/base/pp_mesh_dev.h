/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_dev.h - -d's device lists under --mesh: "NAME,NAME,..." or
 * "auto" gives each rank of a host the device of its local index (the
 * rank's place among the ranks of its host, pp_mesh_env.h).
 */
#ifndef PP_MESH_DEV_H
#define PP_MESH_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"

#define PP_MESH_DEV_MAX 64 /* a device name's room, NUL included */

/**
 * pp_mesh_dev_is_list() - does -d's value pick a device per local index:
 * "auto", or names separated by commas?
 * @d: -d's value, or NULL
 */
bool pp_mesh_dev_is_list(const char *d);

/**
 * pp_mesh_dev_list_check() - is @list a usable -d list: names separated
 * by commas, none empty, none twice, each shorter than PP_MESH_DEV_MAX
 * @list: -d's value
 * @err: one line naming the fault and the fix
 *
 * Return: 0 or EINVAL.
 */
int pp_mesh_dev_list_check(const char *list, struct pp_err *err);

/**
 * pp_mesh_dev_nth() - the device of local index @k: the @k-th name of
 * @list (from 0)
 * @list: names separated by commas (-d's list, or the devices -d auto found)
 * @k: the local index
 * @out: the name
 * @len: room in @out
 *
 * Return: 0; ENOENT (the list has @k names or fewer); ENAMETOOLONG.
 */
int pp_mesh_dev_nth(const char *list, uint32_t k, char *out, size_t len);

#endif /* PP_MESH_DEV_H */
