// SPDX-License-Identifier: MIT
/*
 * pp_sock.c - the out-of-band TCP connection.
 *
 * Every descriptor is non-blocking and close-on-exec; every wait is a poll()
 * bounded by the time left to an absolute deadline.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* accept4 */
#endif
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_time.h"

#define PP_RETRY_NS 100000000LL /* a refused connect is retried every 100 ms */
/* a mesh's rank 0 takes thousands of connections at once */
#define PP_BACKLOG SOMAXCONN

/* Milliseconds left to @deadline for poll(): -1 for none, 0 if passed. */
static int ms_left(int64_t deadline)
{
	int64_t left;

	if (deadline == INT64_MAX)
		return -1;
	left = deadline - pp_now_ns();
	if (left <= 0)
		return 0;
	left = (left + 999999) / 1000000;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/*
 * Wait in @wait (ppoll or epoll_pwait) with SIGINT and SIGTERM blocked
 * from the look at the stop flag until the wait unblocks them, so that a
 * signal that comes in between is delivered inside the wait and ends it at
 * once.  Return: as pp_sock_poll().
 */
static int wait_stoppable(int (*wait)(void *arg, int ms,
				      const sigset_t *inside),
			  void *arg, int64_t deadline, int *ready)
{
	sigset_t stop, old, inside;
	int ms, got, rc;

	*ready = 0;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &stop, &old))
		return errno;
	inside = old;
	sigdelset(&inside, SIGINT);
	sigdelset(&inside, SIGTERM);
	for (;;) {
		if (pp_signal_caught()) {
			rc = ECANCELED;
			break;
		}
		ms = ms_left(deadline);
		got = wait(arg, ms, &inside);
		if (got >= 0) {
			*ready = got;
			rc = 0;
			break;
		}
		if (errno != EINTR) {
			rc = errno;
			break;
		}
	}
	(void)sigprocmask(SIG_SETMASK, &old, NULL);
	return rc;
}

struct poll_args {
	struct pollfd *pfd;
	nfds_t n;
};

static int do_ppoll(void *arg, int ms, const sigset_t *inside)
{
	struct poll_args *a = arg;
	struct timespec ts = { .tv_sec = ms / 1000,
			       .tv_nsec = (long)(ms % 1000) * 1000000 };

	return ppoll(a->pfd, a->n, ms < 0 ? NULL : &ts, inside);
}

int pp_sock_poll(struct pollfd *pfd, nfds_t n, int64_t deadline, int *ready)
{
	struct poll_args a = { .pfd = pfd, .n = n };

	return wait_stoppable(do_ppoll, &a, deadline, ready);
}

struct epoll_args {
	int ep;
	struct epoll_event *ev;
	int max;
};

static int do_epoll(void *arg, int ms, const sigset_t *inside)
{
	struct epoll_args *a = arg;

	return epoll_pwait(a->ep, a->ev, a->max, ms, inside);
}

int pp_sock_epoll_wait(int ep, struct epoll_event *ev, int max,
		       int64_t deadline, int *ready)
{
	struct epoll_args a = { .ep = ep, .ev = ev, .max = max };

	return wait_stoppable(do_epoll, &a, deadline, ready);
}

/*
 * Wait until @fd reports @events or @deadline passes (pp_sock_poll()).
 * With the deadline passed, still look once (ms 0): an event already
 * there, such as a refused connect, wins over the timeout.
 * Return: 0 (ready, or an error condition the next call will report);
 * ETIMEDOUT; ECANCELED (SIGINT or SIGTERM, pp_signal.h); another errno from
 * ppoll().
 */
static int wait_fd(int fd, short events, int64_t deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	int ready, rc;

	rc = pp_sock_poll(&pfd, 1, deadline, &ready);
	if (!rc && !ready)
		rc = ETIMEDOUT;
	return rc;
}

/*
 * A connection's own error, as pp_sock_read_all() and pp_sock_write_all()
 * return it: ETIMEDOUT there is TCP giving up on the peer (keepalive probes
 * or a send unanswered: its host crashed, powered off, or the network is
 * cut), not a deadline of ours, which is ETIMEDOUT too; EHOSTDOWN says so.
 */
static int sock_errno(int err)
{
	return err == ETIMEDOUT ? EHOSTDOWN : err;
}

