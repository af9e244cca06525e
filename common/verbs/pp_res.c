// SPDX-License-Identifier: MIT
/*
 * pp_res.c - acquire and release the verbs resources of a run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "pp_res.h"

/* mmap()'s page size of a MAP_HUGETLB mapping: log2 of 2 MiB */
#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

#define PP_MAX_INLINE 256U /* asked for when the message fits */

static bool has_srq(const struct pp_res *r)
{
	return r->tr->srq;
}

static bool is_xrc(const struct pp_res *r)
{
	return r->tr->xrc;
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
	if (is_xrc(r)) {
		r->tgt_qp = calloc(n, sizeof(*r->tgt_qp));
		if (!r->tgt_qp)
			return ENOMEM;
	}
	return 0;
}

/*
 * The inline room to ask for: the largest message up to PP_MAX_INLINE, when
 * the smallest one fits in it.  A device that cannot do it gets a second
 * try without (create_qp()).
 */
static uint32_t inline_wanted(const struct pp_res *r)
{
	uint64_t smallest = r->attr.min_size ? r->attr.min_size : r->attr.size;

	if (r->attr.no_inline || smallest > PP_MAX_INLINE)
		return 0;
	return r->attr.size < PP_MAX_INLINE ? (uint32_t)r->attr.size :
					      PP_MAX_INLINE;
}

/* The work requests -N posts with ibv_wr_*(): the operation's own. */
static uint64_t send_ops(const struct pp_res *r)
{
	switch (r->attr.op) {
	case PP_OP_WRITE:
		return IBV_QP_EX_WITH_RDMA_WRITE;
	case PP_OP_WRITE_IMM:
		return IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM;
	case PP_OP_READ:
		return IBV_QP_EX_WITH_RDMA_READ;
	case PP_OP_FETCH_ADD:
		return IBV_QP_EX_WITH_ATOMIC_FETCH_AND_ADD;
	case PP_OP_CMP_SWAP:
		return IBV_QP_EX_WITH_ATOMIC_CMP_AND_SWP;
	default:
		return r->attr.plain_send ? IBV_QP_EX_WITH_SEND :
					    IBV_QP_EX_WITH_SEND_WITH_IMM;
	}
}

/* -N: the same QP, made extended so that ibv_wr_*() can post on it. */
static struct ibv_qp *create_qp_ex(struct pp_res *r,
				   struct ibv_qp_init_attr *ia)
{
	struct ibv_qp_init_attr_ex iax = {
		.send_cq = ia->send_cq,
		.recv_cq = ia->recv_cq,
		.srq = ia->srq,
		.cap = ia->cap,
		.qp_type = ia->qp_type,
		.comp_mask = IBV_QP_INIT_ATTR_PD |
			     IBV_QP_INIT_ATTR_SEND_OPS_FLAGS,
		.pd = r->pd,
		.send_ops_flags = send_ops(r),
	};
	struct ibv_qp *qp = ibv_create_qp_ex(r->ctx, &iax);

	if (qp)
		ia->cap = iax.cap;
	return qp;
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
			.max_inline_data = inline_wanted(r),
		},
		.qp_type = r->tr->qp_type,
	};
	struct ibv_qp *qp;

	qp = r->attr.new_send ? create_qp_ex(r, &ia) :
				ibv_create_qp(r->pd, &ia);
	if (!qp && ia.cap.max_inline_data) {
		/* The device cannot inline this much: send from the MR. */
		ia.cap.max_inline_data = 0;
		qp = r->attr.new_send ? create_qp_ex(r, &ia) :
					ibv_create_qp(r->pd, &ia);
	}
	/* a device may report inline room that was not asked for: unused */
	if (qp && inline_wanted(r))
		r->max_inline = ia.cap.max_inline_data;
	return qp;
}

