/* SPDX-License-Identifier: MIT */
/*
 * pp_show.h - --show-gids: what the RDMA devices here look like, no peer
 * needed.
 *
 * For each device and port, one line, then the populated GIDs:
 *
 *   rxe0 port 1: active, Ethernet, LID 0x0000, active MTU 1024, max MTU 4096, 2 of 1024 GIDs populated
 *     index  type     netdev      IP address                 GID
 *         0  RoCE v2  va          fe80::5c8b:51ff:fe1b:30c2  fe80::5c8b:51ff:fe1b:30c2
 *         1  RoCE v2  va          10.99.0.1                  ::ffff:10.99.0.1
 *
 * On RoCE a GID is an IP address of the network device: IPv4-mapped GIDs are
 * shown as the IPv4 address.  InfiniBand GIDs have no IP address ("-").
 */
#ifndef PP_SHOW_H
#define PP_SHOW_H

#include <stdint.h>
#include <stdio.h>

#include "pp_err.h"
#include "pp_gid.h"

struct ibv_context;
struct pp_json;

/**
 * pp_show_port() - write one port's line and populated GIDs to @f
 * @f: output
 * @ctx: open device
 * @ib_port: port number
 *
 * Return: 0, or the errno of the port or GID query (a line saying so is
 * written in place of the table).
 */
int pp_show_port(FILE *f, struct ibv_context *ctx, uint8_t ib_port);

/**
 * pp_show_gids() - write every port of the devices here to @f
 * @f: output
 * @devname: only this device (-d); NULL: every device
 * @ib_port: only this port (-i); 0: every port
 * @err: one line whenever the return is not 0 ("device mlx5_9 not found
 *       (devices here: rxe0)"; "port 3 of rxe0 does not exist (it has 1)")
 *
 * Return: 0; ENODEV (no RDMA device, or none named @devname); EINVAL (no
 * port @ib_port); otherwise the first errno of opening or querying a device
 * (the other devices are still shown).
 */
int pp_show_gids(FILE *f, const char *devname, unsigned int ib_port,
		 struct pp_err *err);

/**
 * pp_show_gids_json() - what pp_show_gids() shows, as one JSON value
 * @j: the writer, where a value may come (pp_json_init() done; the caller
 *     calls pp_json_finish())
 * @devname: only this device; NULL: every device
 * @ib_port: only this port; 0: every port
 * @err: one line whenever the return is not 0
 *
 * Writes {"schema": 1, "ports": [{"device", "port", "state", "link_layer", "lid",
 * "active_mtu", "max_mtu", "gid_tbl_len", "gids": [{"index", "type",
 * "netdev", "ip", "gid"}]}]}, populated GIDs only; "netdev" and "ip" are
 * null when unknown or not RoCE.  A port or device that could not be read
 * has an "error" member (with "port" 0 for a device).
 *
 * Return: as pp_show_gids(); or the writer's error.
 */
int pp_show_gids_json(struct pp_json *j, const char *devname,
		      unsigned int ib_port, struct pp_err *err);

#endif /* PP_SHOW_H */