static void set_nodelay(int fd)
{
	int one = 1;

	/* Latency only: a failure here does not stop the handshake. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* "host:port", or "[v6]:port" when @host is an IPv6 literal. */
static void host_port(char *buf, size_t len, const char *host, uint32_t port)
{
	if (strchr(host, ':'))
		snprintf(buf, len, "[%s]:%u", host, port);
	else
		snprintf(buf, len, "%s:%u", host, port);
}

static void listen_err(struct pp_err *err, int rc, const char *bind_addr,
		       uint32_t port)
{
	char where[128] = "";

	if (bind_addr)
		snprintf(where, sizeof(where), " on %s", bind_addr);
	if (rc == EADDRINUSE)
		pp_err_set(
			err,
			"TCP port %u%s is already in use (is another server running? choose another with -p)",
			port, where);
	else if (rc == EADDRNOTAVAIL)
		pp_err_set(
			err,
			"cannot listen on TCP port %u%s: %s (is it an address of this host? see -b)",
			port, where, strerror(rc));
	else
		pp_err_set(err, "cannot listen on TCP port %u%s: %s", port,
			   where, strerror(rc));
}

/* socket + SO_REUSEADDR + bind + listen; returns 0 or errno, *fd on 0. */
static int listen_on(int family, const struct sockaddr *sa, socklen_t salen,
		     bool dual_stack, int *fd)
{
	int one = 1, zero = 0;
	int s, rc;

	s = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return errno;
	if (setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)))
		goto out_close;
	if (dual_stack &&
	    setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero)))
		goto out_close;
	if (bind(s, sa, salen))
		goto out_close;
	if (listen(s, PP_BACKLOG))
		goto out_close;
	*fd = s;
	return 0;

out_close:
	rc = errno;
	close(s);
	return rc;
}

static int listen_any(uint32_t port, int *fd)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = htons((uint16_t)port),
		.sin6_addr = in6addr_any,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = htons((uint16_t)port),
		.sin_addr.s_addr = htonl(INADDR_ANY),
	};
	int rc;

	rc = listen_on(AF_INET6, (struct sockaddr *)&sin6, sizeof(sin6), true,
		       fd);
	if (rc != EAFNOSUPPORT)
		return rc;
	return listen_on(AF_INET, (struct sockaddr *)&sin, sizeof(sin), false,
			 fd);
}

int pp_sock_listen(const char *bind_addr, uint32_t port, int *fd,
		   struct pp_err *err)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_PASSIVE | AI_NUMERICSERV,
	};
	struct addrinfo *res, *ai;
	char serv[16];
	int rc, gai;

	pp_err_clear(err);
	if (port < 1 || port > 65535) {
		pp_err_set(err, "TCP port %u is out of range (1..65535)", port);
		return EINVAL;
	}
	if (!bind_addr) {
		rc = listen_any(port, fd);
		if (rc)
			listen_err(err, rc, NULL, port);
		return rc;
	}

	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(bind_addr, serv, &hints, &res);
	if (gai) {
		pp_err_set(err, "cannot resolve bind address '%s': %s",
			   bind_addr, gai_strerror(gai));
		return EADDRNOTAVAIL;
	}
	rc = EADDRNOTAVAIL;
	for (ai = res; ai; ai = ai->ai_next) {
		rc = listen_on(ai->ai_family, ai->ai_addr, ai->ai_addrlen,
			       false, fd);
		if (!rc)
			break;
	}
	freeaddrinfo(res);
	if (rc)
		listen_err(err, rc, bind_addr, port);
	return rc;
}

enum pp_accept_retry pp_sock_accept_retry(int err)
{
	switch (err) {
	case EINTR:
	case EAGAIN:
#if EWOULDBLOCK != EAGAIN
	case EWOULDBLOCK:
#endif
	/* a client that gave up between poll and accept */
	case ECONNABORTED:
	/* accept(2): the pending network errors, "treat them like EAGAIN" */
	case ENETDOWN:
	case EPROTO:
	case ENOPROTOOPT:
	case EHOSTDOWN:
	case ENONET:
	case EHOSTUNREACH:
	case EOPNOTSUPP:
	case ENETUNREACH:
		return PP_ACCEPT_AGAIN;
	case EMFILE:
	case ENFILE:
	case ENOBUFS:
	case ENOMEM:
		return PP_ACCEPT_BACK_OFF;
	}
	return PP_ACCEPT_FATAL;
}

static int sleep_until(int64_t when);

