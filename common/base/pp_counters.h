/* SPDX-License-Identifier: MIT */
/*
 * pp_counters.h - the port's counters before and after a run (--counters):
 * a sysfs reader, the deltas, one line of text, JSON and a byte codec.
 *
 * A PORT COUNTER COUNTS ALL TRAFFIC ON THE PORT, NOT ONLY THIS RUN'S: other
 * processes, other QPs, the kernel's own MADs and the TCP handshake (on a
 * RoCE netdev) move the same counters.  The output line says so every time.
 *
 * Where the counters are: /sys/class/infiniband/DEV/ports/PORT/ holds
 *   hw_counters/  the driver's counters (rxe: sent_pkts, rcvd_pkts,
 *                 rcvd_seq_err, ...; mlx5: out_of_sequence, packet_seq_err,
 *                 np_cnp_sent, ...), and "lifespan", which is the caching
 *                 interval of the directory in ms, not a counter: it is left
 *                 out (the list of known non-counters is in pp_counters.c);
 *   counters/     the InfiniBand PMA PortCounters (port_xmit_data,
 *                 symbol_error, link_downed, ...), on IB and on mlx5 RoCE.
 * The kernel caches the values of hw_counters/ for "lifespan" ms, so a read
 * may miss the last lifespan ms of traffic: pp_counters_read() records it
 * in @lifespan_ms, and a caller that wants the run's last packets counted
 * waits that long after the run (and after the peer's last packet) before
 * the second read.  Either, both or neither may exist; neither is not an
 * error.  Each file
 * holds one decimal number.  A counter whose file cannot be read (a read
 * that fails with EINVAL or EOPNOTSUPP, as some drivers' optional counters
 * do; a directory; text such as "N/A") is kept, named and marked
 * unreadable with its errno, never fatal.  A file that is not a decimal
 * number gives PP_COUNTERS_ENOTNUM (EBADMSG), written "not a number".
 *
 * Going backwards (the rule of pp_counters_delta()):
 *   counters/     PMA counters saturate at their width (4, 8, 16 or 32 bits,
 *                 the extended ones 64) and never wrap, by the IB spec: a
 *                 counter that went backwards was reset (perfquery -R, a
 *                 device reset); delta = after, flagged PP_CTR_RESET.  A
 *                 known-width counter that ends at its all-ones value is
 *                 flagged PP_CTR_SATURATED: its delta is a lower bound.
 *   hw_counters/  the width is not known (rxe's are 64-bit, mlx5's queue
 *                 counters 32-bit).  after < before with before <= 2^32-1:
 *                 one 32-bit wrap, delta = after + 2^32 - before, flagged
 *                 PP_CTR_WRAPPED (a guess: a reset of a 32-bit counter
 *                 looks the same, and the flag says which rule applied);
 *                 after < before with before >= 2^32: a 64-bit counter does
 *                 not wrap within a run, so a reset: delta = after, flagged
 *                 PP_CTR_RESET.
 *
 * Names: a counter is known by its directory and its file name; the same
 * name in both directories (link_downed, say) is written "counters/NAME"
 * and "hw_counters/NAME" in the line and in JSON, else the name alone.  A
 * name is kept when it is 1..PP_COUNTERS_NAME_MAX characters of printable
 * ASCII other than space and '/'; others, and counters past
 * PP_COUNTERS_MAX (the first PP_COUNTERS_MAX by name are kept), are only
 * counted in @skipped.
 *
 * Byte form of a delta set (pp_counters_encode()), all integers big-endian,
 * for the coordinator to carry one side's deltas in a message body:
 *   0 version u8 (PP_COUNTERS_WIRE_VERSION) | 1 flags u8 (bit 0: neither
 *   directory exists; other bits zero) | 2 count u16 (<= PP_COUNTERS_MAX) |
 *   4 port u32 (1..255) | 8 skipped u32 | 12 dev_len u8
 *   (1..PP_COUNTERS_DEV_MAX) | 13 dev, dev_len bytes |
 *   then count records, in strictly increasing (name, dir) order:
 *   dir u8 (0 hw_counters, 1 counters) | flags u8 (PP_CTR_*) | err u16
 *   (nonzero exactly when PP_CTR_UNREADABLE) | delta u64 (zero when
 *   unreadable, appeared or disappeared) | name_len u8
 *   (1..PP_COUNTERS_NAME_MAX) | name, name_len bytes.
 *   Names and dev are printable ASCII without space, '/' or NUL; nothing
 *   follows the last record.  At most PP_COUNTERS_WIRE_MAX bytes.
 */
