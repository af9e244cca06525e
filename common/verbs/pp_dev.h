/* SPDX-License-Identifier: MIT */
/*
 * pp_dev.h - open an RDMA device and describe what its port can do.
 */
#ifndef PP_DEV_H
#define PP_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"

/* The one line for a host without RDMA devices (open and --show-gids). */
#define PP_DEV_NONE_MSG \
	"no RDMA devices found (is the driver loaded? for Soft-RoCE: rdma link add rxe0 type rxe netdev <if>)"

struct ibv_context;
struct ibv_device_attr;
struct ibv_port_attr;

/* What one side's device and port can do: plain data, built in tests too. */
struct pp_port_caps {
	char devname[64];
	uint8_t ib_port;
	uint8_t state;	    /* enum ibv_port_state */
	uint8_t link_layer; /* IBV_LINK_LAYER_* */
	uint16_t lid;
	uint32_t active_mtu; /* bytes */
	uint32_t max_mtu;    /* bytes */
	uint32_t max_msg_sz; /* port's largest message */
	uint64_t max_mr_size;
	uint32_t max_qp_wr;
	uint32_t max_srq_wr; /* 0: no SRQ */
	uint32_t max_qp;
	uint32_t max_cqe;
	int gid_tbl_len;
	uint32_t pkey_tbl_len; /* P_Keys in the port's table; 0: not known */
	bool xrc;	       /* IBV_DEVICE_XRC */
	bool no_atomics;       /* atomic_cap is IBV_ATOMIC_NONE */
};

/**
 * pp_link_layer_name() - "InfiniBand" or "Ethernet"
 * @ll: IBV_LINK_LAYER_* (any value)
 *
 * Return: a static string, or NULL for unspecified and unknown values (the
 * caller says what fits its message).
 */
const char *pp_link_layer_name(unsigned int ll);

/**
 * pp_dev_open() - open a device by name, or the first with an active port
 * @name: device name (-d); NULL: the first device whose @ib_port is active
 * @ib_port: port number, for the choice when @name is NULL
 * @err: one line naming the cause; for an unknown name it lists the devices
 *       that exist
 *
 * Return: the context, or NULL with errno ENODEV (no such device, or none at
 * all), ENETDOWN (no device with @ib_port active) or another errno.
 */
struct ibv_context *pp_dev_open(const char *name, uint8_t ib_port,
				struct pp_err *err);

/**
 * pp_dev_active_names() - the devices whose port @ib_port is active, in
 * name order, separated by commas (--mesh's -d auto)
 * @ib_port: port number
 * @buf: the names ("" when none)
 * @len: room in @buf
 *
 * Return: 0; ENOSPC (@buf too small); ENOMEM.  No devices at all, or
 * libibverbs without kernel support, is an empty list, not an error.
 */
int pp_dev_active_names(uint8_t ib_port, char *buf, size_t len);

/**
 * pp_dev_query() - describe @ctx's port @ib_port
 * @ctx: open device
 * @ib_port: port number
 * @caps: filled
 * @err: one line naming the cause ("port 2 of rxe0 does not exist ...")
 *
 * Return: 0; EINVAL (no such port); ENETDOWN (port not active); another errno
 * from the queries.
 */
int pp_dev_query(struct ibv_context *ctx, uint8_t ib_port,
		 struct pp_port_caps *caps, struct pp_err *err);

/**
 * pp_dev_caps_fill() - the capabilities of a port from its attributes
 * @da: the device's attributes (ibv_query_device())
 * @pa: the port's attributes (ibv_query_port())
 * @caps: filled; its devname and ib_port are left as they are
 *
 * A pure function, so that the rules over the capabilities are tested with
 * made-up attributes.
 */
void pp_dev_caps_fill(const struct ibv_device_attr *da,
		      const struct ibv_port_attr *pa,
		      struct pp_port_caps *caps);

/**
 * pp_pkey_find() - this port's index of the partition @pkey names
 * @tbl: the port's P_Key table, host byte order
 * @n: its length
 * @pkey: the P_Key (bit 15: full member; bits 0-14: the partition)
 *
 * The entry equal to @pkey, else the first of the same partition with the
 * other membership (a limited member talks to a full one): the table is
 * per port, so the same partition may sit at another index on the peer.
 *
 * Return: the index, or -1 when this port is no member of the partition.
 */
int pp_pkey_find(const uint16_t *tbl, uint32_t n, uint16_t pkey);

/**
 * pp_pkey_list() - "0xffff, 0x8001": a P_Key table for a message
 * @tbl: the table
 * @n: its length (entries of partition 0, unused, are left out)
 * @buf: output
 * @len: room in @buf (a long table ends with "...")
 *
 * Return: @buf.
 */
char *pp_pkey_list(const uint16_t *tbl, uint32_t n, char *buf, size_t len);

/**
 * pp_dev_pkeys() - read the P_Key table of @ctx's port, host byte order
 * @ctx: open device
 * @ib_port: port number
 * @n: its length (pp_port_caps.pkey_tbl_len)
 *
 * Return: a malloc()ed table of @n entries, or NULL with errno set (an
 * entry that cannot be read is 0, no partition).
 */
uint16_t *pp_dev_pkeys(struct ibv_context *ctx, uint8_t ib_port, uint32_t n);

/**
 * pp_dev_gid() - read the GID at @index of @ctx's port and its type
 * @ctx: open device
 * @ib_port: port number
 * @index: GID table index
 * @gid: the 16 raw bytes
 * @gid_type: enum pp_gid_type
 *
 * Return: 0; EINVAL (index outside the table); ENODATA (the entry is empty);
 * another errno from the query.
 */
int pp_dev_gid(struct ibv_context *ctx, uint8_t ib_port, int index,
	       uint8_t gid[16], uint8_t *gid_type);

/**
 * pp_mtu_to_enum() - bytes to enum ibv_mtu
 * @mtu: 256..4096, a power of two
 *
 * Return: the IBV_MTU_* value, or 0 when @mtu is not an IB MTU.
 */
int pp_mtu_to_enum(uint32_t mtu);

/**
 * pp_mtu_from_enum() - enum ibv_mtu to bytes
 * @mtu: an IBV_MTU_* value
 *
 * Return: bytes, or 0 for a value outside the enum.
 */
uint32_t pp_mtu_from_enum(int mtu);

/**
 * pp_netdev_mtu() - the MTU of a network device, from sysfs
 * @root: prefixed to "/sys/class/net/@ndev/mtu" ("" for the real one; a
 *        directory of made-up files in tests)
 * @ndev: the device's name ("eth0"), as a GID's gid_attrs/ndevs names it
 * @mtu: set on success
 *
 * Return: 0; ENODEV (@ndev empty: no netdev, as on InfiniBand); the errno
 * of opening the file; EPROTO (its contents are not a number).
 */
int pp_netdev_mtu(const char *root, const char *ndev, uint32_t *mtu);

#endif /* PP_DEV_H */
