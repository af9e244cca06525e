// SPDX-License-Identifier: MIT
/*
 * pp_serve.c - --persistent and --clients: the server's loop over one client
 * after another, each with fresh resources.
 */
#include <errno.h>
#include <stdio.h>

#include "pp_serve.h"
#include "pp_signal.h"

int pp_serve(struct pp_session *s, int (*run_one)(struct pp_session *s),
	     int (*report)(struct pp_session *s, int ret))
{
	FILE *out = s->o->json ? stderr : stdout;
	/* --clients N: this many, then the end; --persistent: no end */
	unsigned long limit = s->o->persistent ? 0 :
			      s->o->clients    ? s->o->clients :
						 1;
	unsigned long served = 0, failed = 0;
	int ret, first = 0;

	for (;;) {
		/* the stock exchange accepts after the receives are posted */
		ret = s->x->accepts_late ? 0 : pp_session_accept(s);
		if (ret == ECANCELED && !limit) {
			ret = 0; /* between clients: a clean stop */
			break;
		}
		if (ret == ECANCELED)
			break;
		if (ret) {
			report(s, ret);
			return ret;
		}
		ret = run_one(s);
		if (ret && !s->peer_addr[0]) {
			/*
			 * A late accept's run failed before any client came
			 * (its resources, or the listening socket): the next
			 * would fail the same way; its line is printed.
			 */
			pp_session_end_client(s);
			return ret;
		}
		served++;
		failed += ret != 0;
		if (ret && !first)
			first = ret;
		pp_session_end_client(s);
		if (ret == ECANCELED || served == limit)
			break;
	}
	if (limit && ret != ECANCELED) {
		fprintf(out, "served %lu client%s (%lu failed)\n", served,
			served == 1 ? "" : "s", failed);
		return first;
	}
	if (limit)
		fprintf(out,
			"stopped by %s after %lu of %lu clients (%lu failed)\n",
			pp_signal_name(pp_signal_caught()), served, limit,
			failed);
	else
		fprintf(out, "stopped by %s after %lu clients (%lu failed)\n",
			pp_signal_name(pp_signal_caught()), served, failed);
	return ret;
}
