// SPDX-License-Identifier: MIT
/*
 * pp_run_rdma.c - the loops of the one-sided operations (pp_op.h): RDMA
 * Write polled in memory, RDMA Read, and the atomics.  They share the
 * completions (pp_run_wc.h), the waits, deadlines and the peer's DONE
 * (pp_run_wait.h), the samples (pp_run_rec.h) and the lean loop
 * (pp_run_fast.h); write-imm is ours (pp_run_general.h): a receive
 * completes for each of its messages.
 *
 * Write (as ib_write_lat): each side writes message i into the peer's
 * receive area and polls the last byte of its own for the peer's message.
 * That byte is the write flag of message i (pp_write_flag()), which differs
 * from the flag of message i - 1 and is never 0, so neither the previous
 * message nor a fresh buffer is taken for it.  RDMA writes land in order, so
 * when the last byte is there the message is.
 *
 * Read (as ib_read_lat): the client reads the server's send area into its
 * receive area and waits for the completion: one read is one round trip.
 * Atomics: the client's fetch-and-add or compare-and-swap on the server's
 * first 8 bytes, and its completion.  The server's CPU takes no part after
 * setup: it sleeps on the socket until the client's DONE, then checks what
 * the atomics left in its word; the client sends ALIVE every third of its
 * -T meanwhile, so that the server can tell a stopped client from a busy one.
 */
#include <errno.h>
#include <string.h>

#include "pp_clock.h"
#include "pp_pattern.h"
#include "pp_run_fast.h"
#include "pp_run_loop.h"
#include "pp_run_rdma.h"
#include "pp_run_rec.h"
#include "pp_run_wait.h"
#include "pp_run_wc.h"
#include "pp_signal.h"

/* Write: the flag of the peer's message awaited (s->priv). */
struct write_state {
	uint8_t want_flag;
};

/* Write: await the peer's message @seq. */
static void write_want(struct run *s, uint32_t seq)
{
	struct write_state *w = s->priv;

	s->want = seq;
	s->got = false;
	w->want_flag = pp_write_flag(s->r->msg_size, seq, !s->cfg->is_server);
}

/*
 * Write: has the peer's message s->want come?  Looks at the last byte up to
 * PP_WRITE_SPINS times before it says no, so that pp_run_wait_cq() polls
 * the CQ once per PP_WRITE_SPINS looks: the peer's write lands in memory;
 * the CQ only tells of our signaled sends and of errors, and an empty poll
 * costs a lock and the provider's queue (on Soft-RoCE under emulation, an
 * atomic that slows the other CPU too).
 */
static bool write_ready(struct run *s)
{
	const struct write_state *w = s->priv;

	if (s->got || !w ||
	    !pp_write_landed(s->r->recv_buf + s->r->msg_size - 1, w->want_flag))
		return false;
	s->got = true;
	s->got_seq = s->want;
	s->got_ns = pp_clock_ns();
	if (s->cfg->timeout_ms >= 0)
		s->progress_deadline =
			s->got_ns + (int64_t)s->cfg->timeout_ms * 1000000;
	return true;
}

/* Nothing is received in a one-sided run: a receive is a peer's bug. */
static int no_recv(struct run *s, const struct ibv_wc *wc)
{
	pp_err_set(
		s->err,
		"a message arrived on QP 0x%06x during an RDMA %s run (is the peer one of this toolkit's tools?)",
		wc->qp_num, pp_op_name(s->r->attr.op));
	return EPROTO;
}

static void on_send(struct run *s, const struct ibv_wc *wc)
{
	(void)wc;
	s->send_busy = false;
}

/* Write: message @seq, its flag always, the pattern with -c. */
static void write_fill(struct run *s, uint32_t seq, bool from_server)
{
	uint32_t n = s->r->msg_size;

	if (s->cfg->validate) {
		pp_pattern_fill(s->r->send_buf, n - 1, seq, from_server);
		/* the flag stays: the peer must see the write land */
		pp_run_corrupt(s, s->r->send_buf, n - 1, seq);
	}
	s->r->send_buf[n - 1] = pp_write_flag(n, seq, from_server);
}

