/* SPDX-License-Identifier: MIT */
/*
 * pp_session.h - the steps every tool takes, in order, over the modules of
 * common/.  A tool's main is the sequence (pp_main.c):
 *
 *   pp_session_open()     open the device, read the port, choose the GID
 *   pp_session_connect()  agree on the parameters (ours: TCP and HELLO)
 *   pp_session_setup()    resources, address exchange, RTR/RTS, ready
 *   pp_session_run()      the ping-pong, and after each size its end (DONE)
 *   pp_session_close()    release everything
 *
 * The session takes an exchange: how the two sides agree and trade
 * addresses.  Ours is pp_exchange_ours (the handshake of pp_hs.h); the
 * stock rdma-core tools' records are pp_exchange_stock (pp_interop.h,
 * --rdma-core).  The sequence, the printing and the JSON document are the
 * same for both.
 *
 * Each step returns 0 or a positive errno and leaves one line in s->err for
 * the program to print.  With our exchange, a step failing after the
 * connection is up tells the peer (ERROR) before it returns.
 */
#ifndef PP_SESSION_H
#define PP_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_counters.h"
#include "pp_cpu.h"
#include "pp_dev.h"
#include "pp_err.h"
#include "pp_gid.h"
#include "pp_hs.h"
#include "pp_opts.h"
#include "pp_qp.h"
#include "pp_res.h"
#include "pp_run.h"
#include "pp_trace.h"

struct pp_session;

/* How a session's two sides agree and trade addresses. */
struct pp_exchange {
	/* agree on the parameters: fill @s->mine and @s->agreed */
	int (*agree)(struct pp_session *s);
	/*
	 * The resources exist: trade addresses, bring the QPs to RTS
	 * (pp_session_connect_qps()), post the receives, be ready to run.
	 */
	int (*connect_qps)(struct pp_session *s);
	/* the run's settings besides the agreed parameters (may be NULL) */
	void (*run_cfg)(const struct pp_session *s, struct pp_run_cfg *rc);
	/* a run failed: add what the user should know (may be NULL) */
	void (*run_failed)(struct pp_session *s);
	/* after each size: 0, ETIMEDOUT (UD losses: the run goes on), or an
	 * error that ends the run; may correct @r from what the peer says */
	int (*size_done)(struct pp_session *s, const struct pp_run_cfg *rc,
			 struct pp_run_result *r);
	/* a GRH only toward a peer GID this says yes to (NULL: always) */
	bool (*grh_toward)(const uint8_t gid[16]);
	/* the run ended (each size's DONE traded): trade the port counters'
	 * deltas (--counters); NULL: this side's own only */
	int (*trade_counters)(struct pp_session *s);
	bool tells_peer; /* a failing step sends ERROR to the peer */
	/* the server accepts its client in connect_qps(), after posting the
	 * receives (the stock order): pp_serve() leaves the accept to it */
	bool accepts_late;
	bool plain_send; /* messages carry no immediate data */
};

/* Ours: HELLO, ADDRS, READY, DONE (docs/dev/protocol.md). */
extern const struct pp_exchange pp_exchange_ours;

/*
 * --counters: this side's port counters over the run (pp_counters.h), and
 * the server's as the client receives them.
 */
struct pp_session_counters {
	bool on;	  /* read this side's port: its --counters, or (server)
			   * the client asked */
	bool have_before; /* @before was read */
	int err;	  /* reading failed (before or after): the errno */
	bool have_mine;	  /* @mine holds this side's deltas */
	bool have_peer;	  /* client: @peer holds the server's */
	struct pp_counters before;
	struct pp_counters_delta mine;
	struct pp_counters_delta peer;
};

