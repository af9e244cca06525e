/* SPDX-License-Identifier: MIT */
/*
 * pp_gid.h - choosing a GID: pure rules over a GID table read elsewhere.
 *
 * On an Ethernet (RoCE) port every packet carries a GRH, so a QP needs a
 * source GID index; on InfiniBand a GRH is optional and a subnet routes by
 * LID.  The rules are pure functions over the struct below:
 * pp_gid_read_table() reads a real port's table into it, and tests build
 * tables by hand.
 *
 * The automatic choice on Ethernet, best first (ties: the lowest index):
 *
 *   0. RoCE v2, the local address of the TCP connection to the peer: the
 *      address, and so the netdev (a VLAN interface, say), that the kernel
 *      chose to reach the peer; RDMA traffic should leave the same way
 *   1. RoCE v2, the connection's address family, not link-local
 *      (AF_INET: an IPv4-mapped GID ::ffff:a.b.c.d; AF_INET6: a real IPv6
 *      address; not known: IPv4-mapped first, then IPv6)
 *   2. RoCE v2, the other family, not link-local
 *   3. RoCE v2, IPv6 link-local (fe80::/10: reaches only this link)
 *   4. RoCE v1, the connection's local address
 *   5. RoCE v1, the connection's family (as in 1)
 *   6. RoCE v1, any other address
 *   7. a populated GID of no known RoCE type (an old kernel that does not
 *      report GID types)
 *
 * Only indexes 0-255 are chosen (PP_MAX_GID_IDX: ibv_global_route's
 * sgid_index is one byte; the GRH itself carries the 128-bit GID); rxe's table has 1024 entries, and an address whose GID lies
 * above 255 is named in the reason line when it would have been better.
 *
 * Rules 1-7 matter when the connection's local address is on no GID of the
 * port: the TCP exchange runs over another interface (a management network,
 * the loopback) than the RDMA port's.  RoCE v2 is preferred because it is
 * routable UDP/IP; RoCE v1 is an Ethernet frame that no IP router forwards.
 * The family of the GID should be the one the peer's GID has, or the
 * packets go nowhere (pp_gid_check_pair()).
 *
 * The MTU rules (path MTU = the smaller of both ports' active MTUs unless -m
 * is given; an -m above either port's active MTU is refused naming both
 * values) are pure functions already: pp_hello_adopt() and pp_hello_check()
 * in pp_hs.h, tested in tests/unit/test_hs.c.
 */
#ifndef PP_GID_H
#define PP_GID_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"

struct sockaddr;
#include "pp_wire.h"

/* IF_NAMESIZE, and room for all 16 bytes a peer's GIDS may carry */
#define PP_GID_NDEV_LEN (PP_WIRE_NETDEV_LEN + 1)
#define PP_GID_TEXT_LEN 46 /* INET6_ADDRSTRLEN */

/* What kind of address a GID is. */
enum pp_gid_family {
	PP_GID_FAM_NONE = 0,	   /* all zero: an empty entry */
	PP_GID_FAM_IPV4 = 1,	   /* IPv4-mapped, ::ffff:a.b.c.d */
	PP_GID_FAM_IPV6 = 2,	   /* IPv6, not link-local */
	PP_GID_FAM_LINK_LOCAL = 3, /* IPv6 link-local, fe80::/10 */
};

/* One entry of a port's GID table: plain data, built in tests too. */
struct pp_gid_entry {
	int index;		    /* its index in the port's table */
	uint8_t raw[16];	    /* the GID */
	uint8_t type;		    /* enum pp_gid_type */
	char ndev[PP_GID_NDEV_LEN]; /* network device; "" when none/unknown */
	bool populated;		    /* false: an empty slot */
};

/**
 * pp_gid_family() - what kind of address @gid is
 * @gid: the 16 raw bytes
 *
 * Return: PP_GID_FAM_NONE (all zero), PP_GID_FAM_IPV4 (IPv4-mapped),
 * PP_GID_FAM_LINK_LOCAL (fe80::/10) or PP_GID_FAM_IPV6 (anything else).
 */
enum pp_gid_family pp_gid_family(const uint8_t gid[16]);

/**
 * pp_gid_family_name() - "IPv4", "IPv6", "IPv6 link-local" or "none"
 * @fam: enum pp_gid_family
 */
const char *pp_gid_family_name(enum pp_gid_family fam);

/**
 * pp_gid_type_name() - "IB", "RoCE v1", "RoCE v2" or "none"
 * @type: enum pp_gid_type
 */
const char *pp_gid_type_name(uint8_t type);

/**
 * pp_gid_ip() - the IP address a RoCE GID stands for, as text
 * @gid: the 16 raw bytes
 * @buf: output, PP_GID_TEXT_LEN bytes are always enough
 * @len: room in @buf
 *
 * An IPv4-mapped GID is written as a.b.c.d, any other as IPv6 text.
 *
 * Return: @buf.
 */
