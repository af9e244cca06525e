// SPDX-License-Identifier: MIT
/*
 * pp_res.c - acquire and release the verbs resources of a run.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>

#include "pp_res.h"

#define PP_MAX_INLINE 256U /* asked for when the message fits */

static bool has_srq(const struct pp_res *r)
{
	return r->attr.transport == PP_TR_SRQ || r->attr.transport == PP_TR_XRC;
}

/* A random 24-bit PSN, different for every QP and every run. */
static uint32_t new_psn(void)
{
	static unsigned short seed[3];

	if (!seed[0] && !seed[1] && !seed[2]) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed[0] = (unsigned short)ts.tv_nsec;
		seed[1] = (unsigned short)(ts.tv_nsec >> 16) ^
			  (unsigned short)getpid();
		seed[2] = (unsigned short)ts.tv_sec | 1;
	}
	return (uint32_t)nrand48(seed) & PP_PSN_MASK;
}

static enum ibv_qp_type qp_type(enum pp_transport t)
{
	switch (t) {
	case PP_TR_UC:
		return IBV_QPT_UC;
	case PP_TR_UD:
		return IBV_QPT_UD;
	default:
		return IBV_QPT_RC;
	}
}

static int alloc_arrays(struct pp_res *r)
{
	uint32_t n = r->num_qps;

	r->qp = calloc(n, sizeof(*r->qp));
	r->ah = calloc(n, sizeof(*r->ah));
	r->psn = calloc(n, sizeof(*r->psn));
	r->local = calloc(n, sizeof(*r->local));
	r->remote = calloc(n, sizeof(*r->remote));
	if (!r->qp || !r->ah || !r->psn || !r->local || !r->remote)
		return ENOMEM;
	return 0;
}

static struct ibv_qp *create_qp(struct pp_res *r)
{
	struct ibv_qp_init_attr ia = {
		.send_cq = r->cq,
		.recv_cq = r->cq,
		.srq = r->srq,
		.cap = {
			.max_send_wr = PP_TX_DEPTH,
			.max_recv_wr = r->srq ? 0 : r->attr.rx_depth,
			.max_send_sge = 1,
			.max_recv_sge = 1,
			.max_inline_data = r->attr.size <= PP_MAX_INLINE ?
						   (uint32_t)r->attr.size : 0,
		},
		.qp_type = qp_type(r->attr.transport),
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp(r->pd, &ia);
	if (!qp && ia.cap.max_inline_data) {
		/* The device cannot inline this much: send from the MR. */
		ia.cap.max_inline_data = 0;
		qp = ibv_create_qp(r->pd, &ia);
	}
	if (qp && ia.cap.max_inline_data >= r->attr.size)
		r->send_flags |= IBV_SEND_INLINE;
	return qp;
}

static int create_qps(struct pp_res *r, const struct pp_qp_cfg *cfg,
		      struct pp_err *err)
{
	uint32_t i;
	int ret;

	for (i = 0; i < r->num_qps; i++) {
		r->qp[i] = create_qp(r);
		if (!r->qp[i]) {
			ret = errno ? errno : ENOMEM;
			pp_err_set(
				err,
				"create %s QP %u of %u failed: %s (lower -r or -q?)",
				pp_transport_name(r->attr.transport), i + 1,
				r->num_qps, strerror(ret));
			return ret;
		}
		ret = pp_qp_modify(r->qp[i], cfg, PP_QP_INIT, 0, NULL, err);
		if (ret)
			return ret;
		r->psn[i] = new_psn();
	}
	return 0;
}

static int create_buffers(struct pp_res *r, struct pp_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t send_len;
	int ret;

	r->recv_len = (uint32_t)r->attr.size +
		      (r->attr.transport == PP_TR_UD ? PP_GRH_LEN : 0);
	send_len = (r->attr.size + page - 1) / page * page;
	r->buf_len = send_len + r->recv_len;
	ret = posix_memalign((void **)&r->buf, page, r->buf_len);
	if (ret) {
		r->buf = NULL;
		pp_err_set(err, "allocate %zu bytes of buffers failed: %s",
			   r->buf_len, strerror(ret));
		return ret;
	}
	memset(r->buf, 0, r->buf_len);
	r->send_buf = r->buf;
	r->recv_buf = r->buf + send_len;
	r->mr = ibv_reg_mr(r->pd, r->buf, r->buf_len, IBV_ACCESS_LOCAL_WRITE);
	if (!r->mr) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(
			err,
			"register MR of %zu bytes failed: %s (lower -s, or raise the locked-memory limit: ulimit -l)",
			r->buf_len, strerror(ret));
		return ret;
	}
	return 0;
}

static int create_queues(struct pp_res *r, struct pp_err *err)
{
	uint64_t cqe =
		(uint64_t)r->attr.rx_depth + (uint64_t)r->num_qps * PP_TX_DEPTH;
	int ret;

	if (r->attr.max_cqe && cqe > r->attr.max_cqe)
		cqe = r->attr.max_cqe;
	r->cq = ibv_create_cq(r->ctx, (int)cqe, NULL, r->channel, 0);
	if (!r->cq) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(err,
			   "create CQ of %llu entries failed: %s (lower -r?)",
			   (unsigned long long)cqe, strerror(ret));
		return ret;
	}
	if (r->attr.use_event) {
		ret = ibv_req_notify_cq(r->cq, 0);
		if (ret) {
			pp_err_set(err, "arm CQ notification failed: %s",
				   strerror(ret));
			return ret;
		}
	}
	if (r->attr.transport == PP_TR_SRQ) {
		struct ibv_srq_init_attr sa = {
			.attr = { .max_wr = r->attr.rx_depth, .max_sge = 1 },
		};

		r->srq = ibv_create_srq(r->pd, &sa);
		if (!r->srq) {
			ret = errno ? errno : ENOMEM;
			pp_err_set(
				err,
				"create SRQ of %u receives failed: %s (lower -r?)",
				r->attr.rx_depth, strerror(ret));
			return ret;
		}
	}
	return 0;
}

