// SPDX-License-Identifier: MIT
/*
 * pp_feat.c - the device features of rdma-core's rc_pingpong letters, and
 * the refusals of what a device or this build cannot do.
 */
#include <errno.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pp_feat.h"

int pp_feat_query(struct ibv_context *ctx, struct pp_dev_feats *f,
		  struct pp_err *err)
{
	struct ibv_device_attr_ex ax;
	int ret;

	memset(f, 0, sizeof(*f));
	memset(&ax, 0, sizeof(ax));
	ret = ibv_query_device_ex(ctx, NULL, &ax);
	if (ret == EOPNOTSUPP || ret == ENOSYS)
		return 0;
	if (ret) {
		pp_err_set(err,
			   "query the extended attributes of %s failed: %s",
			   ibv_get_device_name(ctx->device), strerror(ret));
		return ret;
	}
	f->odp_general = ax.odp_caps.general_caps;
	f->odp_rc = ax.odp_caps.per_transport_caps.rc_odp_caps;
	f->odp_uc = ax.odp_caps.per_transport_caps.uc_odp_caps;
	f->odp_ud = ax.odp_caps.per_transport_caps.ud_odp_caps;
	f->odp_xrc = ax.xrc_odp_caps;
	f->ts_mask = ax.completion_timestamp_mask;
	f->max_dm_size = ax.max_dm_size;
	return 0;
}

bool pp_feat_wanted(const struct pp_opts *o)
{
	return o->odp || o->iodp || o->prefetch || o->ts || o->dm ||
	       o->cc_unprotected;
}

uint32_t pp_feat_odp_needed(const struct pp_opts *o)
{
	const struct pp_transport_desc *tr = pp_transport_of(o->transport);
	uint32_t need = IBV_ODP_SUPPORT_SEND;

	if (o->op == PP_OP_SEND || o->op == PP_OP_WRITE_IMM)
		need |= tr->srq ? IBV_ODP_SUPPORT_SRQ_RECV :
				  IBV_ODP_SUPPORT_RECV;
	if (o->op == PP_OP_WRITE || o->op == PP_OP_WRITE_IMM)
		need |= IBV_ODP_SUPPORT_WRITE;
	else if (o->op == PP_OP_READ)
		need |= IBV_ODP_SUPPORT_READ;
	else if (o->op != PP_OP_SEND)
		need |= IBV_ODP_SUPPORT_ATOMIC;
	return need;
}

/* The names of the ODP bits of @bits, for a message. */
static void odp_names(uint32_t bits, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *name;
	} names[] = {
		{ IBV_ODP_SUPPORT_SEND, "SEND" },
		{ IBV_ODP_SUPPORT_RECV, "RECV" },
		{ IBV_ODP_SUPPORT_WRITE, "WRITE" },
		{ IBV_ODP_SUPPORT_READ, "READ" },
		{ IBV_ODP_SUPPORT_ATOMIC, "ATOMIC" },
		{ IBV_ODP_SUPPORT_SRQ_RECV, "SRQ_RECV" },
	};
	size_t used = 0;
	size_t i;

	buf[0] = '\0';
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int w;

		if (!(bits & names[i].bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     names[i].name);
		if (w < 0 || (size_t)w >= len - used)
			break;
		used += (size_t)w;
	}
}

static int check_odp(const struct pp_opts *o, const struct pp_dev_feats *f,
		     const char *dev, struct pp_err *err)
{
	const struct pp_transport_desc *tr = pp_transport_of(o->transport);
	const char *letter = o->iodp ? "-O/--iodp" : "-o/--odp";
	uint32_t have, need = pp_feat_odp_needed(o);
	const char *field;
	char missing[64];

	if (!(f->odp_general & IBV_ODP_SUPPORT)) {
		pp_err_set(
			err,
			"%s: device %s has no On-Demand Paging (IBV_ODP_SUPPORT not in odp_caps.general_caps)",
			letter, dev);
		return EOPNOTSUPP;
	}
	if (o->iodp && !(f->odp_general & IBV_ODP_SUPPORT_IMPLICIT)) {
		pp_err_set(
			err,
			"-O/--iodp: device %s has no implicit On-Demand Paging (IBV_ODP_SUPPORT_IMPLICIT not in odp_caps.general_caps; -o registers the buffers alone)",
			dev);
		return EOPNOTSUPP;
	}
	switch (o->transport) {
	case PP_TR_UC:
		have = f->odp_uc;
		field = "uc_odp_caps";
		break;
	case PP_TR_UD:
		have = f->odp_ud;
		field = "ud_odp_caps";
		break;
	case PP_TR_XRC:
		have = f->odp_xrc;
		field = "xrc_odp_caps";
		break;
	default:
		have = f->odp_rc;
		field = "rc_odp_caps";
		break;
	}
	if ((have & need) == need)
		return 0;
	odp_names(need & ~have, missing, sizeof(missing));
	pp_err_set(
		err,
		"%s: device %s's On-Demand Paging does not cover %s %s of this run (%s lacks %s)",
		letter, dev, tr->name, pp_op_name(o->op), field, missing);
	return EOPNOTSUPP;
}

int pp_feat_check(const struct pp_opts *o, const struct pp_dev_feats *f,
		  const char *dev, struct pp_err *err)
{
	int ret;

	if (o->odp || o->iodp) {
		ret = check_odp(o, f, dev, err);
		if (ret)
			return ret;
	}
	if (o->ts && !f->ts_mask) {
		pp_err_set(
			err,
			"-t/--ts: device %s has no completion timestamps (completion_timestamp_mask is 0)",
			dev);
		return EOPNOTSUPP;
	}
	if (o->dm && !f->max_dm_size) {
		pp_err_set(
			err,
			"-j/--dm: device %s has no device memory (max_dm_size is 0)",
			dev);
		return EOPNOTSUPP;
	}
	if (o->cc_unprotected) {
		pp_err_set(
			err,
			"-U/--allow-cc-unprotected: this version of %s does not implement it (run without -U)",
			pp_tool_name(o->tool));
		return EOPNOTSUPP;
	}
	if (o->ts || o->dm) {
		pp_err_set(
			err,
			"%s: device %s has %s, but this version of %s does not use it yet (run without %s)",
			o->ts ? "-t/--ts" : "-j/--dm", dev,
			o->ts ? "completion timestamps" : "device memory",
			pp_tool_name(o->tool), o->ts ? "-t" : "-j");
		return EOPNOTSUPP;
	}
	return 0;
}
