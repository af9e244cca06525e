/* SPDX-License-Identifier: MIT */
/*
 * pp_opts.h - the command line of every tool, driven by one option table.
 *
 * One table in pp_opts.c lists every option: its letters, argument name,
 * bounds, which tools accept it and its help text.  getopt_long's tables, the
 * --help text and the defaults quoted in the docs all come from it (and from
 * pp_opts_init() for the defaults), so they cannot drift apart.
 */
#ifndef PP_OPTS_H
#define PP_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pp_err.h"
#include "pp_mesh_sched.h"
#include "pp_params.h"
#include "pp_transport.h"

/* Option identifiers; bit PP_OPT_BIT(id) of struct pp_opts.set is "given". */
enum pp_opt_id {
	PP_OPT_PORT,	    /* -p, --port */
	PP_OPT_IB_DEV,	    /* -d, --ib-dev */
	PP_OPT_IB_PORT,	    /* -i, --ib-port */
	PP_OPT_SIZE,	    /* -s, --size */
	PP_OPT_MTU,	    /* -m, --mtu */
	PP_OPT_RX_DEPTH,    /* -r, --rx-depth */
	PP_OPT_ITERS,	    /* -n, --iters */
	PP_OPT_SL,	    /* -l, --sl */
	PP_OPT_EVENTS,	    /* -e, --events */
	PP_OPT_GID_IDX,	    /* -g, --gid-idx */
	PP_OPT_CHECK,	    /* -c, --chk */
	PP_OPT_NUM_QPS,	    /* -q, --num-qp (srq, xrc) */
	PP_OPT_UC,	    /* --uc (rc_pingpong only) */
	PP_OPT_BIND,	    /* -b, --bind */
	PP_OPT_TIMEOUT,	    /* -T, --timeout */
	PP_OPT_HELP,	    /* -h, --help */
	PP_OPT_XRC_DOMAIN,  /* --xrc-domain (xrc_pingpong only) */
	PP_OPT_SHOW_GIDS,   /* --show-gids */
	PP_OPT_TRACE,	    /* --trace */
	PP_OPT_RDMA_CORE,   /* --rdma-core: the stock tools' wire format */
	PP_OPT_PERSISTENT,  /* --persistent: a server that keeps serving */
	PP_OPT_WARMUP,	    /* --warmup */
	PP_OPT_SWEEP,	    /* -a, --all: every size up to -s */
	PP_OPT_DURATION,    /* -D, --duration */
	PP_OPT_JSON,	    /* --json */
	PP_OPT_HISTOGRAM,   /* --histogram */
	PP_OPT_SAMPLES,	    /* --samples FILE */
	PP_OPT_NO_INLINE,   /* --no-inline */
	PP_OPT_HOP_LIMIT,   /* --hop-limit */
	PP_OPT_TCLASS,	    /* --tclass */
	PP_OPT_FLOW_LABEL,  /* --flow-label */
	PP_OPT_PKEY_INDEX,  /* --pkey-index */
	PP_OPT_VERSION,	    /* -V, --version */
	PP_OPT_OP,	    /* --op: send, write, read, atomics (pp_op.h) */
	PP_OPT_COUNTERS,    /* --counters: the port's counters, both sides */
	PP_OPT_PROBE,	    /* --probe (rc_pingpong client) */
	PP_OPT_INTERVAL,    /* --interval SEC */
	PP_OPT_MESH,	    /* --mesh: every pair of N ranks (docs/mesh.md) */
	PP_OPT_MESH_SIZE,   /* --mesh-size N */
	PP_OPT_MESH_ROOT,   /* --mesh-root HOST */
	PP_OPT_MESH_SERIAL, /* --mesh-serial: one pair at a time */
	PP_OPT_MESH_JOIN,   /* --mesh-join SEC */
	PP_OPT_MESH_SVG,    /* --mesh-svg FILE */
	PP_OPT_MESH_ID,	    /* --mesh-id ID */
	PP_OPT_MESH_PROM,   /* --mesh-prom FILE */
	PP_OPT_ODP,	    /* -o, --odp: an On-Demand-Paging MR */
	PP_OPT_IODP,	    /* -O, --iodp: implicit ODP (rc_pingpong) */
	PP_OPT_PREFETCH,    /* -P, --prefetch: ibv_advise_mr() the ODP MR */
	PP_OPT_TS,	    /* -t, --ts: completion timestamps */
	PP_OPT_DM,	    /* -j, --dm: the buffer in device memory */
	PP_OPT_CC_UNPROT,   /* -U, --allow-cc-unprotected */
	PP_OPT_NUM_TESTS,   /* --num_tests (xrc): ibv_xsrq_pingpong's -n */
	PP_OPT_HUGEPAGES,   /* --hugepages: buffers on 2 MiB pages */
	PP_OPT_CPU,	    /* --cpu LIST|auto|none (pp_cpu.h) */
	PP_OPT_NEW_SEND,    /* -N, --new_send: the ibv_wr_*() post API */
	PP_OPT_MAX_MEM,	    /* --max-mem: a server's buffers per client */
	PP_OPT_PKEY,	    /* --pkey: the partition's P_Key */
	PP_OPT_QP_TIMEOUT,  /* -u, --qp-timeout: RC local ACK timeout */
	PP_OPT_RETRY_COUNT, /* --retry-count: RC transport retries */
	PP_OPT_RNR_RETRY,   /* --rnr-retry: RC receiver-not-ready retries */
	PP_OPT_CLIENTS,	    /* --clients N (xrc): ibv_xsrq_pingpong's -c */
	PP_OPT_EXPECT_MTU,  /* --expect-mtu BYTES: a path MTU below: status 4 */
	PP_OPT_MAX_RTT,	    /* --max-rtt USEC: a median above: status 4 */
	PP_OPT_MESH_PAIRS,  /* --mesh-pairs rail|all|remote */
	PP_OPT_COUNT
};