int pp_sock_accept(int lfd, int64_t deadline, int *fd, char *peer,
		   size_t peer_len)
{
	struct sockaddr_storage ss;
	socklen_t sslen;
	int64_t next;
	int s, rc;

	for (;;) {
		rc = wait_fd(lfd, POLLIN, deadline);
		if (rc)
			return rc;
		sslen = sizeof(ss);
		s = accept4(lfd, (struct sockaddr *)&ss, &sslen,
			    SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (s >= 0)
			break;
		rc = errno;
		switch (pp_sock_accept_retry(rc)) {
		case PP_ACCEPT_FATAL:
			return rc;
		case PP_ACCEPT_BACK_OFF:
			/* out of descriptors or memory: it may pass */
			next = pp_now_ns() + PP_RETRY_NS;
			if (deadline != INT64_MAX && next >= deadline)
				return rc;
			rc = sleep_until(next);
			if (rc)
				return rc;
			break;
		case PP_ACCEPT_AGAIN:
			break;
		}
		if (pp_signal_caught())
			return ECANCELED;
	}
	set_nodelay(s);
	if (peer && peer_len &&
	    getnameinfo((struct sockaddr *)&ss, sslen, peer, peer_len, NULL, 0,
			NI_NUMERICHOST))
		snprintf(peer, peer_len, "?");
	*fd = s;
	return 0;
}

int pp_sock_accept_ready(int lfd, int *fd)
{
	int s = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (s < 0)
		return pp_sock_accept_retry(errno) == PP_ACCEPT_AGAIN ? EAGAIN :
									errno;
	set_nodelay(s);
	*fd = s;
	return 0;
}

int pp_sock_send_token(int fd, uint64_t token, int64_t deadline)
{
	uint8_t b[8];
	int i;

	for (i = 0; i < 8; i++)
		b[i] = (uint8_t)(token >> (56 - 8 * i));
	return pp_sock_write_all(fd, b, sizeof(b), deadline);
}

int pp_sock_accept_token(int lfd, uint64_t token, int64_t deadline, int each_ms,
			 int *fd, char *peer, size_t peer_len,
			 unsigned int *strays)
{
	uint8_t b[8];
	uint64_t got;
	int64_t mine;
	int s, rc, i;

	*strays = 0;
	for (;;) {
		rc = pp_sock_accept(lfd, deadline, &s, peer, peer_len);
		if (rc)
			return rc;
		mine = pp_deadline(each_ms);
		rc = pp_sock_read_all(s, b, sizeof(b),
				      mine < deadline ? mine : deadline);
		for (i = 0, got = 0; !rc && i < 8; i++)
			got = got << 8 | b[i];
		if (!rc && got == token) {
			*fd = s;
			return 0;
		}
		close(s);
		if (rc == ECANCELED)
			return rc;
		(*strays)++;
	}
}

/*
 * One non-blocking connect to @ai, bounded by @deadline.
 * Return: 0 with *fd set; ETIMEDOUT; the connect error (ECONNREFUSED, ...).
 */
static int connect_one(const struct addrinfo *ai, int64_t deadline, int *fd)
{
	socklen_t len = sizeof(int);
	int s, rc, soerr = 0;

	s = socket(ai->ai_family,
		   ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
		   ai->ai_protocol);
	if (s < 0)
		return errno;
	if (connect(s, ai->ai_addr, ai->ai_addrlen) == 0)
		goto out_ok;
	if (errno != EINPROGRESS && errno != EINTR) {
		rc = errno;
		goto out_close;
	}
	rc = wait_fd(s, POLLOUT, deadline);
	if (rc)
		goto out_close;
	if (getsockopt(s, SOL_SOCKET, SO_ERROR, &soerr, &len)) {
		rc = errno;
		goto out_close;
	}
	if (soerr) {
		rc = soerr;
		goto out_close;
	}
out_ok:
	set_nodelay(s);
	*fd = s;
	return 0;

out_close:
	close(s);
	return rc;
}

/* Return: 0, or ECANCELED when a stop signal came (pp_signal.h). */
static int sleep_until(int64_t when)
{
	struct timespec ts = {
		.tv_sec = when / 1000000000,
		.tv_nsec = when % 1000000000,
	};

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR) {
		if (pp_signal_caught())
			return ECANCELED;
	}
	return 0;
}

void pp_sock_keepalive_for(uint32_t timeout_ms, struct pp_keepalive *ka)
{
	uint32_t half_s = (timeout_ms / 2 + 999) / 1000;

	if (!half_s)
		half_s = 1;
	ka->idle_s = (int)half_s;
	ka->cnt = half_s < 3 ? (int)half_s : 3;
	ka->intvl_s =
		(int)((half_s + (uint32_t)ka->cnt - 1) / (uint32_t)ka->cnt);
}

int pp_sock_keepalive(int fd, uint32_t timeout_ms)
{
	struct pp_keepalive ka;
	int one = 1;

	pp_sock_keepalive_for(timeout_ms, &ka);
	if (setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &ka.idle_s,
		       sizeof(ka.idle_s)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &ka.intvl_s,
		       sizeof(ka.intvl_s)) ||
	    setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &ka.cnt, sizeof(ka.cnt)) ||
	    setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one)))
		return errno;
	return 0;
}

int pp_sock_silent_peer(int fd, uint32_t timeout_ms)
{
	unsigned int ms = timeout_ms;
	int ret = pp_sock_keepalive(fd, timeout_ms);

	if (!ret &&
	    setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms)))
		ret = errno;
	return ret;
}

