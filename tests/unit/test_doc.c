// SPDX-License-Identifier: MIT
/*
 * test_doc.c - the --json document of a run (pp_doc_write()), on
 * sessions filled by hand: no device is needed.  Python's json module
 * parses each document and checks every field of docs/json.md.
 */
#define _GNU_SOURCE /* asprintf */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "check_main.h"
#include "pp_doc.h"
#include "pp_main.h"

#define NSIZES 3

static struct pp_opts o;
static struct pp_session s;
static struct pp_res res;
static struct pp_addr local, remote;
static uint64_t samples[NSIZES][100];

/* A client that ran a sweep of 1, 2 and 4 bytes, 100 iterations each. */
static void session_sweep(void)
{
	size_t k, i;

	pp_opts_init(&o, PP_TOOL_RC, "rc_pingpong");
	o.host = "10.0.0.2";
	o.sweep = true;
	o.warmup = 5;
	o.set |= PP_OPT_BIT(PP_OPT_SWEEP);
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.started = 1795000000; /* 2026-11-18T11:06:40Z */
	s.caps = (struct pp_port_caps){
		.devname = "rxe0",
		.ib_port = 1,
		.link_layer = IBV_LINK_LAYER_ETHERNET,
		.active_mtu = 1024,
	};
	s.gid_index = 1;
	s.pkey_index = 3;
	s.qcfg.use_grh = true;
	memcpy(s.gid, "\0\0\0\0\0\0\0\0\0\0\xff\xff\x0a\x63\x00\x01", 16);
	s.gid_type = PP_GID_TYPE_ROCE_V2;
	s.gid_auto = true;
	s.conn.fd = -1;
	s.agreed = (struct pp_hello){
		.tool = PP_TOOL_RC,
		.transport = PP_TR_RC,
		.flags = PP_F_SWEEP,
		.mtu = 1024,
		.size = 4,
		.iters = 100,
		.rx_depth = 500,
		.num_qps = 1,
		.warmup = 5,
		.hop_limit = 64,
		.tclass = 0x6a,
		.pkey = 0x8001,
		.flow_label = 0xabcde,
		.qp_timeout = 10,
		.retry_count = 1,
		.rnr_retry = 7,
	};
	local = (struct pp_addr){ .qpn = 17, .psn = 0x123456 };
	remote = (struct pp_addr){ .qpn = 18, .psn = 0x654321 };
	memcpy(local.gid, s.gid, 16);
	memcpy(remote.gid, s.gid, 16);
	res.num_qps = 1;
	res.local = &local;
	s.res = &res;
	s.remote = &remote;
	s.nsizes = pp_sweep_sizes(&s.agreed, s.sizes);
	ck_assert_uint_eq(s.nsizes, NSIZES);
	for (k = 0; k < NSIZES; k++) {
		for (i = 0; i < 100; i++)
			samples[k][i] = 10000 + 1000 * k + i * 10;
		s.results[k] = (struct pp_run_result){
			.size = s.sizes[k],
			.completed = 100,
			.seconds = 0.0012 * (double)(k + 1),
			.samples = samples[k],
			.nsamples = 100,
			.posts = 100,
			.post_ns = 100 * (2000 + 500 * k),
			.post_max_ns = 9000 + k,
		};
	}
	s.nresults = NSIZES;
}

/* The document of @s as text, malloc'ed. */
static char *doc_text(int exit_status, const char *error)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pp_doc_write(&s, f, exit_status, error), 0);
	fclose(f);
	return text;
}

/*
 * Python's json module reads @text; @checks (Python statements over the
 * document d) must hold.  Returns the exit status; 77 without python3.
 */