/* --clients: the most clients one server serves before it ends. */
#define PP_MAX_CLIENTS 1024U

/* The bit of option @id in struct pp_opts.set. */
#define PP_OPT_BIT(id) ((uint64_t)1 << (id))

struct pp_opts {
	enum pp_tool tool;
	enum pp_transport transport;
	const char *prog;	/* program name for messages */
	const char *host;	/* server to connect to; NULL: be the server */
	const char *bind_addr;	/* -b: server's listening address; NULL: any */
	const char *ib_devname; /* -d; NULL: first device with an active port;
				 * --mesh: also "auto" or a list "a,b" */
	const char *xrcd_path;	/* --xrc-domain; NULL: PP_XRCD_PATH_FMT */
	uint32_t port;		/* -p: TCP port */
	uint32_t ib_port;	/* -i */
	int32_t gid_index;	/* -g; -1: none given */
	uint32_t timeout_ms; /* -T: handshake step and no-progress deadline */
	bool use_event;	     /* -e: sleep on completion events */
	bool help;	     /* -h: print usage and exit 0 */
	bool show_gids;	     /* --show-gids: inspect, no peer, exit */
	bool trace;	     /* --trace: every step on stderr */
	bool rdma_core;	     /* --rdma-core: talk to ibv_*_pingpong */
	bool persistent;     /* --persistent: serve clients until stopped */
	uint32_t clients;    /* --clients: serve this many, then end; 0: one */
	uint64_t max_mem;    /* --max-mem: a client's buffers on this server */
	bool json;	     /* --json: one JSON document on stdout */
	bool histogram;	     /* --histogram: print a histogram */
	bool probe;	     /* --probe: try every GID pair and MTU */
	/*
	 * rdma-core's letters that act on this side's memory or CQ only
	 * (pp_feat.h): not negotiated, each side checks its own device.
	 */
	bool odp;	      /* -o (and -O): the MR on demand */
	bool iodp;	      /* -O: one implicit ODP MR of the address space */
	bool prefetch;	      /* -P: prefetch the ODP MR (ibv_advise_mr) */
	bool ts;	      /* -t: completion timestamps */
	bool dm;	      /* -j: the buffer in device memory */
	bool cc_unprotected;  /* -U: CoCo unprotected memory */
	bool new_send;	      /* -N: post with ibv_wr_*() on an ibv_qp_ex */
	bool hugepages;	      /* --hugepages: buffers on 2 MiB pages */
	const char *cpu_spec; /* --cpu: NULL (auto), "auto", "none", a list */
	const char *samples_path; /* --samples: raw samples to this file */
	uint32_t interval_s;	  /* --interval: figures every SEC; 0: none */
	bool mesh;		  /* --mesh: every pair of N ranks */
	bool mesh_serial;	  /* --mesh-serial: one pair at a time */
	uint32_t mesh_size;	  /* --mesh-size; 0: from the launcher */
	const char *mesh_root;	  /* --mesh-root; NULL: PP_MESH_ROOT, Slurm */
	uint32_t mesh_join_s;	  /* --mesh-join: rank 0 waits this long */
	const char *mesh_svg;	  /* --mesh-svg: the heatmap to this file */
	const char *mesh_id;	  /* --mesh-id; NULL: PP_MESH_ID, launcher */
	/*
	 * Thresholds that flag a run that ran (exit status 4): a path MTU
	 * below expect_mtu (0: none), a median round trip above max_rtt_us
	 * (0: none).  docs/thresholds.md.
	 */
	uint32_t expect_mtu;
	double max_rtt_us;
	enum pp_mesh_pairs mesh_pairs; /* --mesh-pairs; 0: by -d */
	const char *mesh_prom; /* --mesh-prom: the metrics to this file */
			       /*
	 * The negotiated parameters (pp_params.h): op (--op, enum pp_op),
	 * size (-s, bytes), iters
	 * (-n), duration_s (-D; 0: -n), warmup (--warmup), rx_depth (-r), mtu
	 * (-m, bytes; 0: the ports' active MTU), sl (-l), hop_limit, tclass,
	 * pkey, flow_label (--hop-limit, --pkey, ...), num_qps (-q),
	 * qp_timeout, retry_count, rnr_retry (-u, --retry-count, --rnr-retry:
	 * the RC QPs' RTS attributes); the
	 * bools sweep (-a), validate (-c), no_inline (--no-inline), counters
	 * (--counters).
	 */
#define PP_OPTS_NUM(name, opt, type, ...) type name;
#define PP_OPTS_FLAG(name, ...) bool name;
	PP_PARAMS(PP_OPTS_NUM, PP_OPTS_FLAG, PP_PARAM_NONE)
#undef PP_OPTS_NUM
#undef PP_OPTS_FLAG
	/* --pkey-index: this port's index of the P_Key (--pkey) to use */
	uint16_t pkey_index;
	uint64_t set; /* bit PP_OPT_BIT(enum pp_opt_id): given explicitly */
};

