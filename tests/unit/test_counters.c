// SPDX-License-Identifier: MIT
/*
 * test_counters.c - pp_counters: reading fake sysfs trees of the shapes rxe
 * and mlx5 have (and neither, and broken files), the delta rules (a 32-bit
 * wrap, a reset, saturation, counters appearing), the line with its cut,
 * JSON, and the byte codec against truncated and hostile input.
 */
#define _GNU_SOURCE /* nftw's FTW_DEPTH | FTW_PHYS */
#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "pp_counters.h"
#include "pp_json.h"

#define SCOPE "(all traffic on the port, not only this run's)"

/* The root of a fake /sys/class/infiniband, removed by teardown. */
static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/pp-counters-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static int rm_one(const char *path, const struct stat *st, int flag,
		  struct FTW *ftw)
{
	return remove(path);
}

static void teardown(void)
{
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void mkdir_p(const char *rel)
{
	char path[512], *p;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (p = path + strlen(root) + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
		*p = '/';
	}
	ck_assert(mkdir(path, 0755) == 0 || errno == EEXIST);
}

/* Write @text to ROOT/@dir/@name, creating @dir. */
static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	mkdir_p(dir);
	snprintf(path, sizeof(path), "%s/%s/%s", root, dir, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

static void put_u64(const char *dir, const char *name, uint64_t v)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu\n", (unsigned long long)v);
	put(dir, name, text);
}

#define RXE_HW "rxe0/ports/1/hw_counters"
#define MLX_HW "mlx5_0/ports/1/hw_counters"
#define MLX_PMA "mlx5_0/ports/1/counters"

/* rxe's hw_counters, as a 6.x kernel shows them. */
static const char *const rxe_names[] = {
	"sent_pkts",
	"rcvd_pkts",
	"duplicate_request",
	"out_of_seq_request",
	"rcvd_seq_err",
	"completer_retry_err",
	"retry_exceeded_err",
	"rcvd_rnr_err",
	"send_rnr_err",
	"ack_deferred",
	"link_downed",
	"send_err",
	"retry_rnr_exceeded_err",
	"rdma_sends",
	"rdma_recvs",
};
#define RXE_N (sizeof(rxe_names) / sizeof(rxe_names[0]))

static void rxe_tree(uint64_t sent, uint64_t seq_err)
{
	size_t i;

	for (i = 0; i < RXE_N; i++)
		put_u64(RXE_HW, rxe_names[i],
			!strcmp(rxe_names[i], "sent_pkts") ||
					!strcmp(rxe_names[i], "rcvd_pkts") ?
				sent :
			!strcmp(rxe_names[i], "rcvd_seq_err") ? seq_err :
								0);
	put(RXE_HW, "lifespan", "10\n");
}

static const struct pp_counter *find(const struct pp_counters *s,
				     const char *name, unsigned int dir)
{
	unsigned int i;

	for (i = 0; i < s->n; i++)
		if (!strcmp(s->c[i].name, name) && s->c[i].dir == dir)
			return &s->c[i];
	return NULL;
}

static void assert_sorted(const struct pp_counters *s)
{
	unsigned int i;

	for (i = 1; i < s->n; i++) {
		int c = strcmp(s->c[i - 1].name, s->c[i].name);

		ck_assert_msg(c < 0 ||
				      (c == 0 && s->c[i - 1].dir < s->c[i].dir),
			      "%s before %s", s->c[i - 1].name, s->c[i].name);
	}
}

START_TEST(read_rxe)
{
	struct pp_counters s;
	const struct pp_counter *c;
	size_t i;

	rxe_tree(2002, 3);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, &s), 0);
	ck_assert_str_eq(s.dev, "rxe0");
	ck_assert_uint_eq(s.port, 1);
	ck_assert(!s.no_dirs);
	ck_assert_uint_eq(s.skipped, 0);
	ck_assert_uint_eq(s.lifespan_ms, 10);
	ck_assert_uint_eq(s.n, RXE_N); /* lifespan is not a counter */
	ck_assert_ptr_null(find(&s, "lifespan", PP_COUNTERS_HW));
	for (i = 0; i < RXE_N; i++) {
		c = find(&s, rxe_names[i], PP_COUNTERS_HW);
		ck_assert_msg(c && c->readable, "%s", rxe_names[i]);
	}
	assert_sorted(&s);
	ck_assert_str_eq(s.c[0].name, "ack_deferred");
	c = find(&s, "sent_pkts", PP_COUNTERS_HW);
	ck_assert_uint_eq(c->value, 2002);
	c = find(&s, "rcvd_seq_err", PP_COUNTERS_HW);
	ck_assert_uint_eq(c->value, 3);
	ck_assert_int_eq(c->err, 0);
}
END_TEST

/* mlx5: both directories, the PMA ones and a name in both. */
static void mlx5_tree(uint64_t xmit, uint64_t oos)
{
	put_u64(MLX_HW, "out_of_sequence", oos);
	put_u64(MLX_HW, "packet_seq_err", 0);
	put_u64(MLX_HW, "roce_adp_retrans", 0);
	put_u64(MLX_HW, "np_cnp_sent", 0);
	put_u64(MLX_HW, "link_downed", 0);
	put(MLX_HW, "lifespan", "250\n");
	put_u64(MLX_PMA, "port_xmit_data", xmit);
	put_u64(MLX_PMA, "port_rcv_data", xmit);
	put_u64(MLX_PMA, "port_xmit_packets", 7);
	put_u64(MLX_PMA, "symbol_error", 0);
	put_u64(MLX_PMA, "link_downed", 1);
}