/* Write, -c: every byte of message @seq, the flag last. */
static int write_check(struct run *s, uint32_t seq, bool from_server)
{
	const uint8_t *data = s->r->recv_buf;
	uint32_t n = s->r->msg_size;
	size_t off;

	if (pp_pattern_check(data, n - 1, seq, from_server, &off) &&
	    data[n - 1] == pp_write_flag(n, seq, from_server))
		return 0;
	if (data[n - 1] != pp_write_flag(n, seq, from_server))
		off = n - 1;
	pp_err_set(
		s->err,
		"data mismatch in the RDMA Write %u from the %s at byte %zu: expected 0x%02x, got 0x%02x",
		seq, from_server ? "server" : "client", off,
		off == n - 1 ? pp_write_flag(n, seq, from_server) :
			       pp_pattern_byte(off, seq, from_server),
		data[off]);
	return EILSEQ;
}

/* The QP of iteration @i: i mod N, as ours. */
static uint32_t qp_of(const struct run *s, uint64_t i)
{
	return (uint32_t)(i % s->r->num_qps);
}

/*
 * The work request of iteration @i (pp_run_post_swr()): signaled one in
 * s->sig_every (Write: one QP, no -c; see write_begin()), else always.
 */
static int post(struct run *s, uint64_t i)
{
	uint32_t q = s->r->num_qps > 1 ? qp_of(s, i) : 0;
	int ret = pp_run_post_swr(s, q, 0);

	if (ret)
		pp_err_set(s->err, "post RDMA %s at iteration %llu failed: %s",
			   pp_op_name(s->r->attr.op), (unsigned long long)i,
			   strerror(ret));
	return ret;
}

static int wait_got(struct run *s)
{
	int ret;

	while (!s->got) {
		ret = pp_run_wait_cq(s, INT64_MAX);
		if (ret)
			return ret;
	}
	return 0;
}

/* Write: the last byte first, then the CQ as well. */
static int write_wait(struct run *s)
{
	return write_ready(s) ? 0 : wait_got(s);
}

/*
 * Write: sends signaled one in PP_TX_DEPTH on one QP without -c, as ours
 * (pp_run()): the peer's write back shows that ours has landed, so the
 * buffer is free again without a completion.
 */
static void write_begin(struct run *s)
{
	if (s->r->num_qps == 1 && !s->cfg->validate)
		s->sig_every = PP_TX_DEPTH;
}

/* One round trip: the one place these loops store a sample. */
static void add_sample(struct run *s, int64_t from, int64_t to)
{
	if (s->cur || s->res->nsamples < s->cfg->iters)
		pp_run_record(s, from, to);
}

static int write_client(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t t0, start = 0, end = INT64_MAX, last = 0;
	struct write_state w;
	uint32_t seq;
	bool measured;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return pp_run_write_fast(s);
	s->priv = &w;
	for (i = 0; i < total; i++) {
		seq = cfg->first_seq + (uint32_t)i;
		measured = i >= cfg->warmup;
		s->iter = i;
		if (pp_signal_caught()) {
			ret = pp_run_interrupted(s);
			break;
		}
		write_fill(s, seq, false);
		write_want(s, seq);
		t0 = pp_clock_ns();
		if (i == cfg->warmup) {
			if (cfg->duration_ns)
				end = t0 + cfg->duration_ns;
		} else if (t0 >= end) {
			break; /* -D: time is up */
		}
		ret = post(s, i);
		if (ret)
			break;
		if (measured)
			pp_run_note_post(res, t0, &start);
		ret = write_wait(s);
		if (!ret && s->send_busy)
			ret = pp_run_wait_send(s);
		if (ret)
			break;
		if (measured) {
			add_sample(s, t0, s->got_ns);
			res->completed++;
			last = s->got_ns;
		}
		if (cfg->validate) {
			ret = write_check(s, seq, true);
			if (ret)
				break;
		}
	}
	if (last)
		res->seconds = (double)(last - start) / 1e9;
	s->priv = NULL;
	return ret;
}

