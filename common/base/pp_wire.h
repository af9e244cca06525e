/* SPDX-License-Identifier: MIT */
/*
 * pp_wire.h - the records of our out-of-band handshake: a pure codec.
 *
 * Every message is a 12-byte header and a body of a length fixed by its type.
 * All integers are big-endian.  Nothing here does I/O or allocates, so every
 * byte string, good or hostile, can be tested directly.  docs/dev/protocol.md
 * describes the same layout for people.
 *
 * Header:  magic u32 "PPNG" | version u16 | type u16 | body length u32
 *
 * HELLO (72 bytes; client -> server: what the client asks for; server ->
 * client: what the server adopted, with the agreed path MTU in @mtu):
 *   0 tool u8 | 1 transport u8 | 2 flags u16 | 4 mtu u32 | 8 size u64 |
 *   16 iters u64 | 24 rx_depth u32 | 28 num_qps u32 | 32 sl u8 |
 *   33 link_layer u8 | 34 active_mtu u16 | 36 gid_index u16 (0xffff: none) |
 *   38 gid_type u8 | 39 reserved u8, zero | 40 warmup u32 |
 *   44 duration_s u32 (0: run iters; else seconds, iters the sample cap) |
 *   48 hop_limit u8 | 49 tclass u8 | 50 pkey u16 (the P_Key, not an index:
 *   each side looks up its own port's index of it) | 52 flow_label u32 |
 *   56 op u8 | 57 reserved u8, zero |
 *   58 peer_gid_index u16 (client: the server's GID index it asks for;
 *   0xffff: the server chooses; the server's answer echoes it) |
 *   60 timeout_ms u32 (the client's -T, 1..3600000; the server's answer
 *   echoes it) | 64 qp_timeout u8 (0..31; 0: infinite) |
 *   65 retry_count u8 (0..7) | 66 rnr_retry u8 (0..7; 7: infinite) |
 *   67 reserved u8, zero (64..66: the RC QPs' RTS attributes; a UD client
 *   sends the defaults and nobody uses them) |
 *   68 netdev_mtu u16 (the MTU of the sender's netdev behind its GID; 0:
 *   none, InfiniBand, or unknown; 65535: that or more) |
 *   70 expect_mtu u16 (the sender's --expect-mtu: 0 none, or 256..4096;
 *   either side's makes both judge the path MTU)
 *   With PP_F_SWEEP, size is the largest size of the sweep (pp_sweep_sizes()).
 * ADDRS (4 + 48 * count bytes): count u32, then count records of
 *   lid u16 | reserved u16 | qpn u32 | psn u32 | srqn u32 | tgt_qpn u32 |
 *   gid 16 bytes | rkey u32 | vaddr u64 (rkey and vaddr: the sender's
 *   buffer for one-sided operations; zero when the operation needs none)
 * READY (0 bytes): my QPs are ready to receive.
 * DONE (24 bytes): status u32 | reserved u32 | completed u64 | lost u64
 * ERROR (248 bytes): code u32 | text 244 bytes, printable ASCII, NUL-padded
 * COUNTERS (PP_COUNTERS_WIRE_HDR + 1 .. PP_COUNTERS_WIRE_MAX bytes): one
 *   side's port counter deltas, in pp_counters' byte form (pp_counters.h)
 * GIDS (4 + 36 * count bytes): count u16 (1..PP_WIRE_GIDS_MAX) |
 *   reserved u16, then count records of index u8 | gid_type u8 |
 *   reserved u16 | netdev 16 bytes (printable ASCII, NUL-padded; all zero:
 *   none) | gid 16 bytes; indexes strictly increasing.  The server's GID
 *   table, sent right after its HELLO answer when the client's HELLO has
 *   PP_F_GIDS.
 * ALIVE (8 bytes): done u64, the iterations of this run (warm-up too) the
 *   client has finished.  Client -> server during a Read or atomics run,
 *   at most every third of the client's -T, so that the server, which sees
 *   nothing of a one-sided run, can tell a client that is still running
 *   from one that is stopped or whose host is gone.
 *
 * Compatibility rule: the header and the ERROR body never change, so a peer
 * of any version can tell the other one why it stops ("protocol version:
 * client 2, server 1").
 */
#ifndef PP_WIRE_H
#define PP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_counters.h"
#include "pp_params.h"
#include "pp_transport.h"

#define PP_WIRE_MAGIC 0x50504e47U /* "PPNG" */
/* 2: HELLO carries warmup, duration, sweep; 3: hop limit, traffic class,
 * P_Key index, flow label; 4: rkey and vaddr in ADDRS, peer_gid_index,
 * COUNTERS, GIDS; 5: the P_Key instead of its index, the client's -T, the
 * GRH flag of the server's answer; 6: QP timeout, retry count, RNR retry;
 * 7: the netdev MTU and --expect-mtu */