START_TEST(read_mlx5)
{
	struct pp_counters s;
	const struct pp_counter *hw, *pma;

	mlx5_tree(UINT64_C(123456789012), 4);
	ck_assert_int_eq(pp_counters_read(root, "mlx5_0", 1, &s), 0);
	ck_assert(!s.no_dirs);
	ck_assert_uint_eq(s.n, 10);
	assert_sorted(&s);
	ck_assert_uint_eq(find(&s, "port_xmit_data", PP_COUNTERS_PMA)->value,
			  UINT64_C(123456789012));
	ck_assert_ptr_null(find(&s, "port_xmit_data", PP_COUNTERS_HW));
	ck_assert_uint_eq(find(&s, "out_of_sequence", PP_COUNTERS_HW)->value,
			  4);
	hw = find(&s, "link_downed", PP_COUNTERS_HW);
	pma = find(&s, "link_downed", PP_COUNTERS_PMA);
	ck_assert_ptr_nonnull(hw);
	ck_assert_ptr_nonnull(pma);
	ck_assert_ptr_eq(hw + 1, pma); /* hw_counters first */
	ck_assert_uint_eq(pma->value, 1);
	ck_assert_uint_eq(s.lifespan_ms, 250);
	ck_assert_str_eq(pp_counters_dir_name(PP_COUNTERS_HW), "hw_counters");
	ck_assert_str_eq(pp_counters_dir_name(PP_COUNTERS_PMA), "counters");
	ck_assert_str_eq(pp_counters_dir_name(7), "?");
}
END_TEST

START_TEST(read_neither)
{
	struct pp_counters s;
	struct pp_counters_delta d;
	char line[256];

	mkdir_p("siw0/ports/1");
	ck_assert_int_eq(pp_counters_read(root, "siw0", 1, &s), 0);
	ck_assert(s.no_dirs);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_int_eq(pp_counters_delta(&s, &s, &d), 0);
	ck_assert(d.no_dirs);
	ck_assert_str_eq(
		pp_counters_format(&d, line, sizeof(line)),
		"port counters siw0:1: none (no hw_counters/ or counters/ directory)");

	/* an empty hw_counters/ is a directory that exists */
	mkdir_p("siw0/ports/1/hw_counters");
	ck_assert_int_eq(pp_counters_read(root, "siw0", 1, &s), 0);
	ck_assert(!s.no_dirs);
	ck_assert_int_eq(pp_counters_delta(&s, &s, &d), 0);
	ck_assert_str_eq(pp_counters_format(&d, line, sizeof(line)),
			 "port counters siw0:1 " SCOPE ": none moved");
}
END_TEST

START_TEST(read_bad_args)
{
	struct pp_counters s;
	char longdev[80];

	rxe_tree(1, 0);
	ck_assert_int_eq(pp_counters_read(root, "rxe1", 1, &s), ENOENT);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 2, &s), ENOENT);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 0, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 256, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "", 1, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "..", 1, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "rxe0/../rxe0", 1, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "rxe 0", 1, &s), EINVAL);
	memset(longdev, 'a', sizeof(longdev) - 1);
	longdev[sizeof(longdev) - 1] = '\0';
	ck_assert_int_eq(pp_counters_read(root, longdev, 1, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(NULL, "rxe0", 1, &s), EINVAL);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, NULL), EINVAL);
}
END_TEST

/* Files that are not numbers, and a directory named like a counter. */
START_TEST(read_unreadable)
{
	struct pp_counters s;
	const struct pp_counter *c;
	static const struct {
		const char *name, *text;
		int err;
		uint64_t value;
	} files[] = {
		{ "na", "N/A\n", PP_COUNTERS_ENOTNUM, 0 },
		{ "empty", "", PP_COUNTERS_ENOTNUM, 0 },
		{ "suffix", "12abc\n", PP_COUNTERS_ENOTNUM, 0 },
		{ "negative", "-1\n", PP_COUNTERS_ENOTNUM, 0 },
		{ "leading_space", " 5\n", PP_COUNTERS_ENOTNUM, 0 },
		{ "two", "5\n6\n", PP_COUNTERS_ENOTNUM, 0 },
		{ "too_big", "18446744073709551616\n", ERANGE, 0 },
		{ "long_text",
		  "0000000000000000000000000000000000000000000000000000000000000000000001\n",
		  PP_COUNTERS_ENOTNUM, 0 },
		{ "max", "18446744073709551615\n", 0, UINT64_MAX },
		{ "no_newline", "42", 0, 42 },
		{ "zero", "0\n", 0, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		put(RXE_HW, files[i].name, files[i].text);
	mkdir_p(RXE_HW "/rcvd_seq_err");
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, &s), 0);
	ck_assert_uint_eq(s.n, sizeof(files) / sizeof(files[0]) + 1);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		c = find(&s, files[i].name, PP_COUNTERS_HW);
		ck_assert_msg(c, "%s", files[i].name);
		ck_assert_msg(c->readable == !files[i].err, "%s", c->name);
		ck_assert_msg(c->err == files[i].err, "%s: err %d", c->name,
			      c->err);
		ck_assert_msg(c->value == files[i].value, "%s", c->name);
	}
	c = find(&s, "rcvd_seq_err", PP_COUNTERS_HW);
	ck_assert(!c->readable);
	ck_assert_int_eq(c->err, EISDIR);
}
END_TEST