/* XRC: a send (initiator) QP, in the PD, completing on the one CQ. */
static struct ibv_qp *xrc_create_send_qp(struct pp_res *r)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_SEND,
		.send_cq = r->cq,
		.cap = {
			.max_send_wr = PP_TX_DEPTH,
			.max_send_sge = 1,
			.max_inline_data = inline_wanted(r),
		},
		.comp_mask = IBV_QP_INIT_ATTR_PD,
		.pd = r->pd,
	};
	struct ibv_qp *qp;

	qp = ibv_create_qp_ex(r->ctx, &ia);
	if (!qp && ia.cap.max_inline_data) {
		ia.cap.max_inline_data = 0;
		qp = ibv_create_qp_ex(r->ctx, &ia);
	}
	/* a device may report inline room that was not asked for: unused */
	if (qp && inline_wanted(r))
		r->max_inline = ia.cap.max_inline_data;
	return qp;
}

/*
 * XRC: a receive (target) QP.  It belongs to the domain, not to a PD, and
 * has no queues of its own: what it receives lands in the SRQ the sender
 * names, and completes on that SRQ's CQ.
 */
static struct ibv_qp *xrc_create_recv_qp(struct pp_res *r)
{
	struct ibv_qp_init_attr_ex ia = {
		.qp_type = IBV_QPT_XRC_RECV,
		.comp_mask = IBV_QP_INIT_ATTR_XRCD,
		.xrcd = r->xrcd,
	};

	return ibv_create_qp_ex(r->ctx, &ia);
}

static int create_qps(struct pp_res *r, const struct pp_qp_cfg *cfg,
		      struct pp_err *err)
{
	struct pp_qp_cfg tgt_cfg = *cfg;
	uint32_t i;
	int ret;

	tgt_cfg.xrc_recv = true;
	for (i = 0; i < r->num_qps; i++) {
		r->qp[i] = is_xrc(r) ? xrc_create_send_qp(r) : create_qp(r);
		if (!r->qp[i]) {
			ret = errno ? errno : ENOMEM;
			pp_err_set(
				err,
				"create %s QP %u of %u failed: %s (lower -r or -q?)",
				is_xrc(r) ?
					"XRC send" :
					pp_transport_name(r->attr.transport),
				i + 1, r->num_qps, strerror(ret));
			return ret;
		}
		ret = pp_qp_modify(r->qp[i], cfg, PP_QP_INIT, 0, NULL, err);
		if (ret)
			return ret;
		r->psn[i] = new_psn();
		if (!is_xrc(r))
			continue;
		r->tgt_qp[i] = xrc_create_recv_qp(r);
		if (!r->tgt_qp[i]) {
			ret = errno ? errno : ENOMEM;
			pp_err_set(
				err,
				"create XRC receive QP %u of %u failed: %s (lower -q?)",
				i + 1, r->num_qps, strerror(ret));
			return ret;
		}
		ret = pp_qp_modify(r->tgt_qp[i], &tgt_cfg, PP_QP_INIT, 0, NULL,
				   err);
		if (ret)
			return ret;
	}
	return 0;
}

int pp_res_xrcd_file(const char *path, bool own, int *fd, struct pp_err *err)
{
	struct stat st;
	int ret;

	/* O_NONBLOCK: a FIFO put there opens at once, and is refused below */
	*fd = open(path,
		   O_RDONLY | O_CREAT | O_CLOEXEC | O_NONBLOCK |
			   (own ? O_NOFOLLOW : 0),
		   0600);
	if (*fd < 0) {
		ret = errno;
		pp_err_set(
			err,
			"open XRC domain file %s failed: %s (choose another with --xrc-domain)",
			path, strerror(ret));
		return ret;
	}
	if (fstat(*fd, &st)) {
		ret = errno;
		pp_err_set(err, "stat XRC domain file %s failed: %s", path,
			   strerror(ret));
		goto out_close;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = EINVAL;
		pp_err_set(
			err,
			"XRC domain file %s is not a regular file (choose another with --xrc-domain)",
			path);
		goto out_close;
	}
	if (own && st.st_uid != getuid()) {
		ret = EACCES;
		pp_err_set(
			err,
			"XRC domain file %s is not yours (choose another with --xrc-domain)",
			path);
		goto out_close;
	}
	return 0;

out_close:
	close(*fd);
	*fd = -1;
	return ret;
}

/*
 * XRC: open the domain file (creating it if need be) and the domain tied to
 * its inode.  Processes of one host that open the same file share the
 * domain (ibv_open_xrcd(3)).  The default file lies in a shared /tmp, so it
 * must be the user's own and no symlink (pp_res_xrcd_file()).
 */
