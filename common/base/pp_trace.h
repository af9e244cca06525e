/* SPDX-License-Identifier: MIT */
/*
 * pp_trace.h - --trace: every step of a run, timed, on a FILE*.
 *
 * A trace line starts with the time since pp_trace_init() and since the
 * previous line, in milliseconds:
 *
 *   [   1.234 ms +0.120] open device rxe0
 *   [   2.051 ms +0.817] modify QP 0x000011 to RTR
 *       state               RTR
 *       ...one line per attribute the mask sets, decoded...
 *       mask                IBV_QP_STATE|IBV_QP_AV|IBV_QP_PATH_MTU|...
 *   [   2.300 ms +0.249] sent HELLO (76 bytes)
 *
 * A trace that is off costs one test per call: every function returns at
 * once, so callers never guard their calls.
 */
#ifndef PP_TRACE_H
#define PP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>

struct pp_trace {
	FILE *f;
	int64_t t0;   /* ns, at pp_trace_init() */
	int64_t last; /* ns, at the previous line */
	bool on;
	int64_t (*clock)(void); /* ns; NULL: pp_now_ns(); tests pass a fake */
};

/**
 * pp_trace_init() - start a trace on @f, or an off trace
 * @tr: the trace
 * @f: where lines go; NULL: the trace is off
 */
void pp_trace_init(struct pp_trace *tr, FILE *f);

/**
 * pp_trace_step() - one timed line
 * @tr: the trace (off: nothing happens)
 * @fmt: printf format of the text after the times, no newline
 */
void pp_trace_step(struct pp_trace *tr, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/**
 * pp_trace_qp() - a QP transition and every attribute it sets
 * @tr: the trace (off: nothing happens)
 * @qpn: the QP's number
 * @step: the transition's name ("INIT", "RTR", "RTS")
 * @attr: the attributes passed to ibv_modify_qp()
 * @mask: the attribute mask: each bit set prints its attributes by name,
 *        decoded (MTU in bytes, PSNs and QPNs in hex, timeouts with their
 *        duration), then the mask as names
 */
void pp_trace_qp(struct pp_trace *tr, uint32_t qpn, const char *step,
		 const struct ibv_qp_attr *attr, int mask);

/**
 * pp_trace_msg() - a handshake message sent or received
 * @tr: the trace (off: nothing happens)
 * @dir: "sent" or "received"
 * @type: the message's name ("HELLO")
 * @bytes: its length on the wire, header included
 */
void pp_trace_msg(struct pp_trace *tr, const char *dir, const char *type,
		  size_t bytes);

/**
 * pp_trace_mask_names() - an ibv_modify_qp() mask as "IBV_QP_STATE|..."
 * @mask: IBV_QP_* bits; unknown bits are written in hex
 * @buf: output; cut when too small
 * @len: room in @buf
 *
 * Return: @buf; "0" for an empty mask.
 */
char *pp_trace_mask_names(int mask, char *buf, size_t len);

/**
 * pp_trace_access() - IBV_ACCESS_* bits as "IBV_ACCESS_LOCAL_WRITE|..."
 * @access: the bits; unknown ones are written in hex
 * @buf: output; cut when too small
 * @len: room in @buf
 *
 * Return: @buf; "0" for none.
 */
char *pp_trace_access(unsigned int access, char *buf, size_t len);

#endif /* PP_TRACE_H */
