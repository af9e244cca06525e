// SPDX-License-Identifier: MIT
#include <stdarg.h>
#include <stdio.h>

#include "pp_err.h"

const struct pp_exit_doc pp_exit_docs[] = {
	{ PP_EXIT_OK,
	  "every iteration completed and, with **-c**, every byte matched; also a **\\-\\-persistent** server stopped by SIGINT or SIGTERM while it waited for its next client." },
	{ PP_EXIT_FAIL,
	  "a failure on this side or at the peer, whose line is printed as *server: ...* or *client: ...*: the device, the handshake (a refusal or a mismatch: both sides print the same line), resources, a completion error, a deadline (**-T**), the peer gone, UD iterations lost, or the peer stopped by a signal." },
	{ PP_EXIT_USAGE,
	  "a bad command line: one line names the option, the value and what is allowed." },
	{ PP_EXIT_DATA,
	  "received data did not match (**-c**), or an atomic's word was not the value expected (checked without **-c** too); the line names the message and the byte, or the word." },
	{ PP_EXIT_FLAGGED,
	  "every pair (or, in a pair run, every iteration) ran, but a threshold (**\\-\\-expect-mtu**, **\\-\\-max-rtt**) or a mesh verdict (a slow or failing NIC, host or link) flagged something; one line names each, with the figure, the limit and what to do." },
	{ PP_EXIT_INTR,
	  "SIGINT or SIGTERM stopped this side (128 + SIGINT, for either signal) in a run, a handshake or the wait for a client (a **\\-\\-persistent** server: in a client's run). It prints the result of the iterations completed, tells the peer, releases everything and exits 130; the peer prints *client: interrupted by SIGINT at iteration N of M* (or *server: ...*) and exits 1. A second signal while it cleans up ends it at once." },
};
const size_t pp_exit_ndocs = sizeof(pp_exit_docs) / sizeof(pp_exit_docs[0]);

void pp_err_set(struct pp_err *e, const char *fmt, ...)
{
	va_list ap;
	char *p;

	if (!e)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	for (p = e->msg; *p; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p == 0x7f)
			*p = '?';
	e->remote = false;
}

void pp_err_clear(struct pp_err *e)
{
	if (!e)
		return;
	e->msg[0] = '\0';
	e->remote = false;
}
