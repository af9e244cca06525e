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

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_err.h"

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

/**
 * pp_sock_accept() - wait for one client
 * @lfd: from pp_sock_listen()
 * @deadline: absolute, from pp_deadline(); INT64_MAX waits for ever
 * @fd: the connected descriptor
 * @peer: the client's numeric address, for messages (may be NULL)
 * @peer_len: room in @peer
 *
 * Return: 0; ETIMEDOUT; ECANCELED (a stop signal, pp_signal.h); another
 * errno from accept().
 */
int pp_sock_accept(int lfd, int64_t deadline, int *fd, char *peer,
		   size_t peer_len);

/**
 * pp_sock_connect() - connect to the server
 * @host: a host name or an IPv4 or IPv6 literal
 * @port: TCP port, 1..65535
 * @deadline: absolute; a refused connection is retried every 100 ms until
 *            then, so a client may start just before its server
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
 * pp_sock_write_all() - write all of @buf
 * @fd: connected descriptor
 * @buf: data
 * @len: bytes
 * @deadline: absolute
 *
 * Return: 0; ETIMEDOUT; EPIPE or ECONNRESET (peer gone; never SIGPIPE);
 * ECANCELED (a stop signal, pp_signal.h).
 */
int pp_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline);

/**
 * pp_sock_read_all() - read exactly @len bytes
 * @fd: connected descriptor
 * @buf: where to put them
 * @len: bytes
 * @deadline: absolute
 *
 * Return: 0; ETIMEDOUT; ECONNRESET (EOF or reset before @len bytes);
 * ECANCELED (a stop signal, pp_signal.h).
 */
int pp_sock_read_all(int fd, void *buf, size_t len, int64_t deadline);

/**
 * pp_sock_readable() - would a read return at once (data, EOF or error)?
 * @fd: connected descriptor
 */
bool pp_sock_readable(int fd);

#endif /* PP_SOCK_H */