static int xrc_open_domain(struct pp_res *r, struct pp_err *err)
{
	const char *path = r->attr.xrcd_path;
	struct ibv_xrcd_init_attr xa;
	char def[64];
	int ret;

	if (!path) {
		snprintf(def, sizeof(def), PP_XRCD_PATH_FMT,
			 (unsigned int)getuid());
		path = def;
	}
	ret = pp_res_xrcd_file(path, path == def, &r->xrcd_fd, err);
	if (ret)
		return ret;
	xa = (struct ibv_xrcd_init_attr){
		.comp_mask = IBV_XRCD_INIT_ATTR_FD | IBV_XRCD_INIT_ATTR_OFLAGS,
		.fd = r->xrcd_fd,
		.oflags = O_CREAT,
	};
	r->xrcd = ibv_open_xrcd(r->ctx, &xa);
	if (!r->xrcd) {
		ret = errno ? errno : EOPNOTSUPP;
		if (ret == EOPNOTSUPP || ret == ENOSYS)
			pp_err_set(
				err,
				"XRC: not supported by device %s (open XRC domain failed: %s)",
				ibv_get_device_name(r->ctx->device),
				strerror(ret));
		else
			pp_err_set(err, "open XRC domain of %s failed: %s",
				   path, strerror(ret));
		return ret;
	}
	return 0;
}

/* XRC: the SRQ every receive QP of the domain may deliver into. */
static int xrc_create_srq(struct pp_res *r, struct pp_err *err)
{
	struct ibv_srq_init_attr_ex sa = {
		.attr = { .max_wr = r->attr.rx_depth, .max_sge = 1 },
		.comp_mask = IBV_SRQ_INIT_ATTR_TYPE | IBV_SRQ_INIT_ATTR_XRCD |
			     IBV_SRQ_INIT_ATTR_CQ | IBV_SRQ_INIT_ATTR_PD,
		.srq_type = IBV_SRQT_XRC,
		.pd = r->pd,
		.xrcd = r->xrcd,
		.cq = r->cq,
	};
	int ret;

	r->srq = ibv_create_srq_ex(r->ctx, &sa);
	if (!r->srq) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(
			err,
			"create XRC SRQ of %u receives failed: %s (lower -r?)",
			r->attr.rx_depth, strerror(ret));
		return ret;
	}
	ret = ibv_get_srq_num(r->srq, &r->srqn);
	if (ret) {
		pp_err_set(err, "read the XRC SRQ number failed: %s",
			   strerror(ret));
		return ret;
	}
	return 0;
}

int pp_res_buf_len(uint64_t size, uint32_t recv_len, uint32_t recv_bufs,
		   uint64_t page, uint64_t max, size_t *len)
{
	uint64_t send_len, recv_total, total;

	if (!page || __builtin_add_overflow(size, page - 1, &send_len))
		return EOVERFLOW;
	send_len = send_len / page * page;
	if (__builtin_mul_overflow((uint64_t)recv_len, (uint64_t)recv_bufs,
				   &recv_total) ||
	    __builtin_add_overflow(send_len, recv_total, &total) ||
	    total > max || total > SIZE_MAX)
		return EOVERFLOW;
	*len = (size_t)total;
	return 0;
}

/* The receive areas: how long each is, and how many. */
static void recv_areas(const struct pp_transport_desc *tr, uint64_t size,
		       uint32_t rx_depth, bool buf_per_recv, uint32_t *recv_len,
		       uint32_t *recv_bufs)
{
	*recv_len = (uint32_t)size + (tr->datagram ? PP_GRH_LEN : 0);
	*recv_bufs = buf_per_recv ? rx_depth : 1;
}

int pp_res_mem(const struct pp_transport_desc *tr, uint64_t size,
	       uint32_t rx_depth, bool buf_per_recv, uint64_t page,
	       uint64_t *bytes)
{
	uint32_t recv_len, recv_bufs;
	size_t len;
	int ret;

	recv_areas(tr, size, rx_depth, buf_per_recv, &recv_len, &recv_bufs);
	ret = pp_res_buf_len(size, recv_len, recv_bufs, page, SIZE_MAX, &len);
	if (!ret)
		*bytes = len;
	return ret;
}

