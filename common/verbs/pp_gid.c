// SPDX-License-Identifier: MIT
/*
 * pp_gid.c - the GIDs of a port: the automatic choice and the checks (pure
 * functions), the GID as text, and reading a real port's table (verbs).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <infiniband/verbs.h>

#include "pp_gid.h"

/* IBV_LINK_LAYER_ETHERNET, as the pure rules compare it. */
#define PP_LL_ETHERNET 2

enum pp_gid_family pp_gid_family(const uint8_t gid[16])
{
	static const uint8_t zero[16];
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (!memcmp(gid, zero, 16))
		return PP_GID_FAM_NONE;
	if (!memcmp(gid, v4_prefix, 12))
		return PP_GID_FAM_IPV4;
	if (gid[0] == 0xfe && (gid[1] & 0xc0) == 0x80)
		return PP_GID_FAM_LINK_LOCAL;
	return PP_GID_FAM_IPV6;
}

const char *pp_gid_family_name(enum pp_gid_family fam)
{
	switch (fam) {
	case PP_GID_FAM_IPV4:
		return "IPv4";
	case PP_GID_FAM_IPV6:
		return "IPv6";
	case PP_GID_FAM_LINK_LOCAL:
		return "IPv6 link-local";
	case PP_GID_FAM_NONE:
		break;
	}
	return "none";
}

const char *pp_gid_type_name(uint8_t type)
{
	switch (type) {
	case PP_GID_TYPE_IB:
		return "IB";
	case PP_GID_TYPE_ROCE_V1:
		return "RoCE v1";
	case PP_GID_TYPE_ROCE_V2:
		return "RoCE v2";
	}
	return "none";
}

char *pp_gid_ip(const uint8_t gid[16], char *buf, size_t len)
{
	socklen_t room = len > INET6_ADDRSTRLEN ? INET6_ADDRSTRLEN :
						  (socklen_t)len;
	const char *ok;

	if (!len)
		return buf;
	if (pp_gid_family(gid) == PP_GID_FAM_IPV4)
		ok = inet_ntop(AF_INET, gid + 12, buf, room);
	else
		ok = inet_ntop(AF_INET6, gid, buf, room);
	if (!ok)
		buf[0] = '\0';
	return buf;
}

int pp_gid_sockaddr_family(int family, const uint8_t *addr6)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };

	if (family == AF_INET)
		return AF_INET;
	if (family != AF_INET6)
		return AF_UNSPEC;
	if (addr6 && !memcmp(addr6, v4_prefix, 12))
		return AF_INET;
	return AF_INET6;
}

/* The ranks of the order in pp_gid.h: higher is better, 0 unusable. */
enum {
	RANK_NONE = 0,
	RANK_UNTYPED = 1,  /* 7. no known RoCE type */
	RANK_V1_OTHER = 2, /* 6. RoCE v1, another address */
	RANK_V1_MATCH = 3, /* 5. RoCE v1, the connection's family */
	RANK_V1_LOCAL = 4, /* 4. RoCE v1, the connection's local address */
	RANK_V2_LL = 5,	   /* 3. RoCE v2, link-local */
	RANK_V2_OTHER = 6, /* 2. RoCE v2, the other family */
	RANK_V2_MATCH = 7, /* 1. RoCE v2, the connection's family */
	RANK_V2_LOCAL = 8, /* 0. RoCE v2, the connection's local address */
};

/* What the TCP connection tells about the GID to use. */
struct conn_addr {
	int family;	 /* AF_INET, AF_INET6 or AF_UNSPEC (not known) */
	bool known;	 /* @raw holds the local address */
	uint8_t raw[16]; /* the local address as a GID would hold it */
	char text[PP_GID_TEXT_LEN];
};

static void conn_addr(const struct sockaddr *local, struct conn_addr *c)
{
	static const uint8_t v4_prefix[12] = { [10] = 0xff, [11] = 0xff };
	const struct sockaddr_in *in = (const void *)local;
	const struct sockaddr_in6 *in6 = (const void *)local;

	memset(c, 0, sizeof(*c));
	c->family = AF_UNSPEC;
	if (!local)
		return;
	if (local->sa_family == AF_INET) {
		memcpy(c->raw, v4_prefix, sizeof(v4_prefix));
		memcpy(c->raw + 12, &in->sin_addr, 4);
	} else if (local->sa_family == AF_INET6) {
		memcpy(c->raw, &in6->sin6_addr, 16);
	} else {
		return;
	}
	c->known = true;
	c->family = pp_gid_sockaddr_family(AF_INET6, c->raw);
	pp_gid_ip(c->raw, c->text, sizeof(c->text));
}

