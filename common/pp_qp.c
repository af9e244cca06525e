// SPDX-License-Identifier: MIT
/*
 * pp_qp.c - the attributes of each QP transition, and applying them.
 */
#include <errno.h>
#include <string.h>

#include "pp_dev.h"
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
		ah->grh.hop_limit = 1;
	}
}

/* Reliable transports: RC, RC behind an SRQ, and XRC. */
static bool reliable(enum pp_transport t)
{
	return t == PP_TR_RC || t == PP_TR_SRQ || t == PP_TR_XRC;
}

/* The XRC send (initiator) QP: a requester only, with no receive side. */
static bool xrc_send(const struct pp_qp_cfg *cfg)
{
	return cfg->transport == PP_TR_XRC && !cfg->xrc_recv;
}

/* The XRC receive (target) QP: a responder only, with no send queue. */
static bool xrc_recv(const struct pp_qp_cfg *cfg)
{
	return cfg->transport == PP_TR_XRC && cfg->xrc_recv;
}

static int init_attr(const struct pp_qp_cfg *cfg, struct ibv_qp_attr *attr)
{
	*attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_INIT,
		.pkey_index = 0,
		.port_num = cfg->ib_port,
	};
	if (cfg->transport == PP_TR_UD) {
		attr->qkey = PP_QKEY;
		return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
		       IBV_QP_QKEY;
	}
	attr->qp_access_flags = 0; /* sends and receives only */
	return IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
	       IBV_QP_ACCESS_FLAGS;
}

static int rtr_attr(const struct pp_qp_cfg *cfg, const struct pp_addr *remote,
		    struct ibv_qp_attr *attr)
{
	int mask = IBV_QP_STATE;

	*attr = (struct ibv_qp_attr){ .qp_state = IBV_QPS_RTR };
	if (cfg->transport == PP_TR_UD)
		return mask;
	attr->path_mtu = pp_mtu_to_enum(cfg->path_mtu);
	/* XRC: our send QP talks to the peer's receive QP, and back. */
	attr->dest_qp_num = xrc_send(cfg) ? remote->tgt_qpn : remote->qpn;
	attr->rq_psn = remote->psn;
	pp_ah_attr(cfg, remote, &attr->ah_attr);
	mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
	/*
	 * The responder's limits.  An XRC send QP has no responder: the
	 * kernel refuses these two bits for it (ib_modify_qp_is_ok()).
	 */
	if (reliable(cfg->transport) && !xrc_send(cfg)) {
		attr->max_dest_rd_atomic = 1;
		attr->min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	return mask;
}

static int rts_attr(const struct pp_qp_cfg *cfg, uint32_t local_psn,
		    struct ibv_qp_attr *attr)
{
	*attr = (struct ibv_qp_attr){
		.qp_state = IBV_QPS_RTS,
		.sq_psn = local_psn,
	};
	if (!reliable(cfg->transport))
		return IBV_QP_STATE | IBV_QP_SQ_PSN;
	attr->timeout = 14;
	if (xrc_recv(cfg)) /* no send queue: the kernel wants just these */
		return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT;
	attr->retry_cnt = 7;
	attr->rnr_retry = 7;
	attr->max_rd_atomic = 1;
	return IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT |
	       IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
}

int pp_qp_attr(const struct pp_qp_cfg *cfg, enum pp_qp_step step,
	       uint32_t local_psn, const struct pp_addr *remote,
	       struct ibv_qp_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	switch (step) {
	case PP_QP_INIT:
		return init_attr(cfg, attr);
	case PP_QP_RTR:
		return rtr_attr(cfg, remote, attr);
	case PP_QP_RTS:
		return rts_attr(cfg, local_psn, attr);
	}
	return 0;
}

/* "XRC send " or "XRC receive " before "QP" in messages; "" otherwise. */
static const char *qp_kind(const struct pp_qp_cfg *cfg)
{
	if (cfg->transport != PP_TR_XRC)
		return "";
	return cfg->xrc_recv ? "XRC receive " : "XRC send ";
}

/* What to try when a transition fails: the usual causes, by step. */
static const char *hint(const struct pp_qp_cfg *cfg, enum pp_qp_step step)
{
	if (step == PP_QP_INIT)
		return "is the port number right? see -i";
	if (step == PP_QP_RTR && cfg->transport != PP_TR_UD) {
		if (!cfg->use_grh)
			return "on RoCE a GRH is mandatory: give a GID index with -g";
		return "is the GID index right on both sides (-g)? is -m within both ports' active MTU?";
	}
	return "check dmesg and ibv_devinfo -v";
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
	if (ret)
		pp_err_set(err, "modify %sQP 0x%06x to %s failed: %s (%s)",
			   qp_kind(cfg), qp->qp_num, pp_qp_step_name(step),
			   strerror(ret), hint(cfg, step));
	return ret;
}