/**
 * pp_opts_init() - fill @o with the defaults of @tool
 * @o: the options to fill
 * @tool: which binary is running
 * @prog: program name used in messages (usually the basename of argv[0])
 */
void pp_opts_init(struct pp_opts *o, enum pp_tool tool, const char *prog);

/**
 * pp_opts_parse() - parse a command line into @o, which pp_opts_init() filled
 * @o: the options; on failure, partly updated
 * @argc: argument count
 * @argv: arguments; argv[0] is skipped; at most one positional: the host
 * @err: one line naming the option, the bad value and what is allowed
 *
 * Numbers are parsed strictly (whole string, no sign, decimal or 0x hex;
 * sizes also take K, M, G binary suffixes) and checked against the bounds of
 * the table, and cross-option rules (rx depth versus QPs, ...) are applied.
 * An option the tool does not accept is unknown.  --help sets @o->help and
 * stops parsing; so does --version, seen as bit PP_OPT_VERSION of @o->set.
 *
 * Return: 0, or EINVAL (bad, missing or unknown option, too many arguments)
 * or ERANGE (a number outside its bounds) with @err set.
 */
int pp_opts_parse(struct pp_opts *o, int argc, char **argv, struct pp_err *err);

/**
 * pp_opts_usage() - write the --help text of @tool to @f
 * @f: the stream (stdout for --help)
 * @tool: which binary
 * @prog: program name shown in the synopsis
 */
void pp_opts_usage(FILE *f, enum pp_tool tool, const char *prog);

/**
 * pp_opts_write_man() - the OPTIONS section of @tool's man page
 * @f: the stream
 * @tool: which binary
 *
 * Pandoc Markdown, one definition per option the tool accepts, with the same
 * text and defaults as pp_opts_usage(): docs/CMakeLists.txt builds the man
 * pages from it.
 */
void pp_opts_write_man(FILE *f, enum pp_tool tool);

/* One option of a tool, as pp_opts_list() describes it. */
struct pp_opt_info {
	enum pp_opt_id id;
	char letter;	  /* short letter, or 0 for long only */
	const char *name; /* long name, without "--" */
	const char *arg;  /* value name in --help ("N", "FILE"); NULL: a flag */
	const char *help; /* the text --help prints, before the default */
	const char *unset; /* the default's words when it is not a number */
};

/**
 * pp_opts_list() - the options @tool accepts, in the order --help lists them
 * @tool: which binary
 * @out: room for PP_OPT_COUNT entries
 *
 * For generators of other views of the table (completion/pp_compgen.c).
 *
 * Return: the number of entries written.
 */
size_t pp_opts_list(enum pp_tool tool, struct pp_opt_info *out);

/**
 * pp_parse_u64() - parse an unsigned number strictly
 * @s: the text: decimal or 0x-prefixed hex, nothing else around it
 * @suffixes: allow a K, M or G suffix (powers of 1024)
 * @min: smallest value allowed
 * @max: largest value allowed
 * @out: the value, set only on success
 *
 * Return: 0, EINVAL (empty, sign, garbage, bad suffix) or ERANGE (outside
 * [@min, @max], or overflow).
 */
int pp_parse_u64(const char *s, bool suffixes, uint64_t min, uint64_t max,
		 uint64_t *out);

/* --max-rtt's bound: an hour, in microseconds. */
#define PP_MAX_RTT_US_MAX 3600000000.0

/**
 * pp_parse_usec() - parse a decimal number of microseconds strictly
 * @s: the text: digits, optionally a '.' and more digits; nothing else (no
 *     sign, exponent, hex or space)
 * @out: the value, set only on success
 *
 * Return: 0, EINVAL (empty, garbage) or ERANGE (0, or above
 * PP_MAX_RTT_US_MAX).
 */
int pp_parse_usec(const char *s, double *out);

#endif /* PP_OPTS_H */
