/* SPDX-License-Identifier: MIT */
/*
 * pp_rdmacore.h - the out-of-band records of the stock rdma-core ping-pong
 * tools (ibv_rc_pingpong, ibv_uc_pingpong, ibv_ud_pingpong, ibv_srq_pingpong,
 * ibv_xsrq_pingpong from libibverbs/examples): a pure codec, so that our
 * tools can talk to them.  Nothing here does I/O or allocates.
 * docs/interop.md tells who sends what, when, and how the data loops run.
 *
 * Every record is ASCII: fixed-width lowercase hex fields joined by ':' and
 * a terminating NUL, sent as one write() (the stock rc/uc/ud read it with a
 * single read()).
 *
 * Address record (rc, uc, ud: one each way; srq: 256 each way), 52 bytes,
 * as the stock sprintf("%04x:%06x:%06x:%s") writes it:
 *   LID 4 | ':' | QPN 6 | ':' | PSN 6 | ':' | GID 32 | NUL
 * XRC record (xsrq: one each way), 66 bytes:
 *   LID 4 | ':' | receive QPN 6 | ':' | send QPN 6 | ':' | PSN 6 | ':' |
 *   SRQ number 6 | ':' | GID 32 | NUL
 * GID: the 16 raw bytes in order, two lowercase hex digits each, on any host
 * (the stock gid_to_wire_gid() prints htonl() of each 32-bit word loaded in
 * host order, which is the bytes in order whatever the endianness).  All
 * zero when the sender has no GID index (-g).
 * srq: 256 address records whatever -q is; the first -q describe the QPs,
 * the others are the record of an all-zero address ("0000:000000:000000:"
 * and 32 '0', then NUL), never all-zero bytes.
 * Tokens: "done" + NUL (5 bytes, rc/uc/ud/srq client -> server after the
 * records); "END" + NUL (4 bytes, xsrq, both ways at the end of the run).
 *
 * The decoders accept exactly what the stock encoder writes, which is
 * stricter than the stock reader (sscanf "%x" also takes uppercase, fewer
 * digits, a sign or "0x"): every record they accept re-encodes to the very
 * same bytes.  Field widths bound the values, so the 16-bit LID and the
 * 24-bit QPN, PSN and SRQ number cannot be out of range once decoded; the
 * encoders refuse (EINVAL) a value that would not fit its field.
 *
 * Field mapping to struct pp_addr: address record -> lid, qpn, psn, gid
 * (srqn and tgt_qpn are 0); XRC record: receive QPN -> tgt_qpn, send QPN ->
 * qpn, SRQ number -> srqn.
 */
#ifndef PP_RDMACORE_H
#define PP_RDMACORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_wire.h"

#define PP_RDMACORE_PORT 18515	 /* the stock default TCP port (-p) */
#define PP_RDMACORE_REC_LEN 52	 /* address record, NUL included */
#define PP_RDMACORE_XRC_LEN 66	 /* XRC record, NUL included */
#define PP_RDMACORE_SRQ_RECS 256 /* srq: records each way (MAX_QP) */
#define PP_RDMACORE_SRQ_LEN (PP_RDMACORE_SRQ_RECS * PP_RDMACORE_REC_LEN)
#define PP_RDMACORE_DONE_LEN 5	  /* "done" + NUL */
#define PP_RDMACORE_END_LEN 4	  /* "END" + NUL */
#define PP_RDMACORE_CHK_FILL 0x7b /* rc/uc/ud: the stock buffer's filler */

/**
 * pp_rdmacore_encode() - write the 52-byte address record of @a
 * @a: the address; srqn and tgt_qpn must be 0 (the record has no room)
 * @buf: output, PP_RDMACORE_REC_LEN bytes with the NUL
 * @len: room in @buf
 *
 * Return: 0; EINVAL (qpn or psn above 24 bits, srqn or tgt_qpn not 0);
 * ENOSPC (@len too small).
 */
int pp_rdmacore_encode(const struct pp_addr *a, char *buf, size_t len);

/**
 * pp_rdmacore_decode() - read and check one address record
 * @buf: the bytes received
 * @len: how many; must be PP_RDMACORE_REC_LEN
 * @a: the address, srqn and tgt_qpn 0
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EBADMSG (@len is not PP_RDMACORE_REC_LEN); EPROTO (a field not
 * of its width in lowercase hex digits, an uppercase digit, a separator other
 * than ':', no terminating NUL).
 */
int pp_rdmacore_decode(const char *buf, size_t len, struct pp_addr *a,
		       const char **why);

/**
 * pp_rdmacore_encode_srq() - write the 256 address records of the srq tool
 * @a: the @count addresses in use
 * @count: 1..PP_RDMACORE_SRQ_RECS
 * @buf: output, PP_RDMACORE_SRQ_LEN bytes; records @count and above are the
 *       record of an all-zero address
 * @len: room in @buf
 *
 * Return: 0; EINVAL (@count out of range, or an address pp_rdmacore_encode()
 * refuses); ENOSPC (@len too small).
 */