static int python_check(const char *text, const char *checks)
{
	char *cmd = NULL;
	FILE *p;
	int st;

	if (system("command -v python3 >/dev/null 2>&1"))
		return 77;
	ck_assert_int_gt(
		asprintf(&cmd,
			 "python3 -c '"
			 "import json, sys\n"
			 "text = sys.stdin.read()\n"
			 "assert text.count(\"\\n\") == 1 and text.endswith(\"\\n\"), \"one line\"\n"
			 "d = json.loads(text)\n"
			 "%s\n'",
			 checks),
		0);
	p = popen(cmd, "w");
	ck_assert_ptr_nonnull(p);
	fputs(text, p);
	st = pclose(p);
	free(cmd);
	ck_assert_int_ne(st, -1);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* The document @text passes the Python @checks; python3 is required. */
static void expect_doc(const char *text, const char *checks)
{
	int ret = python_check(text, checks);

	if (ret == 77)
		ck_abort_msg("python3 is needed to parse the document");
	ck_assert_msg(ret == 0, "document failed the checks:\n%s", text);
}

/* Every field of schema 1 (docs/json.md), as Python. */
static const char fields[] =
	"top = [\"schema\", \"version\", \"software\", \"tool\", \"role\", \"transport\", \"started\", \"host\", \"peer\", \"device\", \"params\", \"addresses\", \"results\", \"counters\", \"clock\", \"thresholds\", \"status\"]\n"
	"assert sorted(d) == sorted(top), sorted(d)\n"
	"assert d[\"schema\"] == 1\n"
	"sw = d[\"software\"]\n"
	"assert sorted(sw) == [\"git\", \"libibverbs\", \"libibverbs_built\"], sw\n"
	"assert all(v is None or (isinstance(v, str) and v) for v in sw.values()), sw\n"
	"assert sw[\"libibverbs_built\"] is not None, sw\n"
	"assert sorted(d[\"device\"]) == sorted([\"name\", \"port\", \"link_layer\", \"lid\", \"active_mtu\", \"pkey_index\", \"gid_index\", \"gid\", \"gid_type\", \"gid_auto\", \"grh\", \"numa_node\", \"cpu\", \"cpu_rule\"])\n"
	"assert sorted(d[\"params\"]) == sorted([\"op\", \"size\", \"sweep\", \"iters\", \"duration_s\", \"warmup\", \"rx_depth\", \"mtu\", \"sl\", \"hop_limit\", \"tclass\", \"pkey\", \"flow_label\", \"num_qps\", \"qp_timeout\", \"retry_count\", \"rnr_retry\", \"use_event\", \"hugepages\", \"validate\", \"inline\", \"counters\", \"timeout_ms\", \"tcp_port\", \"interval_s\"])\n"
	"assert sorted(d[\"addresses\"]) == [\"local\", \"remote\"]\n"
	"assert sorted(d[\"status\"]) == [\"error\", \"exit\"]\n"
	"assert sorted(d[\"thresholds\"]) == sorted([\"expect_mtu\", \"path_mtu\", \"max_rtt_usec\", \"median_usec\", \"exceeded\", \"lines\"]), d[\"thresholds\"]\n"
	"assert len(d[\"thresholds\"][\"exceeded\"]) == len(d[\"thresholds\"][\"lines\"])\n"
	"if d[\"clock\"] is not None:\n"
	"    assert sorted(d[\"clock\"]) == sorted([\"source\", \"ghz\", \"why\", \"diff_ns\", \"elapsed_ns\", \"differs\"]), d[\"clock\"]\n"
	"for r in d[\"results\"]:\n"
	"    assert sorted(r) == sorted([\"size\", \"completed\", \"lost\", \"figures\", \"histogram\", \"post_send_usec\"])\n"
	"    if r[\"post_send_usec\"] is not None:\n"
	"        assert sorted(r[\"post_send_usec\"]) == sorted([\"posts\", \"mean\", \"max\"])\n"
	"    assert sorted(r[\"figures\"]) == sorted([\"iterations\", \"bytes\", \"seconds\", \"usec_per_iter\", \"mbit_per_sec\", \"msg_per_sec\", \"latency_usec\"])\n"
	"    if r[\"figures\"][\"latency_usec\"] is not None:\n"
	"        assert sorted(r[\"figures\"][\"latency_usec\"]) == sorted([\"min\", \"median\", \"mean\", \"stdev\", \"p50\", \"p90\", \"p99\", \"p99_9\", \"max\", \"samples\"])\n"
	"    if r[\"histogram\"] is not None:\n"
	"        assert sorted(r[\"histogram\"]) == sorted([\"lo_ns\", \"width_ns\", \"counts\", \"overflow\", \"max_ns\"])\n"
	"        assert sum(r[\"histogram\"][\"counts\"]) + r[\"histogram\"][\"overflow\"] == r[\"figures\"][\"latency_usec\"][\"samples\"]\n";

START_TEST(test_sweep_document)
{
	char *text, *checks = NULL;

	session_sweep();
	/* the cycle counter, 0.25 ms off CLOCK_MONOTONIC after 0.1 s */
	s.clock = (struct pp_session_clock){
		.chosen = true,
		.counter = true,
		.ghz = 2.5,
		.compared = true,
		.diff_ns = -250000,
		.elapsed_ns = 100000000,
	};
	text = doc_text(0, NULL);
	ck_assert_int_gt(
		asprintf(
			&checks,
			"%s"
			"assert d[\"tool\"] == \"rc_pingpong\" and d[\"role\"] == \"client\" and d[\"transport\"] == \"rc\"\n"
			"assert d[\"started\"] == \"2026-11-18T11:06:40Z\", d[\"started\"]\n"
			"assert d[\"peer\"] == \"10.0.0.2\"\n"
			"dev = d[\"device\"]\n"
			"assert dev[\"name\"] == \"rxe0\" and dev[\"port\"] == 1 and dev[\"link_layer\"] == \"Ethernet\"\n"
			"assert dev[\"active_mtu\"] == 1024 and dev[\"gid_index\"] == 1 and dev[\"gid\"] == \"::ffff:10.99.0.1\"\n"
			"assert dev[\"gid_type\"] == \"RoCE v2\" and dev[\"gid_auto\"] is True\n"
			"p = d[\"params\"]\n"
			"assert p[\"op\"] == \"send\", p[\"op\"]\n"
			"assert p[\"sweep\"] is True and p[\"size\"] == 4 and p[\"iters\"] == 100 and p[\"warmup\"] == 5\n"
			"assert p[\"duration_s\"] is None and p[\"mtu\"] == 1024 and p[\"inline\"] is True\n"
			"assert p[\"tcp_port\"] == 18515 and p[\"timeout_ms\"] == 5000\n"
			"assert p[\"hop_limit\"] == 64 and p[\"tclass\"] == 0x6a\n"
			"assert p[\"pkey\"] == \"0x8001\" and p[\"flow_label\"] == 0xabcde\n"
			"assert p[\"qp_timeout\"] == 10 and p[\"retry_count\"] == 1 and p[\"rnr_retry\"] == 7, p\n"
			"assert dev[\"pkey_index\"] == 3 and dev[\"grh\"] is True\n"
			"a = d[\"addresses\"]\n"
			"assert a[\"local\"] == [{\"lid\": 0, \"qpn\": 17, \"psn\": 0x123456, \"gid\": \"::ffff:10.99.0.1\"}], a\n"
			"assert a[\"remote\"][0][\"qpn\"] == 18 and a[\"remote\"][0][\"psn\"] == 0x654321\n"
			"rs = d[\"results\"]\n"
			"assert [r[\"size\"] for r in rs] == [1, 2, 4], rs\n"
			"for k, r in enumerate(rs):\n"
			"    f = r[\"figures\"]\n"
			"    assert r[\"completed\"] == 100 and r[\"lost\"] == 0\n"
			"    assert f[\"iterations\"] == 100 and f[\"bytes\"] == 2 * r[\"size\"] * 100\n"
			"    lat = f[\"latency_usec\"]\n"
			"    assert lat[\"samples\"] == 100\n"
			"    assert abs(lat[\"min\"] - (10 + k)) < 1e-9, lat\n"
			"    assert abs(lat[\"max\"] - (10 + k + 0.99)) < 1e-9, lat\n"
			"    assert abs(lat[\"median\"] - (10 + k + 0.495)) < 1e-9, lat\n"
			"    assert abs(f[\"usec_per_iter\"] - 12 * (k + 1)) < 1e-6, f\n"
			"    post = r[\"post_send_usec\"]\n"
			"    assert post[\"posts\"] == 100, post\n"
			"    assert abs(post[\"mean\"] - (2 + 0.5 * k)) < 1e-9, post\n"
			"    assert abs(post[\"max\"] - (9 + k / 1000)) < 1e-9, post\n"
			"assert d[\"status\"] == {\"exit\": 0, \"error\": None}\n"
			"assert d[\"counters\"] is None and p[\"counters\"] is False\n"
			"assert d[\"clock\"] == {\"source\": \"cycle counter\", \"ghz\": 2.5, \"why\": None, \"diff_ns\": -250000, \"elapsed_ns\": 100000000, \"differs\": True}, d[\"clock\"]\n",
			fields),
		0);
	expect_doc(text, checks);
	free(checks);
	free(text);
}
END_TEST

/* A run that failed before the HELLO exchange: what is unknown is null. */
/*
 * The sweep's client with --max-rtt 11 (sizes 2 and 4 are above) and the
 * server's --expect-mtu 4096 from its answer: both exceeded, both lines.
 */
START_TEST(test_thresholds_document)
{
	char *text, *checks = NULL;

	session_sweep();
	o.max_rtt_us = 11;
	s.mine = s.agreed;
	s.mine.active_mtu = 4096;
	s.caps.active_mtu = 4096;
	s.netdev_mtu = 9000;
	s.peer = s.agreed;
	s.peer.link_layer = IBV_LINK_LAYER_ETHERNET;
	s.peer.active_mtu = 1024;
	s.peer.netdev_mtu = 1500;
	s.peer.expect_mtu = 4096;
	text = doc_text(PP_EXIT_FLAGGED, NULL);
	ck_assert_int_gt(
		asprintf(
			&checks,
			"%s"
			"t = d[\"thresholds\"]\n"
			"assert t[\"expect_mtu\"] == 4096 and t[\"path_mtu\"] == 1024, t\n"
			"assert t[\"max_rtt_usec\"] == 11 and abs(t[\"median_usec\"] - 11.495) < 1e-9, t\n"
			"assert t[\"exceeded\"] == [\"expect_mtu\", \"max_rtt\"], t\n"
			"assert t[\"lines\"][0] == \"path MTU 1024 is below --expect-mtu 4096: the active MTU of the server is 1024 (netdev MTU 1500), of the client 4096: raise its netdev MTU to at least 4200 (4096 and the RoCE headers), or give --expect-mtu 1024\", t\n"
			"assert t[\"lines\"][1] == \"median round trip 11.495 usec is above --max-rtt 11 usec (size 2; 1 larger size too)\", t\n"
			"assert d[\"status\"] == {\"exit\": 4, \"error\": None}\n",
			fields),
		0);
	expect_doc(text, checks);
	free(checks);
	free(text);
}
END_TEST

START_TEST(test_failed_early_document)
{
	char *text, *checks = NULL;

	pp_opts_init(&o, PP_TOOL_UD, "ud_pingpong");
	o.duration_s = 3;
	memset(&s, 0, sizeof(s));
	s.o = &o;
	s.gid_index = -1;
	s.conn.fd = -1;
	text = doc_text(1, "no RDMA device found");
	ck_assert_int_gt(
		asprintf(
			&checks,
			"%s"
			"assert d[\"role\"] == \"server\" and d[\"transport\"] == \"ud\"\n"
			"assert d[\"peer\"] is None and d[\"started\"] is None\n"
			"assert d[\"device\"][\"name\"] is None and d[\"device\"][\"gid\"] is None\n"
			"assert d[\"device\"][\"gid_index\"] is None and d[\"device\"][\"gid_type\"] is None\n"
			"assert d[\"params\"][\"mtu\"] is None and d[\"params\"][\"iters\"] is None\n"
			"assert d[\"params\"][\"duration_s\"] == 3 and d[\"params\"][\"size\"] == 1024\n"
			"assert [d[\"params\"][k] for k in (\"qp_timeout\", \"retry_count\", \"rnr_retry\")] == [None] * 3\n"
			"assert d[\"addresses\"] == {\"local\": [], \"remote\": []}\n"
			"assert d[\"results\"] == []\n"
			"assert d[\"status\"] == {\"exit\": 1, \"error\": \"no RDMA device found\"}\n",
			fields),
		0);
	expect_doc(text, checks);
	free(checks);
	free(text);
}
END_TEST

/*
 * A run that fails before opening a device, through pp_session_open() as the
 * tools call it (no such device, or none at all): no GRH is known, so the
 * GID fields are null, not index 0, "::" and "none".
 */
START_TEST(test_no_device_document)
{
	char *text, *checks = NULL;

	pp_opts_init(&o, PP_TOOL_RC, "rc_pingpong");
	o.ib_devname = "pp-no-such-device";
	ck_assert_int_ne(pp_session_open(&s, &o, &pp_exchange_ours), 0);
	text = doc_text(pp_exit_status(ENODEV), s.err.msg);
	pp_session_close(&s);
	ck_assert_int_gt(
		asprintf(
			&checks,
			"%s"
			"dev = d[\"device\"]\n"
			"assert dev[\"name\"] is None and dev[\"port\"] == 1, dev\n"
			"assert dev[\"gid_index\"] is None and dev[\"gid\"] is None, dev\n"
			"assert dev[\"gid_type\"] is None and dev[\"gid_auto\"] is False, dev\n"
			"assert d[\"addresses\"] == {\"local\": [], \"remote\": []}\n"
			"assert d[\"results\"] == []\n"
			"assert d[\"status\"][\"exit\"] == 1 and d[\"status\"][\"error\"], d[\"status\"]\n",
			fields),
		0);
	expect_doc(text, checks);
	free(checks);
	free(text);
}
END_TEST

/*
 * --samples of a run that fails before its first size, through the tool's
 * main: a new file is not left behind empty, an existing one is kept as it
 * was.
 */
START_TEST(test_no_device_samples)
{
	char path[] = "/tmp/pp_test_samplesXXXXXX";
	char *argv[] = { "rc_pingpong", "-d", "pp-no-such-device",
			 "--samples",	path, NULL };
	char buf[16] = "";
	FILE *f;
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(pp_tool_main(PP_TOOL_RC, 5, argv), PP_EXIT_FAIL);
	ck_assert_msg(access(path, F_OK) && errno == ENOENT,
		      "%s was left behind", path);

	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("old\n", f);
	fclose(f);
	ck_assert_int_eq(pp_tool_main(PP_TOOL_RC, 5, argv), PP_EXIT_FAIL);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), f));
	fclose(f);
	unlink(path);
	ck_assert_str_eq(buf, "old\n");
}
END_TEST

