/* SPDX-License-Identifier: MIT */
/*
 * pp_res.h - the verbs resources of one run, for every transport.
 *
 *   RC, UC  one QP; its own receive queue
 *   UD      one QP; receives carry 40 bytes of GRH room; one AH per peer QP
 *   SRQ     N RC QPs; all receives come from one SRQ
 *   XRC     N XRC send QPs and N XRC receive (target) QPs in one XRC domain;
 *           receives come from one XRC SRQ.  Send QP i goes to the peer's
 *           receive QP i and names the peer's SRQ in every send; receive QP
 *           i hears from the peer's send QP i (docs/xrc.md).
 *
 * One completion queue serves sends and receives.  One buffer, registered
 * once, holds the send area and then the receive area: one message is in
 * flight at a time, so one of each is enough.
 *
 * One-sided operations (pp_op.h) use the same two areas: the peer writes
 * into this side's receive area; a read fetches the server's send area into
 * the client's receive area; an atomic works on the first 8 bytes of the
 * server's send area and returns the old value into the client's receive
 * area.  The MR and the QPs get exactly the access the operation needs on
 * this side (pp_op_mr_access(), pp_op_qp_access()); the side that offers
 * access gives its rkey and the area's address in its ADDRS.
 */
#ifndef PP_RES_H
#define PP_RES_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include "pp_err.h"
#include "pp_op.h"
#include "pp_qp.h"
#include "pp_trace.h"
#include "pp_wire.h"

#define PP_TX_DEPTH 16U		 /* sends outstanding per QP, at most */
#define PP_HUGE_PAGE (2UL << 20) /* --hugepages: the page size used */

/*
 * wr_id of every work request: the QP index, whether it is a receive, and
 * a receive's buffer (pp_res_recv_data()) in the upper 32 bits.
 */
#define PP_WRID(qp_index, is_recv) (((uint64_t)(qp_index) << 1) | (is_recv))
#define PP_WRID_RECV(qp_index, slot) \
	(PP_WRID(qp_index, 1) | (uint64_t)(slot) << 32)
#define PP_WRID_QP(wr_id) (((uint32_t)(wr_id)) >> 1)
#define PP_WRID_IS_RECV(wr_id) (((wr_id)&1) != 0)
#define PP_WRID_SLOT(wr_id) ((uint32_t)((wr_id) >> 32))

struct pp_res_attr {
	enum pp_transport transport;
	uint32_t num_qps;  /* 1 for RC, UC and UD */
	uint64_t size;	   /* message size (a sweep: the largest) */
	uint64_t min_size; /* a sweep: the smallest size; 0: size */
	bool no_inline;	   /* never send inline */
	uint32_t rx_depth; /* receives posted ahead (per QP, or the SRQ) */
	uint32_t max_cqe;  /* device limit (pp_res_cqe()); 0: not checked */
	uint8_t ib_port;
	uint16_t pkey_index;   /* the QPs' P_Key index (INIT) */
	bool use_event;	       /* make a completion channel */
	const char *xrcd_path; /* XRC: domain file; NULL: PP_XRCD_PATH_FMT */
	bool plain_send;       /* IBV_WR_SEND, no immediate (rdma-core peers) */
	enum pp_op op;	       /* the operation (pp_op.h): access, opcodes */
	bool is_server;	       /* which side: the access it needs (pp_op.h) */
	bool odp;	       /* -o: the MR on demand (pp_feat.h checked) */
	bool iodp;	/* -O: one implicit ODP MR, address 0, SIZE_MAX */
	bool prefetch;	/* -P: ibv_advise_mr() the buffers (ODP) */
	bool hugepages; /* --hugepages: buffers on 2 MiB pages */
	bool new_send;	/* -N: QPs by ibv_create_qp_ex(), posts by ibv_wr_*() */
	/*
	 * Each posted receive its own buffer, rx_depth of them (-c on a lossy
	 * transport, one QP): a message stays as it came until it is checked,
	 * whatever arrives after it (pp_run_ours_on_recv()).  Else one buffer
	 * that every receive shares.
	 */
	bool buf_per_recv;
	/* test hook (PP_TEST_BAD_RKEY, pp_session.c): use a wrong peer rkey */
	bool bad_rkey;
	struct pp_trace *trace; /* --trace: each step shown; may be NULL */
};

