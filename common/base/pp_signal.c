// SPDX-License-Identifier: MIT
/*
 * pp_signal.c - SIGINT and SIGTERM end a run cleanly.
 */
#include <errno.h>
#include <stddef.h>

#include "pp_signal.h"

volatile sig_atomic_t pp_signal_flag;

static void on_stop_signal(int sig)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	pp_signal_flag = sig;
	/* A second signal while cleaning up ends the process at once. */
	sigemptyset(&dfl.sa_mask);
	sigaction(SIGINT, &dfl, NULL);
	sigaction(SIGTERM, &dfl, NULL);
}

int pp_signal_install(void)
{
	struct sigaction sa = {
		.sa_handler = on_stop_signal,
		.sa_flags = 0, /* no SA_RESTART: blocking waits see EINTR */
	};

	pp_signal_flag = 0;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	if (sigaction(SIGINT, &sa, NULL) || sigaction(SIGTERM, &sa, NULL))
		return errno;
	return 0;
}

const char *pp_signal_name(int sig)
{
	switch (sig) {
	case SIGINT:
		return "SIGINT";
	case SIGTERM:
		return "SIGTERM";
	}
	return "a signal";
}