struct pp_session {
	const struct pp_exchange *x;
	struct pp_opts *o;
	struct ibv_context *ctx;
	struct pp_port_caps caps;
	int gid_index; /* -1: no GRH */
	uint8_t gid[16];
	uint8_t gid_type; /* enum pp_gid_type */
	/* the MTU of the netdev behind that GID (RoCE); 0: none or unknown */
	uint32_t netdev_mtu;
	bool gid_auto;		   /* chosen here, not by -g */
	struct pp_cpu_place place; /* the CPU this side runs on, and why */
	char gid_reason[320];	   /* the GID in use, and why */
	struct pp_gid_entry *gids; /* the port's GID table */
	int ngids;
	uint16_t *pkeys;	/* the port's P_Key table (host order) */
	uint16_t pkey_index;	/* this port's index of the agreed P_Key */
	bool use_grh;		/* both sides address each other with a GRH */
	char grh_why[128];	/* ... or neither, and why */
	struct pp_trace trace;	/* --trace */
	int lfd;		/* server: listening socket, or -1 */
	struct pp_conn conn;	/* fd -1 until connected */
	char peer_addr[64];	/* server: the client's address */
	uint64_t token;		/* a mesh pair's client: sent before HELLO
				 * (pp_sock_accept_token()); 0: none */
	struct pp_hello mine;	/* what this side asked for / brings */
	struct pp_hello agreed; /* the parameters of the run */
	struct pp_hello peer;	/* the peer's HELLO: the client's, or the
				 * server's answer */
	struct pp_qp_cfg qcfg;
	struct pp_res *res;
	struct pp_addr *remote;	      /* the peer's QP addresses */
	uint64_t sizes[PP_SWEEP_MAX]; /* the sizes of the run, in order */
	size_t nsizes;
	struct pp_run_result results[PP_SWEEP_MAX]; /* one per size run */
	size_t nresults;
	int64_t step_end_ns[3];	  /* when pp_session_steps()' steps ended */
	struct pp_done peer_done; /* of the last size */
	FILE *progress; /* a sweep: each size's line here as it ends */
	/*
	 * --json --interval: writes an interval's line to stdout as it ends;
	 * set by the caller after pp_session_open() (pp_main: the document's
	 * writer, pp_doc_interval(), which sits above the session); NULL: none
	 */
	int (*json_interval)(FILE *f, const struct pp_run_interval *iv);
	size_t nprinted; /* ... sizes printed there so far */
	int64_t started; /* wall clock at pp_session_open(), seconds */
	struct pp_session_counters ctr; /* --counters */
	/*
	 * The clock of this client's run (pp_clock.h): which, and at the end
	 * the cycle counter's time against CLOCK_MONOTONIC's.
	 */
	struct pp_session_clock {
		bool chosen;	    /* pp_session_run() chose it */
		bool counter;	    /* the cycle counter, not CLOCK_MONOTONIC */
		double ghz;	    /* the counter's rate */
		char why[256];	    /* pp_clock.why */
		bool compared;	    /* the end-of-run comparison was made */
		int64_t diff_ns;    /* counter minus CLOCK_MONOTONIC */
		int64_t elapsed_ns; /* since the calibration */
	} clock;
	struct pp_err err;
	bool peer_told; /* the peer already has our ERROR */
	/* client, set between open and connect (--probe): the server's GID
	 * index to ask for (-1: the server chooses), and its GID table */
	int want_peer_gid;
	bool want_gids;
	bool short_retry; /* the QPs give up sooner (struct pp_qp_cfg) */
	/* server: the client took the GID table (GIDS) and closed: a
	 * --probe's query, not a run */
	bool query_only;
	/* --rdma-core: the stock peer's connection, kept out of the run */
	int stock_fd;
	bool data_phase; /* ... and the stock peer is in its data loop */
};

/**
 * pp_session_open() - open the device and port of @o, choose the GID, and
 * check this side's own options against its port
 * @s: the session, zeroed by this call
 * @o: parsed options; kept by reference
 * @x: the exchange: &pp_exchange_ours, or &pp_exchange_stock
 *
 * Return: 0 or an errno (ENODEV, ENETDOWN, EINVAL, ...), with @s->err set.
 */
int pp_session_open(struct pp_session *s, struct pp_opts *o,
		    const struct pp_exchange *x);

/**
 * pp_session_connect() - connect (client) or wait for one client (server),
 * and agree on the run's parameters
 * @s: an open session
 *
 * A server already holding a client (pp_session_accept()) goes straight to
 * the HELLO exchange.
 *
 * Return: 0 or an errno, with @s->err set (and the peer told when it is
 * connected); ECANCELED when SIGINT or SIGTERM came (pp_signal.h).
 */
