/* SPDX-License-Identifier: MIT */
/*
 * pp_hs.h - the handshake: who says what, in which order, and what each side
 * checks.  The bytes are pp_wire.h's; the sockets are pp_sock.h's.
 *
 *   client                              server
 *   HELLO (its options, its port)  ->
 *                                  <-   HELLO (adopted options, its port,
 *                                             agreed path MTU) or ERROR
 *   ADDRS (its QPs)                ->
 *                                  <-   ADDRS (its QPs)
 *   READY                          ->   (each side: QPs at RTS, receives
 *                                  <-   READY  posted)
 *   ...... ping-pong over RDMA; either side may send ERROR at any time ......
 *   DONE                           ->   (after each size of a sweep,
 *                                  <-   DONE   pp_sweep_sizes())
 *                                  <-   COUNTERS (--counters: the server's
 *                                             port counter deltas)
 *
 * The server adopts the client's parameters, except where its own command line
 * set an option explicitly: a difference there is a mismatch.  A mismatch, a
 * decode error or a limit of the server's port is sent to the client as ERROR,
 * and both sides report the same line.
 */
#ifndef PP_HS_H
#define PP_HS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_dev.h"
#include "pp_err.h"
#include "pp_opts.h"
#include "pp_trace.h"
#include "pp_wire.h"

/* One side's end of the TCP connection. */
struct pp_conn {
	int fd;
	bool is_server;
	int timeout_ms;		/* for each message of the handshake */
	struct pp_trace *trace; /* --trace: each message shown; may be NULL */
};

/**
 * pp_peer_name() - what the peer of @c is called in messages
 * @c: the connection
 *
 * Return: "client" on the server, "server" on the client.
 */
const char *pp_peer_name(const struct pp_conn *c);

/**
 * pp_hello_build() - the HELLO this side sends
 * @o: this side's options
 * @caps: this side's port
 * @gid_index: the GID index in use, or -1
 * @gid_type: enum pp_gid_type of that GID
 * @h: filled
 */
void pp_hello_build(const struct pp_opts *o, const struct pp_port_caps *caps,
		    int gid_index, uint8_t gid_type, struct pp_hello *h);

#define PP_SWEEP_MAX 33 /* sizes of a sweep, at most: 1 ... 2^31, and a top */

/**
 * pp_sweep_sizes() - the message sizes of a run, in the order run
 * @h: the agreed parameters
 * @sizes: room for PP_SWEEP_MAX sizes
 *
 * Without PP_F_SWEEP: @h->size alone.  With it: 1, 2, 4, ... up to
 * @h->size, and @h->size itself last when it is not a power of two; on UD
 * the sweep stops at the path MTU (@h->mtu).  A pure function: both sides
 * compute the same list from the same HELLO.
 *
 * Return: the number of sizes, at least 1.
 */
size_t pp_sweep_sizes(const struct pp_hello *h, uint64_t *sizes);

/**
 * pp_hello_buf_per_recv() - does a run of @h give each receive its own
 * buffer? (-c on sends over a lossy transport: struct pp_res_attr)
 * @h: the agreed parameters
 */
bool pp_hello_buf_per_recv(const struct pp_hello *h);

/**
 * pp_hello_mem() - the bytes of buffers a run of @h allocates, zeroes and
 * registers on each side (pp_res_mem(): both areas, every receive's area
 * with -c on a lossy transport, a sweep's largest size)
 * @h: the parameters (a client's HELLO, with the path MTU for a UD sweep)
 * @page: the page size
 * @bytes: the sum
 *
 * Return: 0; EOVERFLOW (more than the process can address).
 */
int pp_hello_mem(const struct pp_hello *h, uint64_t page, uint64_t *bytes);

/**
 * pp_hello_describe() - the parameters of @h in words, for --trace
 * @h: a HELLO (the agreed one)
 * @buf: output: "size 4096, size sweep (-a) off, iterations 1000, ...",
 *       each parameter of PP_PARAMS by its label, in its order
 * @len: room in @buf; a line that does not fit is cut
 *
 * Return: @buf.
 */