uint64_t pp_res_cqe(const struct pp_transport_desc *tr, uint32_t num_qps,
		    uint32_t rx_depth)
{
	uint64_t recvs = tr->srq ? rx_depth : (uint64_t)num_qps * rx_depth;

	return recvs + (uint64_t)num_qps * PP_TX_DEPTH;
}

/*
 * The MR of the buffers: plain, on demand (-o: the device maps the pages
 * when it first touches them) or implicit (-O: one MR for the whole
 * address space, its keys good for any buffer of the process).
 */
static struct ibv_mr *register_mr(struct pp_res *r)
{
	int access = (int)pp_op_mr_access(r->attr.op, r->attr.is_server);

	if (r->attr.odp || r->attr.iodp)
		access |= IBV_ACCESS_ON_DEMAND;
	if (r->attr.iodp)
		return ibv_reg_mr(r->pd, NULL, SIZE_MAX, access);
	return ibv_reg_mr(r->pd, r->buf, r->buf_len, access);
}

/* -P: ask the device to map the buffers of the ODP MR now, not at first use. */
static void prefetch_mr(struct pp_res *r)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)r->buf,
		.length = (uint32_t)r->buf_len,
		.lkey = r->mr->lkey,
	};

	r->prefetch_err = ibv_advise_mr(r->pd,
					IBV_ADVISE_MR_ADVICE_PREFETCH_WRITE,
					IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
	pp_trace_step(r->attr.trace, "prefetch the ODP MR (%zu bytes): %s",
		      r->buf_len,
		      r->prefetch_err ? strerror(r->prefetch_err) : "done");
}

static int register_buffers(struct pp_res *r, struct pp_err *err);

int pp_res_post_new(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad)
{
	struct ibv_qp_ex *qx = ibv_qp_to_qp_ex(qp);

	ibv_wr_start(qx);
	for (; wr; wr = wr->next) {
		const struct ibv_sge *sg = wr->sg_list;

		qx->wr_id = wr->wr_id;
		qx->wr_flags = wr->send_flags;
		switch (wr->opcode) {
		case IBV_WR_SEND:
			ibv_wr_send(qx);
			break;
		case IBV_WR_SEND_WITH_IMM:
			ibv_wr_send_imm(qx, wr->imm_data);
			break;
		case IBV_WR_RDMA_WRITE:
			ibv_wr_rdma_write(qx, wr->wr.rdma.rkey,
					  wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_RDMA_WRITE_WITH_IMM:
			ibv_wr_rdma_write_imm(qx, wr->wr.rdma.rkey,
					      wr->wr.rdma.remote_addr,
					      wr->imm_data);
			break;
		case IBV_WR_RDMA_READ:
			ibv_wr_rdma_read(qx, wr->wr.rdma.rkey,
					 wr->wr.rdma.remote_addr);
			break;
		case IBV_WR_ATOMIC_FETCH_AND_ADD:
			ibv_wr_atomic_fetch_add(qx, wr->wr.atomic.rkey,
						wr->wr.atomic.remote_addr,
						wr->wr.atomic.compare_add);
			break;
		case IBV_WR_ATOMIC_CMP_AND_SWP:
			ibv_wr_atomic_cmp_swp(qx, wr->wr.atomic.rkey,
					      wr->wr.atomic.remote_addr,
					      wr->wr.atomic.compare_add,
					      wr->wr.atomic.swap);
			break;
		default:
			ibv_wr_abort(qx);
			*bad = wr;
			return EINVAL;
		}
		if (!wr->num_sge)
			ibv_wr_set_sge_list(qx, 0, NULL);
		else if (wr->send_flags & IBV_SEND_INLINE)
			ibv_wr_set_inline_data(qx, (void *)(uintptr_t)sg->addr,
					       sg->length);
		else
			ibv_wr_set_sge(qx, sg->lkey, sg->addr, sg->length);
	}
	return ibv_wr_complete(qx);
}

int pp_res_huge_free(const char *root, unsigned long *n)
{
	char path[256];
	FILE *f;
	int ret = 0;

	snprintf(path, sizeof(path), "%s%s", root ? root : "",
		 PP_HUGE_FREE_PATH);
	f = fopen(path, "re");
	if (!f)
		return errno;
	if (fscanf(f, "%lu", n) != 1)
		ret = EINVAL;
	fclose(f);
	return ret;
}

/*
 * --hugepages: the buffers on 2 MiB pages from the kernel's pool
 * (MAP_HUGETLB), the length rounded up to whole pages.  The pool is
 * vm.nr_hugepages; an empty one fails here with ENOMEM.
 */
static int create_huge(struct pp_res *r, struct pp_err *err)
{
	size_t len =
		(r->buf_len + PP_HUGE_PAGE - 1) / PP_HUGE_PAGE * PP_HUGE_PAGE;
	void *p;
	int ret;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1,
		 0);
	if (p == MAP_FAILED) {
		ret = errno;
		pp_err_set(
			err,
			"--hugepages: %zu huge pages of 2 MiB for the buffers not allocated: %s (free ones: /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages; reserve more with sysctl vm.nr_hugepages=N)",
			len / PP_HUGE_PAGE, strerror(ret));
		return ret;
	}
	r->buf = p;
	r->huge_len = len;
	pp_trace_step(r->attr.trace,
		      "buffers on %zu huge page%s of 2 MiB (%zu bytes used)",
		      len / PP_HUGE_PAGE, len > PP_HUGE_PAGE ? "s" : "",
		      r->buf_len);
	return 0;
}

