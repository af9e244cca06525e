// SPDX-License-Identifier: MIT
/*
 * test_interop.c - the --rdma-core exchange over a socketpair, against
 * hand-written stock bytes: one write() per record (a SOCK_SEQPACKET pair
 * keeps the boundaries of each write, so a record split in two or two glued
 * together would show), the srq 256 records, the XRC record, "done", the
 * xsrq END exchange in its order (a child plays the stock peer), malformed
 * and truncated records, the printed command line, and the option limits.
 * XRC cannot run on Soft-RoCE: these bytes are its only test.
 */
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/wait.h>

#include "check_main.h"
#include "pp_interop.h"
#include "pp_rdmacore.h"

#define REC_ROCE "0000:000011:1a2b3c:00000000000000000000ffff0a630001"
#define REC_TWO "0000:000012:00abcd:00000000000000000000ffff0a630001"
#define REC_ZERO "0000:000000:000000:00000000000000000000000000000000"
#define XRC_REC \
	"0003:0000a1:0000b2:123456:0000c3:fe80000000000000021122fffe334455"

/* ::ffff:10.99.0.1 */
static const uint8_t gid_roce
	[16] = { [10] = 0xff, [11] = 0xff, [12] = 0x0a, [13] = 0x63, [15] = 0x01 };

static int sv[2]; /* sv[0]: ours (non-blocking), sv[1]: the stock peer */

static void pair(int type)
{
	ck_assert_int_eq(socketpair(AF_UNIX, type | SOCK_NONBLOCK, 0, sv), 0);
}

static struct pp_interop_link link_of(enum pp_transport t, bool is_server)
{
	return (struct pp_interop_link){
		.fd = sv[0],
		.is_server = is_server,
		.transport = t,
		.timeout_ms = 2000,
	};
}

/* Read one packet of the SOCK_SEQPACKET peer: one write() of ours. */
static ssize_t peer_packet(char *buf, size_t len)
{
	ssize_t n;

	do {
		n = recv(sv[1], buf, len, MSG_TRUNC);
	} while (n < 0 && errno == EAGAIN && !usleep(1000));
	return n;
}

static void peer_write(const void *buf, size_t len)
{
	ck_assert_int_eq(write(sv[1], buf, len), (ssize_t)len);
}

static struct pp_addr addr_roce(uint32_t qpn, uint32_t psn)
{
	struct pp_addr a = { .qpn = qpn, .psn = psn };

	memcpy(a.gid, gid_roce, 16);
	return a;
}

START_TEST(test_send_one_record)
{
	struct pp_interop_link l;
	struct pp_addr a = addr_roce(0x11, 0x1a2b3c);
	struct pp_err err = { 0 };
	char pkt[256];

	pair(SOCK_SEQPACKET);
	l = link_of(PP_TR_RC, false);
	ck_assert_int_eq(pp_interop_send_addrs(&l, &a, 1, &err), 0);
	ck_assert_int_eq(peer_packet(pkt, sizeof(pkt)), PP_RDMACORE_REC_LEN);
	ck_assert_mem_eq(pkt, REC_ROCE, sizeof(REC_ROCE));
	ck_assert_int_eq(pp_interop_send_done(&l, &err), 0);
	ck_assert_int_eq(peer_packet(pkt, sizeof(pkt)), PP_RDMACORE_DONE_LEN);
	ck_assert_mem_eq(pkt, "done", sizeof("done"));
}
END_TEST

START_TEST(test_recv_one_record)
{
	struct pp_interop_link l;
	struct pp_addr a, want = addr_roce(0x11, 0x1a2b3c);
	struct pp_err err = { 0 };

	pair(SOCK_STREAM);
	l = link_of(PP_TR_UD, true);
	peer_write(REC_ROCE, sizeof(REC_ROCE));
	peer_write("done", sizeof("done"));
	ck_assert_int_eq(pp_interop_recv_addrs(&l, &a, 1, &err), 0);
	ck_assert_uint_eq(a.qpn, want.qpn);
	ck_assert_uint_eq(a.psn, want.psn);
	ck_assert_uint_eq(a.lid, 0);
	ck_assert_mem_eq(a.gid, want.gid, 16);
	ck_assert_int_eq(pp_interop_recv_done(&l, &err), 0);
}
END_TEST