struct pp_res {
	struct pp_res_attr attr;
	const struct pp_transport_desc *tr; /* of attr.transport */
	struct ibv_context *ctx;	    /* not owned */
	struct ibv_comp_channel *channel;
	struct ibv_pd *pd;
	uint8_t *buf;
	size_t buf_len;
	size_t huge_len; /* --hugepages: the mapping's length; 0: malloc'ed */
	uint8_t *send_buf;
	uint8_t *recv_buf;  /* UD: GRH room first, data at PP_GRH_LEN */
	uint32_t recv_len;  /* bytes per receive: size (+ PP_GRH_LEN for UD) */
	uint32_t recv_bufs; /* receive buffers: 1, or rx_depth (buf_per_recv) */
	uint32_t recv_next; /* the buffer of the next receive posted */
	struct ibv_mr *mr;
	int prefetch_err; /* -P: errno of ibv_advise_mr(); the run goes on */
	struct ibv_cq *cq;
	int xrcd_fd; /* XRC: the domain file, open; else -1 */
	struct ibv_xrcd *xrcd;
	struct ibv_srq *srq; /* SRQ and XRC */
	uint32_t srqn;	     /* XRC: its number, sent to the peer */
	uint32_t num_qps;
	struct ibv_qp **qp;	/* sending QPs (all but XRC receive too) */
	struct ibv_qp **tgt_qp; /* XRC: receive QPs */
	struct ibv_ah **ah;	/* UD: one per peer QP, made at connect */
	uint32_t *psn;		/* this side's send PSN per QP */
	struct pp_addr *local;	/* this side's addresses, for the peer */
	struct pp_addr *remote; /* the peer's, copied at connect */
	uint32_t max_inline;	/* inline room of the send QPs (0: none) */
	int sgid_index;		/* of the GRH (pp_res_connect()); -1: no GRH */
	uint32_t msg_size;	/* the size sent now (pp_res_set_size()) */
	uint32_t send_flags; /* IBV_SEND_SIGNALED, plus INLINE when it fits */
	uint32_t unsignaled; /* pp_run: sends posted since the last signaled
				one (at most PP_TX_DEPTH - 1) */
};

/**
 * pp_res_xrcd_file() - open (or create) the XRC domain file safely
 * @path: the file
 * @own: the default file in the shared /tmp: no symlink, and it must be
 *       the user's own
 * @fd: the descriptor, or -1 on failure
 * @err: one line naming the file and what to do
 *
 * Opened without blocking, so another user's FIFO in its place cannot stall
 * the tool; anything but a regular file is refused.
 *
 * Return: 0; EINVAL (not a regular file); EACCES (@own and not the
 * user's); the errno of open() or fstat().
 */
int pp_res_xrcd_file(const char *path, bool own, int *fd, struct pp_err *err);

/**
 * pp_res_buf_len() - the bytes of one MR: the send area, page-rounded, then
 * @recv_bufs receive areas of @recv_len bytes
 * @size: the largest message
 * @recv_len: one receive area (the message, and a GRH on UD)
 * @recv_bufs: receive areas (1, or one per receive with -c on a lossy
 *             transport)
 * @page: the page size
 * @max: the largest length the caller can allocate (SIZE_MAX)
 * @len: the sum
 *
 * Return: 0; EOVERFLOW when the sum passes @max (a 32-bit process asked for
 * more than its address space).
 */
int pp_res_buf_len(uint64_t size, uint32_t recv_len, uint32_t recv_bufs,
		   uint64_t page, uint64_t max, size_t *len);

/**
 * pp_res_mem() - the bytes of buffers a run allocates, zeroes and registers
 * on one side: the send area, page-rounded, and the receive areas
 * (pp_res_buf_len()), as pp_res_create() makes them
 * @tr: the transport (UD: a GRH ahead of each receive)
 * @size: the largest message (a sweep's top)
 * @rx_depth: receives posted ahead
 * @buf_per_recv: each receive its own area (struct pp_res_attr)
 * @page: the page size
 * @bytes: the sum
 *
 * One receive area serves every QP (and the SRQ), so the QP count does not
 * add to it.
 *
 * Return: 0; EOVERFLOW when the sum does not fit a size_t.
 */
int pp_res_mem(const struct pp_transport_desc *tr, uint64_t size,
	       uint32_t rx_depth, bool buf_per_recv, uint64_t page,
	       uint64_t *bytes);

