// SPDX-License-Identifier: MIT
/*
 * pp_session.c - the steps every tool takes, in order.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "pp_clock.h"
#include "pp_feat.h"
#include "pp_gid.h"
#include "pp_hist.h"
#include "pp_report.h"
#include "pp_run_rdma.h"
#include "pp_run_rec.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_stats.h"
#include "pp_thresh.h"
#include "pp_time.h"

/* Use entry @idx of the port's GID table; s->gid_reason says why. */
static void use_gid(struct pp_session *s, int idx)
{
	memcpy(s->gid, s->gids[idx].raw, 16);
	s->gid_type = s->gids[idx].type;
	s->gid_index = idx;
	if (pp_netdev_mtu("", s->gids[idx].ndev, &s->netdev_mtu))
		s->netdev_mtu = 0;
	pp_trace_step(&s->trace, "%s", s->gid_reason);
}

/* This side's HELLO: its options and port, and the netdev's MTU. */
static void build_hello(struct pp_session *s)
{
	pp_hello_build(s->o, &s->caps, s->gid_index, s->gid_type, &s->mine);
	s->mine.netdev_mtu = (uint16_t)(s->netdev_mtu > UINT16_MAX ?
						UINT16_MAX :
						s->netdev_mtu);
}

/* Read the port's GID table; a -g must name one of its populated entries. */
static int open_gid(struct pp_session *s)
{
	char ip[64];
	int idx = s->o->gid_index, ret;

	s->gid_index = -1;
	s->gids = pp_gid_read_table(s->ctx, s->caps.ib_port, &s->ngids);
	if (!s->gids) {
		ret = errno ? errno : ENOMEM;
		pp_err_set(&s->err, "read the GID table of %s:%u failed: %s",
			   s->caps.devname, s->caps.ib_port, strerror(ret));
		return ret;
	}
	if (idx < 0)
		return 0;
	ret = pp_gid_check_index(s->gids, s->ngids, idx, s->caps.devname,
				 s->caps.ib_port, &s->err);
	if (ret)
		return ret;
	snprintf(s->gid_reason, sizeof(s->gid_reason),
		 "GID index %d: %s, %s (given with -g)", idx,
		 pp_gid_type_name(s->gids[idx].type),
		 pp_gid_ip(s->gids[idx].raw, ip, sizeof(ip)));
	use_gid(s, idx);
	return 0;
}

/*
 * No -g: on Ethernet, choose the GID of the local address that the TCP
 * connection to the peer uses (pp_gid_choose() has the rules); on
 * InfiniBand, no GRH.
 */
static int choose_gid(struct pp_session *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	int idx, ret;

	if (s->o->gid_index >= 0)
		return 0;
	ret = pp_gid_choose(s->gids, s->ngids, s->caps.link_layer,
			    getsockname(s->conn.fd, (struct sockaddr *)&ss,
					&len) ?
				    NULL :
				    (struct sockaddr *)&ss,
			    &idx, s->gid_reason, sizeof(s->gid_reason));
	if (ret) {
		pp_err_set(&s->err, "port %s:%u: %s", s->caps.devname,
			   s->caps.ib_port, s->gid_reason);
		return ret;
	}
	if (idx >= 0) {
		s->gid_auto = true;
		use_gid(s, idx);
	}
	return 0;
}

/*
 * Server: the GID the client asked for (peer_gid_index, --probe's rows),
 * which must be a populated entry of this port and agree with -g; else the
 * automatic choice.
 */
static int server_gid(struct pp_session *s)
{
	int idx = s->peer.peer_gid_index, ret;
	struct pp_err e = { .msg = "" };
	char ip[PP_GID_TEXT_LEN];

	if (s->peer.peer_gid_index == PP_GID_INDEX_NONE)
		return choose_gid(s);
	if (s->o->gid_index >= 0 && s->o->gid_index != idx) {
		pp_err_set(&s->err,
			   "server GID index: client asks %d, server -g %d",
			   idx, s->o->gid_index);
		return EINVAL;
	}
	ret = pp_gid_check_index(s->gids, s->ngids, idx, s->caps.devname,
				 s->caps.ib_port, &e);
	if (ret) {
		pp_err_set(&s->err, "server GID index asked by the client: %s",
			   e.msg);
		return ret;
	}
	snprintf(s->gid_reason, sizeof(s->gid_reason),
		 "GID index %d: %s, %s%s%s (asked by the client)", idx,
		 pp_gid_type_name(s->gids[idx].type),
		 pp_gid_ip(s->gids[idx].raw, ip, sizeof(ip)),
		 s->gids[idx].ndev[0] ? " on " : "", s->gids[idx].ndev);
	s->gid_auto = false;
	use_gid(s, idx);
	return 0;
}

/*
 * --cpu: pin this side to a CPU near the device (pp_cpu.h), before any
 * buffer is allocated, so that the buffers' pages come from that node.
 */
static int open_cpu(struct pp_session *s)
{
	struct pp_cpuset allowed;
	int ret;

	ret = pp_cpu_allowed(&allowed);
	if (ret) {
		pp_err_set(
			&s->err,
			"read the CPUs allowed (sched_getaffinity) failed: %s",
			strerror(ret));
		return ret;
	}
	ret = pp_cpu_choose(NULL, s->caps.devname, s->o->cpu_spec, &allowed,
			    !s->o->host, &s->place, &s->err);
	if (ret)
		return ret;
	if (s->place.cpu >= 0) {
		ret = pp_cpu_pin(s->place.cpu);
		if (ret) {
			pp_err_set(
				&s->err,
				"pin to CPU %d (sched_setaffinity) failed: %s (choose others with --cpu, or --cpu none)",
				s->place.cpu, strerror(ret));
			return ret;
		}
	}
	pp_trace_step(&s->trace, "CPU %d: %s", s->place.cpu, s->place.why);
	return 0;
}

/*
 * --hugepages: refused at once when the pool has no free page (a pool too
 * small for the buffers fails at their allocation, pp_res.c).
 */