int pp_rdmacore_encode_srq(const struct pp_addr *a, uint32_t count, char *buf,
			   size_t len);

/**
 * pp_rdmacore_decode_srq() - read and check the 256 records of the srq tool
 * @buf: the bytes received
 * @len: how many; must be PP_RDMACORE_SRQ_LEN
 * @a: PP_RDMACORE_SRQ_RECS addresses; the first @count are the peer's QPs
 * @count: records in use: those before the first one with QPN 0 (no QP has
 *         number 0), that is the peer's -q
 * @bad_rec: on EPROTO, the index of the faulty record (may be NULL)
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EBADMSG (@len is not PP_RDMACORE_SRQ_LEN); EPROTO (a record
 * pp_rdmacore_decode() refuses, no record in use, a record in use after an
 * unused one, an unused record that is not all zero).
 */
int pp_rdmacore_decode_srq(const char *buf, size_t len, struct pp_addr *a,
			   uint32_t *count, uint32_t *bad_rec,
			   const char **why);

/**
 * pp_rdmacore_encode_xrc() - write the 66-byte XRC record of @a
 * @a: the address: tgt_qpn the receive QP, qpn the send QP, srqn the SRQ
 * @buf: output, PP_RDMACORE_XRC_LEN bytes with the NUL
 * @len: room in @buf
 *
 * Return: 0; EINVAL (qpn, tgt_qpn, psn or srqn above 24 bits); ENOSPC (@len
 * too small).
 */
int pp_rdmacore_encode_xrc(const struct pp_addr *a, char *buf, size_t len);

/**
 * pp_rdmacore_decode_xrc() - read and check one XRC record
 * @buf: the bytes received
 * @len: how many; must be PP_RDMACORE_XRC_LEN
 * @a: the address (receive QPN in tgt_qpn, send QPN in qpn, SRQ in srqn)
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EBADMSG (@len is not PP_RDMACORE_XRC_LEN); EPROTO (as
 * pp_rdmacore_decode()).
 */
int pp_rdmacore_decode_xrc(const char *buf, size_t len, struct pp_addr *a,
			   const char **why);

/**
 * pp_rdmacore_put_done() - write the "done" token
 * @buf: output, PP_RDMACORE_DONE_LEN bytes: "done" and its NUL
 */
void pp_rdmacore_put_done(char *buf);

/**
 * pp_rdmacore_check_done() - is @buf exactly the "done" token?
 * @buf: the bytes received
 * @len: how many; must be PP_RDMACORE_DONE_LEN
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EBADMSG (wrong length); EPROTO (other bytes).
 */
int pp_rdmacore_check_done(const char *buf, size_t len, const char **why);

/**
 * pp_rdmacore_put_end() - write the xsrq "END" token
 * @buf: output, PP_RDMACORE_END_LEN bytes: "END" and its NUL
 */
void pp_rdmacore_put_end(char *buf);

/**
 * pp_rdmacore_check_end() - is @buf exactly the "END" token?
 * @buf: the bytes received
 * @len: how many; must be PP_RDMACORE_END_LEN
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EBADMSG (wrong length); EPROTO (other bytes).
 */
int pp_rdmacore_check_end(const char *buf, size_t len, const char **why);

/**
 * pp_rdmacore_wants_grh() - would a stock tool address this GID with a GRH?
 * @gid: the 16 raw bytes of the GID the peer sent
 *
 * The stock tools set is_global only when the interface ID (bytes 8..15)
 * of the remote GID is not zero, whatever the prefix.
 *
 * Return: true when bytes 8..15 are not all zero.
 */
bool pp_rdmacore_wants_grh(const uint8_t gid[16]);

/**
 * pp_rdmacore_chk_fill() - fill a message as a stock sender with -c does
 * @buf: the message
 * @len: its size
 * @page: the page size (sysconf(_SC_PAGESIZE)); 0 marks offset 0 only
 *
 * PP_RDMACORE_CHK_FILL everywhere, 0 at every multiple of @page: what the
 * stock rc/uc/ud client sends with -c (the byte it sets, i / page_size %
 * sizeof(char), is always 0).
 */
void pp_rdmacore_chk_fill(uint8_t *buf, size_t len, size_t page);

/**
 * pp_rdmacore_chk_ok() - does @buf pass the stock -c check?
 * @buf: the message received
 * @len: its size
 * @page: the page size; 0 checks offset 0 only
 * @bad_off: the first offset that fails, when it returns false
 *
 * The stock server checks only the byte at each multiple of its page size,
 * which must be 0.
 *
 * Return: true when every such byte is 0.
 */
bool pp_rdmacore_chk_ok(const uint8_t *buf, size_t len, size_t page,
			size_t *bad_off);

#endif /* PP_RDMACORE_H */