static int create_buffers(struct pp_res *r, struct pp_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	recv_areas(r->tr, r->attr.size, r->attr.rx_depth, r->attr.buf_per_recv,
		   &r->recv_len, &r->recv_bufs);
	ret = pp_res_buf_len(r->attr.size, r->recv_len, r->recv_bufs,
			     (uint64_t)page, SIZE_MAX, &r->buf_len);
	if (ret) {
		pp_err_set(
			err,
			"buffers for -s %llu and %u receive area%s do not fit this process's address space (lower -s%s)",
			(unsigned long long)r->attr.size, r->recv_bufs,
			r->recv_bufs > 1 ? "s" : "",
			r->recv_bufs > 1 ? " or -r" : "");
		return ret;
	}
	if (r->attr.hugepages) {
		ret = create_huge(r, err);
		return ret ? ret : register_buffers(r, err);
	}
	ret = posix_memalign((void **)&r->buf, page, r->buf_len);
	if (ret) {
		r->buf = NULL;
		pp_err_set(
			err, "allocate %zu bytes of buffers failed: %s%s",
			r->buf_len, strerror(ret),
			r->recv_bufs > 1 ?
				" (-c here gives each receive its buffer: lower -r or -s)" :
				"");
		return ret;
	}
	return register_buffers(r, err);
}

/* The buffers allocated: zero them, find the two areas, register the MR. */
static int register_buffers(struct pp_res *r, struct pp_err *err)
{
	long page = sysconf(_SC_PAGESIZE);
	int ret;

	memset(r->buf, 0, r->buf_len);
	r->send_buf = r->buf;
	r->recv_buf = r->buf + (r->attr.size + page - 1) / page * page;
	r->mr = register_mr(r);
	if (!r->mr) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(
			err,
			"register MR of %zu bytes failed: %s (lower -s%s, or raise the locked-memory limit: ulimit -l)",
			r->buf_len, strerror(ret),
			r->recv_bufs > 1 ?
				" or -r: with -c each receive has its buffer" :
				"");
		return ret;
	}
	if (r->attr.prefetch)
		prefetch_mr(r);
	return 0;
}

