// SPDX-License-Identifier: MIT
/*
 * test_rdmacore.c - the codec of the stock rdma-core ping-pong records:
 * golden byte strings written by hand from the format (docs/interop.md),
 * a model of the stock sprintf/sscanf code compared with ours, every
 * malformed case with its errno and its reason, the srq 256-record message,
 * the XRC record and the done/END tokens (XRC cannot run on Soft-RoCE, so
 * these bytes are its only test), and a deterministic mutation loop.
 */
#include <arpa/inet.h>
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_rdmacore.h"

/* Hand-written records: each literal's sizeof counts its NUL. */
#define REC_ROCE "0000:000011:1a2b3c:00000000000000000000ffff0a630001"
#define REC_IB "0001:000412:abcdef:fe800000000000000002c90300a1b2c3"
#define REC_MAX "ffff:ffffff:ffffff:ffffffffffffffffffffffffffffffff"
#define REC_ZERO "0000:000000:000000:00000000000000000000000000000000"
#define XRC_REC \
	"0003:0000a1:0000b2:123456:0000c3:fe80000000000000021122fffe334455"
#define XRC_ZERO \
	"0000:000000:000000:000000:000000:00000000000000000000000000000000"

/* ::ffff:10.99.0.1, a RoCE v2 GID */
static const uint8_t gid_roce
	[16] = { [10] = 0xff, [11] = 0xff, [12] = 0x0a, [13] = 0x63, [15] = 0x01 };
/* fe80::2:c903:a1:b2c3, an InfiniBand port GID */
static const uint8_t gid_ib[16] = {
	0xfe,	     0x80,	  [9] = 0x02,  [10] = 0xc9,
	[11] = 0x03, [13] = 0xa1, [14] = 0xb2, [15] = 0xc3
};
/* fe80::211:22ff:fe33:4455 */
static const uint8_t gid_xrc[16] = {
	0xfe,	     0x80,	  [8] = 0x02,  [9] = 0x11,  [10] = 0x22,
	[11] = 0xff, [12] = 0xfe, [13] = 0x33, [14] = 0x44, [15] = 0x55
};

/* Static: each test runs in its own child (fork mode). */
static char buf[PP_RDMACORE_SRQ_LEN + 64];
static char ref[PP_RDMACORE_SRQ_LEN + 64];
static struct pp_addr srq_in[PP_RDMACORE_SRQ_RECS];
static struct pp_addr srq_out[PP_RDMACORE_SRQ_RECS];

static void assert_addr_eq(const struct pp_addr *a, const struct pp_addr *b)
{
	ck_assert_uint_eq(a->lid, b->lid);
	ck_assert_uint_eq(a->qpn, b->qpn);
	ck_assert_uint_eq(a->psn, b->psn);
	ck_assert_uint_eq(a->srqn, b->srqn);
	ck_assert_uint_eq(a->tgt_qpn, b->tgt_qpn);
	ck_assert_mem_eq(a->gid, b->gid, sizeof(a->gid));
}

static struct pp_addr addr(uint16_t lid, uint32_t qpn, uint32_t psn,
			   const uint8_t *gid)
{
	struct pp_addr a = { .lid = lid, .qpn = qpn, .psn = psn };

	if (gid)
		memcpy(a.gid, gid, 16);
	return a;
}

/* Deterministic PRNG (xorshift32), the same every run. */
static uint32_t rnd_state = 0x12345678;

static uint32_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 17;
	rnd_state ^= rnd_state << 5;
	return rnd_state;
}

static struct pp_addr rnd_addr(void)
{
	struct pp_addr a = {
		.lid = (uint16_t)rnd(),
		.qpn = rnd() & 0xffffff,
		.psn = rnd() & 0xffffff,
	};
	int i;

	for (i = 0; i < 16; i++)
		a.gid[i] = (uint8_t)rnd();
	return a;
}

/*
 * A model of the stock code (libibverbs/examples): gid_to_wire_gid() prints
 * htonl() of each 32-bit word loaded in host order with "%08x", and the
 * record is sprintf("%04x:%06x:%06x:%s") into a 52-byte buffer.
 */
static void stock_wire_gid(const uint8_t *gid, char wgid[33])
{
	uint32_t w;
	int i;

	for (i = 0; i < 4; i++) {
		memcpy(&w, gid + i * 4, 4);
		snprintf(&wgid[i * 8], 9, "%08x", htonl(w));
	}
}

static void stock_encode(const struct pp_addr *a, char *msg)
{
	char wgid[33];

	stock_wire_gid(a->gid, wgid);
	snprintf(msg, PP_RDMACORE_REC_LEN, "%04x:%06x:%06x:%s", a->lid, a->qpn,
		 a->psn, wgid);
}