/* Names the line could not carry are counted, not kept; dot files are not
 * counters at all. */
START_TEST(read_names)
{
	struct pp_counters s;
	char name[64];

	memset(name, 'n', 49);
	name[49] = '\0';
	put(RXE_HW, name, "1\n"); /* 49 characters */
	name[48] = '\0';
	put(RXE_HW, name, "2\n"); /* 48: kept */
	put(RXE_HW, "with space", "3\n");
	put(RXE_HW, "tab\there", "3\n");
	put(RXE_HW, ".hidden", "3\n");
	put(RXE_HW, "sent_pkts", "4\n");
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, &s), 0);
	ck_assert_uint_eq(s.n, 2);
	ck_assert_uint_eq(s.skipped, 3);
	ck_assert_str_eq(s.c[0].name, name);
	ck_assert_uint_eq(s.c[0].value, 2);
	ck_assert_str_eq(s.c[1].name, "sent_pkts");
}
END_TEST

/* More counters than fit: the first PP_COUNTERS_MAX by name are kept. */
START_TEST(read_capacity)
{
	struct pp_counters s;
	char name[16];
	unsigned int i;

	/* written in descending order, split over both directories */
	for (i = PP_COUNTERS_MAX + 5; i-- > 0;) {
		snprintf(name, sizeof(name), "c%03u", i);
		put_u64(i % 2 ? MLX_HW : MLX_PMA, name, i);
	}
	ck_assert_int_eq(pp_counters_read(root, "mlx5_0", 1, &s), 0);
	ck_assert_uint_eq(s.n, PP_COUNTERS_MAX);
	ck_assert_uint_eq(s.skipped, 5);
	assert_sorted(&s);
	for (i = 0; i < PP_COUNTERS_MAX; i++) {
		snprintf(name, sizeof(name), "c%03u", i);
		ck_assert_str_eq(s.c[i].name, name);
		ck_assert_uint_eq(s.c[i].value, i);
		ck_assert_uint_eq(s.c[i].dir,
				  i % 2 ? PP_COUNTERS_HW : PP_COUNTERS_PMA);
	}
}
END_TEST

/* A snapshot built by hand. */
static void add(struct pp_counters *s, const char *name, unsigned int dir,
		uint64_t value)
{
	struct pp_counter *c = &s->c[s->n++];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->dir = (uint8_t)dir;
	c->readable = true;
	c->value = value;
}

static void add_bad(struct pp_counters *s, const char *name, int err)
{
	struct pp_counter *c = &s->c[s->n++];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->dir = PP_COUNTERS_HW;
	c->err = err;
}

static void snap_init(struct pp_counters *s, const char *dev)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->dev, sizeof(s->dev), "%s", dev);
	s->port = 1;
}

static const struct pp_counter_delta *dfind(const struct pp_counters_delta *d,
					    const char *name, unsigned int dir)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (!strcmp(d->d[i].name, name) && d->d[i].dir == dir)
			return &d->d[i];
	ck_abort_msg("%s not in the delta", name);
	return NULL;
}

#define HW PP_COUNTERS_HW
#define PMA PP_COUNTERS_PMA
#define U32 UINT64_C(4294967296)

/*
 * Before and after of every rule, sorted by (name, dir) as the reader
 * leaves them.  Built by both the delta test and the codec tests.
 */
static void rule_snaps(struct pp_counters *b, struct pp_counters *a)
{
	snap_init(b, "mlx5_0");
	snap_init(a, "mlx5_0");
	add(b, "gone", HW, 5); /* disappeared */
	add(b, "link_downed", HW, 1);
	add(a, "link_downed", HW, 1);
	add(b, "link_downed", PMA, 1);
	add(a, "link_downed", PMA, 2);
	add(a, "new_one", HW, 9);		/* appeared */
	add(b, "out_of_sequence", HW, U32 - 6); /* 32-bit wrap */
	add(a, "out_of_sequence", HW, 5);
	add(b, "packet_seq_err", HW, U32 + 10); /* 64-bit: a reset */
	add(a, "packet_seq_err", HW, 3);
	add(b, "port_rcv_data", PMA, 100); /* PMA backwards: a reset */
	add(a, "port_rcv_data", PMA, 7);
	add(b, "port_xmit_data", PMA, 1000);
	add(a, "port_xmit_data", PMA, 3000);
	add(b, "port_xmit_wait", PMA, 0); /* unknown PMA width: not saturated */
	add(a, "port_xmit_wait", PMA, 0);
	add_bad(b, "rcvd_rnr_err", EOPNOTSUPP); /* unreadable before */
	add(a, "rcvd_rnr_err", HW, 4);
	add(b, "roce_adp_retrans", HW, 0); /* unchanged */
	add(a, "roce_adp_retrans", HW, 0);
	add(b, "symbol_error", PMA, 65500); /* saturates at 16 bits */
	add(a, "symbol_error", PMA, 65535);
	add(b, "unicast_xmit_packets", PMA, 65535); /* 64-bit: no */
	add(a, "unicast_xmit_packets", PMA, 65535);
	add_bad(b, "z_weird", PP_COUNTERS_ENOTNUM);
	add_bad(a, "z_weird", PP_COUNTERS_ENOTNUM);
}