#define PP_WIRE_VERSION 7
#define PP_WIRE_HDR_LEN 12
#define PP_WIRE_HELLO_LEN 72
#define PP_WIRE_ADDR_LEN 48
#define PP_WIRE_GID_LEN 36
#define PP_WIRE_GIDS_MAX 256
#define PP_WIRE_NETDEV_LEN 16 /* IFNAMSIZ */
#define PP_WIRE_DONE_LEN 24
#define PP_WIRE_ALIVE_LEN 8
#define PP_WIRE_TEXT_LEN 244
#define PP_WIRE_ERROR_LEN (4 + PP_WIRE_TEXT_LEN)
#define PP_WIRE_MAX_BODY (4 + PP_WIRE_ADDR_LEN * PP_MAX_QPS)
#define PP_WIRE_GIDS_MAX_BODY (4 + PP_WIRE_GID_LEN * PP_WIRE_GIDS_MAX)
#define PP_WIRE_MAX_MSG (PP_WIRE_HDR_LEN + PP_WIRE_MAX_BODY)

#define PP_PSN_MASK 0xffffffU /* QPN, PSN and SRQ numbers are 24 bits */
#define PP_GID_INDEX_NONE 0xffffU
#define PP_WIRE_TIMEOUT_MAX_MS (PP_MAX_TIMEOUT_S * 1000U)

enum pp_msg_type {
	PP_MSG_HELLO = 1,
	PP_MSG_ADDRS = 2,
	PP_MSG_READY = 3,
	PP_MSG_DONE = 4,
	PP_MSG_ERROR = 5,
	PP_MSG_COUNTERS = 6,
	PP_MSG_GIDS = 7,
	PP_MSG_ALIVE = 8,
};

/*
 * HELLO flags, one per FLAG line of PP_PARAMS: PP_F_VALIDATE (-c: both
 * sides fill and check patterns), PP_F_SWEEP (-a: every size from 1 up to
 * size), PP_F_NO_INLINE (--no-inline: never send inline), PP_F_COUNTERS
 * (--counters: the server sends its port counters' deltas in COUNTERS after
 * the last DONE).  Any other bit is a decode error.
 */
#define PP_HELLO_FLAG_BIT(name, opt, bit_name, bit, ...) bit_name = bit,
enum pp_hello_flag {
	PP_PARAMS(PP_PARAM_NONE, PP_HELLO_FLAG_BIT, PP_PARAM_NONE)
};
#undef PP_HELLO_FLAG_BIT
#define PP_HELLO_FLAG_OR(name, opt, bit_name, ...) | bit_name
/* Not a parameter: the client asks for the server's GID table (GIDS). */
#define PP_F_GIDS 0x0010
/*
 * Not a parameter: in the server's answer, both sides address each other
 * with a GRH (pp_grh_decide()); a client sends it zero.
 */
#define PP_F_GRH 0x0020
#define PP_F_ALL     \
	(PP_F_GIDS | \
	 PP_F_GRH PP_PARAMS(PP_PARAM_NONE, PP_HELLO_FLAG_OR, PP_PARAM_NONE))

/* GID types as carried in HELLO */
enum pp_gid_type {
	PP_GID_TYPE_NONE = 0, /* no GID in use */
	PP_GID_TYPE_IB = 1,
	PP_GID_TYPE_ROCE_V1 = 2,
	PP_GID_TYPE_ROCE_V2 = 3,
};

struct pp_hdr {
	uint32_t magic;
	uint16_t version;
	uint16_t type;
	uint32_t len;
};

/*
 * The parameters of a run and the sender's port.  The negotiated ones are
 * the NUM lines of PP_PARAMS (pp_params.h: their offsets and ranges): mtu
 * (0: auto, or 256..4096, a power of two; the server's answer: the path
 * MTU), size, iters, rx_depth, num_qps, sl, warmup, duration_s (0: run the
 * iterations; else seconds, and iters is the cap on samples).
 */