char *pp_hello_describe(const struct pp_hello *h, char *buf, size_t len);

/**
 * pp_hello_check() - can the port @caps run what @h asks for?
 * @h: the parameters asked for (from the command line, or from the client)
 * @caps: the port that has to run them
 * @err: one line naming the field and both values
 *       ("MTU: 4096 asked, port rxe0:1 active MTU 1024")
 *
 * A pure function: used by each side on its own options before it connects,
 * and by the server on the client's HELLO.
 *
 * Return: 0, or EINVAL with @err set.
 */
int pp_hello_check(const struct pp_hello *h, const struct pp_port_caps *caps,
		   struct pp_err *err);

/**
 * pp_grh_decide() - do both sides address each other with a GRH?
 * @link_layer: IBV_LINK_LAYER_* of the ports (the server checks that they
 *              agree)
 * @client_gid: the client's GID index from its HELLO (PP_GID_INDEX_NONE:
 *              it has no GID)
 * @server_gid: the server's, the same way
 * @grh: true when both use a GRH, false when neither does
 * @why: the reason in words ("both sides have a GID"; "the server has no
 *       GID: give -g on both sides for a GRH")
 * @len: room in @why
 *
 * Both or neither: a GRH needs the peer's GID as its destination, and a
 * side without one advertises an all-zero GID.  RoCE always needs one.
 * The server decides and says it in its answer (PP_F_GRH); the client
 * checks the answer against the same rule.
 *
 * Return: 0; EINVAL (RoCE and a side without a GID) with @why set.
 */
int pp_grh_decide(uint8_t link_layer, uint16_t client_gid, uint16_t server_gid,
		  bool *grh, char *why, size_t len);

/**
 * pp_hello_adopt() - the server's answer to a client's HELLO
 * @srv: the server's options (only the explicitly set ones constrain)
 * @caps: the server's port
 * @mine: the server's own HELLO (its port fields are copied into @agreed)
 * @client: the client's HELLO
 * @agreed: the client's parameters, with the path MTU in @agreed->mtu (the
 *          client's -m, or the smaller of the two active MTUs) and
 *          PP_F_GRH set when both sides use a GRH (pp_grh_decide())
 * @err: one line naming the field and both values ("size: client 4096,
 *       server 1024"; "transport binary: client ud_pingpong, server
 *       rc_pingpong")
 *
 * The buffers the client's parameters make the server allocate and pin
 * (pp_hello_mem()) must not pass the server's --max-mem (@srv->max_mem).
 *
 * A pure function, so every rule is unit-tested without sockets.
 *
 * Return: 0, or EINVAL with @err set.
 */
int pp_hello_adopt(const struct pp_opts *srv, const struct pp_port_caps *caps,
		   const struct pp_hello *mine, const struct pp_hello *client,
		   struct pp_hello *agreed, struct pp_err *err);

/**
 * pp_hs_send() - encode and send one message
 * @c: the connection
 * @m: the message
 * @err: one line on failure
 *
 * Return: 0; EINVAL (a field cannot be encoded); ETIMEDOUT; EPIPE/ECONNRESET;
 * ECANCELED (SIGINT or SIGTERM, pp_signal.h: @err says "interrupted by").
 */
int pp_hs_send(const struct pp_conn *c, const struct pp_msg *m,
	       struct pp_err *err);

/**
 * pp_hs_recv() - receive one message of type @type
 * @c: the connection
 * @type: the type expected
 * @m: the message
 * @err: one line on failure; for an ERROR from the peer, its text with
 *       @err->remote set
 *
 * Return: 0; ECONNABORTED (the peer sent ERROR); EPROTO/EBADMSG (undecodable,
 * or another type); EPROTONOSUPPORT (another protocol version: @err names
 * both); ETIMEDOUT; ECONNRESET (the peer closed the connection); EHOSTDOWN
 * or EHOSTUNREACH (TCP gave up on the peer's host, pp_hs_host_gone());
 * ECANCELED (SIGINT or SIGTERM, pp_signal.h: @err says "interrupted by").
 */