#ifndef PP_COUNTERS_H
#define PP_COUNTERS_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct pp_json;

#define PP_COUNTERS_SYSFS "/sys/class/infiniband"
#define PP_COUNTERS_MAX 128	    /* counters kept per snapshot */
#define PP_COUNTERS_NAME_MAX 48	    /* characters of a counter's name */
#define PP_COUNTERS_DEV_MAX 63	    /* characters of a device name */
#define PP_COUNTERS_ENOTNUM EBADMSG /* the file is not a decimal number */

#define PP_COUNTERS_WIRE_VERSION 1
#define PP_COUNTERS_WIRE_HDR 13
#define PP_COUNTERS_WIRE_REC 13 /* a record without its name */
#define PP_COUNTERS_WIRE_MAX                          \
	(PP_COUNTERS_WIRE_HDR + PP_COUNTERS_DEV_MAX + \
	 PP_COUNTERS_MAX * (PP_COUNTERS_WIRE_REC + PP_COUNTERS_NAME_MAX))

/* The two directories of a port's counters. */
enum pp_counters_dir {
	PP_COUNTERS_HW = 0,  /* hw_counters/: the driver's */
	PP_COUNTERS_PMA = 1, /* counters/: the IB PMA PortCounters */
};

/* One counter as read. */
struct pp_counter {
	char name[PP_COUNTERS_NAME_MAX + 1];
	uint8_t dir;   /* enum pp_counters_dir */
	bool readable; /* false: @err says why, @value is 0 */
	/* !readable: an errno; PP_COUNTERS_ENOTNUM: not a number */
	int err;
	uint64_t value;
};

/* A port's counters at one moment, sorted by (name, dir). */
struct pp_counters {
	char dev[PP_COUNTERS_DEV_MAX + 1];
	unsigned int port;
	bool no_dirs; /* neither hw_counters/ nor counters/ exists */
	unsigned int lifespan_ms; /* hw_counters/lifespan; 0: none */
	unsigned int skipped; /* not kept: past PP_COUNTERS_MAX, bad names */
	unsigned int n;
	struct pp_counter c[PP_COUNTERS_MAX];
};

/* What happened to a counter between two snapshots (bits of @flags). */
enum pp_counter_flags {
	PP_CTR_WRAPPED = 0x01, /* hw_counters/: one 32-bit wrap assumed */
	PP_CTR_RESET = 0x02,   /* went backwards: delta = after */
	/* counters/: stuck at its maximum, the delta is a lower bound */
	PP_CTR_SATURATED = 0x04,
	PP_CTR_APPEARED = 0x08,	   /* only in after; delta 0 */
	PP_CTR_DISAPPEARED = 0x10, /* only in before; delta 0 */
	PP_CTR_UNREADABLE = 0x20,  /* not read on a side it was in; delta 0 */
};
#define PP_CTR_ALL 0x3f

/* One counter's change. */
struct pp_counter_delta {
	char name[PP_COUNTERS_NAME_MAX + 1];
	uint8_t dir;   /* enum pp_counters_dir */
	uint8_t flags; /* enum pp_counter_flags */
	int err;       /* PP_CTR_UNREADABLE: the errno, else 0 */
	uint64_t delta;
};

/* One side's changes, sorted by (name, dir): plain data, built in tests. */
struct pp_counters_delta {
	char dev[PP_COUNTERS_DEV_MAX + 1];
	unsigned int port;
	bool no_dirs;	      /* neither directory exists, before nor after */
	unsigned int skipped; /* counters left out, as in struct pp_counters */
	unsigned int n;
	struct pp_counter_delta d[PP_COUNTERS_MAX];
};

/**
 * pp_counters_dir_name() - "hw_counters" or "counters"
 * @dir: enum pp_counters_dir
 *
 * Return: the directory's name; "?" for another value.
 */
const char *pp_counters_dir_name(unsigned int dir);