static int create_queues(struct pp_res *r, struct pp_err *err)
{
	uint64_t cqe = pp_res_cqe(r->tr, r->num_qps, r->attr.rx_depth);
	int ret;

	/* a smaller CQ would overflow when the QPs flush: refuse */
	if (r->attr.max_cqe && cqe > r->attr.max_cqe) {
		pp_err_set(
			err,
			"CQ: %llu entries needed, device %s max CQ entries %u (lower -r or -q)",
			(unsigned long long)cqe,
			ibv_get_device_name(r->ctx->device), r->attr.max_cqe);
		return EINVAL;
	}
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
	if (has_srq(r) && !is_xrc(r)) {
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
	if (is_xrc(r))
		return xrc_create_srq(r, err);
	return 0;
}

/*
 * The area of this side the peer reaches: the receive area for writes (the
 * peer's message lands where a received one would), the send area for a
 * read (the server's data) and an atomic (its word, page-aligned).
 */
static uint8_t *remote_area(const struct pp_res *r)
{
	return r->attr.op == PP_OP_WRITE || r->attr.op == PP_OP_WRITE_IMM ?
		       r->recv_buf :
		       r->send_buf;
}

struct pp_res *pp_res_create(struct ibv_context *ctx,
			     const struct pp_res_attr *a,
			     const uint8_t local_gid[16], uint16_t lid,
			     struct pp_err *err)
{
	struct pp_qp_cfg cfg = {
		.transport = a->transport,
		.ib_port = a->ib_port,
		.pkey_index = a->pkey_index,
		.op = a->op,
		.is_server = a->is_server,
		.trace = a->trace,
	};
	struct pp_res *r;
	char access[128];
	uint32_t i;
	int ret;

	r = calloc(1, sizeof(*r));
	if (!r) {
		pp_err_set(err, "out of memory");
		return NULL;
	}
	r->attr = *a;
	r->sgid_index = -1;
	r->tr = pp_transport_of(a->transport);
	r->ctx = ctx;
	r->xrcd_fd = -1;
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
		pp_trace_step(a->trace, "create completion channel");
	}
	if (is_xrc(r)) {
		ret = xrc_open_domain(r, err);
		if (ret)
			goto out_destroy;
		pp_trace_step(a->trace, "open XRC domain");
	}
	r->pd = ibv_alloc_pd(ctx);
	if (!r->pd) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(err, "allocate PD failed: %s", strerror(ret));
		goto out_destroy;
	}
	pp_trace_step(a->trace, "allocate PD");
	ret = create_buffers(r, err);
	if (ret)
		goto out_destroy;
	pp_trace_step(
		a->trace,
		"register MR of %zu bytes (lkey 0x%x, rkey 0x%x, access %s)",
		r->buf_len, r->mr->lkey, r->mr->rkey,
		pp_trace_access(pp_op_mr_access(a->op, a->is_server), access,
				sizeof(access)));
	ret = create_queues(r, err);
	if (ret)
		goto out_destroy;
	pp_trace_step(a->trace, "create CQ of %d entries%s", r->cq->cqe,
		      r->srq ? " and the SRQ" : "");
	ret = create_qps(r, &cfg, err);
	if (ret)
		goto out_destroy;
	pp_trace_step(
		a->trace, "created %u %s QP%s%s%s", r->num_qps,
		pp_transport_name(a->transport), r->num_qps > 1 ? "s" : "",
		r->max_inline ? " (inline sends)" : "",
		a->new_send ?
			" with ibv_create_qp_ex(): sends posted by ibv_wr_*() (-N)" :
			"");
	pp_res_set_size(r, a->size);
	for (i = 0; i < r->num_qps; i++) {
		r->local[i] = (struct pp_addr){
			.lid = lid,
			.qpn = r->qp[i]->qp_num,
			.psn = r->psn[i],
		};
		if (is_xrc(r)) {
			r->local[i].srqn = r->srqn;
			r->local[i].tgt_qpn = r->tgt_qp[i]->qp_num;
		}
		memcpy(r->local[i].gid, local_gid, 16);
		/* the area the peer reaches, when it reaches one */
		if (pp_op_qp_access(a->op, a->is_server)) {
			r->local[i].rkey = r->mr->rkey;
			r->local[i].vaddr = (uintptr_t)remote_area(r);
		}
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
	struct pp_qp_cfg send_cfg = *cfg, tgt_cfg = *cfg;
	struct ibv_ah_attr ah;
	uint32_t i;
	int ret;

	send_cfg.xrc_recv = false;
	tgt_cfg.xrc_recv = true;
	r->sgid_index = cfg->use_grh ? cfg->sgid_index : -1;
	for (i = 0; i < r->num_qps; i++) {
		r->remote[i] = remote[i];
		if (r->attr.bad_rkey && pp_op_remote(r->attr.op)) {
			/* the test hook: the key byte of the rkey, wrong */
			r->remote[i].rkey ^= 0xff;
			pp_trace_step(
				r->attr.trace,
				"PP_TEST_BAD_RKEY: the peer's rkey 0x%x used as 0x%x",
				remote[i].rkey, r->remote[i].rkey);
		}
		if (is_xrc(r)) {
			/* ready to hear from the peer's send QP i first */
			ret = pp_qp_modify(r->tgt_qp[i], &tgt_cfg, PP_QP_RTR,
					   r->psn[i], &remote[i], err);
			if (!ret)
				ret = pp_qp_modify(r->tgt_qp[i], &tgt_cfg,
						   PP_QP_RTS, r->psn[i],
						   &remote[i], err);
			if (ret)
				return ret;
		}
		ret = pp_qp_modify(r->qp[i], &send_cfg, PP_QP_RTR, r->psn[i],
				   &remote[i], err);
		if (ret)
			return ret;
		ret = pp_qp_modify(r->qp[i], &send_cfg, PP_QP_RTS, r->psn[i],
				   &remote[i], err);
		if (ret)
			return ret;
		if (!r->tr->datagram)
			continue;
		pp_ah_attr(cfg, &remote[i], &ah);
		r->ah[i] = ibv_create_ah(r->pd, &ah);
		if (!r->ah[i]) {
			char why[400];

			ret = errno ? errno : EINVAL;
			pp_err_set(err,
				   "create AH to QP 0x%06x failed: %s (%s)",
				   remote[i].qpn, strerror(ret),
				   pp_qp_explain(r->ctx, cfg, PP_QP_RTR, true,
						 ah.is_global, ret, why,
						 sizeof(why)));
			return ret;
		}
	}
	return 0;
}