/* The child plays the stock peer: 256 packets, one record each. */
static int srq_reader(void)
{
	char pkt[256];
	int i;

	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++) {
		if (peer_packet(pkt, sizeof(pkt)) != PP_RDMACORE_REC_LEN)
			return 2;
		if (memcmp(pkt,
			   i == 0 ? REC_ROCE :
			   i == 1 ? REC_TWO :
				    REC_ZERO,
			   PP_RDMACORE_REC_LEN))
			return 3;
	}
	return 0;
}

START_TEST(test_srq_records)
{
	struct pp_addr mine[2] = { addr_roce(0x11, 0x1a2b3c),
				   addr_roce(0x12, 0xabcd) };
	struct pp_addr theirs[2];
	struct pp_interop_link l;
	struct pp_err err = { 0 };
	int i, status;
	pid_t pid;

	pair(SOCK_SEQPACKET);
	l = link_of(PP_TR_SRQ, false);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid)
		_exit(srq_reader());
	ck_assert_int_eq(pp_interop_send_addrs(&l, mine, 2, &err), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);

	/* the stock side's 256 records back: the same two QPs */
	close(sv[0]);
	close(sv[1]);
	pair(SOCK_STREAM);
	l.fd = sv[0];
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++)
		peer_write(i == 0 ? REC_ROCE :
			   i == 1 ? REC_TWO :
				    REC_ZERO,
			   PP_RDMACORE_REC_LEN);
	ck_assert_int_eq(pp_interop_recv_addrs(&l, theirs, 2, &err), 0);
	ck_assert_uint_eq(theirs[0].qpn, 0x11);
	ck_assert_uint_eq(theirs[1].qpn, 0x12);
	ck_assert_uint_eq(theirs[1].psn, 0xabcd);
}
END_TEST

/* The stock peer runs -q 1 and we run -q 2: named before any QP moves. */
START_TEST(test_srq_count_mismatch)
{
	struct pp_interop_link l;
	struct pp_addr theirs[2];
	struct pp_err err = { 0 };
	int i;

	pair(SOCK_STREAM);
	l = link_of(PP_TR_SRQ, true);
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++)
		peer_write(i == 0 ? REC_ROCE : REC_ZERO, PP_RDMACORE_REC_LEN);
	ck_assert_int_eq(pp_interop_recv_addrs(&l, theirs, 2, &err), EPROTO);
	ck_assert_str_eq(
		err.msg,
		"the stock client has 1 QPs, this side 2: give both the same -q");
}
END_TEST

START_TEST(test_xrc_records)
{
	struct pp_addr mine = {
		.lid = 3,
		.tgt_qpn = 0xa1,
		.qpn = 0xb2,
		.psn = 0x123456,
		.srqn = 0xc3,
		.gid = { 0xfe,
			 0x80, [8] = 0x02, [9] = 0x11, [10] = 0x22, [11] = 0xff,
			 [12] = 0xfe, [13] = 0x33, [14] = 0x44, [15] = 0x55 },
	};
	struct pp_interop_link l;
	struct pp_addr theirs;
	struct pp_err err = { 0 };
	char pkt[256];

	pair(SOCK_SEQPACKET);
	l = link_of(PP_TR_XRC, false);
	ck_assert_int_eq(pp_interop_send_addrs(&l, &mine, 1, &err), 0);
	ck_assert_int_eq(peer_packet(pkt, sizeof(pkt)), PP_RDMACORE_XRC_LEN);
	ck_assert_mem_eq(pkt, XRC_REC, sizeof(XRC_REC));
	peer_write(XRC_REC, sizeof(XRC_REC));
	ck_assert_int_eq(pp_interop_recv_addrs(&l, &theirs, 1, &err), 0);
	ck_assert_uint_eq(theirs.tgt_qpn, 0xa1);
	ck_assert_uint_eq(theirs.qpn, 0xb2);
	ck_assert_uint_eq(theirs.srqn, 0xc3);
	ck_assert_uint_eq(theirs.psn, 0x123456);
}
END_TEST

/* Malformed, truncated and silent peers: one line, never a hang. */
START_TEST(test_recv_bad)
{
	struct pp_interop_link l;
	struct pp_addr a;
	struct pp_err err = { 0 };
	char rec[] = REC_ROCE;

	pair(SOCK_STREAM);
	l = link_of(PP_TR_RC, false);
	rec[4] = ';';
	peer_write(rec, sizeof(rec));
	ck_assert_int_eq(pp_interop_recv_addrs(&l, &a, 1, &err), EPROTO);
	ck_assert_ptr_nonnull(strstr(
		err.msg, "malformed address record from the stock server"));
	ck_assert_ptr_nonnull(strstr(err.msg, "ibv_rc_pingpong"));
}
END_TEST