static enum pp_gid_family wanted_family(int family)
{
	return family == AF_INET6 ? PP_GID_FAM_IPV6 : PP_GID_FAM_IPV4;
}

static int rank(const struct pp_gid_entry *e, const struct conn_addr *c)
{
	enum pp_gid_family fam = pp_gid_family(e->raw);
	bool local = c->known && !memcmp(e->raw, c->raw, 16);
	bool match = fam == wanted_family(c->family);

	if (!e->populated || fam == PP_GID_FAM_NONE)
		return RANK_NONE;
	switch (e->type) {
	case PP_GID_TYPE_ROCE_V2:
		if (local)
			return RANK_V2_LOCAL;
		if (match)
			return RANK_V2_MATCH;
		return fam == PP_GID_FAM_LINK_LOCAL ? RANK_V2_LL :
						      RANK_V2_OTHER;
	case PP_GID_TYPE_ROCE_V1:
		if (local)
			return RANK_V1_LOCAL;
		return match ? RANK_V1_MATCH : RANK_V1_OTHER;
	}
	return RANK_UNTYPED;
}

static const char *family_name(int family)
{
	return family == AF_INET6 ? "IPv6" : "IPv4";
}

/* Why an entry of rank @r won: the end of the reason line. */
static void why(int r, const struct conn_addr *c, char *buf, size_t len)
{
	const char *fn = family_name(c->family);

	switch (r) {
	case RANK_V2_LOCAL:
	case RANK_V1_LOCAL:
		snprintf(
			buf, len, ", the local address of this connection%s",
			r == RANK_V1_LOCAL ?
				" (it has no RoCE v2 GID: RoCE v1 does not cross IP routers)" :
				"");
		break;
	case RANK_V2_MATCH:
		if (c->known)
			snprintf(
				buf, len,
				", %s like this connection, whose local address %s is on no GID of this port",
				fn, c->text);
		else
			snprintf(
				buf, len,
				", preferred (the connection's address is not known)");
		break;
	case RANK_V2_OTHER:
		if (c->known)
			snprintf(
				buf, len,
				" (no RoCE v2 GID of this connection's %s family; its local address %s is on no GID of this port)",
				fn, c->text);
		else
			snprintf(buf, len, " (no RoCE v2 %s GID)", fn);
		break;
	case RANK_V2_LL:
		snprintf(
			buf, len,
			" (no routable RoCE v2 GID: link-local reaches only this link)");
		break;
	case RANK_V1_MATCH:
	case RANK_V1_OTHER:
		snprintf(
			buf, len,
			" (no RoCE v2 GID: RoCE v1 does not cross IP routers)");
		break;
	default:
		snprintf(
			buf, len,
			" (the port reports no GID types: the first populated GID)");
		break;
	}
}

/* Entry @e ranks @r: does it beat @best, of rank @best_rank? */
static bool beats(const struct pp_gid_entry *e, int r,
		  const struct pp_gid_entry *best, int best_rank)
{
	return r > best_rank || (r == best_rank && r && e->index < best->index);
}

