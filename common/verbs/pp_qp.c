// SPDX-License-Identifier: MIT
/*
 * pp_qp.c - the attributes of each QP transition, and applying them.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "pp_dev.h"
#include "pp_explain.h"
#include "pp_qp.h"

const char *pp_qp_step_name(enum pp_qp_step step)
{
	switch (step) {
	case PP_QP_INIT:
		return "INIT";
	case PP_QP_RTR:
		return "RTR";
	case PP_QP_RTS:
		return "RTS";
	case PP_QP_NSTEPS:
		break;
	}
	return "?";
}

void pp_ah_attr(const struct pp_qp_cfg *cfg, const struct pp_addr *remote,
		struct ibv_ah_attr *ah)
{
	memset(ah, 0, sizeof(*ah));
	*ah = (struct ibv_ah_attr){
		.dlid = remote->lid,
		.sl = cfg->sl,
		.src_path_bits = 0,
		.is_global = cfg->use_grh,
		.port_num = cfg->ib_port,
	};
	if (cfg->use_grh) {
		memcpy(ah->grh.dgid.raw, remote->gid, 16);
		ah->grh.sgid_index = cfg->sgid_index;
		ah->grh.hop_limit = cfg->hop_limit;
		ah->grh.traffic_class = cfg->traffic_class;
		ah->grh.flow_label = cfg->flow_label;
	}
}

/* The XRC send (initiator) QP: a requester only, with no receive side. */
static bool xrc_send(const struct pp_qp_cfg *cfg)
{
	return pp_transport_of(cfg->transport)->xrc && !cfg->xrc_recv;
}

/* The XRC receive (target) QP takes the descriptor's second set of masks. */
static int step_mask(const struct pp_qp_cfg *cfg, enum pp_qp_step step)
{
	const struct pp_transport_desc *tr = pp_transport_of(cfg->transport);

	if (step < PP_QP_INIT || step >= PP_QP_NSTEPS)
		return 0;
	return tr->xrc && cfg->xrc_recv ? tr->recv_mask[step] : tr->mask[step];
}

/*
 * The attributes of one transition: each field that the transport's mask
 * names, with the values rdma-core's examples use (docs/bringup.md).
 */
int pp_qp_attr(const struct pp_qp_cfg *cfg, enum pp_qp_step step,
	       uint32_t local_psn, const struct pp_addr *remote,
	       struct ibv_qp_attr *attr)
{
	static const enum ibv_qp_state state[PP_QP_NSTEPS] = {
		[PP_QP_INIT] = IBV_QPS_INIT,
		[PP_QP_RTR] = IBV_QPS_RTR,
		[PP_QP_RTS] = IBV_QPS_RTS,
	};
	int mask = step_mask(cfg, step);

	memset(attr, 0, sizeof(*attr));
	if (!mask)
		return 0;
	attr->qp_state = state[step];
	if (mask & IBV_QP_PKEY_INDEX)
		attr->pkey_index = cfg->pkey_index;
	if (mask & IBV_QP_PORT)
		attr->port_num = cfg->ib_port;
	if (mask & IBV_QP_QKEY)
		attr->qkey = PP_QKEY;
	if (mask & IBV_QP_ACCESS_FLAGS)
		attr->qp_access_flags =
			(int)pp_op_qp_access(cfg->op, cfg->is_server);
	if (mask & IBV_QP_AV)
		pp_ah_attr(cfg, remote, &attr->ah_attr);
	if (mask & IBV_QP_PATH_MTU)
		attr->path_mtu = pp_mtu_to_enum(cfg->path_mtu);
	/* XRC: our send QP talks to the peer's receive QP, and back. */
	if (mask & IBV_QP_DEST_QPN)
		attr->dest_qp_num = xrc_send(cfg) ? remote->tgt_qpn :
						    remote->qpn;
	if (mask & IBV_QP_RQ_PSN)
		attr->rq_psn = remote->psn;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		attr->max_dest_rd_atomic =
			pp_op_rd_atomic(cfg->op, cfg->is_server, true);
	if (mask & IBV_QP_MIN_RNR_TIMER)
		attr->min_rnr_timer = 12;
	if (mask & IBV_QP_SQ_PSN)
		attr->sq_psn = local_psn;
	if (mask & IBV_QP_TIMEOUT)
		attr->timeout = cfg->qp_timeout;
	if (mask & IBV_QP_RETRY_CNT)
		attr->retry_cnt = cfg->short_retry &&
						  cfg->retry_count >
							  PP_QP_SHORT_RETRY ?
					  PP_QP_SHORT_RETRY :
					  cfg->retry_count;
	if (mask & IBV_QP_RNR_RETRY)
		attr->rnr_retry = cfg->rnr_retry;
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		attr->max_rd_atomic =
			pp_op_rd_atomic(cfg->op, cfg->is_server, false);
	return mask;
}