void pp_res_set_size(struct pp_res *r, uint64_t size)
{
	r->msg_size = (uint32_t)size;
	r->send_flags = IBV_SEND_SIGNALED;
	if (size <= r->max_inline)
		r->send_flags |= IBV_SEND_INLINE;
}

void pp_res_recv_wr(struct pp_res *r, uint32_t qp_index, struct ibv_recv_wr *wr,
		    uint32_t n, struct ibv_sge *sge)
{
	uint32_t i, slot;

	/*
	 * One buffer per receive: buf_per_recv is only asked for one QP and
	 * no SRQ (pp_res_attr), one queue that completes its receives in the
	 * order they were posted, at most rx_depth at a time; so receive p
	 * takes buffer p mod rx_depth, the buffer of receive p - rx_depth,
	 * which completed before receive p was posted.
	 */
	for (i = 0; i < n; i++) {
		slot = r->recv_next;
		if (++r->recv_next == r->recv_bufs)
			r->recv_next = 0;
		sge[i] = (struct ibv_sge){
			.addr = (uintptr_t)(r->recv_buf +
					    (size_t)slot * r->recv_len),
			.length = r->recv_len,
			.lkey = r->mr->lkey,
		};
		wr[i] = (struct ibv_recv_wr){
			.wr_id = PP_WRID_RECV(qp_index, slot),
			.next = i + 1 < n ? &wr[i + 1] : NULL,
			.sg_list = &sge[i],
			.num_sge = 1,
		};
	}
}

int pp_res_post_recv_wr(struct pp_res *r, uint32_t qp_index,
			struct ibv_recv_wr *wr)
{
	struct ibv_recv_wr *bad;

	return has_srq(r) ? ibv_post_srq_recv(r->srq, wr, &bad) :
			    ibv_post_recv(r->qp[qp_index], wr, &bad);
}

int pp_res_post_recv(struct pp_res *r, uint32_t qp_index, uint32_t n)
{
	struct ibv_recv_wr wr[PP_RECV_CHAIN];
	struct ibv_sge sge[PP_RECV_CHAIN];
	uint32_t k;
	int ret = 0;

	while (n && !ret) {
		k = n < PP_RECV_CHAIN ? n : PP_RECV_CHAIN;
		pp_res_recv_wr(r, qp_index, wr, k, sge);
		ret = pp_res_post_recv_wr(r, qp_index, wr);
		n -= k;
	}
	return ret;
}