/**
 * pp_res_cqe() - the entries the one CQ needs: every receive and every send
 * that can be outstanding, each of which completes (or flushes, when a QP
 * goes to the error state) into it
 * @tr: the transport (SRQ, XRC: the receives are the shared queue's)
 * @num_qps: QPs (XRC: send QPs; its receive QPs have no receive queue)
 * @rx_depth: receives posted ahead, per QP or in the shared queue
 *
 * Return: the entries.
 */
uint64_t pp_res_cqe(const struct pp_transport_desc *tr, uint32_t num_qps,
		    uint32_t rx_depth);

/**
 * pp_res_create() - acquire, in order, everything a run needs, and bring the
 * QPs to INIT
 * @ctx: the open device
 * @a: what to create
 * @local_gid: the GID this side uses, for its addresses (all zero: none,
 *             no GRH)
 * @lid: this port's LID
 * @err: one line naming the step that failed ("register MR of 2 GiB
 *       failed: Cannot allocate memory (lower -s, or raise ulimit -l)")
 *
 * Fills @local with this side's addresses (QPN, random PSN, SRQ number, LID,
 * GID; XRC: the send QP's number in qpn, the receive QP's in tgt_qpn) for the
 * handshake.  A partly built object is released before failing.
 *
 * Return: the resources, or NULL with errno set: ENOMEM, or the errno of the
 * failing verb (XRC on a device without it: EOPNOTSUPP at the domain).
 */
struct pp_res *pp_res_create(struct ibv_context *ctx,
			     const struct pp_res_attr *a,
			     const uint8_t local_gid[16], uint16_t lid,
			     struct pp_err *err);

/**
 * pp_res_connect() - bring every QP to RTR and RTS (UD: and make its AHs;
 * XRC: each receive QP to RTR only)
 * @r: the resources
 * @cfg: the QP settings of the run
 * @remote: the peer's @r->num_qps addresses, in the order of its ADDRS
 * @err: one line naming the transition and the QP that failed
 *
 * Return: 0 or the errno of the failing verb.
 */
int pp_res_connect(struct pp_res *r, const struct pp_qp_cfg *cfg,
		   const struct pp_addr *remote, struct pp_err *err);

/**
 * pp_res_set_size() - the size of the messages sent from now on
 * @r: the resources
 * @size: 1..@r->attr.size
 *
 * Sends are inline when @size fits the QPs' inline room.  pp_res_create()
 * starts with @r->attr.size; a sweep sets each size in turn.  Receives always
 * offer room for @r->attr.size.
 */
void pp_res_set_size(struct pp_res *r, uint64_t size);

/**
 * pp_res_post_recv() - post @n receives (on QP @qp_index, or on the SRQ)
 * @r: the resources
 * @qp_index: which QP, for transports without an SRQ
 * @n: how many; chained, PP_RECV_CHAIN work requests per verb call
 *
 * Return: 0 or the errno of ibv_post_recv()/ibv_post_srq_recv().
 */
int pp_res_post_recv(struct pp_res *r, uint32_t qp_index, uint32_t n);

#define PP_RECV_CHAIN 16 /* receives posted by one pp_res_post_recv() call */

/**
 * pp_res_recv_wr() - a chain of receive work requests, for a loop that
 * posts the same chain again and again (pp_res_post_recv_wr())
 * @r: the resources, the size set
 * @qp_index: which QP, for transports without an SRQ
 * @wr: the chain, @n long (@wr[i].next is &@wr[i + 1], the last NULL)
 * @n: how many, at least 1
 * @sge: their buffers, @n of them: the one receive buffer, or with
 *       attr.buf_per_recv the next @n in turn, the buffer in each wr_id
 *       (PP_WRID_SLOT()); such a chain is posted once, not again
 */
void pp_res_recv_wr(struct pp_res *r, uint32_t qp_index, struct ibv_recv_wr *wr,
		    uint32_t n, struct ibv_sge *sge);

/**
 * pp_res_recv_data() - where the message of a completed receive is
 * @r: the resources
 * @wr_id: the receive's, from its completion
 *
 * Return: the start of its buffer (UD: the GRH room, the data after it).
 */
static inline uint8_t *pp_res_recv_data(const struct pp_res *r, uint64_t wr_id)
{
	return r->recv_buf + (size_t)PP_WRID_SLOT(wr_id) * r->recv_len;
}

/**
 * pp_res_post_recv_wr() - post a chain built by pp_res_recv_wr()
 * @r: the resources
 * @qp_index: which QP, for transports without an SRQ
 * @wr: the chain
 *
 * Return: 0 or the errno of ibv_post_recv()/ibv_post_srq_recv().
 */