struct pp_hello {
	uint8_t tool;	     /* enum pp_tool */
	uint8_t transport;   /* enum pp_transport */
	uint16_t flags;	     /* PP_F_* */
	uint8_t link_layer;  /* IBV_LINK_LAYER_*: 0..2 */
	uint16_t active_mtu; /* 256..4096, a power of two */
	uint16_t gid_index;  /* 0..255, or PP_GID_INDEX_NONE */
	uint8_t gid_type;    /* enum pp_gid_type */
	/* client: the server's GID index asked for; else PP_GID_INDEX_NONE */
	uint16_t peer_gid_index;
	/* the client's -T in ms: the deadline both sides' waits follow */
	uint32_t timeout_ms;
	/* the sender's netdev MTU (0: none or unknown; at most 65535) */
	uint16_t netdev_mtu;
	/* the sender's --expect-mtu (0: none; else 256..4096) */
	uint16_t expect_mtu;
#define PP_HELLO_NUM(name, opt, type, ...) type name;
	PP_PARAMS(PP_HELLO_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef PP_HELLO_NUM
};

/* The address of one QP: the plain block copied by value everywhere. */
struct pp_addr {
	uint16_t lid;
	uint32_t qpn;	  /* 24 bits */
	uint32_t psn;	  /* 24 bits */
	uint32_t srqn;	  /* XRC: SRQ the sender receives on; else 0 */
	uint32_t tgt_qpn; /* XRC: the receive-side (target) QPN; else 0 */
	uint8_t gid[16];  /* raw GID bytes; all zero: no GRH */
	uint32_t rkey;	  /* one-sided operations: the buffer's rkey; else 0 */
	uint64_t vaddr;	  /* and its address; else 0 */
};

/* One entry of the server's GID table (GIDS). */
struct pp_wire_gid {
	uint8_t index;			     /* 0..255 */
	uint8_t gid_type;		     /* enum pp_gid_type */
	char netdev[PP_WIRE_NETDEV_LEN + 1]; /* NUL-terminated; "": none */
	uint8_t gid[16];
};

struct pp_done {
	uint32_t status;    /* 0: run ok; 1: it failed (see the ERROR) */
	uint64_t completed; /* iterations completed */
	uint64_t lost;	    /* iterations lost (UD) */
};

struct pp_alive {
	uint64_t done; /* iterations of the run finished, warm-up too */
};

struct pp_error_msg {
	uint32_t code;			 /* an errno value, informative */
	char text[PP_WIRE_TEXT_LEN + 1]; /* NUL-terminated */
};

struct pp_msg {
	enum pp_msg_type type;
	union {
		struct pp_hello hello;
		struct {
			uint32_t count; /* 1..PP_MAX_QPS */
			struct pp_addr addr[PP_MAX_QPS];
		} addrs;
		struct pp_done done;
		struct pp_alive alive;
		struct pp_error_msg error;
		struct pp_counters_delta counters;
		struct {
			uint32_t count; /* 1..PP_WIRE_GIDS_MAX */
			struct pp_wire_gid g[PP_WIRE_GIDS_MAX];
		} gids;
	} u;
};

/**
 * pp_wire_body_len() - the body length of @m as it will be encoded
 * @m: the message
 *
 * Return: the length in bytes, or 0 for READY and for an unknown type (and
 * for a COUNTERS body that cannot be encoded).
 */
size_t pp_wire_body_len(const struct pp_msg *m);

/**
 * pp_wire_encode() - encode header and body of @m into @buf
 * @m: the message; every field must be within the bounds the decoder checks
 * @buf: output
 * @len: room in @buf
 * @out_len: bytes written
 *
 * Return: 0; EINVAL if a field is out of range or the type unknown (nothing
 * that the decoder would refuse is ever sent); ENOSPC if @len is too small.
 */
int pp_wire_encode(const struct pp_msg *m, uint8_t *buf, size_t len,
		   size_t *out_len);

/**
 * pp_wire_decode_hdr() - decode and check a header
 * @buf: PP_WIRE_HDR_LEN bytes
 * @hdr: the fields, filled even on EPROTONOSUPPORT so the caller can name
 *       the peer's version
 * @why: on failure, a static string naming what is wrong
 *
 * Return: 0; EPROTO (bad magic); EPROTONOSUPPORT (another version);
 * EBADMSG (unknown type, or a length other than the type's fixed length).
 */
int pp_wire_decode_hdr(const uint8_t *buf, struct pp_hdr *hdr,
		       const char **why);

/**
 * pp_wire_decode_body() - decode and range-check a body
 * @hdr: its header, already accepted by pp_wire_decode_hdr() (an ERROR body
 *       is also decoded under an EPROTONOSUPPORT header)
 * @body: @hdr->len bytes
 * @m: the message
 * @why: on failure, a static string naming the bad field ("qpn out of range")
 *
 * Return: 0; EBADMSG (length does not fit the type or the ADDRS count);
 * EPROTO (a field out of range, a reserved field not zero, text not
 * printable ASCII).
 */
int pp_wire_decode_body(const struct pp_hdr *hdr, const uint8_t *body,
			struct pp_msg *m, const char **why);

#endif /* PP_WIRE_H */
