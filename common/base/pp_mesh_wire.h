/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_wire.h - the records of the mesh's meeting at rank 0: a pure
 * codec, strict on every length (docs/dev/protocol.md, "The mesh's
 * records", describes the same layout).
 *
 * Header (12 bytes): magic u32 "PPMS" | version u16 | type u16 |
 * body length u32 (at most PP_MESH_WIRE_MAX).  Integers big-endian.  A
 * string is a u16 length and that many bytes, no NUL; each field has its
 * own maximum and accepts printable bytes only (the document: also '\n').
 * A body must be used up exactly: a byte too many or too few is EPROTO.
 *
 *   JOIN    rank -> 0: want_rank u32 (PP_MESH_RANK_ANY: by arrival) |
 *           size u32 | tool u8 | transport u8 | ib_port u8 | gid_type u8 |
 *           link_layer u8 | gid_family u8 | gid_index i16 (-1: none) |
 *           active_mtu u32 | local u32 (the local index: the rank's place
 *           among the ranks of its host, below the size) | host | dev
 *           (the device it opened, or tried to) | gid | gid_reason | version |
 *           error (the device could not be opened: why; else empty) |
 *           mesh_id (the mesh this rank belongs to, pp_mesh_env.h) |
 *           netdev_mtu u32 (the MTU of the netdev behind its GID; 0: none
 *           or not known)
 *   WELCOME 0 -> rank: rank u32 | size u32 | pair_ms u32 | round_ms u32
 *   REFUSE  0 -> rank: text (why it may not join)
 *   RUN     0 -> rank: round u32 | peer u32 | role u8 (bit 0: connect, else
 *           serve; bit 1: send the pair's document back) |
 *           port u32 | pair_ms u32 | token u64 (the pair's: the client
 *           sends it first, the server takes no other client) | peer_host
 *   IDLE    0 -> rank: round u32 (no pair for it this round)
 *   RESULT  rank -> 0: round u32 | peer u32 | step u8 (enum pp_mesh_code,
 *           below PP_MESH_MTU: rank 0 alone judges the thresholds) |
 *           flags u8 (1: the error line is the peer's) | path_mtu u32 |
 *           ret u32 (errno) | completed u64 | median_ns u64 (UINT64_MAX:
 *           none) | gid_index i16 (-1: none) | gid_type u8 | gid_family u8 |
 *           gid | gid_reason (the GID this side's session used, and why) |
 *           reason | times_us 5 x u32 (where the pair's time went on
 *           this side: enum pp_mesh_time) | doc_len u32 | doc (its own
 *           --json document)
 *   END     0 -> rank: status u32 (the mesh's exit status) | text
 */
#ifndef PP_MESH_WIRE_H
#define PP_MESH_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pp_mesh_dev.h" /* PP_MESH_DEV_MAX */
#include "pp_mesh_env.h" /* PP_MESH_ID_MAX */

#define PP_MESH_WIRE_MAGIC 0x50504d53U /* "PPMS" */
#define PP_MESH_WIRE_VERSION \
	4 /* 2: JOIN's mesh id, RUN's token; 3: local; 4: netdev MTU */
#define PP_MESH_WIRE_HDR 12
#define PP_MESH_DOC_MAX (1U << 20) /* a pair's document, bytes */
#define PP_MESH_WIRE_MAX (PP_MESH_DOC_MAX + 4096)

#define PP_MESH_HOST_MAX 256 /* each string's room, NUL included */
#define PP_MESH_GID_MAX 64
#define PP_MESH_WHY_MAX 192
#define PP_MESH_VER_MAX 64
#define PP_MESH_TEXT_MAX 512

enum pp_mesh_type {
	PP_MESH_JOIN = 1,
	PP_MESH_WELCOME = 2,
	PP_MESH_REFUSE = 3,
	PP_MESH_RUN = 4,
	PP_MESH_IDLE = 5,
	PP_MESH_RESULT = 6,
	PP_MESH_END = 7,
};

/* How a pair ended: the cell of the matrix (docs/mesh.md). */
enum pp_mesh_code {
	PP_MESH_OK = 0,
	PP_MESH_CONNECT = 1, /* TCP connect, HELLO, ADDRS or READY */
	PP_MESH_RTR = 2,
	PP_MESH_RTS = 3,
	PP_MESH_FIRST = 4,    /* the first completion failed or never came */
	PP_MESH_RUN_FAIL = 5, /* a later completion */
	PP_MESH_DATA = 6,     /* -c found a mismatch */
	PP_MESH_TIMEOUT = 7,  /* the pair did not end within its bound */
	PP_MESH_GONE = 8,     /* a rank of the pair died or stopped answering */
	PP_MESH_ABSENT = 9,   /* a rank of the pair never joined */
	PP_MESH_DEVICE = 10,  /* the device or port could not be opened */
	/* a pair that ran whole, flagged by rank 0 (pp_mesh_code_ran()) */
	PP_MESH_MTU = 11,  /* its path MTU is below --expect-mtu */
	PP_MESH_SLOW = 12, /* its median is above --max-rtt */
	PP_MESH_CODE_COUNT
};

struct pp_mesh_join {
	uint32_t want_rank;
	uint32_t size;
	uint8_t tool, transport, ib_port, gid_type, link_layer, gid_family;
	int16_t gid_index;
	uint32_t active_mtu;
	uint32_t local; /* the local index, below size */
	char host[PP_MESH_HOST_MAX];
	char dev[PP_MESH_DEV_MAX];
	char gid[PP_MESH_GID_MAX];
	char gid_reason[PP_MESH_WHY_MAX];
	char version[PP_MESH_VER_MAX];
	char error[PP_MESH_TEXT_MAX];
	char mesh_id[PP_MESH_ID_MAX];
	uint32_t netdev_mtu;
};

struct pp_mesh_welcome {
	uint32_t rank, size, pair_ms, round_ms;
};

#define PP_MESH_ROLE_CONNECT 1 /* RUN: be the client; else the server */
#define PP_MESH_ROLE_DOC 2     /* RUN: send the pair's --json document */

struct pp_mesh_run {
	uint32_t round, peer;
	uint8_t role; /* PP_MESH_ROLE_* */
	uint32_t port, pair_ms;
	uint64_t token;
	char peer_host[PP_MESH_HOST_MAX];
};

/* Where a pair's time goes, on one side (RESULT's times_us). */
enum pp_mesh_time {
	PP_MESH_T_START = 0, /* the fork until the pair's process runs */
	PP_MESH_T_DEVICE,    /* opening the device and port */
	PP_MESH_T_HANDSHAKE, /* TCP and HELLO (a server: its wait too) */
	PP_MESH_T_QP,	     /* the QPs' set-up, INIT to RTS, READY */
	PP_MESH_T_LOOP,	     /* the run and DONE */
	PP_MESH_T_COUNT
};

struct pp_mesh_result {
	uint32_t round, peer;
	uint8_t step; /* enum pp_mesh_code */
	bool remote;
	uint32_t path_mtu, ret;
	uint64_t completed, median_ns;
	int16_t gid_index;
	uint8_t gid_type, gid_family;
	char gid[PP_MESH_GID_MAX];
	char gid_reason[PP_MESH_WHY_MAX];
	char reason[PP_MESH_TEXT_MAX];
	uint32_t times_us[PP_MESH_T_COUNT]; /* 0: not reached */
	const char *doc; /* decoded: points into the body, not terminated */
	uint32_t doc_len;
};

struct pp_mesh_msg {
	uint16_t type; /* enum pp_mesh_type */
	union {
		struct pp_mesh_join join;
		struct pp_mesh_welcome welcome;
		char text[PP_MESH_TEXT_MAX]; /* REFUSE */
		struct pp_mesh_run run;
		uint32_t round; /* IDLE */
		struct pp_mesh_result result;
		struct {
			uint32_t status;
			char text[PP_MESH_TEXT_MAX];
		} end;
	} u;
};

/**
 * pp_mesh_wire_header() - check a header and give its type and body length
 * @hdr: PP_MESH_WIRE_HDR bytes
 * @type: the type
 * @len: the body's length
 *
 * Return: 0; EPROTO (not our magic, another version, an unknown type, a
 * body above PP_MESH_WIRE_MAX).
 */
int pp_mesh_wire_header(const uint8_t *hdr, uint16_t *type, uint32_t *len);

/**
 * pp_mesh_wire_decode() - decode one body
 * @type: from pp_mesh_wire_header()
 * @body: the body
 * @len: its length
 * @m: the record; a RESULT's doc points into @body
 *
 * Return: 0; EPROTO (a field too long or short, a byte that is not
 * printable, bytes left over, a value outside its range).
 */
int pp_mesh_wire_decode(uint16_t type, const uint8_t *body, size_t len,
			struct pp_mesh_msg *m);

/**
 * pp_mesh_wire_encode() - header and body of @m into @buf
 * @m: the record (its strings NUL-terminated; a RESULT's doc by length)
 * @buf: where to write
 * @room: bytes in @buf (PP_MESH_WIRE_HDR + PP_MESH_WIRE_MAX is always
 *        enough)
 * @len: the record's length
 *
 * Return: 0; EMSGSIZE (a string longer than its field allows, or @room too
 * small); EINVAL (an unknown type).
 */
int pp_mesh_wire_encode(const struct pp_mesh_msg *m, uint8_t *buf, size_t room,
			size_t *len);

/**
 * pp_mesh_code_name() - a code's cell in the matrix: "ok", "CONN", "RTR",
 * "RTS", "1ST", "RUN", "DATA", "TIME", "GONE", "ABSENT", "DEV", "MTU",
 * "SLOW"
 * @code: enum pp_mesh_code (any value)
 */
const char *pp_mesh_code_name(unsigned int code);

/**
 * pp_mesh_code_text() - a code's meaning for the legend: "connect",
 * "RTR", "RTS", "first completion", ...
 * @code: enum pp_mesh_code (any value)
 */
const char *pp_mesh_code_text(unsigned int code);

/**
 * pp_mesh_code_ran() - did a pair of this code run whole (ok, or flagged by
 * a threshold: MTU, SLOW), so that its median counts?
 * @code: enum pp_mesh_code (any value)
 */
bool pp_mesh_code_ran(unsigned int code);

/**
 * pp_mesh_code_flagged() - is @code a threshold's flag (MTU, SLOW)?
 * @code: enum pp_mesh_code (any value)
 */
bool pp_mesh_code_flagged(unsigned int code);

/**
 * pp_mesh_time_name() - a part of a pair's time: its JSON key ("start",
 * "device", "handshake", "qp", "loop") or, with @text, its words ("process
 * start", "device open", "handshake", "QP bring-up", "loop")
 * @t: enum pp_mesh_time (any value)
 * @text: the words instead of the key
 */
const char *pp_mesh_time_name(unsigned int t, bool text);

#endif /* PP_MESH_WIRE_H */