static int open_hugepages(struct pp_session *s)
{
	unsigned long n = 0;
	int ret;

	if (!s->o->hugepages)
		return 0;
	ret = pp_res_huge_free(NULL, &n);
	if (ret == ENOENT) {
		pp_err_set(
			&s->err,
			"--hugepages: this kernel has no 2 MiB huge pages (%s: %s)",
			PP_HUGE_FREE_PATH, strerror(ret));
		return EOPNOTSUPP;
	}
	if (ret) {
		pp_err_set(&s->err, "--hugepages: read %s failed: %s",
			   PP_HUGE_FREE_PATH, strerror(ret));
		return ret;
	}
	pp_trace_step(&s->trace, "huge pages of 2 MiB free: %lu", n);
	if (!n) {
		pp_err_set(
			&s->err,
			"--hugepages: no free 2 MiB huge pages (%s is 0): reserve some with sysctl vm.nr_hugepages=N",
			PP_HUGE_FREE_PATH);
		return ENOMEM;
	}
	return 0;
}

/* rdma-core's letters (-o, -O, -P, -t, -j, -U): this device must have them. */
static int open_feats(struct pp_session *s)
{
	struct pp_dev_feats f;
	int ret;

	if (!pp_feat_wanted(s->o))
		return 0;
	ret = pp_feat_query(s->ctx, &f, &s->err);
	if (ret)
		return ret;
	pp_trace_step(
		&s->trace,
		"query device %s: ODP general 0x%llx, rc 0x%x, uc 0x%x, ud 0x%x, xrc 0x%x; completion timestamp mask 0x%llx; device memory %llu bytes",
		s->caps.devname, (unsigned long long)f.odp_general, f.odp_rc,
		f.odp_uc, f.odp_ud, f.odp_xrc, (unsigned long long)f.ts_mask,
		(unsigned long long)f.max_dm_size);
	return pp_feat_check(s->o, &f, s->caps.devname, &s->err);
}

/*
 * This port's index of @pkey (the table is per port: the same partition may
 * sit at another index on the peer); a port that is no member refuses.
 */
static int use_pkey(struct pp_session *s, uint16_t pkey, const char *whose)
{
	uint32_t n = s->caps.pkey_tbl_len;
	char list[96];
	int idx;

	if (!n) { /* the table is not known: the index given, as it is */
		s->pkey_index = s->o->pkey_index;
		return 0;
	}
	idx = pp_pkey_find(s->pkeys, n, pkey);
	if (idx < 0) {
		pp_err_set(
			&s->err,
			"P_Key %s: port %s:%u%s is no member of that partition (its P_Keys: %s; ibv_devinfo -v lists them; the subnet manager sets them)",
			pp_pkey_text(pkey), s->caps.devname, s->caps.ib_port,
			whose, pp_pkey_list(s->pkeys, n, list, sizeof(list)));
		return ENOENT;
	}
	s->pkey_index = (uint16_t)idx;
	pp_trace_step(&s->trace, "P_Key %s: index %d of port %s:%u",
		      pp_pkey_text(pkey), idx, s->caps.devname,
		      s->caps.ib_port);
	return 0;
}

/*
 * Read the port's P_Key table; --pkey-index names the P_Key by its place in
 * it (an explicit requirement, as --pkey is); else the P_Key at index 0.
 */
static int open_pkey(struct pp_session *s)
{
	struct pp_opts *o = s->o;
	uint32_t n = s->caps.pkey_tbl_len;

	s->pkeys = pp_dev_pkeys(s->ctx, s->caps.ib_port, n);
	if (!s->pkeys) {
		pp_err_set(&s->err, "out of memory");
		return ENOMEM;
	}
	if (!(o->set & PP_OPT_BIT(PP_OPT_PKEY)) && n) {
		if (o->pkey_index >= n) {
			pp_err_set(
				&s->err,
				"P_Key index: %u asked, port %s:%u has %u P_Keys (use --pkey-index %u or less)",
				o->pkey_index, s->caps.devname, s->caps.ib_port,
				n, n - 1);
			return EINVAL;
		}
		if (!pp_pkey_valid(s->pkeys[o->pkey_index])) {
			pp_err_set(
				&s->err,
				"P_Key index %u of port %s:%u holds no partition (give another --pkey-index; ibv_devinfo -v lists the P_Keys)",
				o->pkey_index, s->caps.devname,
				s->caps.ib_port);
			return EINVAL;
		}
		o->pkey = s->pkeys[o->pkey_index];
		if (o->set & PP_OPT_BIT(PP_OPT_PKEY_INDEX))
			o->set |= PP_OPT_BIT(PP_OPT_PKEY);
	}
	return use_pkey(s, o->pkey, "");
}

int pp_session_open(struct pp_session *s, struct pp_opts *o,
		    const struct pp_exchange *x)
{
	int ret;

	memset(s, 0, sizeof(*s));
	s->x = x;
	s->o = o;
	s->stock_fd = -1;
	s->want_peer_gid = -1;
	s->started = (int64_t)time(NULL);
	/* What --json reports if the device cannot be opened: no GRH. */
	s->gid_index = -1;
	s->place.cpu = -1;
	s->place.node = -1;
	s->caps.ib_port = (uint8_t)o->ib_port;
	s->lfd = -1;
	s->conn = (struct pp_conn){
		.fd = -1,
		.is_server = !o->host,
		.timeout_ms = (int)o->timeout_ms,
	};
	pp_trace_init(&s->trace, o->trace ? stderr : NULL);
	s->conn.trace = &s->trace;
	s->ctx = pp_dev_open(o->ib_devname, (uint8_t)o->ib_port, &s->err);
	if (!s->ctx)
		return errno;
	pp_trace_step(&s->trace, "open device %s",
		      ibv_get_device_name(s->ctx->device));
	ret = pp_dev_query(s->ctx, (uint8_t)o->ib_port, &s->caps, &s->err);
	if (ret)
		return ret;
	pp_trace_step(
		&s->trace,
		"query port %u: %s, LID 0x%04x, active MTU %u, max MTU %u",
		s->caps.ib_port,
		s->caps.link_layer == IBV_LINK_LAYER_ETHERNET ? "Ethernet" :
								"InfiniBand",
		s->caps.lid, s->caps.active_mtu, s->caps.max_mtu);
	ret = open_gid(s);
	if (!ret)
		ret = open_pkey(s);
	if (ret)
		return ret;
	if (pp_transport_of(o->transport)->xrc && !s->caps.xrc) {
		pp_err_set(
			&s->err,
			"XRC: not supported by device %s (XRC needs a device with XRC domains, such as mlx5)",
			s->caps.devname);
		return EOPNOTSUPP;
	}
	ret = open_hugepages(s);
	if (ret)
		return ret;
	ret = open_feats(s);
	if (ret)
		return ret;
	return open_cpu(s);
}