/* The stock reader: sscanf "%x:%x:%x:%s", then wire_gid_to_gid(). */
static void stock_decode(const char *msg, struct pp_addr *a)
{
	unsigned int lid, qpn, psn;
	char wgid[33], tmp[9];
	uint32_t v;
	int i;

	ck_assert_int_eq(sscanf(msg, "%x:%x:%x:%32s", &lid, &qpn, &psn, wgid),
			 4);
	memset(a, 0, sizeof(*a));
	a->lid = (uint16_t)lid;
	a->qpn = qpn;
	a->psn = psn;
	for (tmp[8] = 0, i = 0; i < 4; i++) {
		memcpy(tmp, wgid + i * 8, 8);
		ck_assert_int_eq(sscanf(tmp, "%x", &v), 1);
		v = ntohl(v);
		memcpy(a->gid + i * 4, &v, 4);
	}
}

static void stock_encode_xrc(const struct pp_addr *a, char *msg)
{
	char wgid[33];

	stock_wire_gid(a->gid, wgid);
	snprintf(msg, PP_RDMACORE_XRC_LEN, "%04x:%06x:%06x:%06x:%06x:%32s",
		 a->lid, a->tgt_qpn, a->qpn, a->psn, a->srqn, wgid);
}

/* Decode @len bytes of @in and expect @err with @why. */
static void expect_rec_err(const char *in, size_t len, int err, const char *why)
{
	const char *got = NULL;
	struct pp_addr a;

	ck_assert_int_eq(pp_rdmacore_decode(in, len, &a, &got), err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, why);
}

static void expect_xrc_err(const char *in, size_t len, int err, const char *why)
{
	const char *got = NULL;
	struct pp_addr a;

	ck_assert_int_eq(pp_rdmacore_decode_xrc(in, len, &a, &got), err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, why);
}

/* --- the 52-byte address record ------------------------------------ */

START_TEST(test_literal_sizes)
{
	ck_assert_uint_eq(sizeof(REC_ROCE), PP_RDMACORE_REC_LEN);
	ck_assert_uint_eq(sizeof(REC_IB), PP_RDMACORE_REC_LEN);
	ck_assert_uint_eq(sizeof(REC_MAX), PP_RDMACORE_REC_LEN);
	ck_assert_uint_eq(sizeof(REC_ZERO), PP_RDMACORE_REC_LEN);
	ck_assert_uint_eq(sizeof(XRC_REC), PP_RDMACORE_XRC_LEN);
	ck_assert_uint_eq(sizeof(XRC_ZERO), PP_RDMACORE_XRC_LEN);
	ck_assert_uint_eq(PP_RDMACORE_SRQ_LEN, 13312);
	ck_assert_uint_eq(sizeof("done"), PP_RDMACORE_DONE_LEN);
	ck_assert_uint_eq(sizeof("END"), PP_RDMACORE_END_LEN);
}
END_TEST

/* Golden records: decoded to the fields, and the fields encoded back. */
static const struct {
	const char *rec;
	uint16_t lid;
	uint32_t qpn, psn;
	const uint8_t *gid;
} golden[] = {
	{ REC_ROCE, 0x0000, 0x000011, 0x1a2b3c, gid_roce },
	{ REC_IB, 0x0001, 0x000412, 0xabcdef, gid_ib },
	{ REC_ZERO, 0, 0, 0, NULL },
};

START_TEST(test_golden)
{
	struct pp_addr want, got;
	const char *why = NULL;

	want = addr(golden[_i].lid, golden[_i].qpn, golden[_i].psn,
		    golden[_i].gid);
	memset(&got, 0xa5, sizeof(got));
	ck_assert_int_eq(pp_rdmacore_decode(golden[_i].rec, PP_RDMACORE_REC_LEN,
					    &got, &why),
			 0);
	assert_addr_eq(&got, &want);

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(pp_rdmacore_encode(&want, buf, PP_RDMACORE_REC_LEN),
			 0);
	ck_assert_mem_eq(buf, golden[_i].rec, PP_RDMACORE_REC_LEN);
	ck_assert_int_eq((unsigned char)buf[PP_RDMACORE_REC_LEN], 0xa5);
}
END_TEST

