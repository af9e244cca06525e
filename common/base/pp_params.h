/* SPDX-License-Identifier: MIT */
/*
 * pp_params.h - the parameters of a run, one line each: PP_PARAMS below.
 *
 * The client's parameters travel in HELLO and the server adopts them.  Each
 * line says, for one parameter, everything the modules need; each module
 * expands the list for its own concern, so no module names the parameters
 * one by one:
 *
 *   pp_opts.h    the member of struct pp_opts (and pp_opts_init() the default)
 *   pp_opts.c    storing the option's value and showing its default
 *   pp_wire.h    the member of struct pp_hello, the HELLO flag bits
 *   pp_wire.c    the bytes (offset, width from the type) and the range check
 *   pp_hs.c      HELLO from the options; an explicit server value must
 *                match ("size: client 4096, server 1024"); the answer must
 *                be what was asked; the --trace line of the agreed ones
 *   pp_doc.c     the "params" object of the JSON document, in this order
 *
 * Adding a parameter: one line here, its option's row in pp_opts.c (letter,
 * help text, bounds), its tests and docs (docs/dev/architecture.md).
 *
 * NUM(name, opt, type, off, valid, zero, wname, label, unit, json, jnull,
 *     dflt, names): a number.
 *   name   member of struct pp_opts and of struct pp_hello
 *   opt    the option that sets it (enum pp_opt_id); given on the server's
 *          command line, the client's value must equal it
 *   type   its C type; its width on the wire is sizeof(type), big-endian
 *   off    its offset in the HELLO body
 *   valid  the decoder's range, an expression of the value v
 *   zero   PP_ZERO_VALUE (0 is a value), PP_ZERO_AUTO (0: chosen in the
 *          exchange, "auto"; known in JSON once agreed; the server answers
 *          with the value it chose) or PP_ZERO_OFF (0: off; null in JSON)
 *   wname  the decoder's name for it ("size out of range")
 *   label  its name in a mismatch line and in --trace's "parameters:"
 *          line (pp_hello_describe()), and unit after each value
 *   json   its key in the JSON "params" object
 *   jnull  JSON null when this expression of p (the options or the HELLO)
 *          holds
 *   dflt   its default, an expression of tr (the transport's descriptor)
 *   names  NULL, or a function const char *(uint64_t) that names each value:
 *          messages, --trace and JSON show the name ("operation: client
 *          read, server write"; "op": "read"), the wire the number
 * FLAG(name, opt, bit_name, bit, inverted, label, json, match): a bool
 *   carried as bit @bit (named @bit_name) of the HELLO flags.  @inverted:
 *   messages and JSON name the opposite ("inline sends: client on",
 *   "inline": true for no_inline false).  @match: given on the server's
 *   command line, the client's value must equal it (a parameter of the
 *   run); false: the server's own option acts on the server alone and never
 *   refuses a client (--counters: the server reads its own port whatever
 *   the client asked).  Default: false.
 * LOCAL(name, json, is_bool): not negotiated, only shown in the JSON
 *   "params" object at this place (a member of struct pp_opts).
 */
#ifndef PP_PARAMS_H
#define PP_PARAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "pp_op.h"