/* A step failed after the connection was up: tell the peer, once. */
static int tell_peer(struct pp_session *s, int ret)
{
	if (ret && s->x->tells_peer && s->conn.fd >= 0 && !s->peer_told &&
	    !s->err.remote && ret != ECONNRESET && ret != EPIPE) {
		pp_hs_send_error(&s->conn, ret, s->err.msg);
		s->peer_told = true;
	}
	return ret;
}

/*
 * Ours: the server's decision in its answer (PP_F_GRH), which the client
 * checked against the same rule; the reason in words for the output.
 */
static void grh_agreed(struct pp_session *s)
{
	const struct pp_hello *cl = s->conn.is_server ? &s->peer : &s->mine;
	const struct pp_hello *sv = s->conn.is_server ? &s->mine : &s->peer;
	bool grh;

	(void)pp_grh_decide(s->caps.link_layer, cl->gid_index, sv->gid_index,
			    &grh, s->grh_why, sizeof(s->grh_why));
	s->use_grh = s->agreed.flags & PP_F_GRH;
	pp_trace_step(&s->trace, "GRH: %s (%s)", s->use_grh ? "yes" : "no",
		      s->grh_why);
}

int pp_session_connect(struct pp_session *s)
{
	char line[512];
	int ret;

	s->started = (int64_t)time(NULL); /* this run's, for --json */
	ret = s->x->agree(s);
	if (!ret)
		pp_trace_step(&s->trace, "parameters: %s",
			      pp_hello_describe(&s->agreed, line,
						sizeof(line)));
	if (!ret && s->peer.tool)
		grh_agreed(s);
	return ret;
}

/*
 * TCP keepalive within the client's -T: a peer whose host crashed or whose
 * network is cut fails the connection instead of leaving a wait (the Read
 * and atomics server's) open for ever.  Only a help: not fatal.
 */
static void keepalive(struct pp_session *s, uint32_t timeout_ms)
{
	struct pp_keepalive ka;
	int ret;

	ret = pp_sock_keepalive(s->conn.fd, timeout_ms);
	pp_sock_keepalive_for(timeout_ms, &ka);
	if (ret)
		pp_trace_step(&s->trace, "TCP keepalive not set: %s",
			      strerror(ret));
	else
		pp_trace_step(
			&s->trace,
			"TCP keepalive: probes after %d s of silence, %d of them %d s apart",
			ka.idle_s, ka.cnt, ka.intvl_s);
}

/* Ours: TCP, the GID for the peer's address family, and HELLO. */
static int agree(struct pp_session *s)
{
	struct pp_opts *o = s->o;
	int ret;

	if (!s->conn.is_server) {
		ret = pp_sock_connect(o->host, o->port,
				      pp_deadline((int)o->timeout_ms),
				      &s->conn.fd, &s->err);
		if (ret)
			return ret;
		pp_trace_step(&s->trace, "connected to %s port %u", o->host,
			      o->port);
		if (s->token) {
			ret = pp_sock_send_token(
				s->conn.fd, s->token,
				pp_deadline((int)o->timeout_ms));
			if (ret) {
				pp_err_set(
					&s->err,
					"sending the pair's token failed: %s",
					strerror(ret));
				return ret;
			}
		}
		keepalive(s, o->timeout_ms);
		ret = choose_gid(s);
		if (ret)
			return tell_peer(s, ret);
		build_hello(s);
		if (s->want_peer_gid >= 0)
			s->mine.peer_gid_index = (uint16_t)s->want_peer_gid;
		if (s->want_gids)
			s->mine.flags |= PP_F_GIDS;
		/*
		 * The server checks the request against both ports; what only
		 * this side knows (its own limits) is checked on the answer,
		 * so that a refusal is reported on both sides either way.
		 */
		ret = pp_hs_client_hello(&s->conn, &s->mine, &s->agreed,
					 &s->err);
		s->peer = s->agreed;
		if (!ret)
			ret = pp_hello_check(&s->agreed, &s->caps, &s->err);
		return tell_peer(s, ret);
	}
	if (s->conn.fd < 0) {
		ret = pp_session_accept(s);
		if (ret)
			return ret;
	}
	pp_trace_step(&s->trace, "accepted a client from %s", s->peer_addr);
	/* the server's HELLO steps tell the client when they fail */
	ret = pp_hs_server_recv_hello(&s->conn, &s->peer, &s->err);
	if (ret) {
		s->peer_told = true;
		return ret;
	}
	keepalive(s, s->peer.timeout_ms);
	ret = server_gid(s);
	if (ret)
		return tell_peer(s, ret);
	/* a P_Key the server's own --pkey refuses is named by the adopt rule */
	if (!(o->set & PP_OPT_BIT(PP_OPT_PKEY)) || s->peer.pkey == o->pkey) {
		ret = use_pkey(s, s->peer.pkey, " of the server");
		if (ret)
			return tell_peer(s, ret);
	}
	build_hello(s);
	ret = pp_hs_server_answer(&s->conn, o, &s->caps, &s->mine, &s->peer,
				  &s->agreed, &s->err);
	if (!ret && (s->peer.flags & PP_F_GIDS)) {
		ret = pp_hs_send_gids(&s->conn, s->gids, s->ngids, &s->err);
		if (!ret)
			pp_trace_step(&s->trace,
				      "sent the GID table (the client asked)");
	}
	s->peer_told = ret != 0;
	return ret;
}

