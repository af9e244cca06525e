/* SPDX-License-Identifier: MIT */
/*
 * pp_sock.h - the out-of-band TCP connection: set-up and full-length I/O
 * with deadlines.
 *
 * Every descriptor made here is non-blocking and close-on-exec; every wait is
 * a poll() bounded by an absolute deadline from pp_deadline().  EINTR is
 * retried, unless SIGINT or SIGTERM was caught (pp_signal.h): then every wait
 * returns ECANCELED.  A short read or EOF is an error, never a partial
 * success.
 */
#ifndef PP_SOCK_H
#define PP_SOCK_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/epoll.h>

#include "pp_err.h"

/**
 * pp_sock_poll() - ppoll() @pfd until one is ready or @deadline passes,
 * with SIGINT and SIGTERM blocked from the look at the stop flag until
 * ppoll() unblocks them, so that a stop signal ends the wait at once
 * @pfd: the descriptors
 * @n: how many
 * @deadline: absolute, from pp_deadline(); INT64_MAX waits for ever; one
 *            that has passed still looks once
 * @ready: how many are ready (0: the deadline passed)
 *
 * Return: 0; ECANCELED (a stop signal, pp_signal.h); another errno from
 * ppoll().
 */
int pp_sock_poll(struct pollfd *pfd, nfds_t n, int64_t deadline, int *ready);

/**
 * pp_sock_epoll_wait() - pp_sock_poll() for an epoll set: epoll_pwait()
 * with the stop signals unblocked only inside the wait
 * @ep: the epoll descriptor
 * @ev: room for @max events
 * @max: at least 1
 * @deadline: absolute; INT64_MAX waits for ever
 * @ready: how many events are in @ev (0: the deadline passed)
 *
 * Return: as pp_sock_poll().
 */
int pp_sock_epoll_wait(int ep, struct epoll_event *ev, int max,
		       int64_t deadline, int *ready);

/**
 * pp_sock_listen() - open the server's listening socket
 * @bind_addr: an address or host name to bind; NULL: every address, IPv6 and
 *             IPv4 (a dual-stack IPv6 socket, or IPv4 only where the host has
 *             no IPv6)
 * @port: TCP port, 1..65535
 * @fd: the listening descriptor
 * @err: one line naming the address and port and what to try
 *
 * Return: 0; EADDRINUSE (port taken); EADDRNOTAVAIL (@bind_addr does not
 * resolve or is not local); another errno from socket()/bind()/listen().
 */
int pp_sock_listen(const char *bind_addr, uint32_t port, int *fd,
		   struct pp_err *err);

/* What pp_sock_accept() does after accept() failed with an errno. */
enum pp_accept_retry {
	PP_ACCEPT_FATAL,    /* give up: return the errno */
	PP_ACCEPT_AGAIN,    /* wait for the next client at once */
	PP_ACCEPT_BACK_OFF, /* out of descriptors or memory: 100 ms, again */
};

/**
 * pp_sock_accept_retry() - the rule for an errno of accept()
 * @err: the errno
 *
 * accept(2) says to treat the network errors pending on the new socket
 * (ENETDOWN, EPROTO, ENOPROTOOPT, EHOSTDOWN, ENONET, EHOSTUNREACH,
 * EOPNOTSUPP, ENETUNREACH) like EAGAIN; a client that gave up
 * (ECONNABORTED) too; running out of descriptors or memory (EMFILE,
 * ENFILE, ENOBUFS, ENOMEM) may pass.
 *
 * Return: what to do.
 */
enum pp_accept_retry pp_sock_accept_retry(int err);

/**
 * pp_sock_accept() - wait for one client
 * @lfd: from pp_sock_listen()
 * @deadline: absolute, from pp_deadline(); INT64_MAX waits for ever
 * @fd: the connected descriptor
 * @peer: the client's numeric address, for messages (may be NULL)
 * @peer_len: room in @peer
 *
 * A transient failure of accept() (pp_sock_accept_retry()) is retried, a
 * shortage of descriptors or memory after 100 ms, within @deadline.
 *
 * Return: 0; ETIMEDOUT; ECANCELED (a stop signal, pp_signal.h); EMFILE,
 * ENFILE, ENOBUFS or ENOMEM still at @deadline; another errno from
 * accept().
 */