START_TEST(delta_rules)
{
	struct pp_counters b, a;
	struct pp_counters_delta d;
	const struct pp_counter_delta *cd;

	rule_snaps(&b, &a);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_str_eq(d.dev, "mlx5_0");
	ck_assert_uint_eq(d.port, 1);
	ck_assert_uint_eq(d.n, 14);

	cd = dfind(&d, "gone", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_DISAPPEARED);
	ck_assert_uint_eq(cd->delta, 0);
	cd = dfind(&d, "new_one", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_APPEARED);
	ck_assert_uint_eq(cd->delta, 0);
	cd = dfind(&d, "link_downed", HW);
	ck_assert_uint_eq(cd->flags, 0);
	ck_assert_uint_eq(cd->delta, 0);
	ck_assert(!pp_counters_moved(cd));
	cd = dfind(&d, "link_downed", PMA);
	ck_assert_uint_eq(cd->delta, 1);
	ck_assert(pp_counters_moved(cd));
	cd = dfind(&d, "out_of_sequence", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_WRAPPED);
	ck_assert_uint_eq(cd->delta, 11);
	cd = dfind(&d, "packet_seq_err", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_RESET);
	ck_assert_uint_eq(cd->delta, 3);
	cd = dfind(&d, "port_rcv_data", PMA);
	ck_assert_uint_eq(cd->flags, PP_CTR_RESET);
	ck_assert_uint_eq(cd->delta, 7);
	cd = dfind(&d, "port_xmit_data", PMA);
	ck_assert_uint_eq(cd->flags, 0);
	ck_assert_uint_eq(cd->delta, 2000);
	cd = dfind(&d, "rcvd_rnr_err", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_UNREADABLE);
	ck_assert_int_eq(cd->err, EOPNOTSUPP);
	ck_assert(!pp_counters_moved(cd));
	cd = dfind(&d, "symbol_error", PMA);
	ck_assert_uint_eq(cd->flags, PP_CTR_SATURATED);
	ck_assert_uint_eq(cd->delta, 35);
	cd = dfind(&d, "unicast_xmit_packets", PMA);
	ck_assert_uint_eq(cd->flags, 0);
	cd = dfind(&d, "port_xmit_wait", PMA);
	ck_assert_uint_eq(cd->flags, 0);
	cd = dfind(&d, "z_weird", HW);
	ck_assert_uint_eq(cd->flags, PP_CTR_UNREADABLE);
	ck_assert_int_eq(cd->err, PP_COUNTERS_ENOTNUM);
}
END_TEST

START_TEST(delta_edges)
{
	struct pp_counters b, a;
	struct pp_counters_delta d;

	/* a wrap from the very top, a 32-bit reset to 0 counted as a wrap */
	snap_init(&b, "rxe0");
	snap_init(&a, "rxe0");
	add(&b, "a", HW, UINT32_MAX);
	add(&a, "a", HW, 0);
	add(&b, "b", HW, U32); /* just above 32 bits: a reset */
	add(&a, "b", HW, 0);
	add(&b, "c", PMA, 255); /* link_downed-like, unknown name: a reset */
	add(&a, "c", PMA, 0);
	add(&b, "link_downed", PMA, 255); /* 8 bits: stuck at max */
	add(&a, "link_downed", PMA, 255);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_uint_eq(d.d[0].delta, 1);
	ck_assert_uint_eq(d.d[0].flags, PP_CTR_WRAPPED);
	ck_assert_uint_eq(d.d[1].delta, 0);
	ck_assert_uint_eq(d.d[1].flags, PP_CTR_RESET);
	ck_assert(pp_counters_moved(&d.d[1]));
	ck_assert_uint_eq(d.d[2].flags, PP_CTR_RESET);
	ck_assert_uint_eq(d.d[3].delta, 0);
	ck_assert_uint_eq(d.d[3].flags, PP_CTR_SATURATED);
	ck_assert(pp_counters_moved(&d.d[3]));

	/* an appeared counter that could not be read */
	snap_init(&b, "rxe0");
	snap_init(&a, "rxe0");
	add_bad(&a, "x", EINVAL);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_uint_eq(d.n, 1);
	ck_assert_uint_eq(d.d[0].flags, PP_CTR_APPEARED | PP_CTR_UNREADABLE);
	ck_assert_int_eq(d.d[0].err, EINVAL);

	/* snapshots of different ports */
	snap_init(&b, "rxe0");
	snap_init(&a, "rxe1");
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), EINVAL);
	snap_init(&a, "rxe0");
	a.port = 2;
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), EINVAL);

	/* disjoint snapshots, both full: the first PP_COUNTERS_MAX kept */
	snap_init(&b, "rxe0");
	snap_init(&a, "rxe0");
	b.skipped = 2;
	for (unsigned int i = 0; i < PP_COUNTERS_MAX; i++) {
		char name[16];

		snprintf(name, sizeof(name), "b%03u", i);
		add(&b, name, HW, i);
		snprintf(name, sizeof(name), "a%03u", i);
		add(&a, name, HW, i);
	}
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_uint_eq(d.n, PP_COUNTERS_MAX);
	ck_assert_uint_eq(d.skipped, 2 + PP_COUNTERS_MAX);
	ck_assert_str_eq(d.d[PP_COUNTERS_MAX - 1].name, "a127");
	ck_assert_uint_eq(d.d[0].flags, PP_CTR_APPEARED);
}
END_TEST