/* What pp_res_create() is asked for, from the agreed parameters. */
static void res_attr(struct pp_session *s, struct pp_res_attr *ra)
{
	const struct pp_hello *p = &s->agreed;

	s->nsizes = pp_sweep_sizes(p, s->sizes);
	*ra = (struct pp_res_attr){
		.transport = (enum pp_transport)p->transport,
		.num_qps = p->num_qps,
		.size = s->sizes[s->nsizes - 1],
		.min_size = s->sizes[0],
		.no_inline = p->flags & PP_F_NO_INLINE,
		.rx_depth = p->rx_depth,
		.max_cqe = s->caps.max_cqe,
		.ib_port = s->caps.ib_port,
		.pkey_index = s->pkey_index,
		.use_event = s->o->use_event,
		.xrcd_path = s->o->xrcd_path,
		.odp = s->o->odp,
		.iodp = s->o->iodp,
		.prefetch = s->o->prefetch,
		.hugepages = s->o->hugepages,
		.new_send = s->o->new_send,
		.plain_send = s->x->plain_send,
		.op = (enum pp_op)p->op,
		.is_server = s->conn.is_server,
		/* -c on sends that a lossy transport may give up on */
		.buf_per_recv = pp_hello_buf_per_recv(p),
		/*
		 * A test hook, read here only (docs/dev/testing.md): a wrong rkey
		 * for the peer's memory, to show a remote access error.
		 */
		.bad_rkey = getenv("PP_TEST_BAD_RKEY") != NULL,
		.trace = &s->trace,
	};
}

void pp_session_qp_cfg(struct pp_session *s, struct pp_qp_cfg *cfg)
{
	const struct pp_hello *p = &s->agreed;
	bool grh = s->gid_index >= 0 &&
		   (s->x->grh_toward ? s->x->grh_toward(s->remote[0].gid) :
				       s->use_grh);

	*cfg = (struct pp_qp_cfg){
		.transport = (enum pp_transport)p->transport,
		.ib_port = s->caps.ib_port,
		.path_mtu = p->mtu,
		.sl = p->sl,
		.pkey_index = s->pkey_index,
		.use_grh = grh,
		.sgid_index = (uint8_t)(grh ? s->gid_index : 0),
		.hop_limit = p->hop_limit,
		.traffic_class = p->tclass,
		.flow_label = p->flow_label,
		.op = (enum pp_op)p->op,
		.is_server = s->conn.is_server,
		.qp_timeout = p->qp_timeout,
		.retry_count = p->retry_count,
		.rnr_retry = p->rnr_retry,
		.short_retry = s->short_retry,
		.trace = &s->trace,
	};
}

int pp_session_connect_qps(struct pp_session *s)
{
	pp_session_qp_cfg(s, &s->qcfg);
	return pp_res_connect(s->res, &s->qcfg, s->remote, &s->err);
}

/*
 * --counters: the "before" snapshot, from the agreed parameters (the client
 * asked) or this side's own option (a server's --counters reads its own
 * port whatever the client asked: pp_params.h, FLAG's match).
 */
static void counters_before(struct pp_session *s)
{
	struct pp_session_counters *c = &s->ctr;

	c->on = s->o->counters || (s->agreed.flags & PP_F_COUNTERS);
	if (!c->on)
		return;
	c->err = pp_counters_read(PP_COUNTERS_SYSFS, s->caps.devname,
				  s->caps.ib_port, &c->before);
	c->have_before = !c->err;
	if (c->err)
		pp_trace_step(&s->trace, "port counters of %s:%u not read: %s",
			      s->caps.devname, s->caps.ib_port,
			      strerror(c->err));
	else
		pp_trace_step(
			&s->trace,
			"port counters of %s:%u before the run: %u read, cached %u ms by the kernel",
			s->caps.devname, s->caps.ib_port, c->before.n,
			c->before.lifespan_ms);
}

int pp_session_setup(struct pp_session *s)
{
	struct pp_res_attr ra;
	int ret;

	res_attr(s, &ra);
	s->res = pp_res_create(s->ctx, &ra, s->gid, s->caps.lid, &s->err);
	if (!s->res)
		return tell_peer(s, errno);
	s->remote = calloc(s->res->num_qps, sizeof(*s->remote));
	if (!s->remote) {
		pp_err_set(&s->err, "out of memory");
		return tell_peer(s, ENOMEM);
	}
	/*
	 * --counters: before the QPs can receive and before this side says
	 * READY, so that none of the peer's packets can come first (read
	 * once the run had begun, the server's snapshot once held the
	 * client's first message).
	 */
	counters_before(s);
	ret = s->x->connect_qps(s);
	if (ret)
		s->ctr.on = false; /* no run: nothing to compare */
	return tell_peer(s, ret);
}

/* Ours: ADDRS, the GID types, receives, RTR and RTS, READY. */
static int connect_qps(struct pp_session *s)
{
	int ret;

	ret = pp_hs_exchange_addrs(&s->conn, s->res->local, s->remote,
				   s->res->num_qps, &s->err);
	/* a --probe's query: the client took the GID table and closed */
	if (ret == ECONNRESET && s->conn.is_server &&
	    (s->peer.flags & PP_F_GIDS)) {
		pp_err_clear(&s->err);
		s->query_only = true;
		return 0;
	}
	/* The client compares GID types: the server's is in its HELLO. */
	if (!ret && !s->conn.is_server && s->gid_index >= 0 &&
	    s->agreed.gid_type != PP_GID_TYPE_NONE)
		ret = pp_gid_check_pair(s->gid_type, pp_gid_family(s->gid),
					s->agreed.gid_type,
					pp_gid_family(s->remote[0].gid),
					&s->err);
	if (!ret)
		ret = pp_run_prepare(s->res, &s->err);
	if (!ret)
		ret = pp_session_connect_qps(s);
	if (!ret)
		ret = pp_hs_sync(&s->conn, &s->err);
	if (!ret)
		pp_trace_step(&s->trace, "both sides ready: %u QP%s at RTS",
			      s->res->num_qps, s->res->num_qps > 1 ? "s" : "");
	return ret;
}

/* The iterations a side ran, warm-up included, as its DONE counts them. */
static uint64_t iters_run(const struct pp_run_cfg *rc, const struct pp_done *d)
{
	if (!rc->duration_ns)
		return rc->warmup + rc->iters; /* a lost one was still run */
	return rc->warmup + d->lost + d->completed;
}