START_TEST(test_max_fields)
{
	struct pp_addr a = addr(0xffff, 0xffffff, 0xffffff, NULL);
	const char *why = NULL;
	struct pp_addr got;

	memset(a.gid, 0xff, 16);
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), 0);
	ck_assert_mem_eq(buf, REC_MAX, PP_RDMACORE_REC_LEN);
	ck_assert_int_eq(pp_rdmacore_decode(REC_MAX, PP_RDMACORE_REC_LEN, &got,
					    &why),
			 0);
	assert_addr_eq(&got, &a);
}
END_TEST

/* Our encoder writes what the stock sprintf code writes, and back. */
START_TEST(test_stock_model)
{
	const char *why = NULL;
	struct pp_addr a, got, stock;
	int n;

	for (n = 0; n < 2000; n++) {
		a = rnd_addr();
		stock_encode(&a, ref);
		ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), 0);
		ck_assert_mem_eq(buf, ref, PP_RDMACORE_REC_LEN);
		ck_assert_int_eq(pp_rdmacore_decode(ref, PP_RDMACORE_REC_LEN,
						    &got, &why),
				 0);
		assert_addr_eq(&got, &a);
		stock_decode(buf, &stock);
		assert_addr_eq(&stock, &a);
	}
}
END_TEST

START_TEST(test_encode_bad)
{
	struct pp_addr a = addr(1, 0x1000000, 0, NULL);

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), EINVAL);
	a = addr(1, 1, 0x1000000, NULL);
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), EINVAL);
	a = addr(1, 1, 1, NULL);
	a.srqn = 1;
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), EINVAL);
	a.srqn = 0;
	a.tgt_qpn = 1;
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, sizeof(buf)), EINVAL);
	a.tgt_qpn = 0;
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, PP_RDMACORE_REC_LEN - 1),
			 ENOSPC);
	/* nothing written on failure */
	ck_assert_int_eq((unsigned char)buf[0], 0xa5);
	ck_assert_int_eq(pp_rdmacore_encode(&a, buf, PP_RDMACORE_REC_LEN), 0);
}
END_TEST

START_TEST(test_decode_bad_length)
{
	char longer[PP_RDMACORE_REC_LEN + 1];

	memcpy(longer, REC_ROCE, PP_RDMACORE_REC_LEN);
	longer[PP_RDMACORE_REC_LEN] = '\0';
	expect_rec_err(REC_ROCE, PP_RDMACORE_REC_LEN - 1, EBADMSG,
		       "address record is not 52 bytes");
	expect_rec_err(longer, sizeof(longer), EBADMSG,
		       "address record is not 52 bytes");
	expect_rec_err(REC_ROCE, 0, EBADMSG, "address record is not 52 bytes");
	expect_rec_err(XRC_REC, PP_RDMACORE_XRC_LEN, EBADMSG,
		       "address record is not 52 bytes");
}
END_TEST

/* One byte of REC_ROCE replaced, and what the decoder must say. */
static const struct {
	size_t off;
	char c;
	const char *why;
} rec_bad[] = {
	{ 0, 'g', "LID is not 4 lowercase hex digits" },
	{ 1, 'x', "LID is not 4 lowercase hex digits" }, /* "0x.." */
	{ 0, ' ', "LID is not 4 lowercase hex digits" },
	{ 2, 'A', "uppercase hex digit (the stock tools write lowercase)" },
	{ 3, ':', "LID is not 4 lowercase hex digits" }, /* 3 digits */
	{ 4, '-', "no ':' after the LID" },
	{ 4, '0', "no ':' after the LID" }, /* 5 digits */
	{ 5, '+', "QPN is not 6 lowercase hex digits" },
	{ 9, 'F', "uppercase hex digit (the stock tools write lowercase)" },
	{ 10, '\0', "QPN is not 6 lowercase hex digits" },
	{ 11, '.', "no ':' after the QPN" },
	{ 12, 'z', "PSN is not 6 lowercase hex digits" },
	{ 13, 'A', "uppercase hex digit (the stock tools write lowercase)" },
	{ 18, ';', "no ':' after the PSN" },
	{ 19, 'G', "GID is not 32 lowercase hex digits" },
	{ 19, ':', "GID is not 32 lowercase hex digits" },
	{ 40, 'E', "uppercase hex digit (the stock tools write lowercase)" },
	{ 50, '\0', "GID is not 32 lowercase hex digits" }, /* 31 digits */
	{ 51, '0', "record not NUL-terminated" },
	{ 51, '\n', "record not NUL-terminated" },
};

START_TEST(test_decode_bad_byte)
{
	memcpy(buf, REC_ROCE, PP_RDMACORE_REC_LEN);
	buf[rec_bad[_i].off] = rec_bad[_i].c;
	expect_rec_err(buf, PP_RDMACORE_REC_LEN, EPROTO, rec_bad[_i].why);
}
END_TEST