struct pp_res *pp_res_create(struct ibv_context *ctx,
			     const struct pp_res_attr *a,
			     const uint8_t local_gid[16], uint16_t lid,
			     struct pp_err *err)
{
	struct pp_qp_cfg cfg = {
		.transport = a->transport,
		.ib_port = a->ib_port,
	};
	struct pp_res *r;
	uint32_t i;
	int ret;

	if (a->transport == PP_TR_XRC) {
		pp_err_set(err, "XRC resources are made by the XRC tool");
		errno = EPROTONOSUPPORT;
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		pp_err_set(err, "out of memory");
		return NULL;
	}
	r->attr = *a;
	r->ctx = ctx;
	r->num_qps = a->num_qps ? a->num_qps : 1;
	r->send_flags = IBV_SEND_SIGNALED;
	ret = alloc_arrays(r);
	if (ret) {
		pp_err_set(err, "out of memory");
		goto out_destroy;
	}
	if (a->use_event) {
		r->channel = ibv_create_comp_channel(ctx);
		if (!r->channel) {
			ret = errno ? errno : ENOMEM;
			pp_err_set(err, "create completion channel failed: %s",
				   strerror(ret));
			goto out_destroy;
		}
	}
	r->pd = ibv_alloc_pd(ctx);
	if (!r->pd) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(err, "allocate PD failed: %s", strerror(ret));
		goto out_destroy;
	}
	ret = create_buffers(r, err);
	if (ret)
		goto out_destroy;
	ret = create_queues(r, err);
	if (ret)
		goto out_destroy;
	ret = create_qps(r, &cfg, err);
	if (ret)
		goto out_destroy;
	for (i = 0; i < r->num_qps; i++) {
		r->local[i] = (struct pp_addr){
			.lid = lid,
			.qpn = r->qp[i]->qp_num,
			.psn = r->psn[i],
		};
		if (a->use_grh)
			memcpy(r->local[i].gid, local_gid, 16);
	}
	return r;

out_destroy:
	pp_res_destroy(r);
	errno = ret;
	return NULL;
}

int pp_res_connect(struct pp_res *r, const struct pp_qp_cfg *cfg,
		   const struct pp_addr *remote, struct pp_err *err)
{
	struct ibv_ah_attr ah;
	uint32_t i;
	int ret;

	for (i = 0; i < r->num_qps; i++) {
		r->remote[i] = remote[i];
		ret = pp_qp_modify(r->qp[i], cfg, PP_QP_RTR, r->psn[i],
				   &remote[i], err);
		if (ret)
			return ret;
		ret = pp_qp_modify(r->qp[i], cfg, PP_QP_RTS, r->psn[i],
				   &remote[i], err);
		if (ret)
			return ret;
		if (r->attr.transport != PP_TR_UD)
			continue;
		pp_ah_attr(cfg, &remote[i], &ah);
		r->ah[i] = ibv_create_ah(r->pd, &ah);
		if (!r->ah[i]) {
			ret = errno ? errno : EINVAL;
			pp_err_set(
				err,
				"create AH to QP 0x%06x failed: %s (on RoCE give a GID index with -g)",
				remote[i].qpn, strerror(ret));
			return ret;
		}
	}
	return 0;
}

int pp_res_post_recv(struct pp_res *r, uint32_t qp_index, uint32_t n)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->recv_buf,
		.length = r->recv_len,
		.lkey = r->mr->lkey,
	};
	struct ibv_recv_wr wr = {
		.wr_id = PP_WRID(qp_index, 1),
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct ibv_recv_wr *bad;
	int ret = 0;

	while (n-- && !ret)
		ret = has_srq(r) ? ibv_post_srq_recv(r->srq, &wr, &bad) :
				   ibv_post_recv(r->qp[qp_index], &wr, &bad);
	return ret;
}

int pp_res_post_send(struct pp_res *r, uint32_t qp_index, uint32_t seq)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->send_buf,
		.length = (uint32_t)r->attr.size,
		.lkey = r->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = PP_WRID(qp_index, 0),
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND_WITH_IMM,
		.send_flags = r->send_flags,
		.imm_data = htonl(seq),
	};
	struct ibv_send_wr *bad;

	if (r->attr.transport == PP_TR_UD) {
		wr.wr.ud.ah = r->ah[qp_index];
		wr.wr.ud.remote_qpn = r->remote[qp_index].qpn;
		wr.wr.ud.remote_qkey = PP_QKEY;
	}
	return ibv_post_send(r->qp[qp_index], &wr, &bad);
}

void pp_res_destroy(struct pp_res *r)
{
	uint32_t i;

	if (!r)
		return;
	for (i = 0; r->ah && i < r->num_qps; i++)
		if (r->ah[i])
			ibv_destroy_ah(r->ah[i]);
	for (i = 0; r->qp && i < r->num_qps; i++)
		if (r->qp[i])
			ibv_destroy_qp(r->qp[i]);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	free(r->buf);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->channel)
		ibv_destroy_comp_channel(r->channel);
	free(r->remote);
	free(r->local);
	free(r->psn);
	free(r->ah);
	free(r->qp);
	free(r);
}