int64_t pp_sock_share(int64_t now, int64_t deadline, unsigned int left)
{
	if (deadline == INT64_MAX || left <= 1 || deadline <= now)
		return deadline;
	return now + (deadline - now) / (int64_t)left;
}

int pp_sock_connect_list(const struct addrinfo *res, int64_t deadline, int *fd)
{
	const struct addrinfo *ai;
	bool refused, timed_out;
	unsigned int n, k;
	int64_t next;
	int rc;

	for (n = 0, ai = res; ai; ai = ai->ai_next)
		n++;
	for (;;) {
		refused = false;
		timed_out = false;
		rc = ECONNREFUSED;
		for (k = 0, ai = res; ai; ai = ai->ai_next, k++) {
			rc = connect_one(
				ai, pp_sock_share(pp_now_ns(), deadline, n - k),
				fd);
			if (!rc || rc == ECANCELED)
				return rc;
			if (rc == ECONNREFUSED)
				refused = true;
			/* a silent address: the next one gets the rest */
			if (rc == ETIMEDOUT)
				timed_out = true;
		}
		/* Only "nobody listening yet" is worth another try. */
		if (!refused)
			return timed_out ? ETIMEDOUT : rc;
		next = pp_now_ns() + PP_RETRY_NS;
		if (deadline != INT64_MAX && next >= deadline)
			return ECONNREFUSED;
		rc = sleep_until(next);
		if (rc)
			return rc;
	}
}

int pp_sock_connect(const char *host, uint32_t port, int64_t deadline, int *fd,
		    struct pp_err *err)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res;
	char serv[16], where[300];
	int rc, gai;

	pp_err_clear(err);
	if (port < 1 || port > 65535) {
		pp_err_set(err, "TCP port %u is out of range (1..65535)", port);
		return EINVAL;
	}
	snprintf(serv, sizeof(serv), "%u", port);
	gai = getaddrinfo(host, serv, &hints, &res);
	if (gai) {
		pp_err_set(err, "cannot resolve '%s': %s", host,
			   gai == EAI_SYSTEM ? strerror(errno) :
					       gai_strerror(gai));
		return EADDRNOTAVAIL;
	}
	host_port(where, sizeof(where), host, port);
	rc = pp_sock_connect_list(res, deadline, fd);
	freeaddrinfo(res);
	if (rc == ECONNREFUSED)
		pp_err_set(
			err,
			"no server at %s (connection refused; is it running? same -p?)",
			where);
	else if (rc == ETIMEDOUT)
		pp_err_set(
			err,
			"connecting to %s timed out (is the host reachable? raise -T/--timeout)",
			where);
	else if (rc == ECANCELED)
		pp_err_set(err, "interrupted by %s while connecting to %s",
			   pp_signal_name(pp_signal_caught()), where);
	else if (rc)
		pp_err_set(err, "connecting to %s failed: %s", where,
			   strerror(rc));
	return rc;
}

int pp_sock_connect_patient(const char *host, uint32_t port, int64_t deadline,
			    int *fd, struct pp_err *err)
{
	int64_t pause = PP_RETRY_NS, now, next;
	unsigned int seed = (unsigned int)getpid() ^ (unsigned int)pp_now_ns();
	int rc;

	for (;;) {
		now = pp_now_ns();
		next = now + 5 * 1000000000LL;
		rc = pp_sock_connect(
			host, port, next < deadline ? next : deadline, fd, err);
		if (!rc || rc == ECANCELED || rc == EINVAL)
			return rc;
		now = pp_now_ns();
		if (now >= deadline)
			return rc;
		/* 0.75 to 1.25 times the pause; the last try at the deadline */
		next = now + pause * 3 / 4 +
		       (int64_t)(rand_r(&seed) % 1000) * (pause / 2000);
		if (next > deadline)
			next = deadline;
		if (sleep_until(next)) {
			pp_err_set(err, "interrupted by %s while connecting",
				   pp_signal_name(pp_signal_caught()));
			return ECANCELED;
		}
		pause = pause * 2 > 2000000000LL ? 2000000000LL : pause * 2;
	}
}

int pp_sock_write_all(int fd, const void *buf, size_t len, int64_t deadline)
{
	const char *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR) {
			if (pp_signal_caught())
				return ECANCELED;
			continue;
		}
		if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return sock_errno(errno);
		rc = wait_fd(fd, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

int pp_sock_read_all(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;
	ssize_t n;
	int rc;

	while (len) {
		n = recv(fd, p, len, 0);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return ECONNRESET;
		if (errno == EINTR) {
			if (pp_signal_caught())
				return ECANCELED;
			continue;
		}
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return sock_errno(errno);
		rc = wait_fd(fd, POLLIN, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

bool pp_sock_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&pfd, 1, 0);
	} while (n < 0 && errno == EINTR);
	return n > 0 && (pfd.revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL));
}
