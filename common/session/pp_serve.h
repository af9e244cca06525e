/* SPDX-License-Identifier: MIT */
/*
 * pp_serve.h - --persistent: a server that serves one client after another
 * until SIGINT or SIGTERM, each with fresh resources; the device and the
 * listening socket stay.
 */
#ifndef PP_SERVE_H
#define PP_SERVE_H

#include "pp_session.h"

/**
 * pp_serve() - accept clients and run each, until stopped
 * @s: an open server session (pp_session_open())
 * @run_one: runs one accepted client's session to its end, prints what there
 *           is and reports a failure; returns 0 or its errno
 * @report: reports a failure of listen or accept (prints the line)
 *
 * A client that fails costs one line on stderr and the server goes on.  At
 * the end, "stopped by SIGINT after N clients (M failed)" goes to stdout
 * (to stderr with --json).
 *
 * Return: 0 when stopped between clients; ECANCELED when the signal stopped
 * a client's run; the errno of listen or accept.
 */
int pp_serve(struct pp_session *s, int (*run_one)(struct pp_session *s),
	     int (*report)(struct pp_session *s, int ret));

#endif /* PP_SERVE_H */