/* Bounds that the wire decoder and the option parser share. */
#define PP_MIN_SIZE 1ULL
#define PP_MAX_SIZE (2ULL << 30)  /* 2 GiB: one SGE carries < 4 GiB */
#define PP_MAX_ITERS 100000000ULL /* one 8-byte sample each */
/* --max-mem: a server's buffers for one client, unless raised (1 GiB) */
#define PP_MAX_MEM_DEFAULT (1ULL << 30)
#define PP_MAX_RX_DEPTH 65536U
#define PP_MAX_QPS 1024U
#define PP_MAX_SL 15U
#define PP_MAX_GID_IDX 255U
#define PP_MAX_TIMEOUT_S 3600U
#define PP_MAX_WARMUP 1000000U
#define PP_MAX_DURATION_S 3600U
#define PP_MAX_HOP_LIMIT 255U
#define PP_DEFAULT_HOP_LIMIT 64 /* rdma-core's ud example; a router forwards */
#define PP_MAX_TCLASS 255U
#define PP_MAX_FLOW_LABEL 0xfffffU /* 20 bits */
#define PP_MAX_PKEY_INDEX 65535U   /* the port's table is the real bound */
#define PP_DEFAULT_PKEY 0xffffU	   /* the default partition, full member */
#define PP_PKEY_PARTITION 0x7fffU  /* the partition; bit 15: full member */
/* RTS of RC QPs: local ACK timeout exponent (0: infinite), retries */
#define PP_MAX_QP_TIMEOUT 31U
#define PP_MAX_RETRY_COUNT 7U
#define PP_MAX_RNR_RETRY 7U	 /* 7: retry for ever */
#define PP_DEFAULT_QP_TIMEOUT 14 /* 4.096 us * 2^14 = 67 ms */
#define PP_DEFAULT_RETRY_COUNT 7
#define PP_DEFAULT_RNR_RETRY 7
/* -D: room for this many samples per second (one round trip >= 1 us) */
#define PP_DURATION_RATE 1000000ULL
#define PP_SWEEP_TOP (8ULL << 20) /* -a without -s: up to 8 MiB */

enum pp_zero {
	PP_ZERO_VALUE, /* 0 is a value like any other */
	PP_ZERO_AUTO,  /* 0: chosen in the exchange ("auto") */
	PP_ZERO_OFF,   /* 0: off */
};

#define PP_IN(v, lo, hi) ((v) >= (lo) && (v) <= (hi))