/* A run stopped in its second size: the sizes done stay, none is merged. */
START_TEST(test_partial_sweep_document)
{
	char *text;

	session_sweep();
	s.results[1].completed = 40;
	s.results[1].nsamples = 40;
	s.results[1].lost = 2;
	s.nresults = 2;
	text = doc_text(130, "interrupted by SIGINT at iteration 45 of 100");
	expect_doc(
		text,
		"rs = d[\"results\"]\n"
		"assert [(r[\"size\"], r[\"completed\"], r[\"lost\"]) for r in rs] == [(1, 100, 0), (2, 40, 2)], rs\n"
		"assert rs[1][\"figures\"][\"latency_usec\"][\"samples\"] == 40\n"
		"assert d[\"status\"][\"exit\"] == 130\n"
		"assert d[\"status\"][\"error\"].startswith(\"interrupted by SIGINT\")\n");
	free(text);
}
END_TEST

/* A result without samples: no latency object, no histogram. */
START_TEST(test_no_samples_document)
{
	char *text;

	session_sweep();
	s.results[0].nsamples = 0;
	s.results[0].completed = 0;
	s.results[0].seconds = 0;
	s.results[0].posts = 0;
	s.nresults = 1;
	text = doc_text(1, "x");
	expect_doc(text, "r = d[\"results\"][0]\n"
			 "assert r[\"post_send_usec\"] is None\n"
			 "assert r[\"figures\"][\"latency_usec\"] is None\n"
			 "assert r[\"figures\"][\"usec_per_iter\"] is None\n"
			 "assert r[\"histogram\"] is None\n");
	free(text);
}
END_TEST