int pp_session_connect(struct pp_session *s);

/**
 * pp_session_listen() - server: open the listening socket, once
 * @s: an open session
 *
 * Return: 0 (also when already listening); EADDRINUSE, EADDRNOTAVAIL or
 * another errno of pp_sock_listen(), with @s->err set.
 */
int pp_session_listen(struct pp_session *s);

/**
 * pp_session_accept() - server: listen if not yet, and wait for the next
 * client, for ever
 * @s: an open session without a client
 *
 * @s->peer_addr names the client ("127.0.0.1:40222") for messages.
 *
 * Return: 0; ECANCELED (SIGINT or SIGTERM: "interrupted by SIGINT while
 * waiting for a client"); another errno of listen or accept, with @s->err
 * set.
 */
int pp_session_accept(struct pp_session *s);

/**
 * pp_session_end_client() - server: release what belongs to one client
 * (connection, resources, QPs, result, error) and keep the device and the
 * listening socket for the next one
 * @s: a session in any state after pp_session_open() was called
 */
void pp_session_end_client(struct pp_session *s);

/**
 * pp_session_connect_qps() - bring the QPs to RTS toward @s->remote, with
 * the agreed path MTU and SL and, when this side has a GID (and the
 * exchange's grh_toward() agrees), a GRH
 * @s: a session whose resources exist and whose peer's addresses came
 *
 * Return: 0 or the errno of the failing transition, with @s->err set.
 */
int pp_session_connect_qps(struct pp_session *s);

/**
 * pp_session_qp_cfg() - the QPs' transition settings from the agreed
 * parameters: what pp_session_connect_qps() applies
 * @s: a session whose parameters are agreed and whose peer's addresses came
 * @cfg: filled: path MTU, SL, P_Key index, the GRH, the RC QPs' RTS
 *       attributes (QP timeout, retry count, RNR retry), the operation
 */
void pp_session_qp_cfg(struct pp_session *s, struct pp_qp_cfg *cfg);

/**
 * pp_session_setup() - create the resources, exchange addresses, bring the
 * QPs to RTS, post receives, and wait until both sides are ready
 * @s: a connected session
 *
 * With --counters (or a client that asked), the port's counters are read
 * first, before the QPs can receive anything from the peer.
 *
 * Return: 0 or an errno, with @s->err set and the peer told.
 */
int pp_session_setup(struct pp_session *s);

/**
 * pp_session_run_cfg() - the run's settings from the agreed parameters
 * @s: a session whose parameters are agreed
 * @rc: filled (the exchange's run_cfg() and the loop come after)
 *
 * UD and UC count a reply as lost after a fifth of the client's -T, which
 * HELLO carries: the server's "abandoned wait" (half of that) follows the
 * client's deadline, not its own -T.
 */
void pp_session_run_cfg(struct pp_session *s, struct pp_run_cfg *rc);

/**
 * pp_session_run() - run the ping-pong and exchange DONE, once per size
 * @s: a set-up session
 *
 * A sweep (-a) runs each size of pp_sweep_sizes() in turn on the same QPs,
 * with a DONE exchange after each; a size whose UD iterations were lost is
 * reported and the sweep goes on.  @s->results holds one entry per size run.
 *
 * UD: an iteration whose reply did not come within the per-iteration
 * deadline is lost; the run goes on, and DONE tells the server how many.
 *
 * --counters (or, on the server, a client that asked for them): the port's
 * counters were read by pp_session_setup() before READY, and are read
 * again after the last size (after the kernel's caching interval,
 * pp_counters.h), also when the run fails; after
 * a run that ended with DONE the exchange's trade_counters() brings the
 * server's deltas to the client (ours: COUNTERS).  A counter, or a whole
 * port, that cannot be read is no error: @s->ctr says so.
 *
 * Return: 0 when every iteration completed (and, with -c, every byte
 * matched); ETIMEDOUT when UD iterations were lost ("lost 3 of 1000
 * iterations (no reply within 1000 ms)"; on the server, with @s->err->remote
 * set, from the client's DONE); else an errno (EILSEQ for a data mismatch),
 * with @s->err set and the peer told.
 */