/*
 * Ours, after each size: DONE both ways (the peer's may have ended our loop
 * already), then what the two results say.  Return 0; ETIMEDOUT (UD
 * iterations lost: the sweep goes on); or an error that ends the run.
 */
static int size_done(struct pp_session *s, const struct pp_run_cfg *rc,
		     struct pp_run_result *r)
{
	struct pp_done mine = { .completed = r->completed, .lost = r->lost };
	struct pp_msg m = { .type = PP_MSG_DONE };
	int ret;

	if (r->peer_done) {
		s->peer_done = r->peer_result;
		m.u.done = mine;
		ret = pp_hs_send(&s->conn, &m, &s->err);
	} else {
		ret = pp_hs_done(&s->conn, &mine, &s->peer_done, &s->err);
	}
	if (ret)
		return tell_peer(s, ret);
	/*
	 * UD: the server answered every message that reached it, but only the
	 * client knows which round trips completed; the two sides' "iters"
	 * count the same ones (docs/measurement.md).
	 */
	if (s->conn.is_server && rc->loss_timeout_ms &&
	    s->peer_done.completed < r->completed)
		r->completed = s->peer_done.completed;
	/* Both sides know the outcome from DONE: no ERROR follows it. */
	if (s->conn.is_server && s->peer_done.lost) {
		pp_err_set(&s->err, "lost %llu of %llu iterations%s",
			   (unsigned long long)s->peer_done.lost,
			   (unsigned long long)iters_run(rc, &s->peer_done),
			   s->nsizes > 1 ? " (first size with losses)" : "");
		s->err.remote = true; /* printed as "client: lost ..." */
		return ETIMEDOUT;
	}
	if (!rc->duration_ns && r->completed + r->lost < rc->iters) {
		pp_err_set(&s->err,
			   "the %s ended the run after %llu of %llu iterations",
			   pp_peer_name(&s->conn),
			   (unsigned long long)r->completed,
			   (unsigned long long)rc->iters);
		return EPROTO;
	}
	if (r->lost) {
		pp_err_set(
			&s->err,
			"lost %llu of %llu iterations (no reply within %d ms)%s",
			(unsigned long long)r->lost,
			(unsigned long long)iters_run(rc, &mine),
			rc->loss_timeout_ms,
			s->nsizes > 1 ? " (first size with losses)" : "");
		return ETIMEDOUT;
	}
	return 0;
}

/*
 * Slack past hw_counters/lifespan: the kernel counts the caching interval
 * in jiffies (a 10 ms lifespan is 3 jiffies at HZ 250, 12 to 16 ms).
 */
#define PP_COUNTERS_SLACK_MS 10

/* --counters: the "after" snapshot, once the kernel's cache has expired. */
static void counters_after(struct pp_session *s)
{
	struct pp_session_counters *c = &s->ctr;
	struct pp_counters *after;
	struct timespec ts;
	unsigned int ms;

	if (!c->have_before || c->have_mine)
		return;
	ms = c->before.lifespan_ms ?
		     c->before.lifespan_ms + PP_COUNTERS_SLACK_MS :
		     0;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (ms && nanosleep(&ts, &ts) && errno == EINTR &&
	       !pp_signal_caught())
		;
	after = malloc(sizeof(*after));
	if (!after) {
		c->err = ENOMEM;
		return;
	}
	c->err = pp_counters_read(PP_COUNTERS_SYSFS, s->caps.devname,
				  s->caps.ib_port, after);
	if (!c->err)
		c->err = pp_counters_delta(&c->before, after, &c->mine);
	c->have_mine = !c->err;
	free(after);
}

/* --interval: each interval's figures, as text or (--json) one line. */
static void on_interval(void *arg, const struct pp_run_interval *iv)
{
	const struct pp_session *s = arg;

	if (s->o->json) {
		if (s->json_interval)
			s->json_interval(stdout, iv);
	} else if (s->progress)
		pp_report_interval(s->progress, iv);
}

/*
 * A test hook, read here only (docs/dev/testing.md): PP_TEST_CORRUPT=ITER:OFFSET
 * puts one wrong byte into message ITER (pp_run_corrupt()).  A malformed
 * value sets no hook: the tests that set it then fail for want of the
 * mismatch.
 */
static void corrupt_hook(struct pp_run_cfg *rc, struct pp_trace *trace)
{
	const char *v = getenv("PP_TEST_CORRUPT");
	unsigned long long seq, off;
	char *end;

	if (!v)
		return;
	errno = 0;
	seq = strtoull(v, &end, 10);
	if (errno || end == v || *end != ':' || seq > UINT32_MAX)
		return;
	v = end + 1;
	off = strtoull(v, &end, 10);
	if (errno || end == v || *end)
		return;
	rc->corrupt = true;
	rc->corrupt_seq = (uint32_t)seq;
	rc->corrupt_off = off;
	pp_trace_step(trace, "PP_TEST_CORRUPT: message %llu, byte %llu flipped",
		      seq, off);
}

void pp_session_run_cfg(struct pp_session *s, struct pp_run_cfg *rc)
{
	/* the client's -T (HELLO): its deadline for a reply is the one */
	int client_ms = s->agreed.timeout_ms ? (int)s->agreed.timeout_ms :
					       (int)s->o->timeout_ms;

	*rc = (struct pp_run_cfg){
		.is_server = s->conn.is_server,
		.iters = s->agreed.iters,
		.warmup = s->agreed.warmup,
		.duration_ns = (int64_t)s->agreed.duration_s * 1000000000LL,
		.validate = s->agreed.flags & PP_F_VALIDATE,
		.use_event = s->o->use_event,
		.timeout_ms = (int)s->o->timeout_ms,
		.loss_timeout_ms = pp_transport_of(s->agreed.transport)->lossy ?
					   pp_run_loss_timeout_ms(client_ms) :
					   0,
		.client_timeout_ms = client_ms,
		.keep_raw = s->o->samples_path != NULL,
		.interval_ns = (int64_t)s->o->interval_s * 1000000000LL,
		.on_interval = on_interval,
		.interval_arg = s,
	};
}

