// SPDX-License-Identifier: MIT
/*
 * pp_rdmacore.c - encoder and strict decoder of the stock rdma-core
 * ping-pong records.
 *
 * Both records are a list of fixed-width hex numbers, each followed by ':',
 * then the 32-digit GID and a NUL; one table per record drives both
 * directions.  The decoder accepts only lowercase digits of the exact width,
 * so any record it accepts re-encodes to the very same bytes.
 */
#include <errno.h>
#include <string.h>

#include "pp_rdmacore.h"

#define GID_DIGITS 32
#define MAX24 0xffffffU

/* One hex number of a record, and what to say when it is malformed. */
struct field {
	unsigned int width;
	const char *bad;     /* not @width lowercase hex digits */
	const char *bad_sep; /* not followed by ':' */
};

enum { F_LID, F_QPN, F_PSN, N_REC_FIELDS };
enum { X_LID, X_RECV_QPN, X_SEND_QPN, X_PSN, X_SRQN, N_XRC_FIELDS };

static const struct field rec_fields[N_REC_FIELDS] = {
	[F_LID] = { 4, "LID is not 4 lowercase hex digits",
		    "no ':' after the LID" },
	[F_QPN] = { 6, "QPN is not 6 lowercase hex digits",
		    "no ':' after the QPN" },
	[F_PSN] = { 6, "PSN is not 6 lowercase hex digits",
		    "no ':' after the PSN" },
};

static const struct field xrc_fields[N_XRC_FIELDS] = {
	[X_LID] = { 4, "LID is not 4 lowercase hex digits",
		    "no ':' after the LID" },
	[X_RECV_QPN] = { 6, "receive QPN is not 6 lowercase hex digits",
			 "no ':' after the receive QPN" },
	[X_SEND_QPN] = { 6, "send QPN is not 6 lowercase hex digits",
			 "no ':' after the send QPN" },
	[X_PSN] = { 6, "PSN is not 6 lowercase hex digits",
		    "no ':' after the PSN" },
	[X_SRQN] = { 6, "SRQ number is not 6 lowercase hex digits",
		     "no ':' after the SRQ number" },
};

/* sum of (width + 1) over the fields, the GID and the NUL */
_Static_assert(4 + 1 + 6 + 1 + 6 + 1 + GID_DIGITS + 1 == PP_RDMACORE_REC_LEN,
	       "address record layout");
_Static_assert(4 + 1 + 4 * (6 + 1) + GID_DIGITS + 1 == PP_RDMACORE_XRC_LEN,
	       "XRC record layout");

static const char done_token[PP_RDMACORE_DONE_LEN] = "done";
static const char end_token[PP_RDMACORE_END_LEN] = "END";

static int fail(const char **why, const char *what)
{
	*why = what;
	return EPROTO;
}

/* Write @v as @width lowercase hex digits (the caller checked it fits). */
static char *put_hex(char *p, uint32_t v, unsigned int width)
{
	static const char digits[] = "0123456789abcdef";
	unsigned int i;

	for (i = width; i-- > 0;) {
		p[i] = digits[v & 0xf];
		v >>= 4;
	}
	return p + width;
}

/* Read @width lowercase hex digits at @p into @v. */
static int get_hex(const char *p, unsigned int width, uint32_t *v,
		   const char *bad, const char **why)
{
	uint32_t x = 0;
	unsigned int i;
	char c;

	for (i = 0; i < width; i++) {
		c = p[i];
		if (c >= '0' && c <= '9')
			x = x << 4 | (uint32_t)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = x << 4 | (uint32_t)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			return fail(
				why,
				"uppercase hex digit (the stock tools write lowercase)");
		else
			return fail(why, bad);
	}
	*v = x;
	return 0;
}

/* Fields, each followed by ':', then the GID and the NUL. */
static void put_record(char *p, const struct field *f, const uint32_t *v,
		       size_t n, const uint8_t gid[16])
{
	size_t i;

	for (i = 0; i < n; i++) {
		p = put_hex(p, v[i], f[i].width);
		*p++ = ':';
	}
	for (i = 0; i < 16; i++)
		p = put_hex(p, gid[i], 2);
	*p = '\0';
}