int pp_session_run(struct pp_session *s);

/**
 * pp_session_steps() - pp_session_connect(), pp_session_setup() and
 * pp_session_run() in turn, up to the first that fails
 * @s:     an open session
 * @phase: set to how far it got: 0 the handshake, 1 the QPs' set-up, 2 the
 *         run (pp_probe_step_of() reads it)
 *
 * @s->step_end_ns[k] is the time (pp_now_ns()) step k ended, or 0.
 *
 * Return: the first failure's errno (the message in @s->err), or 0.
 */
int pp_session_steps(struct pp_session *s, int *phase);

/**
 * pp_session_close() - release everything the session holds
 * @s: a session in any state after pp_session_open() was called
 */
void pp_session_close(struct pp_session *s);

/**
 * pp_session_print_addrs() - the local and remote address lines
 * @s: a set-up session
 * @f: stream
 */
void pp_session_print_addrs(const struct pp_session *s, FILE *f);

/**
 * pp_session_print_result() - the stock result lines and the latency
 * summary (a sweep: a table, one line per size), and with --histogram a
 * histogram per size
 * @s: a session after pp_session_run()
 * @f: stream
 */
void pp_session_print_result(const struct pp_session *s, FILE *f);

/**
 * pp_session_print_counters() - --counters: the port counters that moved,
 * one line per side, after the results: on the client "server: port
 * counters ..." (from COUNTERS) then "client: port counters ..."; on the
 * server its own line; a side whose counters could not be read says why
 * @s: a session after pp_session_run()
 * @f: stream
 *
 * Prints nothing when this side did not read its counters.
 */
void pp_session_print_counters(const struct pp_session *s, FILE *f);

/**
 * pp_session_write_samples() - --samples: every round trip of the run, as
 * "size,sample,rtt_ns" lines after a header line, to the file named
 * @s->o->samples_path (replaced)
 * @s: a session after pp_session_run()
 *
 * Return: 0, or the errno of opening or writing, with @s->err set.
 */
int pp_session_write_samples(struct pp_session *s);

/**
 * pp_session_print_size() - one size of a sweep: its table line (the header
 * first, at the first size) and with --histogram its histogram
 * @s: the session
 * @k: index into @s->results
 * @f: stream
 */
void pp_session_print_size(const struct pp_session *s, size_t k, FILE *f);

/* The thresholds of a run, judged (pp_thresh.h, docs/thresholds.md). */
struct pp_session_thresh {
	uint32_t expect_mtu; /* the larger of both sides' --expect-mtu; 0 */
	uint32_t path_mtu;   /* the path MTU judged; 0: not agreed */
	double max_rtt_us;   /* --max-rtt; 0: none */
	double median_us;    /* the median judged (the first size above the
			      * limit, else the first size); 0: none */
	bool mtu_below;	     /* path_mtu < expect_mtu */
	bool rtt_above;	     /* a size's median > max_rtt_us */
	char mtu_line[PP_ERR_LEN];
	char rtt_line[PP_ERR_LEN];
};

/**
 * pp_session_thresholds() - judge the run of @s against --expect-mtu
 * (either side's: the peer's comes in its HELLO) and --max-rtt (the
 * client's samples)
 * @s: a session whose run ended
 * @t: filled; nothing is below or above before the parameters are agreed
 *
 * Both sides of a pair judge the MTU alike and write the same line.
 */
void pp_session_thresholds(const struct pp_session *s,
			   struct pp_session_thresh *t);

/**
 * pp_session_print_thresholds() - the text line of the thresholds given:
 * "thresholds: path MTU 1024, --expect-mtu 4096: below; ..."
 * @t: from pp_session_thresholds()
 * @f: stream
 */
void pp_session_print_thresholds(const struct pp_session_thresh *t, FILE *f);

/**
 * pp_exit_status() - the exit status for a step's return value
 * @ret: 0 or an errno from a pp_session_*() step
 *
 * Return: PP_EXIT_OK, PP_EXIT_DATA (EILSEQ), PP_EXIT_INTR (ECANCELED: a
 * signal stopped it) or PP_EXIT_FAIL.
 */
int pp_exit_status(int ret);

#endif /* PP_SESSION_H */