int pp_sock_accept(int lfd, int64_t deadline, int *fd, char *peer,
		   size_t peer_len);

/* TCP keepalive: a dead peer host is noticed within about the timeout. */
struct pp_keepalive {
	int idle_s;  /* TCP_KEEPIDLE: silence before the first probe */
	int intvl_s; /* TCP_KEEPINTVL: between probes */
	int cnt;     /* TCP_KEEPCNT: unanswered probes that end it */
};

/**
 * pp_sock_accept_ready() - take a connection already waiting on @lfd,
 * without waiting (for a loop that polls @lfd among others)
 * @lfd: from pp_sock_listen()
 * @fd: the connection (non-blocking, TCP_NODELAY)
 *
 * Return: 0; EAGAIN (none waiting, or one gone before it was taken:
 * pp_sock_accept_retry()); EMFILE, ENFILE, ENOBUFS or ENOMEM (out of
 * descriptors or memory); another errno of accept4().
 */
int pp_sock_accept_ready(int lfd, int *fd);

/**
 * pp_sock_send_token() - a mesh pair's client: the 8 bytes rank 0 gave the
 * pair (big-endian), first on the connection, before the handshake
 * @fd: the connection
 * @token: from RUN
 * @deadline: absolute
 *
 * Return: 0, or pp_sock_write_all()'s error.
 */
int pp_sock_send_token(int fd, uint64_t token, int64_t deadline);

/**
 * pp_sock_accept_token() - a mesh pair's server: the first connection
 * whose first 8 bytes are @token; any other (a stray client, one that
 * sends something else, or nothing within @each_ms) is closed, counted,
 * and the next one waited for, until @deadline
 * @lfd: from pp_sock_listen()
 * @token: from RUN
 * @deadline: absolute
 * @each_ms: how long one connection may take to send its token
 * @fd: the peer's connection, its token read
 * @peer: its numeric address, or NULL
 * @peer_len: room in @peer
 * @strays: how many were closed
 *
 * Return: 0; ETIMEDOUT (no connection with the token by @deadline);
 * ECANCELED; pp_sock_accept()'s other errors.
 */
int pp_sock_accept_token(int lfd, uint64_t token, int64_t deadline, int each_ms,
			 int *fd, char *peer, size_t peer_len,
			 unsigned int *strays);

/**
 * pp_sock_keepalive_for() - keepalive bounds that fit a timeout
 * @timeout_ms: the deadline a silent peer host must be noticed in (-T)
 * @ka: half of it silent, then up to 3 probes over the other half (whole
 *      seconds, at least 1 each: the kernel's unit), so idle + cnt * intvl
 *      is the timeout, rounded up to seconds
 */
void pp_sock_keepalive_for(uint32_t timeout_ms, struct pp_keepalive *ka);

/**
 * pp_sock_keepalive() - turn on TCP keepalive on @fd with the bounds of
 * @timeout_ms (pp_sock_keepalive_for())
 * @fd: a connected TCP socket
 * @timeout_ms: the timeout
 *
 * A peer whose host crashed or whose network is cut sends no FIN: with
 * keepalive the socket fails (ETIMEDOUT) instead of waiting for ever.
 *
 * Return: 0, or the errno of setsockopt().
 */
int pp_sock_keepalive(int fd, uint32_t timeout_ms);

/**
 * pp_sock_silent_peer() - a dead peer host noticed within about @timeout_ms
 * on @fd, whether the connection is idle or holds data of ours the peer has
 * not acknowledged: keepalive (pp_sock_keepalive()) for the first,
 * TCP_USER_TIMEOUT for the second (keepalive sends no probe while data is
 * unacknowledged, and retransmissions alone go on for many minutes)
 * @fd: a connected TCP socket
 * @timeout_ms: the timeout
 *
 * Return: 0, or the errno of setsockopt().
 */