/* Strings the stock sscanf would take, refused because no stock tool
 * writes them. */
START_TEST(test_decode_lax_forms)
{
	static const char short_fields[PP_RDMACORE_REC_LEN] =
		"1:11:1a2b3c:00000000000000000000ffff0a63000100000";
	static const char upper[] =
		"0000:000011:1A2B3C:00000000000000000000FFFF0A630001";

	expect_rec_err(short_fields, sizeof(short_fields), EPROTO,
		       "LID is not 4 lowercase hex digits");
	expect_rec_err(upper, sizeof(upper), EPROTO,
		       "uppercase hex digit (the stock tools write lowercase)");
}
END_TEST

/* Random mutations: what is accepted re-encodes to the same bytes. */
START_TEST(test_mutations)
{
	static const char alphabet[] = "0123456789abcdefABCDEFgx: +-\n";
	const char *why;
	struct pp_addr a;
	int n, k, ret, accepted = 0;

	for (n = 0; n < 20000; n++) {
		memcpy(buf, n & 1 ? REC_IB : REC_ROCE, PP_RDMACORE_REC_LEN);
		for (k = rnd() % 3; k >= 0; k--) {
			size_t off = rnd() % PP_RDMACORE_REC_LEN;

			buf[off] = alphabet[rnd() % sizeof(alphabet)];
		}
		why = NULL;
		ret = pp_rdmacore_decode(buf, PP_RDMACORE_REC_LEN, &a, &why);
		if (ret) {
			ck_assert_int_eq(ret, EPROTO);
			ck_assert_ptr_nonnull(why);
			continue;
		}
		accepted++;
		ck_assert_int_eq(pp_rdmacore_encode(&a, ref, sizeof(ref)), 0);
		ck_assert_mem_eq(ref, buf, PP_RDMACORE_REC_LEN);
	}
	ck_assert_int_gt(accepted, 100);
	ck_assert_int_lt(accepted, 20000);
}
END_TEST

/* --- srq: 256 records each way ------------------------------------- */

/* Two QPs: two hand-written records, then 254 of the zero address. */
static void srq_expected(char *out)
{
	int i;

	memcpy(out, REC_IB, PP_RDMACORE_REC_LEN);
	memcpy(out + PP_RDMACORE_REC_LEN,
	       "0001:000413:000001:fe800000000000000002c90300a1b2c3",
	       PP_RDMACORE_REC_LEN);
	for (i = 2; i < PP_RDMACORE_SRQ_RECS; i++)
		memcpy(out + i * PP_RDMACORE_REC_LEN, REC_ZERO,
		       PP_RDMACORE_REC_LEN);
}

START_TEST(test_srq_golden)
{
	static const struct pp_addr zero;
	uint32_t count = 0, bad = 99;
	const char *why = NULL;
	int i;

	srq_in[0] = addr(1, 0x412, 0xabcdef, gid_ib);
	srq_in[1] = addr(1, 0x413, 0x000001, gid_ib);
	srq_expected(ref);

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(
		pp_rdmacore_encode_srq(srq_in, 2, buf, PP_RDMACORE_SRQ_LEN), 0);
	ck_assert_mem_eq(buf, ref, PP_RDMACORE_SRQ_LEN);
	ck_assert_int_eq((unsigned char)buf[PP_RDMACORE_SRQ_LEN], 0xa5);
	/* an unused record is ASCII zeros, not zero bytes */
	ck_assert_int_eq(buf[2 * PP_RDMACORE_REC_LEN], '0');

	ck_assert_int_eq(pp_rdmacore_decode_srq(ref, PP_RDMACORE_SRQ_LEN,
						srq_out, &count, &bad, &why),
			 0);
	ck_assert_uint_eq(count, 2);
	ck_assert_uint_eq(bad, 99);
	assert_addr_eq(&srq_out[0], &srq_in[0]);
	assert_addr_eq(&srq_out[1], &srq_in[1]);
	for (i = 2; i < PP_RDMACORE_SRQ_RECS; i++)
		assert_addr_eq(&srq_out[i], &zero);
}
END_TEST