int pp_gid_choose(const struct pp_gid_entry *tbl, int n, uint8_t link_layer,
		  const struct sockaddr *local, int *index, char *reason,
		  size_t len)
{
	const struct pp_gid_entry *best = NULL, *above = NULL;
	int best_rank = RANK_NONE, above_rank = RANK_NONE, i, r;
	char ip[PP_GID_TEXT_LEN], tail[160], more[160] = "";
	struct conn_addr c;

	*index = -1;
	if (link_layer != PP_LL_ETHERNET) {
		snprintf(
			reason, len,
			"no GID: InfiniBand routes by LID (give -g to use a GRH)");
		return 0;
	}
	conn_addr(local, &c);
	/*
	 * An address vector's sgid_index is one byte (and so is HELLO's): an entry
	 * above PP_MAX_GID_IDX cannot be used, only named when it is better.
	 */
	for (i = 0; i < n; i++) {
		r = rank(&tbl[i], &c);
		if (tbl[i].index > (int)PP_MAX_GID_IDX) {
			if (beats(&tbl[i], r, above, above_rank)) {
				above = &tbl[i];
				above_rank = r;
			}
		} else if (beats(&tbl[i], r, best, best_rank)) {
			best = &tbl[i];
			best_rank = r;
		}
	}
	if (above && above_rank > best_rank) {
		inet_ntop(AF_INET6, above->raw, ip, sizeof(ip));
		snprintf(
			more, sizeof(more),
			"; index %d (%s %s) would be better, but an address vector takes indexes 0-%u only",
			above->index, pp_gid_type_name(above->type), ip,
			PP_MAX_GID_IDX);
	}
	if (!best) {
		if (above)
			snprintf(
				reason, len,
				"the port's GIDs all lie above index %u, which an address vector cannot take%s (give the address to a netdev whose GID gets a lower index; see --show-gids)",
				PP_MAX_GID_IDX, more);
		else
			snprintf(
				reason, len,
				"the port is Ethernet (RoCE) but has no GID: give its network interface an IP address (see --show-gids)");
		return ENODATA;
	}
	*index = best->index;
	inet_ntop(AF_INET6, best->raw, ip, sizeof(ip));
	why(best_rank, &c, tail, sizeof(tail));
	snprintf(reason, len, "GID index %d: %s, %s %s%s%s%s%s", best->index,
		 pp_gid_type_name(best->type),
		 pp_gid_family_name(pp_gid_family(best->raw)), ip,
		 best->ndev[0] ? " on " : "", best->ndev, tail, more);
	return 0;
}

static bool is_roce(uint8_t type)
{
	return type == PP_GID_TYPE_ROCE_V1 || type == PP_GID_TYPE_ROCE_V2;
}

static bool is_v6(enum pp_gid_family fam)
{
	return fam == PP_GID_FAM_IPV6 || fam == PP_GID_FAM_LINK_LOCAL;
}

int pp_gid_check_pair(uint8_t client_type, enum pp_gid_family client_fam,
		      uint8_t server_type, enum pp_gid_family server_fam,
		      struct pp_err *err)
{
	const char *what;

	if (!is_roce(client_type) || !is_roce(server_type))
		return 0;
	if (client_type != server_type)
		what = "types";
	else if (client_fam != PP_GID_FAM_NONE &&
		 server_fam != PP_GID_FAM_NONE &&
		 is_v6(client_fam) != is_v6(server_fam))
		what = "address families";
	else
		return 0;
	pp_err_set(
		err,
		"GID %s differ: client %s %s, server %s %s: choose matching -g on both sides",
		what, pp_gid_type_name(client_type),
		pp_gid_family_name(client_fam), pp_gid_type_name(server_type),
		pp_gid_family_name(server_fam));
	return EINVAL;
}

char *pp_gid_populated_list(const struct pp_gid_entry *tbl, int n, char *buf,
			    size_t len)
{
	size_t used = 0, safe = 0; /* safe: ", ..." still fits after it */
	int i, w;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!tbl[i].populated)
			continue;
		w = snprintf(buf + used, len - used, "%s%d", used ? ", " : "",
			     tbl[i].index);
		if (w < 0 || (size_t)w >= len - used) {
			if (safe)
				strcpy(buf + safe, ", ...");
			else
				snprintf(buf, len, "...");
			return buf;
		}
		used += (size_t)w;
		if (used + sizeof(", ...") <= len)
			safe = used;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

int pp_gid_check_index(const struct pp_gid_entry *tbl, int n, int index,
		       const char *devname, unsigned int ib_port,
		       struct pp_err *err)
{
	char list[128];
	int i;

	pp_gid_populated_list(tbl, n, list, sizeof(list));
	if (index < 0 || index >= n) {
		pp_err_set(
			err,
			"GID index %d is out of range: port %s:%u has %d entries; populated: %s (see --show-gids)",
			index, devname, ib_port, n, list);
		return EINVAL;
	}
	for (i = 0; i < n; i++)
		if (tbl[i].index == index && tbl[i].populated &&
		    pp_gid_family(tbl[i].raw) != PP_GID_FAM_NONE)
			return 0;
	pp_err_set(
		err,
		"GID index %d of %s:%u is empty; populated: %s (see --show-gids)",
		index, devname, ib_port, list);
	return ENODATA;
}

/* --- the GID as text, and a real port's table ------------------------ */