/* The line from real reads: an rxe run that sent 2002 packets. */
START_TEST(format_rxe_run)
{
	struct pp_counters b, a;
	struct pp_counters_delta d;
	char line[512];

	rxe_tree(100, 0);
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, &b), 0);
	rxe_tree(2102, 3);
	put(RXE_HW, "send_err", "N/A\n");
	ck_assert_int_eq(pp_counters_read(root, "rxe0", 1, &a), 0);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_str_eq(
		pp_counters_format(&d, line, sizeof(line)),
		"port counters rxe0:1 " SCOPE
		": rcvd_pkts +2002, rcvd_seq_err +3, sent_pkts +2002; unreadable: send_err (not a number)");

	/* nothing moved */
	ck_assert_int_eq(pp_counters_delta(&a, &a, &d), 0);
	ck_assert_str_eq(pp_counters_format(&d, line, sizeof(line)),
			 "port counters rxe0:1 " SCOPE
			 ": none moved; unreadable: send_err (not a number)");
	ck_assert_int_eq(pp_counters_delta(&b, &b, &d), 0);
	ck_assert_str_eq(pp_counters_format(&d, line, sizeof(line)),
			 "port counters rxe0:1 " SCOPE ": none moved");
}
END_TEST

#define RULES_LINE                                                                                                                                                \
	"port counters mlx5_0:1 " SCOPE                                                                                                                           \
	": gone (disappeared), counters/link_downed +1, new_one (appeared), out_of_sequence +11 (wrapped), packet_seq_err +3 (reset), port_rcv_data +7 (reset), " \
	"port_xmit_data +2000, symbol_error +35 (saturated); unreadable: rcvd_rnr_err (Operation not supported), z_weird (not a number)"

START_TEST(format_rules_and_cut)
{
	struct pp_counters b, a;
	struct pp_counters_delta d;
	char line[512], small[512];
	const char *cut;
	size_t len, full;

	rule_snaps(&b, &a);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	ck_assert_str_eq(pp_counters_format(&d, line, sizeof(line)),
			 RULES_LINE);
	full = strlen(RULES_LINE);

	/* exactly enough room; one byte less cuts the last item */
	ck_assert_str_eq(pp_counters_format(&d, small, full + 1), RULES_LINE);
	cut = "port counters mlx5_0:1 " SCOPE
	      ": gone (disappeared), counters/link_downed +1, new_one (appeared), out_of_sequence +11 (wrapped), packet_seq_err +3 (reset), port_rcv_data +7 (reset), "
	      "port_xmit_data +2000, symbol_error +35 (saturated); unreadable: rcvd_rnr_err (Operation not supported), ...";
	ck_assert_str_eq(pp_counters_format(&d, small, full), cut);

	/* a cut in the middle of the counters */
	cut = "port counters mlx5_0:1 " SCOPE
	      ": gone (disappeared), counters/link_downed +1, ...";
	for (len = strlen(cut) + 1; len < strlen(cut) + 1 + 20; len++)
		ck_assert_str_eq(pp_counters_format(&d, small, len), cut);

	/* every length: a prefix of the full line, cut cleanly */
	for (len = 1; len <= full + 1; len++) {
		size_t got;

		pp_counters_format(&d, small, len);
		got = strlen(small);
		ck_assert_uint_lt(got, len);
		if (got >= 5 && !strcmp(small + got - 5, ", ...")) {
			ck_assert(!strncmp(small, RULES_LINE, got - 5));
			ck_assert(RULES_LINE[got - 5] == ',' ||
				  RULES_LINE[got - 5] == ';');
		} else if (got >= 5 && !strcmp(small + got - 5, ": ...")) {
			ck_assert(!strncmp(small, RULES_LINE, got - 3));
		} else {
			ck_assert(!strncmp(small, RULES_LINE, got));
		}
	}

	/* only the start fits: "..." right after it */
	cut = "port counters mlx5_0:1 " SCOPE ": ...";
	ck_assert_str_eq(pp_counters_format(&d, small, strlen(cut) + 1), cut);

	/* nothing at all */
	small[0] = 'x';
	ck_assert_ptr_eq(pp_counters_format(&d, small, 0), small);
	ck_assert_int_eq(small[0], 'x');
}
END_TEST

START_TEST(format_skipped)
{
	struct pp_counters s;
	struct pp_counters_delta d;
	char line[512];

	snap_init(&s, "rxe0");
	add(&s, "a", HW, 1);
	s.skipped = 3;
	ck_assert_int_eq(pp_counters_delta(&s, &s, &d), 0);
	ck_assert_str_eq(
		pp_counters_format(&d, line, sizeof(line)),
		"port counters rxe0:1 " SCOPE
		": none moved; 3 more not read (more than 128 counters, or names not printable or over 48 characters)");

	/* a count past the array, as a hand-built set might hold */
	d.n = 100000;
	d.skipped = 0;
	ck_assert_str_eq(pp_counters_format(&d, line, sizeof(line)),
			 "port counters rxe0:1 " SCOPE ": none moved");
}
END_TEST

