// SPDX-License-Identifier: MIT
/*
 * test_signal.c - SIGINT and SIGTERM stop every wait of common/: the flag,
 * the sockets (ECANCELED instead of an EINTR retry), the handshake's line,
 * and the exit status.
 */
#include <check.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_hs.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_time.h"

#define KILL_AFTER_US 100000

/* A child that sends @sig to this process after KILL_AFTER_US. */
static pid_t signal_later(int sig)
{
	pid_t parent = getpid(), pid;

	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		usleep(KILL_AFTER_US);
		kill(parent, sig);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int status;

	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
}

static void pair(int sv[2])
{
	ck_assert_int_eq(
		socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, sv), 0);
}

START_TEST(flag_set_by_signal)
{
	ck_assert_int_eq(pp_signal_install(), 0);
	ck_assert_int_eq(pp_signal_caught(), 0);
	raise(SIGTERM);
	ck_assert_int_eq(pp_signal_caught(), SIGTERM);
	ck_assert_str_eq(pp_signal_name(SIGTERM), "SIGTERM");
	ck_assert_str_eq(pp_signal_name(SIGINT), "SIGINT");
	ck_assert_str_eq(pp_signal_name(SIGHUP), "a signal");
	/* install again: the flag is clear, the handlers are back */
	ck_assert_int_eq(pp_signal_install(), 0);
	ck_assert_int_eq(pp_signal_caught(), 0);
	raise(SIGINT);
	ck_assert_int_eq(pp_signal_caught(), SIGINT);
}
END_TEST

/* The first signal restores the default action: a second one kills. */
START_TEST(second_signal_kills)
{
	ck_assert_int_eq(pp_signal_install(), 0);
	raise(SIGINT);
	ck_assert_int_eq(pp_signal_caught(), SIGINT);
	raise(SIGINT);
	ck_abort_msg("still alive after the second SIGINT");
}
END_TEST