/* "XRC send " or "XRC receive " before "QP" in messages; "" otherwise. */
static const char *qp_kind(const struct pp_qp_cfg *cfg)
{
	if (!pp_transport_of(cfg->transport)->xrc)
		return "";
	return cfg->xrc_recv ? "XRC receive " : "XRC send ";
}

/* The state of network device @name: up with carrier, down, no carrier. */
static int netdev_state(const char *name)
{
	struct ifreq ifr = { 0 };
	int fd, state = PP_NETDEV_UNKNOWN;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return state;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (!ioctl(fd, SIOCGIFFLAGS, &ifr))
		state = !(ifr.ifr_flags & IFF_UP)      ? PP_NETDEV_DOWN :
			!(ifr.ifr_flags & IFF_RUNNING) ? PP_NETDEV_NO_CARRIER :
							 PP_NETDEV_UP;
	close(fd);
	return state;
}

int pp_qp_gid_netdev(struct ibv_context *ctx, uint8_t ib_port,
		     unsigned int index, char *name, int *state)
{
	struct ibv_gid_entry ge;
	int ret;

	name[0] = '\0';
	*state = PP_NETDEV_UNKNOWN;
	ret = ibv_query_gid_ex(ctx, ib_port, index, &ge, 0);
	if (ret)
		return ret;
	if (ge.ndev_ifindex && if_indextoname(ge.ndev_ifindex, name))
		*state = netdev_state(name);
	else
		name[0] = '\0';
	return 0;
}

char *pp_qp_explain(struct ibv_context *ctx, const struct pp_qp_cfg *cfg,
		    enum pp_qp_step step, bool path, bool grh, int err,
		    char *buf, size_t len)
{
	char port[96], ndev[IF_NAMESIZE];
	struct pp_explain_qp q = {
		.step = (int)step,
		.datagram = !path,
		.grh = grh,
		.port = port,
		.sgid_index = cfg->sgid_index,
		.path_mtu = cfg->path_mtu,
		.pkey_index = cfg->pkey_index,
	};
	struct ibv_port_attr pa;

	snprintf(port, sizeof(port), "%s:%u", ibv_get_device_name(ctx->device),
		 cfg->ib_port);
	if (!ibv_query_port(ctx, cfg->ib_port, &pa)) {
		q.port_state = pa.state;
		q.ethernet = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
		q.active_mtu = pp_mtu_from_enum(pa.active_mtu);
		q.pkey_tbl_len = pa.pkey_tbl_len;
	}
	if (grh) {
		q.gid_empty = pp_qp_gid_netdev(ctx, cfg->ib_port,
					       cfg->sgid_index, ndev,
					       &q.netdev_state) == ENODATA;
		if (ndev[0])
			q.netdev = ndev;
	}
	return pp_explain_qp(err, &q, buf, len);
}

/*
 * --trace: the hop limit the QP really uses.  On RoCE the kernel resolves
 * the peer's MAC at RTR and sets the GRH hop limit from the route (ib_core's
 * ib_resolve_eth_dmac(): 64, the IP TTL, through a router and over the
 * loopback), whatever --hop-limit asked for.
 */
static void trace_hop_limit(struct ibv_qp *qp, const struct pp_qp_cfg *cfg)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr attr;

	if (!cfg->trace || !cfg->trace->on ||
	    ibv_query_qp(qp, &attr, IBV_QP_AV, &init))
		return;
	pp_trace_step(cfg->trace, "  hop limit in use %u (asked %u)%s",
		      attr.ah_attr.grh.hop_limit, cfg->hop_limit,
		      attr.ah_attr.grh.hop_limit == cfg->hop_limit ?
			      "" :
			      ": the kernel set it from the route (RoCE)");
}

int pp_qp_modify(struct ibv_qp *qp, const struct pp_qp_cfg *cfg,
		 enum pp_qp_step step, uint32_t local_psn,
		 const struct pp_addr *remote, struct pp_err *err)
{
	struct ibv_qp_attr attr;
	int mask, ret;

	mask = pp_qp_attr(cfg, step, local_psn, remote, &attr);
	pp_trace_qp(cfg->trace, qp->qp_num, pp_qp_step_name(step), &attr, mask);
	ret = ibv_modify_qp(qp, &attr, mask);
	if (ret < 0) /* some old providers return -1 and set errno */
		ret = errno ? errno : EINVAL;
	if (ret)
		pp_trace_step(cfg->trace, "  -> failed: %s", strerror(ret));
	if (ret) {
		bool path = mask & IBV_QP_AV;
		char why[400];

		pp_err_set(err, "modify %sQP 0x%06x to %s failed: %s (%s)",
			   qp_kind(cfg), qp->qp_num, pp_qp_step_name(step),
			   strerror(ret),
			   pp_qp_explain(qp->context, cfg, step, path,
					 path && attr.ah_attr.is_global, ret,
					 why, sizeof(why)));
	} else if (step == PP_QP_RTR && (mask & IBV_QP_AV) && cfg->use_grh)
		trace_hop_limit(qp, cfg);
	return ret;
}