START_TEST(json_object)
{
	struct pp_counters b, a;
	struct pp_counters_delta d;
	struct pp_json j;
	char *text = NULL;
	size_t size = 0;
	FILE *f;

	rule_snaps(&b, &a);
	ck_assert_int_eq(pp_counters_delta(&b, &a, &d), 0);
	f = open_memstream(&text, &size);
	ck_assert_ptr_nonnull(f);
	pp_json_init(&j, f, false);
	ck_assert_int_eq(pp_counters_json(&j, &d), 0);
	ck_assert_int_eq(pp_json_finish(&j), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(
		text,
		"{\"device\":\"mlx5_0\",\"port\":1,\"scope\":\"port\",\"directories\":true,"
		"\"counters\":{\"hw_counters/link_downed\":0,\"counters/link_downed\":1,\"out_of_sequence\":11,\"packet_seq_err\":3,"
		"\"port_rcv_data\":7,\"port_xmit_data\":2000,\"port_xmit_wait\":0,\"roce_adp_retrans\":0,\"symbol_error\":35,\"unicast_xmit_packets\":0},"
		"\"unreadable\":[{\"name\":\"rcvd_rnr_err\",\"error\":\"Operation not supported\"},{\"name\":\"z_weird\",\"error\":\"not a number\"}],"
		"\"resets\":[\"packet_seq_err\",\"port_rcv_data\"],\"wrapped\":[\"out_of_sequence\"],\"saturated\":[\"symbol_error\"],"
		"\"appeared\":[\"new_one\"],\"disappeared\":[\"gone\"],\"skipped\":0}\n");
	free(text);
}
END_TEST

static void rule_delta(struct pp_counters_delta *d)
{
	struct pp_counters b, a;

	rule_snaps(&b, &a);
	ck_assert_int_eq(pp_counters_delta(&b, &a, d), 0);
	d->skipped = 0x01020304;
}

static void assert_same(const struct pp_counters_delta *x,
			const struct pp_counters_delta *y)
{
	unsigned int i;

	ck_assert_str_eq(x->dev, y->dev);
	ck_assert_uint_eq(x->port, y->port);
	ck_assert_int_eq(x->no_dirs, y->no_dirs);
	ck_assert_uint_eq(x->skipped, y->skipped);
	ck_assert_uint_eq(x->n, y->n);
	for (i = 0; i < x->n; i++) {
		ck_assert_str_eq(x->d[i].name, y->d[i].name);
		ck_assert_uint_eq(x->d[i].dir, y->d[i].dir);
		ck_assert_uint_eq(x->d[i].flags, y->d[i].flags);
		ck_assert_int_eq(x->d[i].err, y->d[i].err);
		ck_assert_uint_eq(x->d[i].delta, y->d[i].delta);
	}
}

START_TEST(codec_round_trip)
{
	static struct pp_counters_delta d, back;
	static uint8_t buf[PP_COUNTERS_WIRE_MAX];
	const char *why = NULL;
	size_t n, len;
	unsigned int i;

	rule_delta(&d);
	d.d[0].delta = UINT64_C(0x0102030405060708); /* gone: not allowed */
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), EINVAL);
	d.d[0].delta = 0;
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
	ck_assert_int_eq(pp_counters_decode(buf, n, &back, &why), 0);
	assert_same(&d, &back);

	/* the layout of the header and of the first records */
	ck_assert_uint_eq(buf[0], PP_COUNTERS_WIRE_VERSION);
	ck_assert_uint_eq(buf[1], 0);
	ck_assert_uint_eq(buf[2] << 8 | buf[3], 14);
	ck_assert_uint_eq(buf[7], 1);
	ck_assert_uint_eq(buf[8], 1);
	ck_assert_uint_eq(buf[11], 4);
	ck_assert_uint_eq(buf[12], 6);
	ck_assert(!memcmp(buf + 13, "mlx5_0", 6));
	ck_assert_uint_eq(buf[19], PP_COUNTERS_HW);
	ck_assert_uint_eq(buf[20], PP_CTR_DISAPPEARED);
	ck_assert_uint_eq(buf[31], 4);
	ck_assert(!memcmp(buf + 32, "gone", 4));

	/* too little room: ENOSPC at every length */
	for (len = 0; len < n; len++)
		ck_assert_int_eq(pp_counters_encode(&d, buf, len, &n), ENOSPC);
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);

	/* the largest set fits PP_COUNTERS_WIRE_MAX exactly */
	memset(&d, 0, sizeof(d));
	memset(d.dev, 'd', PP_COUNTERS_DEV_MAX);
	d.port = 255;
	d.skipped = UINT32_MAX;
	d.n = PP_COUNTERS_MAX;
	for (i = 0; i < PP_COUNTERS_MAX; i++) {
		memset(d.d[i].name, 'x', PP_COUNTERS_NAME_MAX);
		snprintf(d.d[i].name + PP_COUNTERS_NAME_MAX - 3, 4, "%03u", i);
		d.d[i].dir = PMA;
		d.d[i].delta = UINT64_MAX - i;
	}
	d.d[5].flags = PP_CTR_UNREADABLE;
	d.d[5].err = 65535;
	d.d[5].delta = 0;
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
	ck_assert_uint_eq(n, PP_COUNTERS_WIRE_MAX);
	ck_assert_int_eq(pp_counters_decode(buf, n, &back, &why), 0);
	assert_same(&d, &back);

	/* no directories, no counters */
	memset(&d, 0, sizeof(d));
	strcpy(d.dev, "siw0");
	d.port = 1;
	d.no_dirs = true;
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
	ck_assert_uint_eq(n, PP_COUNTERS_WIRE_HDR + 4);
	ck_assert_int_eq(pp_counters_decode(buf, n, &back, &why), 0);
	assert_same(&d, &back);
}
END_TEST