int pp_session_run(struct pp_session *s)
{
	struct pp_run_cfg rc;
	struct pp_err lost = { .msg = "" };
	int ret = 0, lost_ret = 0;
	char clock[PP_CLOCK_NAME_MAX];
	size_t k;

	if (s->query_only)
		return 0;
	pp_session_run_cfg(s, &rc);
	corrupt_hook(&rc, &s->trace);
	if (s->x->run_cfg)
		s->x->run_cfg(s, &rc);
	if (!rc.loop) /* the one-sided operations' loops, or ours */
		rc.loop = pp_run_loop_of_op((enum pp_op)s->agreed.op);
	pp_clock_init();
	pp_trace_step(&s->trace, "clock: %s",
		      pp_clock_name(clock, sizeof(clock)));
	s->clock.chosen = true;
	s->clock.counter = pp_clock.ticks;
	s->clock.ghz = pp_clock.ticks ? 1.0 / pp_clock.ns_per_tick : 0;
	snprintf(s->clock.why, sizeof(s->clock.why), "%s", pp_clock.why);

	for (k = 0; k < s->nsizes && !ret; k++) {
		struct pp_run_result *r = &s->results[k];

		pp_res_set_size(s->res, s->sizes[k]);
		rc.first_seq = (uint32_t)k * PP_SEQ_STRIDE;
		ret = pp_run(s->res, &s->conn, &rc, r, &s->err);
		s->nresults = k + 1;
		if (ret && s->x->run_failed)
			s->x->run_failed(s);
		if (ret) {
			ret = tell_peer(s, ret);
			counters_after(s); /* they may say why it failed */
			return ret;
		}
		ret = s->x->size_done(s, &rc, r);
		if (s->progress && s->nsizes > 1) {
			pp_session_print_size(s, k, s->progress);
			s->nprinted = k + 1;
		}
		if (ret == ETIMEDOUT && !lost_ret) {
			lost_ret = ret; /* the first loss is the one reported */
			lost = s->err;
		}
		if (ret == ETIMEDOUT)
			ret = 0;
	}
	if (!ret && lost_ret) {
		s->err = lost;
		ret = lost_ret;
	}
	/* the cycle counter against CLOCK_MONOTONIC, over the whole run */
	s->clock.compared =
		pp_clock_compare(&s->clock.diff_ns, &s->clock.elapsed_ns);
	if (s->clock.compared)
		pp_trace_step(
			&s->trace,
			"clock: the cycle counter and CLOCK_MONOTONIC differ by %lld ns over %lld ns since the calibration",
			(long long)s->clock.diff_ns,
			(long long)s->clock.elapsed_ns);
	counters_after(s);
	/* both sides got here through DONE: the closing exchange */
	if ((!ret || ret == lost_ret) && s->ctr.on && s->x->trade_counters) {
		int cret = s->x->trade_counters(s);

		if (cret)
			ret = tell_peer(s, cret);
	}
	return ret;
}

int pp_session_steps(struct pp_session *s, int *phase)
{
	int ret;

	*phase = 0;
	ret = pp_session_connect(s);
	s->step_end_ns[0] = pp_now_ns();
	if (!ret) {
		*phase = 1;
		ret = pp_session_setup(s);
		s->step_end_ns[1] = pp_now_ns();
	}
	if (!ret) {
		*phase = 2;
		ret = pp_session_run(s);
		s->step_end_ns[2] = pp_now_ns();
	}
	return ret;
}

/*
 * Ours: the server sends its deltas (COUNTERS) when the client asked.  A
 * server whose own read failed sends an empty set without directories, and
 * says why in its own line.
 */
static int trade_counters(struct pp_session *s)
{
	struct pp_session_counters *c = &s->ctr;
	struct pp_counters_delta *none;
	int ret;

	if (!(s->agreed.flags & PP_F_COUNTERS))
		return 0;
	if (!s->conn.is_server) {
		ret = pp_hs_counters(&s->conn, NULL, &c->peer, &s->err);
		c->have_peer = !ret;
		return ret;
	}
	if (c->have_mine)
		return pp_hs_counters(&s->conn, &c->mine, NULL, &s->err);
	none = calloc(1, sizeof(*none));
	if (!none) {
		pp_err_set(&s->err, "out of memory");
		return ENOMEM;
	}
	snprintf(none->dev, sizeof(none->dev), "%s", s->caps.devname);
	none->port = s->caps.ib_port;
	none->no_dirs = true;
	ret = pp_hs_counters(&s->conn, none, NULL, &s->err);
	free(none);
	return ret;
}

const struct pp_exchange pp_exchange_ours = {
	.agree = agree,
	.connect_qps = connect_qps,
	.size_done = size_done,
	.trade_counters = trade_counters,
	.tells_peer = true,
};

int pp_session_listen(struct pp_session *s)
{
	if (s->lfd >= 0)
		return 0;
	return pp_sock_listen(s->o->bind_addr, s->o->port, &s->lfd, &s->err);
}

/* "127.0.0.1:40222" or "[fe80::1]:40222"; an IPv4-mapped IPv6 as IPv4. */
static void client_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sslen = sizeof(ss);
	char host[INET6_ADDRSTRLEN], serv[8];
	const char *h = host;

	if (getpeername(fd, (struct sockaddr *)&ss, &sslen) ||
	    getnameinfo((struct sockaddr *)&ss, sslen, host, sizeof(host), serv,
			sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "?");
		return;
	}
	if (!strncmp(h, "::ffff:", 7) && strchr(h + 7, '.'))
		h += 7;
	if (strchr(h, ':'))
		snprintf(buf, len, "[%s]:%s", h, serv);
	else
		snprintf(buf, len, "%s:%s", h, serv);
}

int pp_session_accept(struct pp_session *s)
{
	int ret;

	ret = pp_session_listen(s);
	if (ret)
		return ret;
	ret = pp_sock_accept(s->lfd, INT64_MAX, &s->conn.fd, NULL, 0);
	if (ret == ECANCELED) {
		pp_err_set(&s->err,
			   "interrupted by %s while waiting for a client",
			   pp_signal_name(pp_signal_caught()));
		return ret;
	}
	if (ret) {
		pp_err_set(&s->err, "accept on TCP port %u failed: %s",
			   s->o->port, strerror(ret));
		return ret;
	}
	client_name(s->conn.fd, s->peer_addr, sizeof(s->peer_addr));
	return 0;
}