char *pp_gid_ip(const uint8_t gid[16], char *buf, size_t len);

/**
 * pp_gid_choose() - the GID index to use when -g is not given
 * @tbl: the port's GID table (any order; empty slots are skipped)
 * @n: entries in @tbl
 * @link_layer: the port's IBV_LINK_LAYER_* (1 InfiniBand, 2 Ethernet)
 * @local: the local address of the TCP connection to the peer
 *         (getsockname(); AF_INET or AF_INET6, an IPv4-mapped IPv6 address
 *         counting as IPv4); NULL when not known
 * @index: the chosen index; -1 (no GRH) on InfiniBand
 * @reason: one printable line saying what was chosen and why ("GID index 3:
 *          RoCE v2, IPv4 ::ffff:10.99.2.1 on eth0.100, the local address of
 *          this connection"); on ENODATA, what to do
 * @len: room in @reason
 *
 * The order of preference is the one at the top of this header.
 *
 * Return: 0; ENODATA (an Ethernet port without a populated GID at indexes
 * 0-255; @index -1).
 */
int pp_gid_choose(const struct pp_gid_entry *tbl, int n, uint8_t link_layer,
		  const struct sockaddr *local, int *index, char *reason,
		  size_t len);

/**
 * pp_gid_sockaddr_family() - the family of a TCP address, as pp_gid_choose()
 * counts it
 * @family: sa_family of the address
 * @addr6: for AF_INET6, the 16 bytes of sin6_addr; else ignored (may be NULL)
 *
 * Return: AF_INET for AF_INET and for an IPv4-mapped IPv6 address (a
 * dual-stack socket's IPv4 peer), AF_INET6 for another IPv6 address,
 * AF_UNSPEC otherwise.
 */
int pp_gid_sockaddr_family(int family, const uint8_t *addr6);

/**
 * pp_gid_check_pair() - can the client's GID and the server's talk?
 * @client_type: enum pp_gid_type of the client's GID
 * @client_fam: enum pp_gid_family of the client's GID
 * @server_type: enum pp_gid_type of the server's GID
 * @server_fam: enum pp_gid_family of the server's GID
 * @err: when they disagree, one line naming both ("GID types differ: client
 *       RoCE v2 IPv4, server RoCE v1 IPv6: choose matching -g on both
 *       sides")
 *
 * RoCE v1 and v2 packets are different frames, and an IPv4 source cannot
 * send to an IPv6 destination: both are silent losses or RTR failures
 * otherwise.  Pairs without RoCE on either side (no GID, InfiniBand GIDs) are
 * not checked here.
 *
 * Return: 0; EINVAL with @err set when the types, or the address families
 * (IPv4 against IPv6 or link-local), differ.
 */
int pp_gid_check_pair(uint8_t client_type, enum pp_gid_family client_fam,
		      uint8_t server_type, enum pp_gid_family server_fam,
		      struct pp_err *err);

/**
 * pp_gid_populated_list() - the populated indexes of @tbl, as "0, 1"
 * @tbl: the GID table
 * @n: entries in @tbl
 * @buf: output; cut with "..." when too small
 * @len: room in @buf
 *
 * Return: @buf; "none" when no entry is populated.
 */
char *pp_gid_populated_list(const struct pp_gid_entry *tbl, int n, char *buf,
			    size_t len);

/**
 * pp_gid_check_index() - is @index a usable -g for this table?
 * @tbl: the port's GID table, @tbl[i].index == i
 * @n: the table's length (the port's gid_tbl_len)
 * @index: the index asked for
 * @devname: the device, for the message
 * @ib_port: the port, for the message
 * @err: one line ("GID index 7 of rxe0:1 is empty; populated: 0, 1 (see
 *       --show-gids)")
 *
 * Return: 0; EINVAL (outside the table); ENODATA (an empty entry).
 */
int pp_gid_check_index(const struct pp_gid_entry *tbl, int n, int index,
		       const char *devname, unsigned int ib_port,
		       struct pp_err *err);

struct ibv_context;

/**
 * pp_gid_format() - the 16 raw GID bytes as IPv6 text
 * @gid: raw bytes
 * @buf: output, at least 46 bytes (INET6_ADDRSTRLEN)
 * @len: room in @buf
 *
 * Return: @buf.
 */
char *pp_gid_format(const uint8_t gid[16], char *buf, size_t len);

/**
 * pp_gid_read_table() - read the GID table of @ctx's port @ib_port
 * @ctx: open device
 * @ib_port: port number
 * @n: the table's length (the port's gid_tbl_len); entry i has index i,
 *     empty slots are zero with populated false
 *
 * Return: the table, to be freed with free(); NULL with errno set: the errno
 * of ibv_query_port(), ENODATA (the port has no GID table), ENOMEM.
 */
struct pp_gid_entry *pp_gid_read_table(struct ibv_context *ctx, uint8_t ib_port,
				       int *n);

#endif /* PP_GID_H */
