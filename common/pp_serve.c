// SPDX-License-Identifier: MIT
/*
 * pp_serve.c - the server's side of a session: listen once, then one client
 * after another (--persistent), each with fresh resources.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "pp_session.h"
#include "pp_signal.h"
#include "pp_sock.h"

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
	s->peer_addr[0] = '\0';
	memset(&s->agreed, 0, sizeof(s->agreed));
	memset(&s->peer_done, 0, sizeof(s->peer_done));
	pp_err_clear(&s->err);
	s->peer_told = false;
}