START_TEST(test_recv_truncated)
{
	struct pp_interop_link l;
	struct pp_addr a;
	struct pp_err err = { 0 };

	pair(SOCK_STREAM);
	l = link_of(PP_TR_UC, true);
	peer_write(REC_ROCE, 20);
	close(sv[1]);
	ck_assert_int_eq(pp_interop_recv_addrs(&l, &a, 1, &err), ECONNRESET);
	ck_assert_ptr_nonnull(strstr(
		err.msg,
		"the stock client closed the connection before its whole address record arrived"));
	ck_assert_ptr_nonnull(strstr(err.msg, "ibv_uc_pingpong"));
}
END_TEST

START_TEST(test_recv_silent)
{
	struct pp_interop_link l;
	struct pp_addr a;
	struct pp_err err = { 0 };

	pair(SOCK_STREAM);
	l = link_of(PP_TR_RC, false);
	l.timeout_ms = 100;
	peer_write(REC_ROCE, 51); /* one byte short: the NUL */
	ck_assert_int_eq(pp_interop_recv_addrs(&l, &a, 1, &err), ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(err.msg, "timed out after 100 ms"));
}
END_TEST

START_TEST(test_recv_done_bad)
{
	struct pp_interop_link l;
	struct pp_err err = { 0 };

	pair(SOCK_STREAM);
	l = link_of(PP_TR_RC, true);
	peer_write("DONE", 5);
	ck_assert_int_eq(pp_interop_recv_done(&l, &err), EPROTO);
	ck_assert_ptr_nonnull(strstr(err.msg, "malformed token"));
}
END_TEST

/*
 * xsrq client: it writes END first, then waits for the server's.  The child
 * is a stock server: it reads 4 bytes before it answers, so a client that
 * waited first would time out.
 */
START_TEST(test_end_client)
{
	struct pp_interop_link l;
	struct pp_err err = { 0 };
	int status;
	pid_t pid;

	pair(SOCK_STREAM);
	l = link_of(PP_TR_XRC, false);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		char tok[4];
		ssize_t n;
		size_t got = 0;

		while (got < 4) {
			n = read(sv[1], tok + got, 4 - got);
			if (n <= 0 && !(n < 0 && errno == EAGAIN))
				_exit(2);
			if (n < 0)
				usleep(1000);
			else
				got += (size_t)n;
		}
		if (memcmp(tok, "END", 4))
			_exit(3);
		_exit(write(sv[1], "END", 4) == 4 ? 0 : 4);
	}
	ck_assert_int_eq(pp_interop_end(&l, &err), 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 0);
}
END_TEST

START_TEST(test_end_client_bad_answer)
{
	struct pp_interop_link l;
	struct pp_err err = { 0 };
	char tok[8];

	pair(SOCK_STREAM);
	l = link_of(PP_TR_XRC, false);
	peer_write("end", 4);
	ck_assert_int_eq(pp_interop_end(&l, &err), EPROTO);
	ck_assert_int_eq(read(sv[1], tok, sizeof(tok)), 4);
	ck_assert_mem_eq(tok, "END", 4);
}
END_TEST

START_TEST(test_end_client_peer_gone)
{
	struct pp_interop_link l;
	struct pp_err err = { 0 };
	char tok[8];

	pair(SOCK_STREAM);
	l = link_of(PP_TR_XRC, false);
	shutdown(sv[1], SHUT_WR);
	ck_assert_int_eq(pp_interop_end(&l, &err), ECONNRESET);
	ck_assert_int_eq(read(sv[1], tok, sizeof(tok)), 4);
}
END_TEST

/* xsrq server: it waits for the client's END and only then answers. */
START_TEST(test_end_server)
{
	struct pp_interop_link l;
	struct pp_err err = { 0 };
	char tok[8];

	pair(SOCK_STREAM);
	l = link_of(PP_TR_XRC, true);
	l.timeout_ms = 100;
	ck_assert_int_eq(pp_interop_end(&l, &err), ETIMEDOUT);
	/* nothing was written before the client's END */
	ck_assert_int_eq(recv(sv[1], tok, sizeof(tok), MSG_DONTWAIT), -1);
	ck_assert_int_eq(errno, EAGAIN);
	l.timeout_ms = 2000;
	peer_write("END", 4);
	ck_assert_int_eq(pp_interop_end(&l, &err), 0);
	ck_assert_int_eq(read(sv[1], tok, sizeof(tok)), 4);
	ck_assert_mem_eq(tok, "END", 4);
}
END_TEST