int pp_hs_recv(const struct pp_conn *c, enum pp_msg_type type, struct pp_msg *m,
	       struct pp_err *err);

/**
 * pp_hs_host_gone() - the line for a connection TCP gave up on (EHOSTDOWN,
 * EHOSTUNREACH from pp_sock_read_all()/pp_sock_write_all()): keepalive
 * probes or a send unanswered
 * @c: the connection
 * @when: what this side was doing ("during the run", ...)
 * @err: the line
 */
void pp_hs_host_gone(const struct pp_conn *c, const char *when,
		     struct pp_err *err);

/**
 * pp_hs_send_error() - tell the peer why this side stops (best effort)
 * @c: the connection
 * @code: an errno value
 * @text: one line; cut to PP_WIRE_TEXT_LEN, control characters replaced
 */
void pp_hs_send_error(const struct pp_conn *c, int code, const char *text);

/* The passive server looks at signals at least this often. */
#define PP_HS_WAIT_POLL_MS 100

/**
 * pp_hs_alive_every_ms() - how often a client tells its passive server that
 * it is alive (ALIVE)
 * @client_ms: the client's -T
 *
 * Return: a third of @client_ms, at least 1: three chances before the
 * server's deadline.
 */
static inline int pp_hs_alive_every_ms(int client_ms)
{
	return client_ms / 3 > 0 ? client_ms / 3 : 1;
}

/**
 * pp_hs_send_alive() - the client's ALIVE during a Read or atomics run
 * @c: the connection
 * @done: the run's iterations finished so far, warm-up too
 * @err: one line on failure
 *
 * Return: 0 or the errors of pp_hs_send().
 */
int pp_hs_send_alive(const struct pp_conn *c, uint64_t done,
		     struct pp_err *err);

/**
 * pp_hs_wait_done() - the passive server's wait for the client's DONE
 * @c: the connection (the server's)
 * @client_ms: the client's -T (HELLO): a client that sends nothing, no
 *             ALIVE and no DONE, for so long is stopped or gone
 * @total: the iterations of the client's run, warm-up too: no ALIVE counts
 *         more, and none counts fewer than the one before it
 * @what: the operation, for the messages ("read")
 * @done: the client's DONE
 * @err: one line on failure, naming what happened
 *
 * Return: 0; ETIMEDOUT (nothing for @client_ms; or TCP keepalive gave up,
 * also EHOSTUNREACH); ECONNRESET; ECANCELED (SIGINT or SIGTERM); EPROTO or
 * EBADMSG (a bad ALIVE, another message); the errors of pp_hs_recv().
 */
int pp_hs_wait_done(const struct pp_conn *c, int client_ms, uint64_t total,
		    const char *what, struct pp_done *done, struct pp_err *err);

/**
 * pp_hs_client_hello() - the client's first exchange
 * @c: the connection
 * @mine: the client's HELLO
 * @agreed: the server's answer: parameters adopted, the path MTU, and the
 *          server's port fields
 * @err: one line on failure
 *
 * Return: 0; ECONNABORTED (the server refused: @err->remote); EPROTO (the
 * answer differs from what was asked); errors of pp_hs_recv().
 */
int pp_hs_client_hello(const struct pp_conn *c, const struct pp_hello *mine,
		       struct pp_hello *agreed, struct pp_err *err);

/**
 * pp_hs_server_hello() - the server's first exchange
 * @c: the connection
 * @srv: the server's options
 * @caps: the server's port
 * @mine: the server's own HELLO
 * @agreed: the parameters of the run (pp_hello_adopt())
 * @client: the client's HELLO as received (its port's active MTU, its -m);
 *          NULL when not wanted
 * @err: one line on failure, also sent to the client as ERROR
 *
 * Return: 0; EINVAL (a mismatch or a limit); errors of pp_hs_recv().
 */
int pp_hs_server_hello(const struct pp_conn *c, const struct pp_opts *srv,
		       const struct pp_port_caps *caps,
		       const struct pp_hello *mine, struct pp_hello *agreed,
		       struct pp_hello *client, struct pp_err *err);