/* A read that waits (deadline 5 s) ends with ECANCELED at the signal. */
START_TEST(read_all_interrupted)
{
	int64_t t0;
	char buf[4];
	pid_t pid;
	int sv[2];

	pair(sv);
	ck_assert_int_eq(pp_signal_install(), 0);
	t0 = pp_now_ns();
	pid = signal_later(SIGINT);
	ck_assert_int_eq(pp_sock_read_all(sv[0], buf, 4, pp_deadline(5000)),
			 ECANCELED);
	ck_assert_int_lt(pp_now_ns() - t0, 3000000000LL);
	reap(pid);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/*
 * With the flag already set, nothing waits any more; data already there is
 * still read (the ERROR to the peer must still go out).
 */
START_TEST(flag_set_before_the_wait)
{
	char buf[4];
	int sv[2];

	pair(sv);
	ck_assert_int_eq(pp_signal_install(), 0);
	raise(SIGINT);
	ck_assert_int_eq(pp_sock_write_all(sv[1], "ping", 4, pp_deadline(1000)),
			 0);
	ck_assert_int_eq(pp_sock_read_all(sv[0], buf, 4, pp_deadline(1000)), 0);
	ck_assert_mem_eq(buf, "ping", 4);
	ck_assert_int_eq(pp_sock_read_all(sv[0], buf, 1, INT64_MAX), ECANCELED);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/*
 * The mesh's loops (rank 0 over every rank, a rank over its pair's child)
 * wait in pp_sock_poll(): a signal ends the wait at once, and one already
 * caught before the wait makes it return without waiting.
 */
START_TEST(poll_interrupted)
{
	struct pollfd pf[2];
	int64_t t0;
	int sv[2], ready = -1;
	pid_t pid;

	pair(sv);
	pf[0] = (struct pollfd){ .fd = sv[0], .events = POLLIN };
	pf[1] = (struct pollfd){ .fd = -1, .events = POLLIN };
	ck_assert_int_eq(pp_signal_install(), 0);
	t0 = pp_now_ns();
	pid = signal_later(SIGTERM);
	ck_assert_int_eq(pp_sock_poll(pf, 2, pp_deadline(5000), &ready),
			 ECANCELED);
	ck_assert_int_lt(pp_now_ns() - t0, 3000000000LL);
	reap(pid);
	t0 = pp_now_ns();
	ck_assert_int_eq(pp_sock_poll(pf, 2, INT64_MAX, &ready), ECANCELED);
	ck_assert_int_lt(pp_now_ns() - t0, 100000000LL);
	/* no signal: the deadline passes with nothing ready */
	ck_assert_int_eq(pp_signal_install(), 0);
	ck_assert_int_eq(pp_sock_poll(pf, 2, pp_deadline(50), &ready), 0);
	ck_assert_int_eq(ready, 0);
	ck_assert_int_eq(write(sv[1], "x", 1), 1);
	ck_assert_int_eq(pp_sock_poll(pf, 2, pp_deadline(1000), &ready), 0);
	ck_assert_int_eq(ready, 1);
	ck_assert(pf[0].revents & POLLIN);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* A write blocked on a full socket buffer ends with ECANCELED. */
START_TEST(write_all_interrupted)
{
	static char big[1 << 20];
	pid_t pid;
	int sv[2];

	pair(sv);
	ck_assert_int_eq(pp_signal_install(), 0);
	pid = signal_later(SIGTERM);
	ck_assert_int_eq(pp_sock_write_all(sv[0], big, sizeof(big),
					   pp_deadline(5000)),
			 ECANCELED);
	reap(pid);
	close(sv[0]);
	close(sv[1]);
}
END_TEST

/* A server waiting for ever for a client stops at SIGINT. */
START_TEST(accept_interrupted)
{
	struct pp_err err;
	uint32_t port;
	int lfd = -1, fd = -1;
	pid_t pid;

	for (port = 20000 + (uint32_t)getpid() % 20000;; port++) {
		if (!pp_sock_listen("127.0.0.1", port, &lfd, &err))
			break;
		ck_assert_int_lt(port, 65000);
	}
	ck_assert_int_eq(pp_signal_install(), 0);
	pid = signal_later(SIGINT);
	ck_assert_int_eq(pp_sock_accept(lfd, INT64_MAX, &fd, NULL, 0),
			 ECANCELED);
	ck_assert_int_eq(fd, -1);
	reap(pid);
	close(lfd);
}
END_TEST

/*
 * A SIGINT that comes between the look at the flag and the wait: modelled
 * by a signal already pending, blocked, when the accept starts.  The wait
 * must unblock it and end at once; a plain poll() with the signal blocked
 * waits for the next client (here: for ever, until the alarm kills it).
 */
START_TEST(accept_signal_in_the_gap)
{
	sigset_t intr, old;
	struct pp_err err;
	uint32_t port;
	int lfd = -1, fd = -1;

	for (port = 20000 + (uint32_t)getpid() % 20000;; port++) {
		if (!pp_sock_listen("127.0.0.1", port, &lfd, &err))
			break;
		ck_assert_int_lt(port, 65000);
	}
	ck_assert_int_eq(pp_signal_install(), 0);
	sigemptyset(&intr);
	sigaddset(&intr, SIGINT);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &intr, &old), 0);
	raise(SIGINT); /* pending: the handler has not run */
	ck_assert_int_eq(pp_signal_caught(), 0);
	alarm(3);
	ck_assert_int_eq(pp_sock_accept(lfd, INT64_MAX, &fd, NULL, 0),
			 ECANCELED);
	alarm(0);
	ck_assert_int_eq(pp_signal_caught(), SIGINT);
	ck_assert_int_eq(fd, -1);
	/* the caller's mask is as it was */
	ck_assert_int_eq(sigprocmask(SIG_SETMASK, &old, &intr), 0);
	ck_assert(sigismember(&intr, SIGINT));
	close(lfd);
}
END_TEST

/* The handshake says what it was waiting for; the peer gets the line. */
START_TEST(hs_recv_interrupted)
{
	struct pp_conn srv = { .is_server = true, .timeout_ms = 5000 };
	struct pp_conn cl = { .is_server = false, .timeout_ms = 1000 };
	struct pp_err err = { .msg = "" };
	struct pp_msg m;
	pid_t pid;
	int sv[2];

	pair(sv);
	srv.fd = sv[0];
	cl.fd = sv[1];
	ck_assert_int_eq(pp_signal_install(), 0);
	pid = signal_later(SIGINT);
	ck_assert_int_eq(pp_hs_recv(&srv, PP_MSG_HELLO, &m, &err), ECANCELED);
	ck_assert_str_eq(
		err.msg,
		"interrupted by SIGINT while waiting for HELLO from the client");
	reap(pid);
	/* after the signal, the ERROR to the peer still goes out */
	pp_hs_send_error(&srv, ECANCELED, err.msg);
	ck_assert_int_eq(pp_hs_recv(&cl, PP_MSG_HELLO, &m, &err), ECONNABORTED);
	ck_assert(err.remote);
	ck_assert_str_eq(
		err.msg,
		"interrupted by SIGINT while waiting for HELLO from the client");
	close(sv[0]);
	close(sv[1]);
}
END_TEST

START_TEST(exit_status)
{
	ck_assert_int_eq(pp_exit_status(0), PP_EXIT_OK);
	ck_assert_int_eq(pp_exit_status(ECANCELED), PP_EXIT_INTR);
	ck_assert_int_eq(PP_EXIT_INTR, 128 + SIGINT);
	ck_assert_int_eq(pp_exit_status(EILSEQ), PP_EXIT_DATA);
	ck_assert_int_eq(pp_exit_status(ECONNABORTED), PP_EXIT_FAIL);
}
END_TEST

static Suite *signal_suite(void)
{
	Suite *s = suite_create("signal");
	TCase *tc = tcase_create("signal");

	tcase_add_test(tc, flag_set_by_signal);
	/*
	 * A test that must die of a signal needs fork mode; tests/valgrind.sh
	 * runs without it (CK_FORK=no), where that death would end the whole
	 * runner.  The normal ctest run, in fork mode, always has it.
	 */
	if (!getenv("CK_FORK") || strcmp(getenv("CK_FORK"), "no"))
		tcase_add_test_raise_signal(tc, second_signal_kills, SIGINT);
	tcase_add_test(tc, read_all_interrupted);
	tcase_add_test(tc, poll_interrupted);
	tcase_add_test(tc, flag_set_before_the_wait);
	tcase_add_test(tc, write_all_interrupted);
	tcase_add_test(tc, accept_interrupted);
	tcase_add_test(tc, accept_signal_in_the_gap);
	tcase_add_test(tc, hs_recv_interrupted);
	tcase_add_test(tc, exit_status);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(signal_suite)