int pp_sock_silent_peer(int fd, uint32_t timeout_ms);

/**
 * pp_sock_share() - the deadline of one of @left addresses still to try
 * @now: the time now (pp_now_ns())
 * @deadline: the deadline of them all
 * @left: addresses left, this one included
 *
 * An equal share of the time left, so that an address that never answers
 * leaves time for the next one; the last one gets all that is left.
 *
 * Return: an absolute deadline, at most @deadline.
 */
int64_t pp_sock_share(int64_t now, int64_t deadline, unsigned int left);

struct addrinfo;

/**
 * pp_sock_connect_list() - connect to the first of @res that answers
 * @res: the addresses, in order (getaddrinfo())
 * @deadline: absolute; each address is tried with a share of the time left
 *            (pp_sock_share()), and the whole list again every 100 ms while
 *            one refuses (nobody listening yet)
 * @fd: the connected descriptor
 *
 * Return: 0; ECONNREFUSED; ETIMEDOUT (no address answered); ECANCELED;
 * another errno from connect().
 */
int pp_sock_connect_list(const struct addrinfo *res, int64_t deadline, int *fd);

/**
 * pp_sock_connect() - connect to the server
 * @host: a host name or an IPv4 or IPv6 literal
 * @port: TCP port, 1..65535
 * @deadline: absolute; a refused connection is retried every 100 ms until
 *            then, so a client may start just before its server; each
 *            address of @host is tried in turn with a share of the time
 *            left (pp_sock_share())
 * @fd: the connected descriptor
 * @err: one line naming the host and port and what to try
 *
 * Return: 0; EADDRNOTAVAIL (@host does not resolve); ECONNREFUSED (nobody
 * listening by the deadline); ETIMEDOUT; ECANCELED (a stop signal,
 * pp_signal.h); another errno from connect().
 */
int pp_sock_connect(const char *host, uint32_t port, int64_t deadline, int *fd,
		    struct pp_err *err);

/**
 * pp_sock_connect_patient() - pp_sock_connect(), retried on every failure
 * until @deadline: a name that does not resolve yet, a host or network
 * that cannot be reached, nobody listening, an address that does not
 * answer; each try at most 5 s, then a pause of 0.1 s doubling to 2 s
 * (give or take a quarter, so that thousands of ranks spread out)
 * @host: the server's host
 * @port: its port
 * @deadline: absolute
 * @fd: the connected socket
 * @err: the last try's error line
 *
 * Return: 0; ECANCELED (a stop signal); EINVAL (@port out of range); else
 * the last try's error (pp_sock_connect()).
 */
int pp_sock_connect_patient(const char *host, uint32_t port, int64_t deadline,
			    int *fd, struct pp_err *err);

/**
 * pp_sock_write_all() - write all of @buf
 * @fd: connected descriptor
 * @buf: data
 * @len: bytes
 * @deadline: absolute
 *
 * Return: 0; ETIMEDOUT (@deadline passed); EPIPE or ECONNRESET (peer gone;
 * never SIGPIPE); EHOSTDOWN (TCP gave up on the peer: keepalive or
 * retransmissions unanswered) or EHOSTUNREACH; ECANCELED (a stop signal,
 * pp_signal.h).
 */
int pp_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline);

/**
 * pp_sock_read_all() - read exactly @len bytes
 * @fd: connected descriptor
 * @buf: where to put them
 * @len: bytes
 * @deadline: absolute
 *
 * Return: 0; ETIMEDOUT (@deadline passed); ECONNRESET (EOF or reset before
 * @len bytes); EHOSTDOWN (TCP gave up on the peer: keepalive or
 * retransmissions unanswered) or EHOSTUNREACH; ECANCELED (a stop signal,
 * pp_signal.h).
 */
int pp_sock_read_all(int fd, void *buf, size_t len, int64_t deadline);

/**
 * pp_sock_readable() - would a read return at once (data, EOF or error)?
 * @fd: connected descriptor
 */
bool pp_sock_readable(int fd);

#endif /* PP_SOCK_H */
