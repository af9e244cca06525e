// SPDX-License-Identifier: MIT
/*
 * pp_dev.c - open a device and describe its port.
 */
#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pp_dev.h"
#include "pp_wire.h"

int pp_mtu_to_enum(uint32_t mtu)
{
	switch (mtu) {
	case 256:
		return IBV_MTU_256;
	case 512:
		return IBV_MTU_512;
	case 1024:
		return IBV_MTU_1024;
	case 2048:
		return IBV_MTU_2048;
	case 4096:
		return IBV_MTU_4096;
	default:
		return 0;
	}
}

uint32_t pp_mtu_from_enum(int mtu)
{
	if (mtu < IBV_MTU_256 || mtu > IBV_MTU_4096)
		return 0;
	return 128U << mtu;
}

/* "rxe0, mlx5_0" into @buf: the devices that exist, for error messages. */
static void list_devices(struct ibv_device **list, int n, char *buf, size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 ibv_get_device_name(list[i]));
}

static bool port_active(struct ibv_context *ctx, uint8_t ib_port)
{
	struct ibv_port_attr pa;

	return !ibv_query_port(ctx, ib_port, &pa) &&
	       pa.state == IBV_PORT_ACTIVE;
}

const char *pp_link_layer_name(unsigned int ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	}
	return NULL;
}

struct ibv_context *pp_dev_open(const char *name, uint8_t ib_port,
				struct pp_err *err)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	char names[160];
	int n, i, saved = ENODEV;

	list = ibv_get_device_list(&n);
	if (!list) {
		saved = errno; /* ENOSYS without kernel support: not news */
		pp_err_set(err, PP_DEV_NONE_MSG);
		errno = saved;
		return NULL;
	}
	if (n == 0) {
		pp_err_set(err, PP_DEV_NONE_MSG);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (name && strcmp(name, ibv_get_device_name(list[i])))
			continue;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			saved = errno;
			pp_err_set(err, "cannot open device %s: %s",
				   ibv_get_device_name(list[i]),
				   strerror(saved));
			goto out;
		}
		if (name || port_active(ctx, ib_port))
			goto out;
		ibv_close_device(ctx);
		ctx = NULL;
	}
	list_devices(list, n, names, sizeof(names));
	if (name) {
		pp_err_set(err, "device %s not found (devices here: %s)", name,
			   names);
	} else {
		saved = ENETDOWN;
		pp_err_set(
			err,
			"no device has port %u active (devices here: %s; check ibv_devinfo, or pick one with -d and -i)",
			ib_port, names);
	}
out:
	ibv_free_device_list(list);
	if (!ctx)
		errno = saved;
	return ctx;
}

static int by_name(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int pp_dev_active_names(uint8_t ib_port, char *buf, size_t len)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	const char **names;
	size_t used = 0;
	int n, i, k = 0, ret = 0;

	if (!len)
		return ENOSPC;
	buf[0] = '\0';
	list = ibv_get_device_list(&n);
	if (!list)
		return 0;
	names = calloc(n ? (size_t)n : 1, sizeof(*names));
	if (!names) {
		ibv_free_device_list(list);
		return ENOMEM;
	}
	for (i = 0; i < n; i++) {
		ctx = ibv_open_device(list[i]);
		if (!ctx)
			continue;
		if (port_active(ctx, ib_port))
			names[k++] = ibv_get_device_name(list[i]);
		ibv_close_device(ctx);
	}
	qsort(names, (size_t)k, sizeof(*names), by_name);
	for (i = 0; i < k && !ret; i++) {
		int w = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 names[i]);

		if (w < 0 || (size_t)w >= len - used)
			ret = ENOSPC;
		else
			used += (size_t)w;
	}
	free(names);
	ibv_free_device_list(list);
	return ret;
}

void pp_dev_caps_fill(const struct ibv_device_attr *da,
		      const struct ibv_port_attr *pa, struct pp_port_caps *caps)
{
	caps->state = pa->state;
	caps->link_layer = pa->link_layer;
	caps->lid = pa->lid;
	caps->active_mtu = pp_mtu_from_enum(pa->active_mtu);
	caps->max_mtu = pp_mtu_from_enum(pa->max_mtu);
	caps->max_msg_sz = pa->max_msg_sz;
	caps->gid_tbl_len = pa->gid_tbl_len;
	caps->pkey_tbl_len = pa->pkey_tbl_len;
	caps->max_mr_size = da->max_mr_size;
	caps->max_qp_wr = da->max_qp_wr;
	caps->max_srq_wr = da->max_srq ? da->max_srq_wr : 0;
	caps->max_qp = da->max_qp;
	caps->max_cqe = da->max_cqe;
	caps->xrc = da->device_cap_flags & IBV_DEVICE_XRC;
	caps->no_atomics = da->atomic_cap == IBV_ATOMIC_NONE;
}

int pp_dev_query(struct ibv_context *ctx, uint8_t ib_port,
		 struct pp_port_caps *caps, struct pp_err *err)
{
	const char *dev = ibv_get_device_name(ctx->device);
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	int ret;

