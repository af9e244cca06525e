// SPDX-License-Identifier: MIT
/*
 * pp_serve.c - --persistent: the server's loop over one client after
 * another, each with fresh resources.
 */
#include <errno.h>
#include <stdio.h>

#include "pp_serve.h"
#include "pp_signal.h"

int pp_serve(struct pp_session *s, int (*run_one)(struct pp_session *s),
	     int (*report)(struct pp_session *s, int ret))
{
	unsigned long served = 0, failed = 0;
	int ret;

	for (;;) {
		ret = pp_session_accept(s);
		if (ret == ECANCELED) {
			ret = 0; /* between clients: a clean stop */
			break;
		}
		if (ret) {
			report(s, ret);
			return ret;
		}
		ret = run_one(s);
		served++;
		failed += ret != 0;
		pp_session_end_client(s);
		if (ret == ECANCELED)
			break;
	}
	fprintf(s->o->json ? stderr : stdout,
		"stopped by %s after %lu clients (%lu failed)\n",
		pp_signal_name(pp_signal_caught()), served, failed);
	return ret;
}
