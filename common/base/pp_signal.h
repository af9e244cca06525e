/* SPDX-License-Identifier: MIT */
/*
 * pp_signal.h - SIGINT and SIGTERM end a run cleanly.
 *
 * The handler only records the signal in a flag; nothing is done inside it.
 * It is installed without SA_RESTART, so a blocking poll() or accept() wait
 * returns EINTR, and every wait of common/ then looks at the flag: pp_sock.c
 * returns ECANCELED instead of retrying, the run loops stop where they
 * are (their polling reads the flag with the clock, about every 256 empty
 * polls, and once per iteration, or every 100 ms in the lean rounds of a
 * read, an atomic or a write: a load, never a system call).  The step
 * that stopped says so in its error line ("interrupted by SIGINT at
 * iteration 12 of 1000"), tells the peer, and returns ECANCELED; the
 * program releases everything, prints the partial result and exits with
 * PP_EXIT_INTR.
 *
 * The first signal also restores the default action of both signals: a
 * second SIGINT or SIGTERM while cleaning up ends the process at once.
 */
#ifndef PP_SIGNAL_H
#define PP_SIGNAL_H

#include <signal.h>
#include <stdbool.h>

/* The signal caught (SIGINT or SIGTERM), or 0.  Read with pp_signal_caught(). */
extern volatile sig_atomic_t pp_signal_flag;

/**
 * pp_signal_install() - catch SIGINT and SIGTERM from now on
 *
 * Clears the flag.  The handlers are installed without SA_RESTART.
 *
 * Return: 0, or the errno of sigaction().
 */
int pp_signal_install(void);

/**
 * pp_signal_caught() - the stop signal caught so far
 *
 * Inline and free of system calls, for the polling loop.
 *
 * Return: SIGINT or SIGTERM, or 0 when none was caught.
 */
static inline int pp_signal_caught(void)
{
	return pp_signal_flag;
}

/**
 * pp_signal_name() - "SIGINT", "SIGTERM", or "a signal"
 * @sig: a signal number
 *
 * Return: a static string.
 */
const char *pp_signal_name(int sig);

#endif /* PP_SIGNAL_H */