START_TEST(codec_encode_refuses)
{
	static struct pp_counters_delta d, good;
	static uint8_t buf[PP_COUNTERS_WIRE_MAX];
	size_t n;

	rule_delta(&good);
#define REFUSED(stmt)                                                          \
	do {                                                                   \
		d = good;                                                      \
		stmt;                                                          \
		ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), \
				 EINVAL);                                      \
	} while (0)
	REFUSED(d.n = PP_COUNTERS_MAX + 1);
	REFUSED(d.port = 0);
	REFUSED(d.port = 256);
	REFUSED(d.dev[0] = '\0');
	REFUSED(strcpy(d.dev, "a b"));
	REFUSED(memset(d.dev, 'a', sizeof(d.dev)));
	REFUSED(d.no_dirs = true);
	REFUSED(d.d[3].name[2] = '\n');
	REFUSED(d.d[3].name[0] = '\0');
	REFUSED(memset(d.d[3].name, 'a', sizeof(d.d[3].name)));
	REFUSED(d.d[3].dir = 2);
	REFUSED(d.d[3].flags = 0x40);
	REFUSED(d.d[3].flags = PP_CTR_WRAPPED | PP_CTR_RESET);
	REFUSED(d.d[3].flags = PP_CTR_APPEARED | PP_CTR_DISAPPEARED);
	REFUSED(d.d[3].err = EINVAL);
	REFUSED(d.d[3].flags = PP_CTR_UNREADABLE);
	REFUSED(d.d[3].err = -1; d.d[3].flags = PP_CTR_UNREADABLE);
	REFUSED(d.d[3].err = 65536; d.d[3].flags = PP_CTR_UNREADABLE;
		d.d[3].delta = 0);
	REFUSED(d.d[4] = d.d[3]);  /* repeated */
	REFUSED(d.d[4] = d.d[10]); /* out of order */
#undef REFUSED
	d = good;
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
}
END_TEST

/* Every truncation and one extra byte are refused. */
START_TEST(codec_truncated)
{
	static struct pp_counters_delta d, back;
	static uint8_t buf[PP_COUNTERS_WIRE_MAX + 1];
	const char *why;
	size_t n, len;

	rule_delta(&d);
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
	for (len = 0; len < n; len++) {
		why = NULL;
		ck_assert_msg(pp_counters_decode(buf, len, &back, &why) ==
				      EPROTO,
			      "length %zu of %zu accepted", len, n);
		ck_assert_ptr_nonnull(why);
	}
	buf[n] = 0;
	ck_assert_int_eq(pp_counters_decode(buf, n + 1, &back, &why), EPROTO);
	ck_assert_str_eq(why, "counters: bytes after the last record");
	ck_assert_int_eq(pp_counters_decode(buf, n, &back, NULL), 0);
}
END_TEST

/* One byte changed at a time. */
static const struct hostile {
	size_t off; /* in the encoding of rule_delta(): "mlx5_0", 14 records */
	uint8_t byte;
	const char *why;
} hostile[] = {
	{ 0, 2, "counters: another version" },
	{ 1, 2, "counters: unknown flags" },
	{ 1, 1, "counters: counters without a directory" },
	{ 2, 0xff, "counters: too many" },
	{ 3, PP_COUNTERS_MAX + 1, "counters: too many" },
	{ 3, 15, "counters: record cut short" },
	{ 7, 0, "counters: port out of range" },
	{ 6, 1, "counters: port out of range" },
	{ 12, 0, "counters: device name not printable or of a bad length" },
	{ 12, 200, "counters: device name not printable or of a bad length" },
	{ 13, ' ', "counters: device name not printable or of a bad length" },
	{ 14, '/', "counters: device name not printable or of a bad length" },
	{ 15, 0x7f, "counters: device name not printable or of a bad length" },
	/* the first record, "gone": 19 dir, 20 flags, 21 err, 23 delta,
	 * 31 name_len, 32 name */
	{ 19, 2, "counters: counter directory unknown" },
	{ 20, 0x40, "counters: counter flags unknown" },
	{ 20, PP_CTR_APPEARED | PP_CTR_DISAPPEARED,
	  "counters: counter both appeared and disappeared" },
	{ 20, PP_CTR_DISAPPEARED | PP_CTR_UNREADABLE,
	  "counters: counter error without the unreadable flag, or the reverse" },
	{ 22, 5,
	  "counters: counter error without the unreadable flag, or the reverse" },
	{ 30, 1, "counters: counter delta where none can be" },
	{ 31, 0, "counters: counter name not printable or of a bad length" },
	{ 31, PP_COUNTERS_NAME_MAX + 1,
	  "counters: counter name not printable or of a bad length" },
	{ 31, 255, "counters: counter name not printable or of a bad length" },
	{ 31, 3, "counters: counter name not printable or of a bad length" },
	{ 32, '\0', "counters: counter name not printable or of a bad length" },
	{ 33, 0x80, "counters: counter name not printable or of a bad length" },
	{ 34, '\n', "counters: counter name not printable or of a bad length" },
	{ 32, 'z', "counters: counters out of order or repeated" },
	/* the second record, hw_counters/link_downed: 36 dir */
	{ 36, PP_COUNTERS_PMA, "counters: counters out of order or repeated" },
	{ 37, PP_CTR_WRAPPED | PP_CTR_RESET,
	  "counters: counter both wrapped and reset" },
};