	memset(caps, 0, sizeof(*caps));
	snprintf(caps->devname, sizeof(caps->devname), "%s", dev);
	caps->ib_port = ib_port;
	ret = ibv_query_device(ctx, &da);
	if (ret) {
		pp_err_set(err, "query device %s failed: %s", dev,
			   strerror(ret));
		return ret;
	}
	if (ib_port < 1 || ib_port > da.phys_port_cnt) {
		pp_err_set(
			err,
			"port %u of %s does not exist (it has %u; choose with -i)",
			ib_port, dev, da.phys_port_cnt);
		return EINVAL;
	}
	ret = ibv_query_port(ctx, ib_port, &pa);
	if (ret) {
		pp_err_set(err, "query port %s:%u failed: %s", dev, ib_port,
			   strerror(ret));
		return ret;
	}
	pp_dev_caps_fill(&da, &pa, caps);
	if (pa.state != IBV_PORT_ACTIVE) {
		pp_err_set(
			err,
			"port %s:%u is %s, not active (check the cable or link with ibv_devinfo; choose another with -d/-i)",
			dev, ib_port, ibv_port_state_str(pa.state));
		return ENETDOWN;
	}
	return 0;
}

int pp_dev_gid(struct ibv_context *ctx, uint8_t ib_port, int index,
	       uint8_t gid[16], uint8_t *gid_type)
{
	struct ibv_gid_entry entry;
	int ret;

	if (index < 0)
		return EINVAL;
	ret = ibv_query_gid_ex(ctx, ib_port, index, &entry, 0);
	if (ret == ENODATA || ret == EINVAL || ret == EOPNOTSUPP ||
	    ret == ENOSYS) {
		union ibv_gid g;

		/* Older kernels or providers: the plain query, no type. */
		if (ret != EOPNOTSUPP && ret != ENOSYS)
			return ret;
		if (ibv_query_gid(ctx, ib_port, index, &g))
			return errno ? errno : EINVAL;
		memcpy(gid, g.raw, 16);
		*gid_type = PP_GID_TYPE_IB;
		return 0;
	}
	if (ret)
		return ret;
	memcpy(gid, entry.gid.raw, 16);
	switch (entry.gid_type) {
	case IBV_GID_TYPE_ROCE_V1:
		*gid_type = PP_GID_TYPE_ROCE_V1;
		break;
	case IBV_GID_TYPE_ROCE_V2:
		*gid_type = PP_GID_TYPE_ROCE_V2;
		break;
	default:
		*gid_type = PP_GID_TYPE_IB;
		break;
	}
	return 0;
}

int pp_pkey_find(const uint16_t *tbl, uint32_t n, uint16_t pkey)
{
	int other = -1;
	uint32_t i;

	if (!(pkey & PP_PKEY_PARTITION))
		return -1;
	for (i = 0; i < n; i++) {
		if (tbl[i] == pkey)
			return (int)i;
		if (other < 0 && ((tbl[i] ^ pkey) & PP_PKEY_PARTITION) == 0)
			other = (int)i;
	}
	return other;
}

char *pp_pkey_list(const uint16_t *tbl, uint32_t n, char *buf, size_t len)
{
	size_t used = 0;
	uint32_t i;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		if (!(tbl[i] & PP_PKEY_PARTITION))
			continue;
		w = snprintf(buf + used, len - used, "%s0x%04x",
			     used ? ", " : "", tbl[i]);
		if (w < 0 || (size_t)w >= len - used) {
			if (len > 4)
				snprintf(buf + (used < len - 4 ? used :
								 len - 4),
					 4, "...");
			return buf;
		}
		used += (size_t)w;
	}
	if (!used)
		snprintf(buf, len, "none");
	return buf;
}

uint16_t *pp_dev_pkeys(struct ibv_context *ctx, uint8_t ib_port, uint32_t n)
{
	uint16_t *tbl = calloc(n ? n : 1, sizeof(*tbl));
	__be16 pkey;
	uint32_t i;

	if (!tbl)
		return NULL;
	for (i = 0; i < n; i++)
		/* ibv_query_pkey() gives the P_Key in network byte order */
		if (!ibv_query_pkey(ctx, ib_port, (int)i, &pkey))
			tbl[i] = be16toh(pkey);
	return tbl;
}

int pp_netdev_mtu(const char *root, const char *ndev, uint32_t *mtu)
{
	char path[512], buf[32], *end;
	unsigned long v;
	FILE *f;
	bool ok;

	if (!ndev || !ndev[0])
		return ENODEV;
	snprintf(path, sizeof(path), "%s/sys/class/net/%s/mtu", root, ndev);
	f = fopen(path, "re");
	if (!f)
		return errno;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	if (!ok || buf[0] < '0' || buf[0] > '9')
		return EPROTO;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || (*end && *end != '\n') || v > UINT32_MAX)
		return EPROTO;
	*mtu = (uint32_t)v;
	return 0;
}