void pp_session_end_client(struct pp_session *s)
{
	size_t k;

	for (k = 0; k < s->nresults; k++)
		pp_run_free(&s->results[k]);
	memset(s->results, 0, sizeof(s->results));
	s->nresults = 0;
	s->nsizes = 0;
	s->nprinted = 0;
	free(s->remote);
	s->remote = NULL;
	pp_res_destroy(s->res);
	s->res = NULL;
	if (s->conn.fd >= 0)
		close(s->conn.fd);
	s->conn.fd = -1;
	if (s->stock_fd >= 0)
		close(s->stock_fd);
	s->stock_fd = -1;
	s->data_phase = false;
	s->query_only = false;
	s->peer_addr[0] = '\0';
	memset(&s->clock, 0, sizeof(s->clock));
	/* the next client's run calibrates anew: a server lives long */
	pp_clock_reset();
	memset(&s->agreed, 0, sizeof(s->agreed));
	memset(&s->peer_done, 0, sizeof(s->peer_done));
	s->ctr.on = false;
	s->ctr.have_before = false;
	s->ctr.have_mine = false;
	s->ctr.have_peer = false;
	s->ctr.err = 0;
	pp_err_clear(&s->err);
	s->peer_told = false;
	s->use_grh = false;
	s->grh_why[0] = '\0';
	/* the next client's GID is chosen anew, unless -g fixed it */
	if (s->o && s->o->gid_index < 0) {
		s->gid_index = -1;
		memset(s->gid, 0, sizeof(s->gid));
		s->gid_type = PP_GID_TYPE_NONE;
		s->netdev_mtu = 0;
		s->gid_auto = false;
		s->gid_reason[0] = '\0';
	}
}

void pp_session_close(struct pp_session *s)
{
	pp_session_end_client(s);
	if (s->lfd >= 0)
		close(s->lfd);
	s->lfd = -1;
	if (s->ctx)
		ibv_close_device(s->ctx);
	s->ctx = NULL;
	free(s->gids);
	s->gids = NULL;
	free(s->pkeys);
	s->pkeys = NULL;
}

void pp_session_print_addrs(const struct pp_session *s, FILE *f)
{
	uint32_t i;

	const struct pp_hello *client = s->conn.is_server ? &s->peer : &s->mine;
	const struct pp_hello *server = s->conn.is_server ? &s->mine : &s->peer;

	if (s->place.cpu >= 0)
		fprintf(f, "  CPU %d: %s\n", s->place.cpu, s->place.why);
	else
		fprintf(f, "  %s\n", s->place.why);
	if (s->gid_index >= 0)
		fprintf(f, "  %s%s\n", s->gid_reason,
			s->gid_auto ? " (chosen automatically; -g to choose)" :
				      "");
	fprintf(f, "  GRH: %s%s%s%s\n", s->qcfg.use_grh ? "yes" : "no",
		s->grh_why[0] ? " (" : "", s->grh_why,
		s->grh_why[0] ? ")" : "");
	/* the stock exchange has no peer HELLO: no active MTU to name */
	if (s->peer.tool)
		pp_report_path_mtu(f, s->agreed.mtu, client->mtu,
				   server->active_mtu, client->active_mtu);
	/* the clock of the run is chosen before READY (pp_run_prepare()) */
	if (pp_clock_init() == false && pp_clock.why[0])
		fprintf(f,
			"  clock: CLOCK_MONOTONIC, not the cycle counter: %s\n",
			pp_clock.why);
	else if (pp_clock.ticks && pp_clock.why[0])
		fprintf(f, "  clock: the cycle counter (%.3f GHz): %s\n",
			1.0 / pp_clock.ns_per_tick, pp_clock.why);
	for (i = 0; i < s->res->num_qps; i++)
		pp_report_addr(f, "local", &s->res->local[i]);
	for (i = 0; i < s->res->num_qps; i++)
		pp_report_addr(f, "remote", &s->remote[i]);
}

/* --histogram: the round trips of one size as text. */
static void print_histogram(const struct pp_run_result *r, FILE *f)
{
	struct pp_hist h;

	if (!pp_run_hist(r, PP_HIST_DEFAULT_BINS, &h))
		pp_hist_print(f, &h, PP_HIST_DEFAULT_BAR);
}

void pp_session_print_size(const struct pp_session *s, size_t k, FILE *f)
{
	const struct pp_run_result *r = &s->results[k];
	struct pp_stats st;
	bool have = !pp_run_stats(r, &st);

	if (k == 0)
		pp_report_sweep_header(f);
	pp_report_sweep_line(f, r->size, have ? &st : NULL, r->completed,
			     r->lost, r->seconds);
	if (s->o->histogram)
		print_histogram(r, f);
	fflush(f);
}

/* The end-of-run comparison, when the two clocks differ past the bound. */
static void print_clock_check(const struct pp_session *s, FILE *f)
{
	if (!s->clock.compared ||
	    !pp_clock_differs(s->clock.diff_ns, s->clock.elapsed_ns))
		return;
	fprintf(f,
		"clock: the cycle counter and CLOCK_MONOTONIC differ by %.3f ms over %.3f s (more than %.1f %% or %lld us): the times may be wrong (PP_CLOCK=monotonic avoids the cycle counter)\n",
		(double)s->clock.diff_ns / 1e6,
		(double)s->clock.elapsed_ns / 1e9, PP_CLOCK_BOUND_PPM / 1e4,
		PP_CLOCK_BOUND_MIN_NS / 1000);
}

void pp_session_print_result(const struct pp_session *s, FILE *f)
{
	const struct pp_run_result *r = &s->results[0];
	struct pp_stats st;
	size_t k;

	if (s->nsizes > 1) {
		/* the lines not printed already as the sizes ended */
		for (k = s->nprinted; k < s->nresults; k++)
			pp_session_print_size(s, k, f);
		print_clock_check(s, f);
		return;
	}
	if (!s->nresults || !r->completed)
		return;
	pp_report_totals(f, r->size, r->completed, r->seconds);
	if (!pp_run_stats(r, &st))
		pp_report_stats(f, &st, r->size, r->completed, r->seconds);
	pp_report_post(f, r->posts, r->post_ns, r->post_max_ns);
	if (s->o->histogram)
		print_histogram(r, f);
	print_clock_check(s, f);
}