static int get_record(const char *p, const struct field *f, uint32_t *v,
		      size_t n, uint8_t gid[16], const char **why)
{
	uint32_t byte;
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = get_hex(p, f[i].width, &v[i], f[i].bad, why);
		if (ret)
			return ret;
		p += f[i].width;
		if (*p++ != ':')
			return fail(why, f[i].bad_sep);
	}
	for (i = 0; i < 16; i++) {
		ret = get_hex(p, 2, &byte, "GID is not 32 lowercase hex digits",
			      why);
		if (ret)
			return ret;
		gid[i] = (uint8_t)byte;
		p += 2;
	}
	if (*p != '\0')
		return fail(why, "record not NUL-terminated");
	return 0;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

static bool addr_zero(const struct pp_addr *a)
{
	return !a->lid && !a->qpn && !a->psn && !a->srqn && !a->tgt_qpn &&
	       all_zero(a->gid, sizeof(a->gid));
}

int pp_rdmacore_encode(const struct pp_addr *a, char *buf, size_t len)
{
	uint32_t v[N_REC_FIELDS];

	if (a->qpn > MAX24 || a->psn > MAX24 || a->srqn || a->tgt_qpn)
		return EINVAL;
	if (len < PP_RDMACORE_REC_LEN)
		return ENOSPC;
	v[F_LID] = a->lid;
	v[F_QPN] = a->qpn;
	v[F_PSN] = a->psn;
	put_record(buf, rec_fields, v, N_REC_FIELDS, a->gid);
	return 0;
}

int pp_rdmacore_decode(const char *buf, size_t len, struct pp_addr *a,
		       const char **why)
{
	uint32_t v[N_REC_FIELDS];
	int ret;

	if (len != PP_RDMACORE_REC_LEN) {
		*why = "address record is not 52 bytes";
		return EBADMSG;
	}
	memset(a, 0, sizeof(*a));
	ret = get_record(buf, rec_fields, v, N_REC_FIELDS, a->gid, why);
	if (ret)
		return ret;
	a->lid = (uint16_t)v[F_LID];
	a->qpn = v[F_QPN];
	a->psn = v[F_PSN];
	return 0;
}

int pp_rdmacore_encode_srq(const struct pp_addr *a, uint32_t count, char *buf,
			   size_t len)
{
	static const struct pp_addr zero;
	uint32_t i;
	int ret;

	if (count < 1 || count > PP_RDMACORE_SRQ_RECS)
		return EINVAL;
	for (i = 0; i < count; i++) /* refuse before writing anything */
		if (a[i].qpn > MAX24 || a[i].psn > MAX24 || a[i].srqn ||
		    a[i].tgt_qpn)
			return EINVAL;
	if (len < PP_RDMACORE_SRQ_LEN)
		return ENOSPC;
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++) {
		ret = pp_rdmacore_encode(i < count ? &a[i] : &zero,
					 buf + (size_t)i * PP_RDMACORE_REC_LEN,
					 PP_RDMACORE_REC_LEN);
		if (ret)
			return ret; /* not reached: checked above */
	}
	return 0;
}