static struct pp_opts opts(enum pp_tool tool, const char *host)
{
	struct pp_opts o;

	pp_opts_init(&o, tool, "test");
	o.host = host;
	o.rdma_core = true;
	return o;
}

START_TEST(test_peer_cmd)
{
	struct pp_opts o = opts(PP_TOOL_RC, "10.0.0.1");
	char buf[256];

	ck_assert_int_eq(pp_interop_peer_cmd(&o, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ibv_rc_pingpong -s 4096 -n 1000 -m 1024 -g 1");
	o.transport = PP_TR_UC;
	o.validate = true;
	o.port = 20000;
	o.host = NULL;
	ck_assert_int_eq(pp_interop_peer_cmd(&o, -1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(
		buf,
		"ibv_uc_pingpong -p 20000 -s 4096 -n 1000 -m 1024 -c <this-host>");
	o = opts(PP_TOOL_UD, "h");
	ck_assert_int_eq(pp_interop_peer_cmd(&o, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ibv_ud_pingpong -s 1024 -n 1000 -g 1");
	o = opts(PP_TOOL_SRQ, "h");
	o.mtu = 2048;
	ck_assert_int_eq(pp_interop_peer_cmd(&o, 1, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf,
			 "ibv_srq_pingpong -s 4096 -n 1000 -m 2048 -q 16 -g 1");
	o = opts(PP_TOOL_XRC, "h");
	ck_assert_int_eq(pp_interop_peer_cmd(&o, 0, buf, sizeof(buf)), 0);
	ck_assert_str_eq(buf, "ibv_xsrq_pingpong -s 4096 -n 1000 -m 1024 -g 0");
	ck_assert_int_eq(pp_interop_peer_cmd(&o, 0, buf, 10), ENOSPC);
	ck_assert_uint_lt(strlen(buf), 10);
}
END_TEST

START_TEST(test_check_opts)
{
	struct pp_opts o = opts(PP_TOOL_SRQ, "h");
	struct pp_err err = { 0 };

	/* ibv_srq_pingpong: num_qp must be less than MAX_QP (256) */
	o.num_qps = 255;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), 0);
	o.num_qps = 256;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"-q 256: ibv_srq_pingpong takes fewer than 256 QPs (use -q 255 or less)");
	o = opts(PP_TOOL_XRC, "h");
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), 0);
	o.validate = true;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"-c: ibv_xsrq_pingpong does not validate data (its -c is the number of clients: our --clients)");
	o.validate = false;
	/* a server of stock clients, one after another */
	o = opts(PP_TOOL_XRC, NULL);
	o.clients = 3;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), 0);
	o = opts(PP_TOOL_XRC, "h");
	o.num_qps = 2;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), EINVAL);
	o = opts(PP_TOOL_RC, NULL);
	o.persistent = true;
	ck_assert_int_eq(pp_interop_check_opts(&o, &err), EINVAL);
	o = opts(PP_TOOL_UD, NULL);
	ck_assert_uint_eq(pp_interop_path_mtu(&o), 0);
	o = opts(PP_TOOL_RC, NULL);
	ck_assert_uint_eq(pp_interop_path_mtu(&o), PP_INTEROP_MTU);
}
END_TEST

static Suite *interop_suite(void)
{
	Suite *s = suite_create("interop");
	TCase *tc;

	tc = tcase_create("records");
	tcase_add_test(tc, test_send_one_record);
	tcase_add_test(tc, test_recv_one_record);
	tcase_add_test(tc, test_srq_records);
	tcase_add_test(tc, test_srq_count_mismatch);
	tcase_add_test(tc, test_xrc_records);
	tcase_add_test(tc, test_recv_bad);
	tcase_add_test(tc, test_recv_truncated);
	tcase_add_test(tc, test_recv_silent);
	tcase_add_test(tc, test_recv_done_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("end");
	tcase_add_test(tc, test_end_client);
	tcase_add_test(tc, test_end_client_bad_answer);
	tcase_add_test(tc, test_end_client_peer_gone);
	tcase_add_test(tc, test_end_server);
	suite_add_tcase(s, tc);

	tc = tcase_create("options");
	tcase_add_test(tc, test_peer_cmd);
	tcase_add_test(tc, test_check_opts);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	return pp_check_run(interop_suite());
}