/**
 * pp_hs_server_recv_hello() - the server's first step: the client's HELLO
 * @c: the connection
 * @client: the client's HELLO as received
 * @err: one line on failure (a protocol error is also sent as ERROR)
 *
 * pp_hs_server_hello() is this and pp_hs_server_answer(); a server that
 * decides something from the request in between (the GID the client asks
 * for with peer_gid_index) calls the two.
 *
 * Return: 0 or the errors of pp_hs_recv().
 */
int pp_hs_server_recv_hello(const struct pp_conn *c, struct pp_hello *client,
			    struct pp_err *err);

/**
 * pp_hs_server_answer() - the server's answer to @client's HELLO
 * @c: the connection
 * @srv: the server's options
 * @caps: the server's port
 * @mine: the server's own HELLO (its GID index and type)
 * @client: the client's HELLO
 * @agreed: the parameters of the run (pp_hello_adopt())
 * @err: one line on failure, also sent to the client as ERROR
 *
 * Return: 0; EINVAL (a mismatch or a limit); errors of pp_hs_send().
 */
int pp_hs_server_answer(const struct pp_conn *c, const struct pp_opts *srv,
			const struct pp_port_caps *caps,
			const struct pp_hello *mine,
			const struct pp_hello *client, struct pp_hello *agreed,
			struct pp_err *err);

struct pp_gid_entry;

/**
 * pp_hs_send_gids() - the server's GID table, as GIDS
 * @c: the connection
 * @tbl: the port's GID table; its populated entries of index 0..255 are
 *       sent, in table order (index ascending), at most PP_WIRE_GIDS_MAX
 * @n: entries in @tbl
 * @err: one line on failure
 *
 * Sent right after the HELLO answer when the client's HELLO has PP_F_GIDS.
 *
 * Return: 0; ENODATA (no populated GID: the client is told with ERROR);
 * errors of pp_hs_send().
 */
int pp_hs_send_gids(const struct pp_conn *c, const struct pp_gid_entry *tbl,
		    int n, struct pp_err *err);

/**
 * pp_hs_exchange_addrs() - send this side's QP addresses, receive the peer's
 * @c: the connection (the client sends first)
 * @mine: this side's @n addresses
 * @theirs: the peer's @n addresses
 * @n: number of QPs, 1..PP_MAX_QPS, the same on both sides
 * @err: one line on failure
 *
 * Return: 0; EPROTO (the peer sent another count); errors of pp_hs_send()
 * and pp_hs_recv().
 */
int pp_hs_exchange_addrs(const struct pp_conn *c, const struct pp_addr *mine,
			 struct pp_addr *theirs, uint32_t n,
			 struct pp_err *err);

/**
 * pp_hs_sync() - send READY, wait for the peer's READY
 * @c: the connection
 * @err: one line on failure
 *
 * Return: 0, or errors of pp_hs_send() and pp_hs_recv().
 */
int pp_hs_sync(const struct pp_conn *c, struct pp_err *err);

/**
 * pp_hs_done() - exchange DONE at the end of the run
 * @c: the connection (the client sends first)
 * @mine: this side's result
 * @theirs: the peer's result
 * @err: one line on failure
 *
 * Return: 0, or errors of pp_hs_send() and pp_hs_recv().
 */
int pp_hs_done(const struct pp_conn *c, const struct pp_done *mine,
	       struct pp_done *theirs, struct pp_err *err);

/**
 * pp_hs_counters() - the closing exchange of --counters (PP_F_COUNTERS),
 * after the last DONE: the server sends its port counters' deltas
 * @c: the connection
 * @mine: server: its deltas (sent); client: unused (may be NULL)
 * @theirs: client: the server's deltas; server: unused (may be NULL)
 * @err: one line on failure
 *
 * Return: 0; EINVAL (@mine cannot be encoded); errors of pp_hs_send() and
 * pp_hs_recv().
 */
int pp_hs_counters(const struct pp_conn *c,
		   const struct pp_counters_delta *mine,
		   struct pp_counters_delta *theirs, struct pp_err *err);

#endif /* PP_HS_H */