int pp_rdmacore_decode_srq(const char *buf, size_t len, struct pp_addr *a,
			   uint32_t *count, uint32_t *bad_rec, const char **why)
{
	uint32_t i, n;
	int ret;

	if (len != PP_RDMACORE_SRQ_LEN) {
		*why = "srq message is not 256 records of 52 bytes";
		return EBADMSG;
	}
	for (i = 0; i < PP_RDMACORE_SRQ_RECS; i++) {
		ret = pp_rdmacore_decode(buf + (size_t)i * PP_RDMACORE_REC_LEN,
					 PP_RDMACORE_REC_LEN, &a[i], why);
		if (ret)
			goto bad;
	}
	for (n = 0; n < PP_RDMACORE_SRQ_RECS && a[n].qpn; n++)
		;
	if (!n) {
		i = 0;
		ret = fail(why, "no record in use (QPN 0 in the first)");
		goto bad;
	}
	for (i = n; i < PP_RDMACORE_SRQ_RECS; i++) {
		if (a[i].qpn) {
			ret = fail(why, "record in use after an unused one");
			goto bad;
		}
		if (!addr_zero(&a[i])) {
			ret = fail(why, "unused record (QPN 0) not all zero");
			goto bad;
		}
	}
	*count = n;
	return 0;

bad:
	if (bad_rec)
		*bad_rec = i;
	return ret;
}

int pp_rdmacore_encode_xrc(const struct pp_addr *a, char *buf, size_t len)
{
	uint32_t v[N_XRC_FIELDS];

	if (a->qpn > MAX24 || a->tgt_qpn > MAX24 || a->psn > MAX24 ||
	    a->srqn > MAX24)
		return EINVAL;
	if (len < PP_RDMACORE_XRC_LEN)
		return ENOSPC;
	v[X_LID] = a->lid;
	v[X_RECV_QPN] = a->tgt_qpn;
	v[X_SEND_QPN] = a->qpn;
	v[X_PSN] = a->psn;
	v[X_SRQN] = a->srqn;
	put_record(buf, xrc_fields, v, N_XRC_FIELDS, a->gid);
	return 0;
}

int pp_rdmacore_decode_xrc(const char *buf, size_t len, struct pp_addr *a,
			   const char **why)
{
	uint32_t v[N_XRC_FIELDS];
	int ret;

	if (len != PP_RDMACORE_XRC_LEN) {
		*why = "XRC record is not 66 bytes";
		return EBADMSG;
	}
	memset(a, 0, sizeof(*a));
	ret = get_record(buf, xrc_fields, v, N_XRC_FIELDS, a->gid, why);
	if (ret)
		return ret;
	a->lid = (uint16_t)v[X_LID];
	a->tgt_qpn = v[X_RECV_QPN];
	a->qpn = v[X_SEND_QPN];
	a->psn = v[X_PSN];
	a->srqn = v[X_SRQN];
	return 0;
}

void pp_rdmacore_put_done(char *buf)
{
	memcpy(buf, done_token, PP_RDMACORE_DONE_LEN);
}

int pp_rdmacore_check_done(const char *buf, size_t len, const char **why)
{
	if (len != PP_RDMACORE_DONE_LEN) {
		*why = "\"done\" token is not 5 bytes";
		return EBADMSG;
	}
	if (memcmp(buf, done_token, PP_RDMACORE_DONE_LEN))
		return fail(why, "not the \"done\" token");
	return 0;
}

void pp_rdmacore_put_end(char *buf)
{
	memcpy(buf, end_token, PP_RDMACORE_END_LEN);
}

int pp_rdmacore_check_end(const char *buf, size_t len, const char **why)
{
	if (len != PP_RDMACORE_END_LEN) {
		*why = "\"END\" token is not 4 bytes";
		return EBADMSG;
	}
	if (memcmp(buf, end_token, PP_RDMACORE_END_LEN))
		return fail(why, "not the \"END\" token");
	return 0;
}

bool pp_rdmacore_wants_grh(const uint8_t gid[16])
{
	return !all_zero(gid + 8, 8);
}

void pp_rdmacore_chk_fill(uint8_t *buf, size_t len, size_t page)
{
	size_t off;

	memset(buf, PP_RDMACORE_CHK_FILL, len);
	for (off = 0; off < len; off += page ? page : len)
		buf[off] = 0;
}

bool pp_rdmacore_chk_ok(const uint8_t *buf, size_t len, size_t page,
			size_t *bad_off)
{
	size_t off;

	for (off = 0; off < len; off += page ? page : len) {
		if (buf[off]) {
			*bad_off = off;
			return false;
		}
	}
	return true;
}