START_TEST(test_srq_full)
{
	uint32_t count = 0;
	const char *why = NULL;
	int i;

	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++)
		srq_in[i] = addr(7, 0x100 + (uint32_t)i, (uint32_t)i * 977,
				 gid_roce);
	ck_assert_int_eq(pp_rdmacore_encode_srq(srq_in, PP_RDMACORE_SRQ_RECS,
						buf, sizeof(buf)),
			 0);
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++) {
		stock_encode(&srq_in[i], ref);
		ck_assert_mem_eq(buf + i * PP_RDMACORE_REC_LEN, ref,
				 PP_RDMACORE_REC_LEN);
	}
	ck_assert_int_eq(pp_rdmacore_decode_srq(buf, PP_RDMACORE_SRQ_LEN,
						srq_out, &count, NULL, &why),
			 0);
	ck_assert_uint_eq(count, PP_RDMACORE_SRQ_RECS);
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++)
		assert_addr_eq(&srq_out[i], &srq_in[i]);
}
END_TEST

static void expect_srq_err(size_t len, int err, uint32_t rec, const char *why)
{
	uint32_t count = 77, bad = 999;
	const char *got = NULL;

	ck_assert_int_eq(pp_rdmacore_decode_srq(buf, len, srq_out, &count, &bad,
						&got),
			 err);
	ck_assert_ptr_nonnull(got);
	ck_assert_str_eq(got, why);
	ck_assert_uint_eq(count, 77); /* untouched on failure */
	if (err == EPROTO)
		ck_assert_uint_eq(bad, rec);
}

START_TEST(test_srq_bad)
{
	srq_expected(buf);
	expect_srq_err(PP_RDMACORE_SRQ_LEN - 1, EBADMSG, 0,
		       "srq message is not 256 records of 52 bytes");
	expect_srq_err(PP_RDMACORE_SRQ_LEN + 1, EBADMSG, 0,
		       "srq message is not 256 records of 52 bytes");
	expect_srq_err(PP_RDMACORE_REC_LEN, EBADMSG, 0,
		       "srq message is not 256 records of 52 bytes");

	/* a malformed record: its index and its reason */
	buf[5 * PP_RDMACORE_REC_LEN + 4] = '-';
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 5, "no ':' after the LID");
	srq_expected(buf);
	buf[255 * PP_RDMACORE_REC_LEN + 51] = '0';
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 255,
		       "record not NUL-terminated");

	/* unused records as zero bytes instead of ASCII zeros */
	srq_expected(buf);
	memset(buf + 2 * PP_RDMACORE_REC_LEN, 0,
	       PP_RDMACORE_SRQ_LEN - 2 * PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 2,
		       "LID is not 4 lowercase hex digits");

	/* nothing in use */
	srq_expected(buf);
	memcpy(buf, REC_ZERO, PP_RDMACORE_REC_LEN);
	memcpy(buf + PP_RDMACORE_REC_LEN, REC_ZERO, PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 0,
		       "no record in use (QPN 0 in the first)");

	/* a hole: 0 and 1 used, 2 unused, 3 used */
	srq_expected(buf);
	memcpy(buf + 3 * PP_RDMACORE_REC_LEN, REC_ROCE, PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 3,
		       "record in use after an unused one");

	/* unused (QPN 0) but not the zero address */
	srq_expected(buf);
	memcpy(buf + 2 * PP_RDMACORE_REC_LEN,
	       "0000:000000:000001:00000000000000000000000000000000",
	       PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 2,
		       "unused record (QPN 0) not all zero");
	srq_expected(buf);
	memcpy(buf + 9 * PP_RDMACORE_REC_LEN,
	       "0001:000000:000000:00000000000000000000000000000000",
	       PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 9,
		       "unused record (QPN 0) not all zero");
	srq_expected(buf);
	memcpy(buf + 200 * PP_RDMACORE_REC_LEN,
	       "0000:000000:000000:00000000000000000000000000000001",
	       PP_RDMACORE_REC_LEN);
	expect_srq_err(PP_RDMACORE_SRQ_LEN, EPROTO, 200,
		       "unused record (QPN 0) not all zero");
}
END_TEST

START_TEST(test_srq_encode_bad)
{
	srq_in[0] = addr(1, 0x412, 1, NULL);
	srq_in[1] = addr(1, 0x1000000, 1, NULL);
	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(pp_rdmacore_encode_srq(srq_in, 0, buf, sizeof(buf)),
			 EINVAL);
	ck_assert_int_eq(pp_rdmacore_encode_srq(srq_in,
						PP_RDMACORE_SRQ_RECS + 1, buf,
						sizeof(buf)),
			 EINVAL);
	ck_assert_int_eq(pp_rdmacore_encode_srq(srq_in, 2, buf, sizeof(buf)),
			 EINVAL);
	ck_assert_int_eq((unsigned char)buf[0], 0xa5);
	ck_assert_int_eq(pp_rdmacore_encode_srq(srq_in, 1, buf,
						PP_RDMACORE_SRQ_LEN - 1),
			 ENOSPC);
	ck_assert_int_eq((unsigned char)buf[0], 0xa5);
	ck_assert_int_eq(
		pp_rdmacore_encode_srq(srq_in, 1, buf, PP_RDMACORE_SRQ_LEN), 0);
}
END_TEST

