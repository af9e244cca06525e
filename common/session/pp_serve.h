/* SPDX-License-Identifier: MIT */
/*
 * pp_serve.h - --persistent: a server that serves one client after another
 * until SIGINT or SIGTERM; --clients N: N clients, one after another, then
 * the end.  Each client has fresh resources; the device and the listening
 * socket stay.
 */
#ifndef PP_SERVE_H
#define PP_SERVE_H

#include "pp_session.h"

/**
 * pp_serve() - accept clients and run each, until stopped (--persistent) or
 * until @s->o->clients of them ran (--clients; 0: one)
 * @s: an open server session (pp_session_open())
 * @run_one: runs one client's session to its end, prints what there is and
 *           reports a failure; returns 0 or its errno.  It is called with
 *           the client accepted, unless the exchange accepts late
 *           (@s->x->accepts_late: the stock exchange accepts in connect_qps)
 * @report: reports a failure of listen or accept (prints the line)
 *
 * A client that fails costs one line on stderr and the server goes on with
 * the next.  A run that fails before it accepted a client (@s->peer_addr
 * empty: a late accept's resources or socket) ends the server: the next
 * would fail the same way.  At the end, "served N clients (M failed)" (--clients), or
 * "stopped by SIGINT after N clients (M failed)" (--persistent; --clients:
 * "after N of C clients") goes to stdout (to stderr with --json).
 *
 * Return: --persistent: 0 when stopped between clients, ECANCELED when the
 * signal stopped a client's run; --clients: 0 when every client's run
 * succeeded, else the first failure's errno (ECANCELED when a signal
 * stopped the server); the errno of listen or accept, or of a run that
 * failed before its accept.
 */
int pp_serve(struct pp_session *s, int (*run_one)(struct pp_session *s),
	     int (*report)(struct pp_session *s, int ret));

#endif /* PP_SERVE_H */