static int write_server(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i;
	int64_t start = 0, last_send = 0;
	struct write_state w;
	uint32_t seq;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return pp_run_write_fast(s);
	s->priv = &w;
	for (i = 0; i < total; i++) {
		seq = cfg->first_seq + (uint32_t)i;
		s->iter = i;
		write_want(s, seq);
		if (pp_signal_caught()) {
			ret = pp_run_interrupted(s);
			goto out;
		}
		ret = write_wait(s);
		if (ret)
			goto out;
		if (i > cfg->warmup && last_send)
			add_sample(s, last_send, s->got_ns);
		else if (i >= cfg->warmup && !start)
			start = s->got_ns;
		if (cfg->validate) {
			ret = write_check(s, seq, false);
			if (ret)
				goto out;
		}
		if (s->send_busy) {
			ret = pp_run_wait_send(s);
			if (ret)
				goto out;
		}
		write_fill(s, seq, true);
		last_send = pp_clock_ns();
		ret = post(s, i);
		if (ret)
			goto out;
		if (i >= cfg->warmup) {
			pp_run_note_post(res, last_send, NULL);
			res->completed++;
		}
	}
	ret = pp_run_wait_send(s);
	if (!ret)
		last_send = pp_clock_ns();
out:
	if (start && last_send > start)
		res->seconds = (double)(last_send - start) / 1e9;
	s->priv = NULL;
	return ret;
}

/* Read, -c: the client's area, unlike the server's data before each read. */
static void read_poison(struct run *s)
{
	uint32_t n = s->r->msg_size, k;

	for (k = 0; k < n; k++)
		s->r->recv_buf[k] =
			(uint8_t)~pp_pattern_byte(k, PP_READ_SEQ, true);
}

static int read_check(struct run *s, uint64_t i)
{
	const uint8_t *data = s->r->recv_buf;
	size_t off;

	pp_run_corrupt(s, s->r->recv_buf, s->r->msg_size, i);
	if (pp_pattern_check(data, s->r->msg_size, PP_READ_SEQ, true, &off))
		return 0;
	pp_err_set(
		s->err,
		"data mismatch in RDMA Read %llu of the server's buffer at byte %zu: expected 0x%02x, got 0x%02x",
		(unsigned long long)i, off,
		pp_pattern_byte(off, PP_READ_SEQ, true), data[off]);
	return EILSEQ;
}

/* Atomic @k: post it; its old value comes into the receive area. */
static int atomic_post(struct run *s, uint64_t k, uint64_t *expect)
{
	uint64_t compare, swap, poison;
	int ret;

	if (s->r->attr.op == PP_OP_CMP_SWAP) {
		pp_op_cmp_swap_next(k, &compare, &swap);
	} else {
		compare = PP_OP_FETCH_ADD_ADD;
		swap = 0;
	}
	*expect = pp_op_atomic_old(s->r->attr.op, k);
	poison = ~*expect;
	memcpy(s->r->recv_buf, &poison, sizeof(poison));
	ret = pp_res_post_atomic(s->r, qp_of(s, k), compare, swap);
	if (ret) {
		pp_err_set(s->err, "post %s at iteration %llu failed: %s",
			   pp_op_name(s->r->attr.op), (unsigned long long)k,
			   strerror(ret));
		return ret;
	}
	s->send_busy = true;
	return 0;
}

static int atomic_check(struct run *s, uint64_t k, uint64_t expect)
{
	uint64_t old;

	pp_run_corrupt(s, s->r->recv_buf, sizeof(old), k);
	memcpy(&old, s->r->recv_buf, sizeof(old));
	if (old == expect)
		return 0;
	return pp_run_atomic_bad(s, k, old, expect);
}