/* --- xsrq: the 66-byte XRC record ----------------------------------- */

START_TEST(test_xrc_golden)
{
	struct pp_addr want = addr(3, 0xb2, 0x123456, gid_xrc), got;
	const char *why = NULL;

	want.tgt_qpn = 0xa1; /* receive QPN: the second field */
	want.srqn = 0xc3;
	memset(&got, 0xa5, sizeof(got));
	ck_assert_int_eq(pp_rdmacore_decode_xrc(XRC_REC, PP_RDMACORE_XRC_LEN,
						&got, &why),
			 0);
	assert_addr_eq(&got, &want);

	memset(buf, 0xa5, sizeof(buf));
	ck_assert_int_eq(
		pp_rdmacore_encode_xrc(&want, buf, PP_RDMACORE_XRC_LEN), 0);
	ck_assert_mem_eq(buf, XRC_REC, PP_RDMACORE_XRC_LEN);
	ck_assert_int_eq((unsigned char)buf[PP_RDMACORE_XRC_LEN], 0xa5);

	/* no GID index: an all-zero GID */
	memset(&want, 0, sizeof(want));
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&want, buf, sizeof(buf)), 0);
	ck_assert_mem_eq(buf, XRC_ZERO, PP_RDMACORE_XRC_LEN);
}
END_TEST

START_TEST(test_xrc_stock_model)
{
	const char *why = NULL;
	struct pp_addr a, got;
	int n;

	for (n = 0; n < 2000; n++) {
		a = rnd_addr();
		a.tgt_qpn = rnd() & 0xffffff;
		a.srqn = rnd() & 0xffffff;
		stock_encode_xrc(&a, ref);
		ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, sizeof(buf)),
				 0);
		ck_assert_mem_eq(buf, ref, PP_RDMACORE_XRC_LEN);
		ck_assert_int_eq(pp_rdmacore_decode_xrc(
					 ref, PP_RDMACORE_XRC_LEN, &got, &why),
				 0);
		assert_addr_eq(&got, &a);
	}
}
END_TEST

START_TEST(test_xrc_encode_bad)
{
	struct pp_addr a = addr(1, 1, 1, NULL);

	a.qpn = 0x1000000;
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, sizeof(buf)), EINVAL);
	a.qpn = 1;
	a.tgt_qpn = 0x1000000;
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, sizeof(buf)), EINVAL);
	a.tgt_qpn = 1;
	a.psn = 0x1000000;
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, sizeof(buf)), EINVAL);
	a.psn = 1;
	a.srqn = 0x1000000;
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, sizeof(buf)), EINVAL);
	a.srqn = 0xffffff;
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf,
						PP_RDMACORE_XRC_LEN - 1),
			 ENOSPC);
	ck_assert_int_eq(pp_rdmacore_encode_xrc(&a, buf, PP_RDMACORE_XRC_LEN),
			 0);
}
END_TEST

START_TEST(test_xrc_bad_length)
{
	char longer[PP_RDMACORE_XRC_LEN + 1];

	memcpy(longer, XRC_REC, PP_RDMACORE_XRC_LEN);
	longer[PP_RDMACORE_XRC_LEN] = '\0';
	expect_xrc_err(XRC_REC, PP_RDMACORE_XRC_LEN - 1, EBADMSG,
		       "XRC record is not 66 bytes");
	expect_xrc_err(longer, sizeof(longer), EBADMSG,
		       "XRC record is not 66 bytes");
	expect_xrc_err(REC_ROCE, PP_RDMACORE_REC_LEN, EBADMSG,
		       "XRC record is not 66 bytes");
}
END_TEST

/* One byte of XRC_REC replaced: every field and separator. */
static const struct {
	size_t off;
	char c;
	const char *why;
} xrc_bad[] = {
	{ 0, 'g', "LID is not 4 lowercase hex digits" },
	{ 4, '-', "no ':' after the LID" },
	{ 5, 'z', "receive QPN is not 6 lowercase hex digits" },
	{ 11, '_', "no ':' after the receive QPN" },
	{ 12, 'q', "send QPN is not 6 lowercase hex digits" },
	{ 18, ' ', "no ':' after the send QPN" },
	{ 19, 'r', "PSN is not 6 lowercase hex digits" },
	{ 25, '/', "no ':' after the PSN" },
	{ 26, 's', "SRQ number is not 6 lowercase hex digits" },
	{ 31, 'C', "uppercase hex digit (the stock tools write lowercase)" },
	{ 32, '|', "no ':' after the SRQ number" },
	{ 33, 'h', "GID is not 32 lowercase hex digits" },
	{ 64, 'B', "uppercase hex digit (the stock tools write lowercase)" },
	{ 64, '\0', "GID is not 32 lowercase hex digits" },
	{ 65, 'a', "record not NUL-terminated" },
};