/**
 * pp_counters_read() - read the counters of a port
 * @sysfs_root: PP_COUNTERS_SYSFS, or a fake tree in tests
 * @dev: the device's name ("rxe0"): 1..PP_COUNTERS_DEV_MAX characters, no
 *       '/', not "." or ".."
 * @port: the port number, 1..255
 * @snap: output; @snap->no_dirs when neither hw_counters/ nor counters/
 *        exists (then 0 is returned with no counters)
 *
 * Unreadable counters are kept and marked (see the top of this header);
 * they never make the call fail.
 *
 * Return: 0; EINVAL (a bad @dev or @port, a NULL argument); ENAMETOOLONG
 * (the path); ENOENT (no such device or port under @sysfs_root); or the
 * errno of opening or listing a directory that exists (EACCES, ...).
 */
int pp_counters_read(const char *sysfs_root, const char *dev, unsigned int port,
		     struct pp_counters *snap);

/**
 * pp_counters_delta() - the changes between two snapshots of one port
 * @before: the snapshot before the run
 * @after: the snapshot after it
 * @out: output: every counter of either snapshot, with its delta and flags
 *       (the rule for counters that went backwards is at the top of this
 *       header); device and port are @after's
 *
 * Return: 0; EINVAL (the snapshots are of different ports, or one holds
 * more than PP_COUNTERS_MAX counters).
 */
int pp_counters_delta(const struct pp_counters *before,
		      const struct pp_counters *after,
		      struct pp_counters_delta *out);

/**
 * pp_counters_moved() - did the counter change, or something happen to it?
 * @cd: one counter's change
 *
 * Return: true for a nonzero delta, or a wrap, reset, saturation,
 * appearance or disappearance; false for an unchanged or unreadable one.
 */
bool pp_counters_moved(const struct pp_counter_delta *cd);

/**
 * pp_counters_format() - one line: the counters that moved, then the
 * unreadable ones
 * @d: the changes
 * @buf: output, no newline: "port counters rxe0:1 (all traffic on the port,
 *       not only this run's): sent_pkts +2002, rcvd_seq_err +3 (wrapped),
 *       foo (appeared); unreadable: bar (Invalid argument)"; "...: none
 *       moved" when nothing moved; "port counters rxe0:1: none (no
 *       hw_counters/ or counters/ directory)"; a final "; N more not read
 *       (...)" for @d->skipped.  Flags are written in parentheses after the
 *       delta: wrapped, reset, saturated
 * @len: room in @buf; when the line does not fit it is cut after the last
 *       whole item with ", ..." (below about 80 bytes even the start of the
 *       line is cut)
 *
 * Return: @buf.
 */
char *pp_counters_format(const struct pp_counters_delta *d, char *buf,
			 size_t len);

/**
 * pp_counters_json() - one side's changes as a JSON object, as a value
 * @j: the writer (pp_json.h)
 * @d: the changes
 *
 * Writes {"device": "rxe0", "port": 1, "scope": "port" (all traffic on the
 * port, not only this run's), "directories": true (false: neither exists),
 * "counters": {NAME: delta, ...} (every counter read on both sides, zero
 * deltas included), "unreadable": [{"name": NAME, "error": "Invalid
 * argument"}, ...], "resets": [NAME, ...], "wrapped": [...], "saturated":
 * [...], "appeared": [...], "disappeared": [...], "skipped": N}.  NAME is
 * written as in the text line ("counters/link_downed" when the name is in
 * both directories).
 *
 * Return: 0; or the writer's error (pp_json.h).
 */
int pp_counters_json(struct pp_json *j, const struct pp_counters_delta *d);

/**
 * pp_counters_encode() - a delta set as bytes (layout at the top)
 * @d: the changes
 * @buf: output
 * @len: room in @buf (PP_COUNTERS_WIRE_MAX is always enough)
 * @out_len: bytes written
 *
 * Return: 0; EINVAL (@d holds what the decoder would refuse: more than
 * PP_COUNTERS_MAX counters, a bad name, device or port, inconsistent flags,
 * records out of order); ENOSPC (@len too small).
 */
int pp_counters_encode(const struct pp_counters_delta *d, uint8_t *buf,
		       size_t len, size_t *out_len);

/**
 * pp_counters_decode() - bytes from the peer back to a delta set, checked
 * @buf: the bytes
 * @len: their number; all of them must belong to the encoding
 * @d: output (zeroed first; unspecified on failure)
 * @why: on failure, a static string naming what is wrong (may be NULL)
 *
 * Return: 0; EPROTO (too short, bytes left over, another version, a field
 * out of range, a name not printable or out of order, inconsistent flags).
 */
int pp_counters_decode(const uint8_t *buf, size_t len,
		       struct pp_counters_delta *d, const char **why);

#endif /* PP_COUNTERS_H */