char *pp_gid_format(const uint8_t gid[16], char *buf, size_t len)
{
	socklen_t room = len > INET6_ADDRSTRLEN ? INET6_ADDRSTRLEN : len;

	if (!len)
		return buf;
	if (!inet_ntop(AF_INET6, gid, buf, room))
		buf[0] = '\0';
	return buf;
}

static uint8_t gid_type(uint32_t type)
{
	switch (type) {
	case IBV_GID_TYPE_ROCE_V1:
		return PP_GID_TYPE_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2:
		return PP_GID_TYPE_ROCE_V2;
	default:
		return PP_GID_TYPE_IB;
	}
}

/* @e from the verbs' entry @ge (a populated one). */
static void from_entry(struct pp_gid_entry *e, const struct ibv_gid_entry *ge)
{
	memcpy(e->raw, ge->gid.raw, 16);
	e->type = gid_type(ge->gid_type);
	e->populated = pp_gid_family(e->raw) != PP_GID_FAM_NONE;
	if (ge->ndev_ifindex && !if_indextoname(ge->ndev_ifindex, e->ndev))
		e->ndev[0] = '\0';
}

/* Entry @e->index; 0 (populated or empty) or the errno of the query. */
static int read_entry(struct ibv_context *ctx, uint8_t ib_port,
		      struct pp_gid_entry *e)
{
	struct ibv_gid_entry ge;
	union ibv_gid g;
	int ret;

	ret = ibv_query_gid_ex(ctx, ib_port, (uint32_t)e->index, &ge, 0);
	if (ret == ENODATA)
		return 0; /* an empty slot */
	if (ret == EOPNOTSUPP || ret == ENOSYS) {
		/* Older kernels or providers: the plain query, no type. */
		if (ibv_query_gid(ctx, ib_port, e->index, &g))
			return errno ? errno : EINVAL;
		memcpy(e->raw, g.raw, 16);
		e->type = PP_GID_TYPE_IB;
		e->populated = pp_gid_family(e->raw) != PP_GID_FAM_NONE;
		return 0;
	}
	if (ret)
		return ret;
	from_entry(e, &ge);
	return 0;
}

/*
 * The @n entries of @ib_port in one call, where the kernel has it: the
 * populated entries of every port of the device, not a query per index
 * (a table of 1024 is 1024 system calls, most of them of empty slots).
 * 0, or nonzero when the per-index queries must do it (@tbl untouched).
 */
static int read_all(struct ibv_context *ctx, uint8_t ib_port,
		    struct pp_gid_entry *tbl, int n)
{
	struct ibv_device_attr da;
	struct ibv_gid_entry *ge;
	ssize_t got, k;
	size_t max;

	if (ibv_query_device(ctx, &da))
		return EIO;
	max = (size_t)n * (da.phys_port_cnt ? da.phys_port_cnt : 1);
	ge = calloc(max, sizeof(*ge));
	if (!ge)
		return ENOMEM;
	got = ibv_query_gid_table(ctx, ge, max, 0);
	if (got < 0) {
		free(ge);
		return (int)-got;
	}
	for (k = 0; k < got; k++)
		if (ge[k].port_num == ib_port && ge[k].gid_index < (uint32_t)n)
			from_entry(&tbl[ge[k].gid_index], &ge[k]);
	free(ge);
	return 0;
}

struct pp_gid_entry *pp_gid_read_table(struct ibv_context *ctx, uint8_t ib_port,
				       int *n)
{
	struct pp_gid_entry *tbl;
	struct ibv_port_attr pa;
	int i, ret;

	*n = 0;
	ret = ibv_query_port(ctx, ib_port, &pa);
	if (ret) {
		errno = ret;
		return NULL;
	}
	if (pa.gid_tbl_len <= 0) {
		errno = ENODATA;
		return NULL;
	}
	tbl = calloc((size_t)pa.gid_tbl_len, sizeof(*tbl));
	if (!tbl)
		return NULL;
	for (i = 0; i < pa.gid_tbl_len; i++)
		tbl[i].index = i;
	if (!read_all(ctx, ib_port, tbl, pa.gid_tbl_len)) {
		*n = pa.gid_tbl_len;
		return tbl;
	}
	for (i = 0; i < pa.gid_tbl_len; i++) {
		ret = read_entry(ctx, ib_port, &tbl[i]);
		if (ret) {
			free(tbl);
			errno = ret;
			return NULL;
		}
	}
	*n = pa.gid_tbl_len;
	return tbl;
}