/* The opcode of the run's operation. */
static enum ibv_wr_opcode opcode(const struct pp_res *r)
{
	switch (r->attr.op) {
	case PP_OP_WRITE:
		return IBV_WR_RDMA_WRITE;
	case PP_OP_WRITE_IMM:
		return IBV_WR_RDMA_WRITE_WITH_IMM;
	case PP_OP_READ:
		return IBV_WR_RDMA_READ;
	case PP_OP_FETCH_ADD:
		return IBV_WR_ATOMIC_FETCH_AND_ADD;
	case PP_OP_CMP_SWAP:
		return IBV_WR_ATOMIC_CMP_AND_SWP;
	default:
		break;
	}
	return r->attr.plain_send ? IBV_WR_SEND : IBV_WR_SEND_WITH_IMM;
}

void pp_res_send_wr(const struct pp_res *r, uint32_t qp_index,
		    struct ibv_send_wr *wr, struct ibv_sge *sge)
{
	/* a read's data, an atomic's old value, come back into recv_buf */
	bool request = pp_op_client_only(r->attr.op);
	bool atomic = pp_op_atomic(r->attr.op);

	*sge = (struct ibv_sge){
		.addr = (uintptr_t)(request ? r->recv_buf : r->send_buf),
		.length = atomic ? PP_OP_ATOMIC_SIZE : r->msg_size,
		.lkey = r->mr->lkey,
	};
	*wr = (struct ibv_send_wr){
		.wr_id = PP_WRID(qp_index, 0),
		.sg_list = sge,
		.num_sge = 1,
		.opcode = opcode(r),
		/* nothing to inline: each is signaled */
		.send_flags = request ? IBV_SEND_SIGNALED : r->send_flags,
	};
	if (atomic) {
		wr->wr.atomic.remote_addr = r->remote[qp_index].vaddr;
		wr->wr.atomic.rkey = r->remote[qp_index].rkey;
		wr->wr.atomic.compare_add = PP_OP_FETCH_ADD_ADD;
	} else if (pp_op_remote(r->attr.op)) {
		wr->wr.rdma.remote_addr = r->remote[qp_index].vaddr;
		wr->wr.rdma.rkey = r->remote[qp_index].rkey;
	}
	if (r->tr->datagram) {
		wr->wr.ud.ah = r->ah[qp_index];
		wr->wr.ud.remote_qpn = r->remote[qp_index].qpn;
		wr->wr.ud.remote_qkey = PP_QKEY;
	} else if (is_xrc(r)) {
		wr->qp_type.xrc.remote_srqn = r->remote[qp_index].srqn;
	}
}

int pp_res_post_send(struct pp_res *r, uint32_t qp_index, uint32_t seq)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	pp_res_send_wr(r, qp_index, &wr, &sge);
	wr.imm_data = htonl(seq);
	return pp_res_post(r, r->qp[qp_index], &wr, &bad);
}

int pp_res_post_atomic(struct pp_res *r, uint32_t qp_index,
		       uint64_t compare_add, uint64_t swap)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;

	pp_res_send_wr(r, qp_index, &wr, &sge);
	wr.wr.atomic.compare_add = compare_add;
	wr.wr.atomic.swap = swap;
	return pp_res_post(r, r->qp[qp_index], &wr, &bad);
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
	for (i = 0; r->tgt_qp && i < r->num_qps; i++)
		if (r->tgt_qp[i])
			ibv_destroy_qp(r->tgt_qp[i]);
	if (r->srq)
		ibv_destroy_srq(r->srq);
	if (r->cq)
		ibv_destroy_cq(r->cq);
	if (r->mr)
		ibv_dereg_mr(r->mr);
	if (r->huge_len)
		munmap(r->buf, r->huge_len);
	else
		free(r->buf);
	if (r->pd)
		ibv_dealloc_pd(r->pd);
	if (r->xrcd)
		ibv_close_xrcd(r->xrcd);
	if (r->xrcd_fd >= 0)
		close(r->xrcd_fd);
	if (r->channel)
		ibv_destroy_comp_channel(r->channel);
	free(r->remote);
	free(r->local);
	free(r->psn);
	free(r->ah);
	free(r->tgt_qp);
	free(r->qp);
	free(r);
}