/*
 * --counters on the client: both sides' deltas, the server's from COUNTERS;
 * on the server its own, and the client's null; a side whose read failed
 * says why.
 */
START_TEST(test_counters_document)
{
	struct pp_counters_delta *mine = &s.ctr.mine, *peer = &s.ctr.peer;
	char *text;

	session_sweep();
	s.agreed.flags |= PP_F_COUNTERS;
	s.ctr.on = true;
	s.ctr.have_mine = true;
	s.ctr.have_peer = true;
	snprintf(mine->dev, sizeof(mine->dev), "rxe0");
	mine->port = 1;
	mine->n = 2;
	mine->d[0] =
		(struct pp_counter_delta){ .name = "rcvd_seq_err", .delta = 3 };
	mine->d[1] =
		(struct pp_counter_delta){ .name = "sent_pkts", .delta = 2002 };
	*peer = *mine;
	peer->d[0].delta = 0;
	peer->d[1] = (struct pp_counter_delta){ .name = "sent_pkts",
						.flags = PP_CTR_WRAPPED,
						.delta = 7 };
	text = doc_text(0, NULL);
	expect_doc(
		text,
		"assert d[\"params\"][\"counters\"] is True\n"
		"c = d[\"counters\"]\n"
		"assert sorted(c) == [\"client\", \"server\"], c\n"
		"assert c[\"client\"][\"device\"] == \"rxe0\" and c[\"client\"][\"port\"] == 1\n"
		"assert c[\"client\"][\"scope\"] == \"port\"\n"
		"assert c[\"client\"][\"counters\"] == {\"rcvd_seq_err\": 3, \"sent_pkts\": 2002}, c\n"
		"assert c[\"server\"][\"counters\"] == {\"rcvd_seq_err\": 0, \"sent_pkts\": 7}, c\n"
		"assert c[\"server\"][\"wrapped\"] == [\"sent_pkts\"], c\n");
	free(text);

	/* the server: its own line only */
	s.conn.is_server = true;
	o.host = NULL;
	s.ctr.have_peer = false;
	text = doc_text(0, NULL);
	expect_doc(
		text,
		"c = d[\"counters\"]\n"
		"assert c[\"client\"] is None, c\n"
		"assert c[\"server\"][\"counters\"][\"sent_pkts\"] == 2002, c\n");
	free(text);

	/* its port could not be read */
	s.ctr.have_mine = false;
	s.ctr.err = EACCES;
	text = doc_text(0, NULL);
	expect_doc(
		text,
		"c = d[\"counters\"]\n"
		"assert c[\"server\"] == {\"device\": \"rxe0\", \"port\": 1, \"error\": \"Permission denied\"}, c\n");
	free(text);
}
END_TEST

static Suite *doc_suite(void)
{
	Suite *su = suite_create("doc");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_sweep_document);
	tcase_add_test(tc, test_thresholds_document);
	tcase_add_test(tc, test_failed_early_document);
	tcase_add_test(tc, test_no_device_document);
	tcase_add_test(tc, test_no_device_samples);
	tcase_add_test(tc, test_partial_sweep_document);
	tcase_add_test(tc, test_no_samples_document);
	tcase_add_test(tc, test_counters_document);
	suite_add_tcase(su, tc);
	return su;
}

PP_CHECK_MAIN(doc_suite)