START_TEST(test_xrc_bad_byte)
{
	memcpy(buf, XRC_REC, PP_RDMACORE_XRC_LEN);
	buf[xrc_bad[_i].off] = xrc_bad[_i].c;
	expect_xrc_err(buf, PP_RDMACORE_XRC_LEN, EPROTO, xrc_bad[_i].why);
}
END_TEST

/* --- the done and END tokens ---------------------------------------- */

START_TEST(test_done)
{
	static const char want[PP_RDMACORE_DONE_LEN] = { 'd', 'o', 'n', 'e',
							 '\0' };
	const char *why = NULL;

	memset(buf, 0xa5, sizeof(buf));
	pp_rdmacore_put_done(buf);
	ck_assert_mem_eq(buf, want, sizeof(want));
	ck_assert_int_eq((unsigned char)buf[PP_RDMACORE_DONE_LEN], 0xa5);
	ck_assert_int_eq(pp_rdmacore_check_done(want, sizeof(want), &why), 0);
}
END_TEST

static const struct {
	const char *bytes;
	size_t len;
	int err;
	const char *why;
} done_bad[] = {
	{ "done", 4, EBADMSG, "\"done\" token is not 5 bytes" },
	{ "done\0", 6, EBADMSG, "\"done\" token is not 5 bytes" },
	{ "", 0, EBADMSG, "\"done\" token is not 5 bytes" },
	{ "Done", 5, EPROTO, "not the \"done\" token" },
	{ "done ", 5, EPROTO, "not the \"done\" token" }, /* no NUL */
	{ "dona", 5, EPROTO, "not the \"done\" token" },
	{ "END\0", 5, EPROTO, "not the \"done\" token" },
};

START_TEST(test_done_bad)
{
	const char *why = NULL;

	ck_assert_int_eq(pp_rdmacore_check_done(done_bad[_i].bytes,
						done_bad[_i].len, &why),
			 done_bad[_i].err);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, done_bad[_i].why);
}
END_TEST

/* The xsrq ending: client END, then server END, both checked. */
START_TEST(test_end_exchange)
{
	static const char want[PP_RDMACORE_END_LEN] = { 'E', 'N', 'D', '\0' };
	char from_client[PP_RDMACORE_END_LEN + 1];
	char from_server[PP_RDMACORE_END_LEN + 1];
	const char *why = NULL;

	memset(from_client, 0xa5, sizeof(from_client));
	memset(from_server, 0xa5, sizeof(from_server));
	pp_rdmacore_put_end(from_client);
	ck_assert_mem_eq(from_client, want, sizeof(want));
	ck_assert_int_eq((unsigned char)from_client[PP_RDMACORE_END_LEN], 0xa5);
	ck_assert_int_eq(pp_rdmacore_check_end(from_client, PP_RDMACORE_END_LEN,
					       &why),
			 0);
	pp_rdmacore_put_end(from_server);
	ck_assert_int_eq(pp_rdmacore_check_end(from_server, PP_RDMACORE_END_LEN,
					       &why),
			 0);
	ck_assert_int_eq(pp_rdmacore_check_end("END", sizeof("END"), &why), 0);
}
END_TEST

static const struct {
	const char *bytes;
	size_t len;
	int err;
	const char *why;
} end_bad[] = {
	{ "END", 3, EBADMSG, "\"END\" token is not 4 bytes" },
	{ "done", 5, EBADMSG, "\"END\" token is not 4 bytes" },
	{ "END\0", 5, EBADMSG, "\"END\" token is not 4 bytes" },
	{ "end", 4, EPROTO, "not the \"END\" token" },
	{ "END ", 4, EPROTO, "not the \"END\" token" }, /* no NUL */
	{ "ENDS", 4, EPROTO, "not the \"END\" token" },
	{ "\0END", 4, EPROTO, "not the \"END\" token" },
};

START_TEST(test_end_bad)
{
	const char *why = NULL;

	ck_assert_int_eq(pp_rdmacore_check_end(end_bad[_i].bytes,
					       end_bad[_i].len, &why),
			 end_bad[_i].err);
	ck_assert_ptr_nonnull(why);
	ck_assert_str_eq(why, end_bad[_i].why);
}
END_TEST