/* Read and atomics: post, wait for the completion: one round trip. */
static int request_client(struct run *s)
{
	const struct pp_run_cfg *cfg = s->cfg;
	struct pp_run_result *res = s->res;
	uint64_t total = cfg->warmup + cfg->iters, i, expect = 0;
	bool atomic = pp_op_atomic(s->r->attr.op);
	int64_t t0, t1, start = 0, end = INT64_MAX, last = 0;
	bool measured;
	int ret = 0;

	if (pp_run_fast_fits(s))
		return pp_run_request_fast(s);
	for (i = 0; i < total; i++) {
		measured = i >= cfg->warmup;
		s->iter = i;
		if (pp_signal_caught()) {
			ret = pp_run_interrupted(s);
			break;
		}
		if (!atomic && cfg->validate)
			read_poison(s);
		t0 = pp_clock_ns();
		ret = pp_run_alive_due(s, t0, i);
		if (ret)
			break;
		if (i == cfg->warmup) {
			if (cfg->duration_ns)
				end = t0 + cfg->duration_ns;
		} else if (t0 >= end) {
			break; /* -D: time is up */
		}
		ret = atomic ? atomic_post(s, i, &expect) : post(s, i);
		if (ret)
			break;
		if (measured)
			pp_run_note_post(res, t0, &start);
		ret = pp_run_wait_send(s);
		if (ret)
			break;
		t1 = pp_clock_ns();
		if (measured) {
			add_sample(s, t0, t1);
			res->completed++;
			last = t1;
		}
		/* the values an atomic returns are always checked */
		if (atomic)
			ret = atomic_check(s, i, expect);
		else if (cfg->validate)
			ret = read_check(s, i);
		if (ret)
			break;
	}
	if (last)
		res->seconds = (double)(last - start) / 1e9;
	return ret;
}

/* Atomics: what @n of them left in the server's word. */
static int word_check(struct run *s, uint64_t n)
{
	uint64_t word, want = pp_op_atomic_word(s->r->attr.op, n);

	memcpy(&word, s->r->send_buf, sizeof(word));
	if (word == want)
		return 0;
	pp_err_set(s->err,
		   "after %llu %s the server's word holds %llu, expected %llu",
		   (unsigned long long)n, pp_op_name(s->r->attr.op),
		   (unsigned long long)word, (unsigned long long)want);
	return EILSEQ;
}

/*
 * Read and atomics, the client: ALIVE every third of its -T (the -T the
 * server has from HELLO), so that the passive server hears it.
 */
static void request_begin(struct run *s)
{
	if (s->cfg->is_server || s->cfg->client_timeout_ms <= 0)
		return;
	s->alive_every =
		(int64_t)pp_hs_alive_every_ms(s->cfg->client_timeout_ms) *
		1000000;
	s->next_alive = pp_clock_ns() + s->alive_every;
}

/*
 * Read and atomics, the server: nothing to do until the client's DONE (or
 * its ERROR); sleep on the socket, not on the CQ.  The client's run may
 * last as long as it likes, but it says it is alive (ALIVE) every third of
 * its -T: nothing for its -T means that it is stopped (SIGSTOP, a debugger)
 * or its host gone.  One whose host crashed or whose network is cut fails
 * the connection by TCP keepalive too (pp_sock_keepalive()).
 */
static int passive_server(struct run *s)
{
	int ms = s->cfg->client_timeout_ms > 0 ? s->cfg->client_timeout_ms :
						 s->cfg->timeout_ms;
	struct pp_done d;
	int ret;

	ret = pp_hs_wait_done(s->c, ms, s->cfg->warmup + s->cfg->iters,
			      pp_op_name(s->r->attr.op), &d, s->err);
	if (ret == ECANCELED)
		return pp_run_interrupted(s);
	if (ret)
		return ret;
	s->res->peer_done = true;
	s->res->peer_result = d;
	/* the client's count: it measured them */
	s->res->completed = d.completed;
	if (pp_op_atomic(s->r->attr.op)) {
		ret = word_check(s, s->cfg->warmup + d.completed);
		if (ret)
			return ret;
	}
	return PP_RUN_PEER_DONE;
}

static const struct pp_run_loop loop_write = {
	.begin = write_begin,
	.on_recv = no_recv,
	.on_send = on_send,
	.client = write_client,
	.server = write_server,
	.ready = write_ready,
};

static const struct pp_run_loop loop_request = {
	.begin = request_begin,
	.on_recv = no_recv,
	.on_send = on_send,
	.client = request_client,
	.server = passive_server,
};

const struct pp_run_loop *pp_run_loop_of_op(enum pp_op op)
{
	if (op == PP_OP_WRITE)
		return &loop_write;
	if (pp_op_client_only(op))
		return &loop_request;
	return NULL;
}