/* "client: port counters rxe0:1 (...): sent_pkts +2002, ..." */
static void print_counters_side(const struct pp_session *s, FILE *f,
				const char *side, bool mine)
{
	const struct pp_session_counters *c = &s->ctr;
	char *line;
	size_t len = 16384;

	if (mine && !c->have_mine) {
		fprintf(f, "%s: port counters %s:%u not read: %s\n", side,
			s->caps.devname, s->caps.ib_port,
			strerror(c->err ? c->err : ENODATA));
		return;
	}
	line = malloc(len);
	if (!line)
		return;
	fprintf(f, "%s: %s\n", side,
		pp_counters_format(mine ? &c->mine : &c->peer, line, len));
	free(line);
}

void pp_session_print_counters(const struct pp_session *s, FILE *f)
{
	const char *me = s->conn.is_server ? "server" : "client";

	if (!s->ctr.on)
		return;
	if (s->ctr.have_peer)
		print_counters_side(s, f, pp_peer_name(&s->conn), false);
	print_counters_side(s, f, me, true);
}

int pp_session_write_samples(struct pp_session *s)
{
	const char *path = s->o->samples_path;
	FILE *f = fopen(path, "w");
	size_t k, i;
	int ret = 0;

	if (!f) {
		ret = errno;
		pp_err_set(&s->err, "--samples: cannot write %s: %s", path,
			   strerror(ret));
		return ret;
	}
	fprintf(f, "size,sample,rtt_ns\n");
	for (k = 0; k < s->nresults; k++) {
		const struct pp_run_result *r = &s->results[k];

		for (i = 0; i < r->nsamples; i++)
			fprintf(f, "%llu,%zu,%llu\n",
				(unsigned long long)r->size, i,
				(unsigned long long)r->samples[i]);
	}
	if (ferror(f))
		ret = EIO;
	if (fclose(f) && !ret)
		ret = errno;
	if (ret)
		pp_err_set(&s->err, "--samples: writing %s failed: %s", path,
			   strerror(ret));
	return ret;
}

/* One side of the path for pp_thresh_mtu(): @h its HELLO (NULL: stock). */
static void thresh_side(const struct pp_session *s, const struct pp_hello *h,
			bool mine, struct pp_thresh_side *side)
{
	*side = (struct pp_thresh_side){
		.name = (mine == s->conn.is_server) ? "the server" :
						      "the client",
		.known = mine || (h && h->tool),
	};
	if (mine) {
		side->ib = s->caps.link_layer == IBV_LINK_LAYER_INFINIBAND;
		side->active_mtu = s->caps.active_mtu;
		side->netdev_mtu = s->netdev_mtu;
	} else if (side->known) {
		side->ib = h->link_layer == IBV_LINK_LAYER_INFINIBAND;
		side->active_mtu = h->active_mtu;
		side->netdev_mtu = h->netdev_mtu;
	}
}

void pp_session_thresholds(const struct pp_session *s,
			   struct pp_session_thresh *t)
{
	const struct pp_hello *peer = s->peer.tool ? &s->peer : NULL;
	const struct pp_hello *client = s->conn.is_server ? peer : &s->mine;
	struct pp_thresh_side me, other;
	unsigned int more = 0;
	uint64_t size = 0;
	struct pp_stats st;
	size_t k;

	memset(t, 0, sizeof(*t));
	t->expect_mtu = s->o->expect_mtu;
	if (peer && peer->expect_mtu > t->expect_mtu)
		t->expect_mtu = peer->expect_mtu;
	t->max_rtt_us = s->o->max_rtt_us;
	if (s->agreed.tool && t->expect_mtu) {
		t->path_mtu = s->agreed.mtu;
		thresh_side(s, peer, true, &me);
		thresh_side(s, peer, false, &other);
		/* the same line on both sides: the server first */
		t->mtu_below = pp_thresh_mtu(
			t->expect_mtu, t->path_mtu, client ? client->mtu : 0,
			s->conn.is_server || !other.known ? &me : &other,
			s->conn.is_server || !other.known ? &other : &me,
			t->mtu_line, sizeof(t->mtu_line));
	}
	/* the client measures; a sweep's sizes each, named from the first */
	for (k = 0; t->max_rtt_us > 0 && !s->conn.is_server && k < s->nresults;
	     k++) {
		if (pp_run_stats(&s->results[k], &st))
			continue;
		if (!t->median_us)
			t->median_us = st.median;
		if (!(st.median > t->max_rtt_us))
			continue;
		if (t->rtt_above) {
			more++;
			continue;
		}
		t->rtt_above = true;
		t->median_us = st.median;
		size = s->results[k].size;
	}
	if (t->rtt_above)
		pp_thresh_rtt(t->max_rtt_us, t->median_us, size, more,
			      t->rtt_line, sizeof(t->rtt_line));
}

void pp_session_print_thresholds(const struct pp_session_thresh *t, FILE *f)
{
	if (!t->expect_mtu && !(t->max_rtt_us > 0))
		return;
	fprintf(f, "thresholds:");
	if (t->expect_mtu && t->path_mtu)
		fprintf(f, " path MTU %u, --expect-mtu %u: %s", t->path_mtu,
			t->expect_mtu, t->mtu_below ? "BELOW" : "ok");
	if (t->expect_mtu && t->max_rtt_us > 0)
		fputc(';', f);
	if (t->max_rtt_us > 0 && t->median_us > 0)
		fprintf(f, " median %.3f usec, --max-rtt %g usec: %s",
			t->median_us, t->max_rtt_us,
			t->rtt_above ? "ABOVE" : "ok");
	else if (t->max_rtt_us > 0)
		fprintf(f, " --max-rtt %g usec: not judged here (%s)",
			t->max_rtt_us, "no round trips measured");
	fputc('\n', f);
}

int pp_exit_status(int ret)
{
	if (!ret)
		return PP_EXIT_OK;
	if (ret == ECANCELED)
		return PP_EXIT_INTR;
	return ret == EILSEQ ? PP_EXIT_DATA : PP_EXIT_FAIL;
}