int pp_res_post_recv_wr(struct pp_res *r, uint32_t qp_index,
			struct ibv_recv_wr *wr);

/**
 * pp_res_send_wr() - the send work request of pp_res_post_send(), for a
 * loop that posts it itself (updating imm_data and send_flags)
 * @r: the resources, connected, the size set
 * @qp_index: which connection
 * @wr: filled; its sg_list is @sge
 * @sge: filled
 *
 * The run's operation decides the opcode, the local buffer and the peer's
 * address and rkey (pp_res_post_send()).  A read or an atomic is signaled
 * and comes back into recv_buf (an atomic's 8 bytes); an atomic's
 * compare_add is PP_OP_FETCH_ADD_ADD, which a compare-and-swap replaces
 * per post, with its swap (pp_res_post_atomic()).
 */
void pp_res_send_wr(const struct pp_res *r, uint32_t qp_index,
		    struct ibv_send_wr *wr, struct ibv_sge *sge);

/**
 * pp_res_post_send() - send the send area to the peer's QP @qp_index
 * (XRC: from send QP @qp_index to the peer's SRQ)
 * @r: the resources, connected
 * @qp_index: which connection
 * @seq: the iteration number, carried as immediate data (none with
 *       @r->attr.plain_send, nor with an RDMA Write or Read)
 *
 * The operation is the run's (@r->attr.op): a send; an RDMA Write (with
 * immediate) of the send area into the peer's receive area; an RDMA Read of
 * the peer's send area into the receive area.  Not for atomics
 * (pp_res_post_atomic()).
 *
 * Return: 0 or the errno of ibv_post_send().
 */
int pp_res_post_send(struct pp_res *r, uint32_t qp_index, uint32_t seq);

/**
 * pp_res_post_atomic() - the run's atomic on the peer's 8-byte word; the
 * old value lands in the first 8 bytes of the receive area
 * @r: the resources, connected, @r->attr.op an atomic
 * @qp_index: which connection
 * @compare_add: fetch-and-add: the addend; compare-and-swap: the compare
 * @swap: compare-and-swap: the value swapped in
 *
 * Return: 0 or the errno of ibv_post_send().
 */
int pp_res_post_atomic(struct pp_res *r, uint32_t qp_index,
		       uint64_t compare_add, uint64_t swap);

/**
 * pp_res_post_new() - post a chain of send work requests through the
 * ibv_wr_*() API (-N): ibv_wr_start(), one ibv_wr_<opcode>() and its SGE or
 * inline data per request, ibv_wr_complete(); the signature of
 * ibv_post_send(), so a loop can hold either
 * @qp: a QP made with -N (pp_res_attr.new_send)
 * @wr: the chain, as for ibv_post_send()
 * @bad: set to the request whose opcode has no ibv_wr_*() here
 *
 * Return: 0, EINVAL (an opcode not handled) or ibv_wr_complete()'s errno.
 */
int pp_res_post_new(struct ibv_qp *qp, struct ibv_send_wr *wr,
		    struct ibv_send_wr **bad);

/**
 * pp_res_post() - post @wr on @qp, one of @r's, with the API the run uses
 * @r: the resources (attr.new_send: pp_res_post_new(); else ibv_post_send())
 * @qp: the QP
 * @wr: the chain
 * @bad: the first request not posted
 *
 * Return: 0 or the errno of the post.
 */
static inline int pp_res_post(const struct pp_res *r, struct ibv_qp *qp,
			      struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	if (r->attr.new_send)
		return pp_res_post_new(qp, wr, bad);
	return ibv_post_send(qp, wr, bad);
}

#define PP_HUGE_FREE_PATH \
	"/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages"

/**
 * pp_res_huge_free() - how many 2 MiB huge pages are free
 * @root: prefix of PP_HUGE_FREE_PATH (a made-up tree in tests); NULL: "/"
 * @n: the count, set on success
 *
 * Return: 0, the errno of opening the file (ENOENT: a kernel without huge
 * pages of 2 MiB) or EINVAL (not a number).
 */
int pp_res_huge_free(const char *root, unsigned long *n);

/**
 * pp_res_destroy() - release everything, in reverse order
 * @r: the resources; may be partly built, or NULL
 */
void pp_res_destroy(struct pp_res *r);

#endif /* PP_RES_H */