/* --- GRH rule and the -c buffer ------------------------------------ */

START_TEST(test_wants_grh)
{
	uint8_t gid[16] = { 0 };

	ck_assert(!pp_rdmacore_wants_grh(gid));
	gid[0] = 0xfe; /* a prefix alone: the stock tools use no GRH */
	gid[1] = 0x80;
	gid[7] = 0x01;
	ck_assert(!pp_rdmacore_wants_grh(gid));
	gid[8] = 0x01;
	ck_assert(pp_rdmacore_wants_grh(gid));
	memset(gid, 0, sizeof(gid));
	gid[15] = 0x01;
	ck_assert(pp_rdmacore_wants_grh(gid));
	ck_assert(pp_rdmacore_wants_grh(gid_roce));
	ck_assert(pp_rdmacore_wants_grh(gid_ib));
}
END_TEST

START_TEST(test_chk)
{
	static uint8_t msg[10000];
	size_t off = 1, i;

	pp_rdmacore_chk_fill(msg, sizeof(msg), 4096);
	for (i = 0; i < sizeof(msg); i++)
		ck_assert_uint_eq(msg[i], i % 4096 ? 0x7b : 0);
	ck_assert(pp_rdmacore_chk_ok(msg, sizeof(msg), 4096, &off));
	msg[8192] = 0x7b;
	ck_assert(!pp_rdmacore_chk_ok(msg, sizeof(msg), 4096, &off));
	ck_assert_uint_eq(off, 8192);
	msg[8192] = 0;
	msg[8191] = 0x11; /* not a page start: not checked */
	ck_assert(pp_rdmacore_chk_ok(msg, sizeof(msg), 4096, &off));

	/* page 0: offset 0 only */
	pp_rdmacore_chk_fill(msg, 100, 0);
	ck_assert_uint_eq(msg[0], 0);
	ck_assert_uint_eq(msg[1], 0x7b);
	ck_assert(pp_rdmacore_chk_ok(msg, 100, 0, &off));
	msg[0] = 1;
	ck_assert(!pp_rdmacore_chk_ok(msg, 100, 0, &off));
	ck_assert_uint_eq(off, 0);
	ck_assert(pp_rdmacore_chk_ok(msg, 0, 4096, &off));
}
END_TEST

static Suite *rdmacore_suite(void)
{
	Suite *s = suite_create("rdmacore");
	TCase *tc;

	tc = tcase_create("record");
	tcase_add_test(tc, test_literal_sizes);
	tcase_add_loop_test(tc, test_golden, 0,
			    sizeof(golden) / sizeof(golden[0]));
	tcase_add_test(tc, test_max_fields);
	tcase_add_test(tc, test_stock_model);
	tcase_add_test(tc, test_encode_bad);
	tcase_add_test(tc, test_decode_bad_length);
	tcase_add_loop_test(tc, test_decode_bad_byte, 0,
			    sizeof(rec_bad) / sizeof(rec_bad[0]));
	tcase_add_test(tc, test_decode_lax_forms);
	tcase_add_test(tc, test_mutations);
	suite_add_tcase(s, tc);

	tc = tcase_create("srq");
	tcase_add_test(tc, test_srq_golden);
	tcase_add_test(tc, test_srq_full);
	tcase_add_test(tc, test_srq_bad);
	tcase_add_test(tc, test_srq_encode_bad);
	suite_add_tcase(s, tc);

	tc = tcase_create("xrc");
	tcase_add_test(tc, test_xrc_golden);
	tcase_add_test(tc, test_xrc_stock_model);
	tcase_add_test(tc, test_xrc_encode_bad);
	tcase_add_test(tc, test_xrc_bad_length);
	tcase_add_loop_test(tc, test_xrc_bad_byte, 0,
			    sizeof(xrc_bad) / sizeof(xrc_bad[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("tokens");
	tcase_add_test(tc, test_done);
	tcase_add_loop_test(tc, test_done_bad, 0,
			    sizeof(done_bad) / sizeof(done_bad[0]));
	tcase_add_test(tc, test_end_exchange);
	tcase_add_loop_test(tc, test_end_bad, 0,
			    sizeof(end_bad) / sizeof(end_bad[0]));
	suite_add_tcase(s, tc);

	tc = tcase_create("grh_chk");
	tcase_add_test(tc, test_wants_grh);
	tcase_add_test(tc, test_chk);
	suite_add_tcase(s, tc);

	return s;
}

PP_CHECK_MAIN(rdmacore_suite)