/* clang-format off */
#define PP_PARAMS(NUM, FLAG, LOCAL)                                            \
	NUM(op, PP_OPT_OP, uint8_t, 56, v <= PP_OP_LAST, PP_ZERO_VALUE, "op",  \
	    "operation", "", "op", false, PP_OP_SEND, pp_op_name)              \
	NUM(size, PP_OPT_SIZE, uint64_t, 8, PP_IN(v, PP_MIN_SIZE, PP_MAX_SIZE), \
	    PP_ZERO_VALUE, "size", "size", "", "size", false,                  \
	    tr->datagram ? 1024 : 4096, NULL)                                  \
	FLAG(sweep, PP_OPT_SWEEP, PP_F_SWEEP, 0x0002, false, "size sweep (-a)", \
	     "sweep", true)                                                    \
	NUM(iters, PP_OPT_ITERS, uint64_t, 16, PP_IN(v, 1, PP_MAX_ITERS),      \
	    PP_ZERO_VALUE, "iters", "iterations", "", "iters",                 \
	    p->duration_s != 0, 1000, NULL)                                    \
	NUM(duration_s, PP_OPT_DURATION, uint32_t, 44, v <= PP_MAX_DURATION_S, \
	    PP_ZERO_OFF, "duration", "duration", " s", "duration_s", false, 0, \
	    NULL)                                                              \
	NUM(warmup, PP_OPT_WARMUP, uint32_t, 40, v <= PP_MAX_WARMUP,           \
	    PP_ZERO_VALUE, "warmup", "warm-up", "", "warmup", false, 0, NULL)  \
	NUM(rx_depth, PP_OPT_RX_DEPTH, uint32_t, 24,                           \
	    PP_IN(v, 1, PP_MAX_RX_DEPTH), PP_ZERO_VALUE, "rx_depth",           \
	    "rx depth", "", "rx_depth", false, 500, NULL)                      \
	NUM(mtu, PP_OPT_MTU, uint32_t, 4, v == 0 || pp_mtu_valid(v),           \
	    PP_ZERO_AUTO, "mtu", "MTU", "", "mtu", false, 0, NULL)             \
	NUM(sl, PP_OPT_SL, uint8_t, 32, v <= PP_MAX_SL, PP_ZERO_VALUE, "sl",   \
	    "SL", "", "sl", false, 0, NULL)                                    \
	NUM(hop_limit, PP_OPT_HOP_LIMIT, uint8_t, 48,                          \
	    PP_IN(v, 1, PP_MAX_HOP_LIMIT), PP_ZERO_VALUE, "hop_limit",         \
	    "hop limit", "", "hop_limit", false, PP_DEFAULT_HOP_LIMIT, NULL)   \
	NUM(tclass, PP_OPT_TCLASS, uint8_t, 49, v <= PP_MAX_TCLASS,            \
	    PP_ZERO_VALUE, "tclass", "traffic class", "", "tclass", false, 0,  \
	    NULL)                                                              \
	NUM(pkey, PP_OPT_PKEY, uint16_t, 50, pp_pkey_valid(v), PP_ZERO_VALUE,  \
	    "pkey", "P_Key", "", "pkey", false, PP_DEFAULT_PKEY, pp_pkey_text) \
	NUM(flow_label, PP_OPT_FLOW_LABEL, uint32_t, 52,                       \
	    v <= PP_MAX_FLOW_LABEL, PP_ZERO_VALUE, "flow_label", "flow label", \
	    "", "flow_label", false, 0, NULL)                                  \
	NUM(num_qps, PP_OPT_NUM_QPS, uint32_t, 28, PP_IN(v, 1, PP_MAX_QPS),    \
	    PP_ZERO_VALUE, "num_qps", "QPs", "", "num_qps", false,             \
	    tr->default_qps, NULL)                                             \
	NUM(qp_timeout, PP_OPT_QP_TIMEOUT, uint8_t, 64,                        \
	    v <= PP_MAX_QP_TIMEOUT, PP_ZERO_VALUE, "qp_timeout", "QP timeout",  \
	    "", "qp_timeout", p->transport == PP_TR_UD, PP_DEFAULT_QP_TIMEOUT, \
	    NULL)                                                              \
	NUM(retry_count, PP_OPT_RETRY_COUNT, uint8_t, 65,                      \
	    v <= PP_MAX_RETRY_COUNT, PP_ZERO_VALUE, "retry_count",             \
	    "retry count", "", "retry_count", p->transport == PP_TR_UD,        \
	    PP_DEFAULT_RETRY_COUNT, NULL)                                      \
	NUM(rnr_retry, PP_OPT_RNR_RETRY, uint8_t, 66, v <= PP_MAX_RNR_RETRY,   \
	    PP_ZERO_VALUE, "rnr_retry", "RNR retry", "", "rnr_retry",          \
	    p->transport == PP_TR_UD, PP_DEFAULT_RNR_RETRY, NULL)              \
	LOCAL(use_event, "use_event", true)                                    \
	LOCAL(hugepages, "hugepages", true)                                    \
	FLAG(validate, PP_OPT_CHECK, PP_F_VALIDATE, 0x0001, false,             \
	     "data validation", "validate", true)                              \
	FLAG(no_inline, PP_OPT_NO_INLINE, PP_F_NO_INLINE, 0x0004, true,        \
	     "inline sends", "inline", true)                                   \
	FLAG(counters, PP_OPT_COUNTERS, PP_F_COUNTERS, 0x0008, false,          \
	     "port counters", "counters", false)                               \
	LOCAL(timeout_ms, "timeout_ms", false)                                 \
	LOCAL(port, "tcp_port", false)                                         \
	LOCAL(interval_s, "interval_s", false)
/* clang-format on */

/* The names column of PP_PARAMS: how a number is shown, or NULL. */
typedef const char *(*pp_param_names_fn)(uint64_t v);

/* Expand to nothing: for the kinds a module has no use for. */
#define PP_PARAM_NONE(...)

/**
 * pp_pkey_valid() - is @pkey a P_Key a packet can carry (partition not 0)?
 * @pkey: the 16-bit value (bit 15: full member)
 */
bool pp_pkey_valid(uint64_t pkey);

/**
 * pp_pkey_text() - "0x8001": a P_Key as messages, --trace and JSON show it
 * @pkey: the 16-bit value
 *
 * Return: a string in one of a few static buffers used in turn (valid until
 * four more calls).
 */
const char *pp_pkey_text(uint64_t pkey);

/**
 * pp_mtu_valid() - is @mtu one of the IB MTUs 256, 512, 1024, 2048, 4096?
 * @mtu: bytes
 */
bool pp_mtu_valid(uint32_t mtu);

#endif /* PP_PARAMS_H */