START_TEST(codec_hostile)
{
	static struct pp_counters_delta d, back;
	static uint8_t buf[PP_COUNTERS_WIRE_MAX];
	const struct hostile *h = &hostile[_i];
	const char *why = NULL;
	size_t n;

	rule_delta(&d);
	ck_assert_int_eq(pp_counters_encode(&d, buf, sizeof(buf), &n), 0);
	ck_assert_uint_eq(buf[31], 4); /* the offsets above still hold */
	ck_assert_uint_eq(buf[36 + 12], 11);
	ck_assert_uint_lt(h->off, n);
	ck_assert_uint_ne(buf[h->off], h->byte);
	buf[h->off] = h->byte;
	ck_assert_msg(pp_counters_decode(buf, n, &back, &why) == EPROTO,
		      "byte %zu = %u accepted", h->off, h->byte);
	ck_assert_str_eq(why, h->why);
}
END_TEST

/* A count that claims far more records than there are bytes. */
START_TEST(codec_short_claims)
{
	static struct pp_counters_delta back;
	uint8_t buf[32] = { PP_COUNTERS_WIRE_VERSION,
			    0,
			    0,
			    PP_COUNTERS_MAX,
			    0,
			    0,
			    0,
			    1,
			    0,
			    0,
			    0,
			    0,
			    1,
			    'r' };
	const char *why = NULL;

	ck_assert_int_eq(pp_counters_decode(buf, 14, &back, &why), EPROTO);
	ck_assert_str_eq(why, "counters: record cut short");
	/* a record whose name runs past the end */
	buf[3] = 1;
	buf[14 + 12] = 40;
	memset(buf + 27, 'n', 5);
	ck_assert_int_eq(pp_counters_decode(buf, sizeof(buf), &back, &why),
			 EPROTO);
	ck_assert_str_eq(why, "counters: name cut short");
	buf[14 + 12] = 5;
	ck_assert_int_eq(pp_counters_decode(buf, sizeof(buf), &back, &why), 0);
	ck_assert_str_eq(back.d[0].name, "nnnnn");
	ck_assert_int_eq(pp_counters_decode(NULL, 0, &back, &why), EPROTO);
}
END_TEST

/* A small deterministic generator: the same bytes on every run. */
static uint32_t xorshift(uint32_t *state)
{
	uint32_t x = *state;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return *state = x;
}

/*
 * Random damage to a good encoding (bytes changed, cut, extended): decode
 * either refuses it with EPROTO and a reason, or accepts a set that encodes
 * back to the very same bytes.  Each input sits in a heap block of its exact
 * length, so that valgrind or ASan sees any read past it.
 */
START_TEST(codec_random_damage)
{
	static struct pp_counters_delta d, back;
	static uint8_t good[PP_COUNTERS_WIRE_MAX], again[PP_COUNTERS_WIRE_MAX];
	uint32_t state = 0x9e3779b9;
	unsigned int round, k, accepted = 0;
	size_t n, len, n2;

	rule_delta(&d);
	ck_assert_int_eq(pp_counters_encode(&d, good, sizeof(good), &n), 0);
	for (round = 0; round < 20000; round++) {
		const char *why = NULL;
		uint8_t *in;
		int ret;

		len = n;
		switch (xorshift(&state) % 4) {
		case 0:
			len = xorshift(&state) % (n + 1);
			break;
		case 1:
			len = n + 1 + xorshift(&state) % 16;
			break;
		default:
			break;
		}
		in = malloc(len ? len : 1);
		ck_assert_ptr_nonnull(in);
		for (k = 0; k < len; k++)
			in[k] = k < n ? good[k] : (uint8_t)xorshift(&state);
		for (k = xorshift(&state) % 4; len && k > 0; k--) {
			uint32_t r = xorshift(&state);

			in[r % len] = (uint8_t)(r >> 16);
		}
		ret = pp_counters_decode(in, len, &back, &why);
		if (ret) {
			ck_assert_int_eq(ret, EPROTO);
			ck_assert_ptr_nonnull(why);
		} else {
			accepted++;
			ck_assert_int_eq(pp_counters_encode(&back, again,
							    sizeof(again), &n2),
					 0);
			ck_assert_uint_eq(n2, len);
			ck_assert(!memcmp(again, in, len));
		}
		free(in);
	}
	/* unchanged copies and harmless changes (a delta byte) get through */
	ck_assert_uint_gt(accepted, 1000);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("counters");
	TCase *tc = tcase_create("sysfs");
	TCase *pure = tcase_create("pure");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, read_rxe);
	tcase_add_test(tc, read_mlx5);
	tcase_add_test(tc, read_neither);
	tcase_add_test(tc, read_bad_args);
	tcase_add_test(tc, read_unreadable);
	tcase_add_test(tc, read_names);
	tcase_add_test(tc, read_capacity);
	tcase_add_test(tc, format_rxe_run);
	suite_add_tcase(s, tc);

	tcase_add_test(pure, delta_rules);
	tcase_add_test(pure, delta_edges);
	tcase_add_test(pure, format_rules_and_cut);
	tcase_add_test(pure, format_skipped);
	tcase_add_test(pure, json_object);
	tcase_add_test(pure, codec_round_trip);
	tcase_add_test(pure, codec_encode_refuses);
	tcase_add_test(pure, codec_truncated);
	tcase_add_loop_test(pure, codec_hostile, 0,
			    (int)(sizeof(hostile) / sizeof(hostile[0])));
	tcase_add_test(pure, codec_short_claims);
	tcase_add_test(pure, codec_random_damage);
	suite_add_tcase(s, pure);
	return s;
}

PP_CHECK_MAIN(suite)
