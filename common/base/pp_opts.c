// SPDX-License-Identifier: MIT
/*
 * pp_opts.c - the command line of every tool, driven by one option table.
 *
 * opt_table[] is the only list of options: the getopt_long tables of a tool
 * are built from it at parse time, and so is the --help text, whose defaults
 * come from pp_opts_init().
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "pp_cpu.h"
#include "pp_mesh_dev.h"
#include "pp_mesh_sched.h"
#include "pp_opts.h"

#define TOOL_BIT(t) (1u << (t))
#define TOOLS_ALL                                                              \
	(TOOL_BIT(PP_TOOL_RC) | TOOL_BIT(PP_TOOL_UD) | TOOL_BIT(PP_TOOL_SRQ) | \
	 TOOL_BIT(PP_TOOL_XRC))

/* getopt_long's val of a long option: above every short letter. */
#define LONG_VAL_BASE 256

/* The usage text: help starts at this column (or later) and wraps at 79. */
#define USAGE_HELP_COL 24
#define USAGE_MAX_COLS 79

#define TCP_PORT_MAX 65535U
#define IB_PORT_MAX 255U

enum opt_kind {
	OPT_FLAG, /* no value */
	OPT_NUM,  /* a number within [min, max] */
	OPT_MTU,  /* a number that pp_mtu_valid() accepts */
	OPT_STR,  /* a non-empty string */
	OPT_WORD, /* one of a list of words: --op (pp_op_parse()) */
	OPT_USEC, /* a decimal number of microseconds > 0 (pp_parse_usec()) */
};

struct opt_def {
	enum pp_opt_id id;
	const char *name; /* long name, without "--" */
	char letter;	  /* short letter, or 0 for long only */
	const char *arg;  /* argument name in --help; NULL for flags */
	enum opt_kind kind;
	unsigned int tools; /* TOOL_BIT()s of the tools that accept it */
	uint64_t min;
	uint64_t max;
	bool suffixes; /* K, M, G allowed */
	const char *help;
	const char *unset; /* the default, when pp_opts_init() leaves it unset */
};

static const struct opt_def opt_table[] = {
	{
		.id = PP_OPT_PORT,
		.name = "port",
		.letter = 'p',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = TCP_PORT_MAX,
		.help = "TCP port of the handshake",
	},
	{
		.id = PP_OPT_IB_DEV,
		.name = "ib-dev",
		.letter = 'd',
		.arg = "NAME",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "RDMA device; --mesh: NAME,NAME,... or auto, a device per rank of a host",
		.unset = "first device with an active port",
	},
	{
		.id = PP_OPT_IB_PORT,
		.name = "ib-port",
		.letter = 'i',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = IB_PORT_MAX,
		.help = "port of the RDMA device",
	},
	{
		.id = PP_OPT_SIZE,
		.name = "size",
		.letter = 's',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = PP_MIN_SIZE,
		.max = PP_MAX_SIZE,
		.suffixes = true,
		.help = "message size in bytes",
	},
	{
		.id = PP_OPT_OP,
		.name = "op",
		.arg = "OP",
		.kind = OPT_WORD,
		.tools = TOOLS_ALL,
		.help = "operation of each round trip: send, write, write-imm (RDMA Write with immediate), read, fetch-add or cmp-swap (8-byte atomics); UC: send and writes, UD: send",
	},
	{
		.id = PP_OPT_MTU,
		.name = "mtu",
		.letter = 'm',
		.arg = "N",
		.kind = OPT_MTU,
		.tools = TOOLS_ALL & ~TOOL_BIT(PP_TOOL_UD),
		.min = 256,
		.max = 4096,
		.help = "path MTU: 256, 512, 1024, 2048 or 4096",
		.unset = "the smaller active MTU of the two ports",
	},
	{
		.id = PP_OPT_RX_DEPTH,
		.name = "rx-depth",
		.letter = 'r',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_RX_DEPTH,
		.help = "receives posted ahead",
	},
	{
		.id = PP_OPT_ITERS,
		.name = "iters",
		.letter = 'n',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_ITERS,
		.help = "number of exchanges",
	},
	{
		.id = PP_OPT_SL,
		.name = "sl",
		.letter = 'l',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_SL,
		.help = "service level",
	},
	{
		.id = PP_OPT_EVENTS,
		.name = "events",
		.letter = 'e',
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "sleep on completion events instead of polling",
	},
	{
		.id = PP_OPT_GID_IDX,
		.name = "gid-idx",
		.letter = 'g',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_GID_IDX,
		.help = "local GID index (a GRH is used when given)",
		.unset = "on RoCE, chosen and printed; on IB, none",
	},
	{
		.id = PP_OPT_HOP_LIMIT,
		.name = "hop-limit",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_HOP_LIMIT,
		.help = "GRH hop limit (the IP TTL on RoCE v2) of the packets sent",
	},
	{
		.id = PP_OPT_TCLASS,
		.name = "tclass",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_TCLASS,
		.help = "GRH traffic class: DSCP in the upper 6 bits, ECN in the lower 2",
	},
	{
		.id = PP_OPT_FLOW_LABEL,
		.name = "flow-label",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_FLOW_LABEL,
		.help = "GRH flow label (20 bits)",
	},
	{
		.id = PP_OPT_PKEY_INDEX,
		.name = "pkey-index",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_PKEY_INDEX,
		.help = "use the P_Key at this index of this port's P_Key table (another way to give --pkey)",
	},
	{
		.id = PP_OPT_PKEY,
		.name = "pkey",
		.arg = "PKEY",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = 0xffff,
		.help = "the partition's P_Key, e.g. 0x8001 (each side uses its port's index of it)",
		.unset = "the P_Key at --pkey-index",
	},
	{
		.id = PP_OPT_QP_TIMEOUT,
		.name = "qp-timeout",
		.letter = 'u',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL & ~TOOL_BIT(PP_TOOL_UD),
		.min = 0,
		.max = PP_MAX_QP_TIMEOUT,
		.help = "local ACK timeout of the RC QPs: 4.096 us * 2^N before a resend, 0 waits for ever",
	},
	{
		.id = PP_OPT_RETRY_COUNT,
		.name = "retry-count",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL & ~TOOL_BIT(PP_TOOL_UD),
		.min = 0,
		.max = PP_MAX_RETRY_COUNT,
		.help = "resends after a timeout; a dead peer is named after about 4.096 us * 2^qp-timeout * (N + 1)",
	},
	{
		.id = PP_OPT_RNR_RETRY,
		.name = "rnr-retry",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL & ~TOOL_BIT(PP_TOOL_UD),
		.min = 0,
		.max = PP_MAX_RNR_RETRY,
		.help = "resends while the peer has no receive posted (RNR NAK), 7 for ever",
	},
	{
		.id = PP_OPT_CHECK,
		.name = "chk",
		.letter = 'c',
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "fill and check the data of every message",
	},
	{
		.id = PP_OPT_WARMUP,
		.name = "warmup",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 0,
		.max = PP_MAX_WARMUP,
		.help = "exchanges run first and left out of every figure",
	},
	{
		.id = PP_OPT_DURATION,
		.name = "duration",
		.letter = 'D',
		.arg = "SEC",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_DURATION_S,
		.help = "run for this many seconds (per size) instead of -n exchanges",
		.unset = "off: -n exchanges",
	},
	{
		.id = PP_OPT_SWEEP,
		.name = "all",
		.letter = 'a',
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "sweep sizes 1, 2, 4, ... up to -s (without -s: 8 MiB; ud: the path MTU)",
	},
	{
		.id = PP_OPT_JSON,
		.name = "json",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "write one JSON document on stdout instead of text (docs/measurement.md)",
	},
	{
		.id = PP_OPT_HISTOGRAM,
		.name = "histogram",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "print a histogram of the round trips",
	},
	{
		.id = PP_OPT_SAMPLES,
		.name = "samples",
		.arg = "FILE",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "write every round trip to FILE (size,sample,rtt_ns lines)",
	},
	{
		.id = PP_OPT_INTERVAL,
		.name = "interval",
		.arg = "SEC",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_DURATION_S,
		.help = "print the figures of every SEC seconds of the run as it goes (--json: one line each)",
		.unset = "off",
	},
	{
		.id = PP_OPT_EXPECT_MTU,
		.name = "expect-mtu",
		.arg = "BYTES",
		.kind = OPT_MTU,
		.tools = TOOLS_ALL,
		.min = 256,
		.max = 4096,
		.help = "exit 4 when the path MTU is below BYTES (256, 512, 1024, 2048 or 4096), naming the side whose active MTU is lower and its netdev MTU; given on either side, both judge; with --mesh, rank 0 judges each pair (cell MTU)",
		.unset = "none",
	},
	{
		.id = PP_OPT_MAX_RTT,
		.name = "max-rtt",
		.arg = "USEC",
		.kind = OPT_USEC,
		.tools = TOOLS_ALL,
		.help = "exit 4 when the median round trip is above USEC microseconds (a decimal number, such as 25 or 2.5); the client judges, as it measures; with --mesh, rank 0 judges each pair (cell SLOW)",
		.unset = "none",
	},
	{
		.id = PP_OPT_NO_INLINE,
		.name = "no-inline",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "never send inline (both sides; default: inline when the device can)",
	},
	{
		.id = PP_OPT_COUNTERS,
		.name = "counters",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "print the port counters that moved during the run, this side's and the server's (they count all traffic on the port)",
	},
	{
		.id = PP_OPT_ODP,
		.name = "odp",
		.letter = 'o',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC) | TOOL_BIT(PP_TOOL_SRQ) |
			 TOOL_BIT(PP_TOOL_XRC),
		.help = "register the buffers as an On-Demand-Paging MR (the device must have ODP for the transport and operation)",
	},
	{
		.id = PP_OPT_IODP,
		.name = "iodp",
		.letter = 'O',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "implicit On-Demand Paging: one MR for the whole address space (implies -o)",
	},
	{
		.id = PP_OPT_PREFETCH,
		.name = "prefetch",
		.letter = 'P',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "prefetch the buffers of the ODP MR (ibv_advise_mr) before the run (needs -o or -O)",
	},
	{
		.id = PP_OPT_TS,
		.name = "ts",
		.letter = 't',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "completion timestamps from the device: not used yet, so refused (naming the capability where the device has none)",
	},
	{
		.id = PP_OPT_DM,
		.name = "dm",
		.letter = 'j',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "the buffers in device memory (ibv_alloc_dm): not used yet, so refused (naming the capability where the device has none)",
	},
	{
		.id = PP_OPT_NEW_SEND,
		.name = "new_send",
		.letter = 'N',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "post sends with the ibv_wr_*() API on an extended QP (ibv_qp_ex) instead of ibv_post_send()",
	},
	{
		.id = PP_OPT_CC_UNPROT,
		.name = "allow-cc-unprotected",
		.letter = 'U',
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "allow unprotected memory for the buffers on a Confidential Computing guest: not implemented, so refused",
	},
	{
		.id = PP_OPT_HUGEPAGES,
		.name = "hugepages",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "put the buffers on 2 MiB huge pages (MAP_HUGETLB; reserve them with sysctl vm.nr_hugepages=N)",
	},
	{
		.id = PP_OPT_CPU,
		.name = "cpu",
		.arg = "LIST",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "the CPUs to run on: auto (one CPU of the device's NUMA node, among those allowed; no node: of those allowed), none (not pinned), or a list such as 0-3,8; the server takes the first of them, the client the last",
		.unset = "auto",
	},
	{
		.id = PP_OPT_NUM_TESTS,
		.name = "num_tests",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOL_BIT(PP_TOOL_XRC),
		.min = 1,
		.max = PP_MAX_ITERS,
		.help = "ibv_xsrq_pingpong's name of -n: number of exchanges",
	},
	{
		.id = PP_OPT_NUM_QPS,
		.name = "num-qp",
		.letter = 'q',
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOL_BIT(PP_TOOL_SRQ) | TOOL_BIT(PP_TOOL_XRC),
		.min = 1,
		.max = PP_MAX_QPS,
		.help = "number of QPs",
	},
	{
		.id = PP_OPT_UC,
		.name = "uc",
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "use UC QPs instead of RC",
	},
	{
		.id = PP_OPT_BIND,
		.name = "bind",
		.letter = 'b',
		.arg = "ADDR",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "address the server listens on",
		.unset = "any",
	},
	{
		.id = PP_OPT_TIMEOUT,
		.name = "timeout",
		.letter = 'T',
		.arg = "SEC",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = PP_MAX_TIMEOUT_S,
		.help = "seconds to wait for the peer at each step",
	},
	{
		.id = PP_OPT_XRC_DOMAIN,
		.name = "xrc-domain",
		.arg = "FILE",
		.kind = OPT_STR,
		.tools = TOOL_BIT(PP_TOOL_XRC),
		.help = "file naming the XRC domain; processes of one host that give the same file share the domain",
		.unset = PP_XRCD_PATH_HELP,
	},
	{
		.id = PP_OPT_SHOW_GIDS,
		.name = "show-gids",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "list devices, ports and GID tables (-d, -i narrow it), then exit",
	},
	{
		.id = PP_OPT_TRACE,
		.name = "trace",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "print every bring-up step, its attributes and its time to stderr",
	},
	{
		.id = PP_OPT_RDMA_CORE,
		.name = "rdma-core",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "speak the wire format of rdma-core's ibv_*_pingpong (nothing is negotiated: give both sides the same options)",
	},
	{
		.id = PP_OPT_PERSISTENT,
		.name = "persistent",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "server: serve one client after another until stopped",
	},
	{
		.id = PP_OPT_CLIENTS,
		.name = "clients",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOL_BIT(PP_TOOL_XRC),
		.min = 1,
		.max = PP_MAX_CLIENTS,
		.help = "server: serve N clients, one after another, then end (ibv_xsrq_pingpong's -c/--clients; our -c is --chk)",
		.unset = "1",
	},
	{
		.id = PP_OPT_MAX_MEM,
		.name = "max-mem",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1ULL << 20,
		.max = 1ULL << 40,
		.suffixes = true,
		.help = "server: the most buffer memory in bytes that one client's run may make it allocate and register (both areas, a buffer per receive with -c on UC or UD, the largest size of -a)",
	},
	{
		.id = PP_OPT_PROBE,
		.name = "probe",
		.kind = OPT_FLAG,
		.tools = TOOL_BIT(PP_TOOL_RC),
		.help = "client: a short RC run with -c for every GID pair of the same type and family of the two ports and every MTU up to the lower active MTU, then one table (the server must be persistent)",
	},
	{
		.id = PP_OPT_MESH,
		.name = "mesh",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "run every pair of N ranks started by a launcher (Slurm, mpirun, a Kubernetes Indexed Job, pdsh) and print the matrix (docs/mesh.md)",
	},
	{
		.id = PP_OPT_MESH_SIZE,
		.name = "mesh-size",
		.arg = "N",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 2,
		.max = PP_MESH_MAX_RANKS,
		.help = "--mesh: the number of ranks, where the launcher does not say it",
		.unset = "from the launcher",
	},
	{
		.id = PP_OPT_MESH_ROOT,
		.name = "mesh-root",
		.arg = "HOST",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "--mesh: the host of rank 0, where the ranks meet on -p",
		.unset =
			"$PP_MESH_ROOT, else the first host of Slurm's node list",
	},
	{
		.id = PP_OPT_MESH_SERIAL,
		.name = "mesh-serial",
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "--mesh: run one pair at a time (each pair's figure on an idle fabric)",
	},
	{
		.id = PP_OPT_MESH_JOIN,
		.name = "mesh-join",
		.arg = "SEC",
		.kind = OPT_NUM,
		.tools = TOOLS_ALL,
		.min = 1,
		.max = 3600,
		.help = "--mesh: how long rank 0 waits for the ranks to join; it goes on without the missing ones",
	},
	{
		.id = PP_OPT_MESH_SVG,
		.name = "mesh-svg",
		.arg = "FILE",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "--mesh: rank 0 writes the matrix as an SVG heatmap to FILE",
	},
	{
		.id = PP_OPT_MESH_ID,
		.name = "mesh-id",
		.arg = "ID",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "--mesh: the mesh's name; rank 0 refuses a rank that names another, so two meshes on one port never merge",
		.unset =
			"$PP_MESH_ID, else the launcher's job (Slurm job and step, PMIx namespace, Open MPI job), else rank 0's host, -p and the size",
	},
	{
		.id = PP_OPT_MESH_PAIRS,
		.name = "mesh-pairs",
		.arg = "WHICH",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "--mesh: the pairs to run: rail (ranks of one local index on different hosts), all, or remote (ranks on different hosts); the others are shown as not run",
		.unset = "rail when -d gives a list or auto, else all",
	},
	{
		.id = PP_OPT_MESH_PROM,
		.name = "mesh-prom",
		.arg = "FILE",
		.kind = OPT_STR,
		.tools = TOOLS_ALL,
		.help = "--mesh: rank 0 writes the result as Prometheus metrics to FILE (replaced whole; end its name in .prom for node_exporter's textfile collector)",
	},
	{
		.id = PP_OPT_VERSION,
		.name = "version",
		.letter = 'V',
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "show the version, the git commit and the libibverbs version, and exit",
	},
	{
		.id = PP_OPT_HELP,
		.name = "help",
		.letter = 'h',
		.kind = OPT_FLAG,
		.tools = TOOLS_ALL,
		.help = "show this help and exit",
	},
};

#define OPT_TABLE_LEN (sizeof(opt_table) / sizeof(opt_table[0]))
_Static_assert(OPT_TABLE_LEN == PP_OPT_COUNT,
	       "one table row per enum pp_opt_id");
_Static_assert(PP_OPT_COUNT <= 64, "struct pp_opts.set has 64 bits");

static bool opt_accepted(const struct opt_def *d, enum pp_tool tool)
{
	return pp_tool_valid(tool) && (d->tools & TOOL_BIT(tool));
}

/* "-s/--size" or "--uc": how messages name an option. */
static const char *opt_label(const struct opt_def *d, char *buf, size_t len)
{
	if (d->letter)
		snprintf(buf, len, "-%c/--%s", d->letter, d->name);
	else
		snprintf(buf, len, "--%s", d->name);
	return buf;
}

/* The option of @tool that getopt_long reported as @val (letter or long). */
static const struct opt_def *opt_by_val(int val, enum pp_tool tool)
{
	size_t i;

	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!opt_accepted(d, tool))
			continue;
		if (val == LONG_VAL_BASE + (int)d->id ||
		    (d->letter && val == d->letter))
			return d;
	}
	return NULL;
}

void pp_opts_init(struct pp_opts *o, enum pp_tool tool, const char *prog)
{
	const struct pp_transport_desc *tr;

	memset(o, 0, sizeof(*o));
	o->tool = tool;
	o->prog = prog;
	o->transport = pp_transport_of_tool(tool);
	tr = pp_transport_of(o->transport);
	o->port = 18515;
	o->ib_port = 1;
	o->gid_index = -1;
	o->timeout_ms = 5 * 1000;
	o->mesh_join_s = 30;
	o->max_mem = PP_MAX_MEM_DEFAULT;
#define DEFAULT_NUM(name, opt, type, off, valid, zero, wname, label, unit, \
		    json, jnull, dflt, names)                              \
	o->name = (type)(dflt);
	PP_PARAMS(DEFAULT_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef DEFAULT_NUM
}

/*
 * The value of option @id in @o, as the user would type it.  False when the
 * option is a flag or is unset (its default is then the table's @unset text).
 */
static bool opt_value(const struct pp_opts *o, enum pp_opt_id id, uint64_t *v)
{
	/* the default P_Key is read from the port's table (--pkey-index) */
	if (id == PP_OPT_PKEY && !(o->set & PP_OPT_BIT(PP_OPT_PKEY)))
		return false;
	switch (id) {
#define VALUE_NUM(name, opt, type, off, valid, zero, ...) \
	case opt:                                         \
		*v = o->name;                             \
		return o->name != 0 || (zero) == PP_ZERO_VALUE;
		PP_PARAMS(VALUE_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef VALUE_NUM
	case PP_OPT_PORT:
		*v = o->port;
		return true;
	case PP_OPT_IB_PORT:
		*v = o->ib_port;
		return true;
	case PP_OPT_GID_IDX:
		*v = (uint64_t)o->gid_index;
		return o->gid_index >= 0;
	case PP_OPT_TIMEOUT:
		*v = o->timeout_ms / 1000;
		return true;
	case PP_OPT_INTERVAL:
		*v = o->interval_s;
		return o->interval_s != 0;
	case PP_OPT_PKEY_INDEX:
		*v = o->pkey_index;
		return true;
	case PP_OPT_MESH_SIZE:
		*v = o->mesh_size;
		return o->mesh_size != 0;
	case PP_OPT_MESH_JOIN:
		*v = o->mesh_join_s;
		return true;
	case PP_OPT_MAX_MEM:
		*v = o->max_mem;
		return true;
	case PP_OPT_NUM_TESTS:
		*v = o->iters;
		return true;
	case PP_OPT_CLIENTS:
		*v = o->clients;
		return o->clients != 0;
	default:
		return false;
	}
}

/* Store a number that the table's bounds already checked. */
static void opt_store_num(struct pp_opts *o, enum pp_opt_id id, uint64_t v)
{
	switch (id) {
#define STORE_NUM(name, opt, type, ...) \
	case opt:                       \
		o->name = (type)v;      \
		break;
		PP_PARAMS(STORE_NUM, PP_PARAM_NONE, PP_PARAM_NONE)
#undef STORE_NUM
	case PP_OPT_PORT:
		o->port = (uint32_t)v;
		break;
	case PP_OPT_IB_PORT:
		o->ib_port = (uint32_t)v;
		break;
	case PP_OPT_GID_IDX:
		o->gid_index = (int32_t)v;
		break;
	case PP_OPT_TIMEOUT:
		o->timeout_ms = (uint32_t)v * 1000;
		break;
	case PP_OPT_INTERVAL:
		o->interval_s = (uint32_t)v;
		break;
	case PP_OPT_PKEY_INDEX:
		o->pkey_index = (uint16_t)v;
		break;
	case PP_OPT_MESH_SIZE:
		o->mesh_size = (uint32_t)v;
		break;
	case PP_OPT_MESH_JOIN:
		o->mesh_join_s = (uint32_t)v;
		break;
	case PP_OPT_MAX_MEM:
		o->max_mem = v;
		break;
	case PP_OPT_NUM_TESTS:
		o->iters = v;
		break;
	case PP_OPT_CLIENTS:
		o->clients = (uint32_t)v;
		break;
	case PP_OPT_EXPECT_MTU:
		o->expect_mtu = (uint32_t)v;
		break;
	default:
		break;
	}
}

static void opt_store_flag(struct pp_opts *o, enum pp_opt_id id)
{
	switch (id) {
#define STORE_FLAG(name, opt, ...) \
	case opt:                  \
		o->name = true;    \
		break;
		PP_PARAMS(PP_PARAM_NONE, STORE_FLAG, PP_PARAM_NONE)
#undef STORE_FLAG
	case PP_OPT_EVENTS:
		o->use_event = true;
		break;
	case PP_OPT_UC:
		o->transport = PP_TR_UC;
		break;
	case PP_OPT_SHOW_GIDS:
		o->show_gids = true;
		break;
	case PP_OPT_TRACE:
		o->trace = true;
		break;
	case PP_OPT_RDMA_CORE:
		o->rdma_core = true;
		break;
	case PP_OPT_PERSISTENT:
		o->persistent = true;
		break;
	case PP_OPT_JSON:
		o->json = true;
		break;
	case PP_OPT_HISTOGRAM:
		o->histogram = true;
		break;
	case PP_OPT_PROBE:
		o->probe = true;
		break;
	case PP_OPT_MESH:
		o->mesh = true;
		break;
	case PP_OPT_MESH_SERIAL:
		o->mesh_serial = true;
		break;
	case PP_OPT_IODP: /* implicit ODP: ODP too */
		o->iodp = true;
		o->odp = true;
		break;
	case PP_OPT_ODP:
		o->odp = true;
		break;
	case PP_OPT_PREFETCH:
		o->prefetch = true;
		break;
	case PP_OPT_TS:
		o->ts = true;
		break;
	case PP_OPT_DM:
		o->dm = true;
		break;
	case PP_OPT_CC_UNPROT:
		o->cc_unprotected = true;
		break;
	case PP_OPT_NEW_SEND:
		o->new_send = true;
		break;
	case PP_OPT_HUGEPAGES:
		o->hugepages = true;
		break;
	case PP_OPT_HELP:
		o->help = true;
		break;
	default:
		break;
	}
}

static int opt_apply(struct pp_opts *o, const struct opt_def *d,
		     const char *arg, struct pp_err *err)
{
	char label[32];
	uint64_t v;
	int ret;

	switch (d->kind) {
	case OPT_FLAG:
		opt_store_flag(o, d->id);
		break;
	case OPT_STR:
		if (!*arg) {
			pp_err_set(
				err,
				"invalid value '' for %s: expected a non-empty %s",
				opt_label(d, label, sizeof(label)),
				d->id == PP_OPT_BIND ? "address" :
				d->id == PP_OPT_XRC_DOMAIN ||
						d->id == PP_OPT_SAMPLES ||
						d->id == PP_OPT_MESH_SVG ||
						d->id == PP_OPT_MESH_PROM ?
						       "file name" :
				d->id == PP_OPT_MESH_ROOT ? "host" :
							    "name");
			return EINVAL;
		}
		if (d->id == PP_OPT_CPU && !pp_cpu_spec_valid(arg)) {
			pp_err_set(
				err,
				"invalid value '%s' for --cpu: expected auto, none or a CPU list such as 0-3,8",
				arg);
			return EINVAL;
		}
		if (d->id == PP_OPT_MESH_PAIRS &&
		    pp_mesh_pairs_parse(arg, &o->mesh_pairs)) {
			pp_err_set(
				err,
				"invalid value '%s' for --mesh-pairs: expected rail, all or remote",
				arg);
			return EINVAL;
		}
		if (d->id == PP_OPT_IB_DEV && pp_mesh_dev_list_check(arg, err))
			return EINVAL;
		if (d->id == PP_OPT_MESH_PAIRS)
			; /* stored above */
		else if (d->id == PP_OPT_BIND)
			o->bind_addr = arg;
		else if (d->id == PP_OPT_CPU)
			o->cpu_spec = arg;
		else if (d->id == PP_OPT_XRC_DOMAIN)
			o->xrcd_path = arg;
		else if (d->id == PP_OPT_SAMPLES)
			o->samples_path = arg;
		else if (d->id == PP_OPT_MESH_ROOT)
			o->mesh_root = arg;
		else if (d->id == PP_OPT_MESH_SVG)
			o->mesh_svg = arg;
		else if (d->id == PP_OPT_MESH_ID)
			o->mesh_id = arg;
		else if (d->id == PP_OPT_MESH_PROM)
			o->mesh_prom = arg;
		else
			o->ib_devname = arg;
		break;
	case OPT_WORD: {
		enum pp_op op;

		if (pp_op_parse(arg, &op)) {
			pp_err_set(err,
				   "invalid value '%s' for %s: expected %s",
				   arg, opt_label(d, label, sizeof(label)),
				   pp_op_list());
			return EINVAL;
		}
		opt_store_num(o, d->id, op);
		break;
	}
	case OPT_USEC:
		ret = pp_parse_usec(arg, &o->max_rtt_us);
		if (ret == EINVAL) {
			pp_err_set(
				err,
				"invalid value '%s' for %s: expected a number of microseconds, such as 25 or 2.5",
				arg, opt_label(d, label, sizeof(label)));
			return EINVAL;
		}
		if (ret) {
			pp_err_set(
				err,
				"%s %s is out of range: give more than 0 and at most %.0f microseconds",
				opt_label(d, label, sizeof(label)), arg,
				PP_MAX_RTT_US_MAX);
			return ret;
		}
		break;
	case OPT_MTU:
		ret = pp_parse_u64(arg, false, 0, UINT64_MAX, &v);
		if (ret == EINVAL) {
			pp_err_set(
				err,
				"invalid value '%s' for %s: expected 256, 512, 1024, 2048 or 4096",
				arg, opt_label(d, label, sizeof(label)));
			return EINVAL;
		}
		if (ret || v > UINT32_MAX || !pp_mtu_valid((uint32_t)v)) {
			pp_err_set(
				err,
				"%s %s is not an IB MTU: use 256, 512, 1024, 2048 or 4096",
				opt_label(d, label, sizeof(label)), arg);
			return EINVAL;
		}
		opt_store_num(o, d->id, v);
		break;
	case OPT_NUM:
		ret = pp_parse_u64(arg, d->suffixes, d->min, d->max, &v);
		if (ret == EINVAL) {
			pp_err_set(
				err,
				"invalid value '%s' for %s: expected a whole number%s",
				arg, opt_label(d, label, sizeof(label)),
				d->suffixes ? " (suffix K, M or G allowed)" :
					      "");
			return EINVAL;
		}
		if (ret && d->id == PP_OPT_SIZE && o->tool == PP_TOOL_UD) {
			pp_err_set(
				err,
				"%s %s is out of range: a UD message is 1 byte up to the path MTU (at most 4096)",
				opt_label(d, label, sizeof(label)), arg);
			return ret;
		}
		if (ret) {
			pp_err_set(err,
				   "%s %s is out of range: allowed %" PRIu64
				   "..%" PRIu64,
				   opt_label(d, label, sizeof(label)), arg,
				   d->min, d->max);
			return ret;
		}
		opt_store_num(o, d->id, v);
		break;
	}
	o->set |= PP_OPT_BIT(d->id);
	if (d->id == PP_OPT_NUM_TESTS) /* the stock name of -n: it is -n */
		o->set |= PP_OPT_BIT(PP_OPT_ITERS);
	return 0;
}

/* Fill getopt_long's tables with the options of @tool. */
static void opt_build(enum pp_tool tool, char *shorts, struct option *longs)
{
	size_t i;

	*shorts++ = ':'; /* report a missing value as ':', not '?' */
	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!opt_accepted(d, tool))
			continue;
		if (d->letter) {
			*shorts++ = d->letter;
			if (d->arg)
				*shorts++ = ':';
		}
		*longs++ = (struct option){
			.name = d->name,
			.has_arg = d->arg ? required_argument : no_argument,
			.flag = NULL,
			.val = LONG_VAL_BASE + (int)d->id,
		};
	}
	*shorts = '\0';
	*longs = (struct option){ 0 };
}

/* The RTS attributes of reliable QPs: nothing to set on UC (or UD). */
static const enum pp_opt_id rc_only[] = {
	PP_OPT_QP_TIMEOUT,
	PP_OPT_RETRY_COUNT,
	PP_OPT_RNR_RETRY,
};

/* The reason UD has no option @name (a long name, @len bytes), or NULL. */
static const char *ud_lacks(const char *name, size_t len)
{
	size_t i, k;

	if (len == 3 && !strncmp(name, "mtu", 3))
		return ": UD has no path MTU option, each message must fit the port's active MTU (--show-gids prints it)";
	for (i = 0; i < OPT_TABLE_LEN; i++)
		for (k = 0; k < sizeof(rc_only) / sizeof(rc_only[0]); k++)
			if (opt_table[i].id == rc_only[k] &&
			    strlen(opt_table[i].name) == len &&
			    !strncmp(opt_table[i].name, name, len))
				return ": UD sends are never acknowledged, so there is no ACK timeout or retry to set (rc_pingpong, srq_pingpong and xrc_pingpong have them)";
	return NULL;
}

/*
 * The end of an "unknown option" line: why UD lacks an option (@name, @len:
 * its long name), or "see --help".
 */
static const char *opt_not_here(const struct pp_opts *o, const char *name,
				size_t len)
{
	const char *why = o->tool == PP_TOOL_UD ? ud_lacks(name, len) : NULL;

	return why ? why : " (see --help)";
}

/*
 * The tools that have the option of long name @name (@len bytes), as
 * "xrc_pingpong" or "srq_pingpong and xrc_pingpong", into @buf.  Return:
 * false when no tool has it (or UD lacks it for a reason of its own, which
 * says more).
 */
static bool opt_tools_of(const char *name, size_t len, char *buf, size_t size)
{
	unsigned int t, n = 0, count = 0;
	size_t i, used = 0;

	for (i = 0; i < OPT_TABLE_LEN; i++)
		if (strlen(opt_table[i].name) == len &&
		    !strncmp(opt_table[i].name, name, len))
			break;
	if (i == OPT_TABLE_LEN || ud_lacks(name, len))
		return false;
	for (t = PP_TOOL_RC; t <= PP_TOOL_XRC; t++)
		count += pp_tool_valid(t) && (opt_table[i].tools & TOOL_BIT(t));
	for (t = PP_TOOL_RC; t <= PP_TOOL_XRC; t++) {
		int w;

		if (!pp_tool_valid(t) || !(opt_table[i].tools & TOOL_BIT(t)))
			continue;
		w = snprintf(buf + used, size - used, "%s%s",
			     !n		    ? "" :
			     n + 1 == count ? " and " :
					      ", ",
			     pp_tool_name((enum pp_tool)t));
		if (w > 0 && (size_t)w < size - used)
			used += (size_t)w;
		n++;
	}
	return n > 0;
}

/* getopt_long said '?' with optopt 0: an unknown or ambiguous long option. */
static void opt_unknown_long(const struct pp_opts *o, const char *text,
			     struct pp_err *err)
{
	const char *name = text + 2;
	size_t len = strcspn(name, "=");
	char list[256] = "";
	size_t used = 0;
	unsigned int n = 0;
	size_t i;

	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];
		int w;

		if (!opt_accepted(d, o->tool) || strncmp(d->name, name, len))
			continue;
		w = snprintf(list + used, sizeof(list) - used, "%s--%s",
			     n ? ", " : "", d->name);
		if (w > 0 && (size_t)w < sizeof(list) - used)
			used += (size_t)w;
		n++;
	}
	if (n > 1)
		pp_err_set(err, "ambiguous option '--%.*s': could be %s",
			   (int)len, name, list);
	else if (!n && opt_tools_of(name, len, list, sizeof(list)))
		pp_err_set(err, "unknown option '--%.*s' for %s: only %s %s it",
			   (int)len, name, pp_tool_name(o->tool), list,
			   strchr(list, ' ') ? "have" : "has");
	else
		pp_err_set(err, "unknown option '--%.*s' for %s%s", (int)len,
			   name, pp_tool_name(o->tool),
			   opt_not_here(o, name, len));
}

/* getopt_long said '?' (@missing false) or ':' (@missing true). */
static void opt_bad(const struct pp_opts *o, char **argv, bool missing,
		    struct pp_err *err)
{
	const struct opt_def *d = optopt ? opt_by_val(optopt, o->tool) : NULL;
	char label[32];

	if (d && missing) {
		pp_err_set(err, "option %s needs a value",
			   opt_label(d, label, sizeof(label)));
	} else if (d) {
		/* only a long flag given a value: "--uc=1" */
		pp_err_set(err, "option %s takes no value",
			   opt_label(d, label, sizeof(label)));
	} else if (optopt) {
		/* the long name of a letter that another tool has */
		const char *ln = "";
		size_t i;

		for (i = 0; i < OPT_TABLE_LEN; i++)
			if (opt_table[i].letter == optopt)
				ln = opt_table[i].name;
		if (optopt > 0 && optopt < 127 && optopt > ' ')
			pp_err_set(err, "unknown option '-%c' for %s%s", optopt,
				   pp_tool_name(o->tool),
				   opt_not_here(o, ln, strlen(ln)));
		else
			pp_err_set(err, "unknown option (see --help)");
	} else {
		opt_unknown_long(o, argv[optind - 1], err);
	}
}

/* Options of ours that the stock wire format cannot carry. */
static const enum pp_opt_id not_stock[] = {
	PP_OPT_WARMUP, PP_OPT_SWEEP,	  PP_OPT_DURATION,    PP_OPT_OP,
	PP_OPT_PROBE,  PP_OPT_QP_TIMEOUT, PP_OPT_RETRY_COUNT, PP_OPT_RNR_RETRY,
};

/* Options that --probe chooses itself, or that make no sense for its rows. */
static const enum pp_opt_id not_probe[] = {
	PP_OPT_GID_IDX, PP_OPT_MTU,	   PP_OPT_SWEEP,   PP_OPT_DURATION,
	PP_OPT_UC,	PP_OPT_PERSISTENT, PP_OPT_SAMPLES, PP_OPT_HISTOGRAM,
	PP_OPT_OP,	PP_OPT_EXPECT_MTU, PP_OPT_MAX_RTT,
};

/* The table row of @id. */
static const struct opt_def *opt_def_of(enum pp_opt_id id)
{
	const struct opt_def *d = &opt_table[0];

	while (d->id != id)
		d++;
	return d;
}

/* @a and @b both given: refused, both named from the table, with @why. */
static int opt_check_one_of(const struct pp_opts *o, enum pp_opt_id a,
			    enum pp_opt_id b, const char *why,
			    struct pp_err *err)
{
	char la[32], lb[32];

	if (!(o->set & PP_OPT_BIT(a)) || !(o->set & PP_OPT_BIT(b)))
		return 0;
	pp_err_set(err, "%s and %s both given: give one (%s)",
		   opt_label(opt_def_of(a), la, sizeof(la)),
		   opt_label(opt_def_of(b), lb, sizeof(lb)), why);
	return EINVAL;
}

/* Options a mesh cannot take: each pair is one plain run. */
static const enum pp_opt_id not_mesh[] = {
	PP_OPT_PERSISTENT, PP_OPT_PROBE,     PP_OPT_RDMA_CORE, PP_OPT_SAMPLES,
	PP_OPT_INTERVAL,   PP_OPT_SHOW_GIDS, PP_OPT_BIND,      PP_OPT_CLIENTS,
};

/* The --mesh-* options that need --mesh. */
static const enum pp_opt_id mesh_only[] = {
	PP_OPT_MESH_SIZE,  PP_OPT_MESH_ROOT, PP_OPT_MESH_SERIAL,
	PP_OPT_MESH_JOIN,  PP_OPT_MESH_SVG,  PP_OPT_MESH_ID,
	PP_OPT_MESH_PAIRS, PP_OPT_MESH_PROM,
};

static int opt_check_mesh(const struct pp_opts *o, struct pp_err *err)
{
	char label[32];
	size_t i;

	for (i = 0; !o->mesh && i < sizeof(mesh_only) / sizeof(mesh_only[0]);
	     i++) {
		if (!(o->set & PP_OPT_BIT(mesh_only[i])))
			continue;
		pp_err_set(err, "%s needs --mesh (add --mesh, or drop it)",
			   opt_label(opt_def_of(mesh_only[i]), label,
				     sizeof(label)));
		return EINVAL;
	}
	if (!o->mesh && pp_mesh_dev_is_list(o->ib_devname)) {
		pp_err_set(
			err,
			"-d %s names a device per rank of a host, which needs --mesh; without it give one device (-d NAME) or none",
			o->ib_devname);
		return EINVAL;
	}
	if (!o->mesh)
		return 0;
	if (o->host) {
		pp_err_set(
			err,
			"--mesh takes no host '%s': the ranks meet at rank 0's host (--mesh-root HOST, or PP_MESH_ROOT; Slurm says it)",
			o->host);
		return EINVAL;
	}
	for (i = 0; i < sizeof(not_mesh) / sizeof(not_mesh[0]); i++) {
		if (!(o->set & PP_OPT_BIT(not_mesh[i])))
			continue;
		pp_err_set(
			err,
			"%s is not available with --mesh: each pair of the mesh is one plain run (drop one of the two)",
			opt_label(opt_def_of(not_mesh[i]), label,
				  sizeof(label)));
		return EINVAL;
	}
	if (o->port + PP_MESH_MAX_RANKS > TCP_PORT_MAX) {
		pp_err_set(
			err,
			"-p/--port %u is too high for --mesh: the pairs listen on the ports above it (-p + 1 + rank); give -p at most %u",
			o->port, TCP_PORT_MAX - PP_MESH_MAX_RANKS);
		return ERANGE;
	}
	return 0;
}

static int opt_check_probe(const struct pp_opts *o, struct pp_err *err)
{
	char label[32];
	size_t i;

	if (!o->probe)
		return 0;
	if (!o->host) {
		pp_err_set(
			err,
			"--probe is a client option: give the host of a server started with --persistent");
		return EINVAL;
	}
	for (i = 0; i < sizeof(not_probe) / sizeof(not_probe[0]); i++) {
		if (!(o->set & PP_OPT_BIT(not_probe[i])))
			continue;
		pp_err_set(
			err,
			"%s is not available with --probe: the probe runs RC rows with -c over every GID pair and MTU (drop one of the two)",
			opt_label(opt_def_of(not_probe[i]), label,
				  sizeof(label)));
		return EINVAL;
	}
	return 0;
}

/* --clients: a server's count of clients (ibv_xsrq_pingpong's -c). */
static int opt_check_clients(const struct pp_opts *o, struct pp_err *err)
{
	if (!(o->set & PP_OPT_BIT(PP_OPT_CLIENTS)))
		return 0;
	if (o->host) {
		pp_err_set(
			err,
			"--clients is a server option: a client serves no one (drop --clients %" PRIu32
			" on the client of host '%s', or the host to be the server)",
			o->clients, o->host);
		return EINVAL;
	}
	return opt_check_one_of(
		o, PP_OPT_PERSISTENT, PP_OPT_CLIENTS,
		"--persistent serves clients until stopped, --clients N of them, then ends",
		err);
}

/* rdma-core's rules between its letters (rc_pingpong.c, main()). */
static int opt_check_letters(const struct pp_opts *o, struct pp_err *err)
{
	if (o->odp && o->dm) {
		pp_err_set(
			err,
			"-j/--dm and %s: device memory cannot be on demand (drop one of the two)",
			o->iodp ? "-O/--iodp" : "-o/--odp");
		return EINVAL;
	}
	if (o->cc_unprotected && (o->odp || o->dm)) {
		pp_err_set(
			err,
			"-U/--allow-cc-unprotected and %s: unprotected memory cannot be %s (drop one of the two)",
			o->dm ? "-j/--dm" : "-o/--odp",
			o->dm ? "device memory" : "on demand");
		return EINVAL;
	}
	if (o->prefetch && !o->odp) {
		pp_err_set(
			err,
			"-P/--prefetch needs -o/--odp or -O/--iodp: only an On-Demand-Paging MR is prefetched");
		return EINVAL;
	}
	return 0;
}

static int opt_check_cross(const struct pp_opts *o, struct pp_err *err)
{
	char label[32], why[256];
	size_t i;
	int ret;

	if (opt_check_letters(o, err))
		return EINVAL;

	if (opt_check_one_of(o, PP_OPT_ITERS, PP_OPT_DURATION,
			     "-D runs for a time, -n a number of exchanges",
			     err))
		return EINVAL;
	for (i = 0; i < sizeof(rc_only) / sizeof(rc_only[0]); i++)
		if (opt_check_one_of(
			    o, PP_OPT_UC, rc_only[i],
			    "UC sends are never acknowledged: there is no ACK timeout or retry to set",
			    err))
			return EINVAL;
	for (i = 0;
	     o->rdma_core && i < sizeof(not_stock) / sizeof(not_stock[0]);
	     i++) {
		if (!(o->set & PP_OPT_BIT(not_stock[i])))
			continue;
		pp_err_set(
			err,
			"%s is not available with --rdma-core: the stock tools cannot agree on it (drop one of the two)",
			opt_label(opt_def_of(not_stock[i]), label,
				  sizeof(label)));
		return EINVAL;
	}
	if (pp_transport_op_check(pp_transport_of(o->transport), o->op,
				  o->sweep && !(o->set &
						PP_OPT_BIT(PP_OPT_SIZE)) ?
					  PP_SWEEP_TOP :
					  o->size,
				  o->sweep, why, sizeof(why))) {
		pp_err_set(err, "%s", why);
		return EINVAL;
	}
	if (o->use_event && pp_op_polls_memory(o->op)) {
		pp_err_set(
			err,
			"--op %s with -e/--events: the peer's write completes nothing on this side, so there is no event to sleep on (use --op write-imm, or drop -e)",
			pp_op_name(o->op));
		return EINVAL;
	}
	if (opt_check_probe(o, err))
		return EINVAL;
	if (opt_check_clients(o, err))
		return EINVAL;
	if ((o->set & PP_OPT_BIT(PP_OPT_PKEY)) && !pp_pkey_valid(o->pkey)) {
		pp_err_set(
			err,
			"--pkey %s: partition 0 is not a partition (give a P_Key such as 0xffff or 0x8001; ibv_devinfo -v lists a port's P_Keys)",
			pp_pkey_text(o->pkey));
		return EINVAL;
	}
	if (opt_check_one_of(
		    o, PP_OPT_PKEY, PP_OPT_PKEY_INDEX,
		    "--pkey-index names the P_Key by its place in this port's table",
		    err))
		return EINVAL;
	ret = opt_check_mesh(o, err);
	if (ret)
		return ret;
	if ((o->set & PP_OPT_BIT(PP_OPT_MAX_RTT)) && !o->host && !o->mesh) {
		pp_err_set(
			err,
			"--max-rtt is a client option: only the client measures the round trips (give it to the client)");
		return EINVAL;
	}
	if (o->tool == PP_TOOL_SRQ && o->rx_depth < o->num_qps) {
		pp_err_set(err,
			   "-r/--rx-depth %" PRIu32
			   " is smaller than -q/--num-qp %" PRIu32
			   ": each QP needs a receive; raise -r or lower -q",
			   o->rx_depth, o->num_qps);
		return EINVAL;
	}
	return 0;
}

int pp_opts_parse(struct pp_opts *o, int argc, char **argv, struct pp_err *err)
{
	char shorts[2 + 2 * OPT_TABLE_LEN];
	struct option longs[OPT_TABLE_LEN + 1];
	int c, ret;

	opt_build(o->tool, shorts, longs);
	optind = 0; /* glibc: a full reset, so we can parse again */
	opterr = 0; /* our messages, into @err */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		const struct opt_def *d;

		if (c == '?' || c == ':') {
			opt_bad(o, argv, c == ':', err);
			return EINVAL;
		}
		d = opt_by_val(c, o->tool);
		if (!d) {
			pp_err_set(err, "unknown option (see --help)");
			return EINVAL;
		}
		ret = opt_apply(o, d, optarg, err);
		if (ret)
			return ret;
		if (o->help || d->id == PP_OPT_VERSION)
			return 0;
	}

	if (argc - optind > 1) {
		pp_err_set(
			err,
			"too many arguments: '%s' after host '%s' (give at most one host)",
			argv[optind + 1], argv[optind]);
		return EINVAL;
	}
	if (argc - optind == 1) {
		if (!*argv[optind]) {
			pp_err_set(
				err,
				"invalid host '': expected a host name or address");
			return EINVAL;
		}
		o->host = argv[optind];
	}
	/* an atomic is one 8-byte word: its size without -s */
	if (pp_op_atomic(o->op) && !(o->set & PP_OPT_BIT(PP_OPT_SIZE)))
		o->size = PP_OP_ATOMIC_SIZE;
	return opt_check_cross(o, err);
}

/* Write @text from column @col, wrapping at USAGE_MAX_COLS to @indent. */
static void usage_wrap(FILE *f, const char *text, int col, int indent)
{
	while (*text) {
		size_t word = strcspn(text, " ");

		if (col > indent && col + 1 + (int)word > USAGE_MAX_COLS) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)word, text);
		col += (int)word;
		text += word;
		text += strspn(text, " ");
	}
	fputc('\n', f);
}

/*
 * The help text of @d with the default of @dflt, malloc'ed whole (no fixed
 * buffer cuts a long text): one table, two outputs.  NULL when out of memory.
 */
static char *opt_help_text(const struct pp_opts *dflt, const struct opt_def *d)
{
	char num[32] = "";
	const char *pre = "", *val = "", *post = "";
	uint64_t v;
	char *text;
	int n;

	if (d->kind == OPT_WORD && opt_value(dflt, d->id, &v)) {
		pre = " (default ";
		val = pp_op_name(v);
		post = ")";
	} else if (opt_value(dflt, d->id, &v)) {
		snprintf(num, sizeof(num), "%" PRIu64, v);
		pre = " (default ";
		val = num;
		post = ")";
	} else if (d->unset) {
		pre = " (default: ";
		val = d->unset;
		post = ")";
	}
	n = snprintf(NULL, 0, "%s%s%s%s", d->help, pre, val, post);
	if (n < 0)
		return NULL;
	text = malloc((size_t)n + 1);
	if (text)
		snprintf(text, (size_t)n + 1, "%s%s%s%s", d->help, pre, val,
			 post);
	return text;
}

void pp_opts_usage(FILE *f, enum pp_tool tool, const char *prog)
{
	struct pp_opts dflt;
	char left[64];
	int help_col = USAGE_HELP_COL;
	size_t i;
	int n;

	pp_opts_init(&dflt, tool, prog);
	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];

		n = snprintf(left, sizeof(left), "  -x, --%s%s%s", d->name,
			     d->arg ? "=" : "", d->arg ? d->arg : "");
		if (opt_accepted(d, tool) && n + 2 > help_col)
			help_col = n + 2;
	}

	fprintf(f,
		"Usage:\n"
		"  %s [options]            start a server and wait for a client\n"
		"  %s [options] <host>     connect to the server at <host>\n"
		"\n"
		"Options:\n",
		prog, prog);
	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];
		char *text;

		if (!opt_accepted(d, tool))
			continue;
		if (d->letter)
			n = snprintf(left, sizeof(left), "  -%c, ", d->letter);
		else
			n = snprintf(left, sizeof(left), "      ");
		n += snprintf(left + n, sizeof(left) - (size_t)n, "--%s%s%s",
			      d->name, d->arg ? "=" : "", d->arg ? d->arg : "");

		text = opt_help_text(&dflt, d);
		fprintf(f, "%-*s", help_col, left);
		usage_wrap(f, text ? text : d->help, help_col, help_col);
		free(text);
	}
}

void pp_opts_write_man(FILE *f, enum pp_tool tool)
{
	struct pp_opts dflt;
	size_t i;

	pp_opts_init(&dflt, tool, pp_tool_name(tool));
	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];
		char *text;

		if (!opt_accepted(d, tool))
			continue;
		if (d->letter)
			fprintf(f, "**-%c**, ", d->letter);
		fprintf(f, "**\\-\\-%s**", d->name);
		if (d->arg)
			fprintf(f, "=*%s*", d->arg);
		text = opt_help_text(&dflt, d);
		fprintf(f, "\n:   %s\n\n", text ? text : d->help);
		free(text);
	}
}

size_t pp_opts_list(enum pp_tool tool, struct pp_opt_info *out)
{
	size_t i, n = 0;

	for (i = 0; i < OPT_TABLE_LEN; i++) {
		const struct opt_def *d = &opt_table[i];

		if (!opt_accepted(d, tool))
			continue;
		out[n++] = (struct pp_opt_info){
			.id = d->id,
			.letter = d->letter,
			.name = d->name,
			.arg = d->arg,
			.help = d->help,
			.unset = d->unset,
		};
	}
	return n;
}

static int digit_value(char ch, unsigned int base)
{
	int v;

	if (ch >= '0' && ch <= '9')
		v = ch - '0';
	else if (ch >= 'a' && ch <= 'f')
		v = ch - 'a' + 10;
	else if (ch >= 'A' && ch <= 'F')
		v = ch - 'A' + 10;
	else
		return -1;
	return v < (int)base ? v : -1;
}

int pp_parse_u64(const char *s, bool suffixes, uint64_t min, uint64_t max,
		 uint64_t *out)
{
	unsigned int base = 10;
	bool overflow = false;
	uint64_t v = 0, mult = 1;
	const char *p = s;
	int dv;

	if (!s)
		return EINVAL;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
		base = 16;
		p += 2;
	}
	if (digit_value(*p, base) < 0)
		return EINVAL; /* empty, space, sign, or a bare "0x" */
	for (; (dv = digit_value(*p, base)) >= 0; p++) {
		if (v > (UINT64_MAX - (uint64_t)dv) / base)
			overflow = true;
		else
			v = v * base + (uint64_t)dv;
	}
	if (*p && suffixes) {
		switch (*p) {
		case 'K':
		case 'k':
			mult = 1ULL << 10;
			break;
		case 'M':
		case 'm':
			mult = 1ULL << 20;
			break;
		case 'G':
		case 'g':
			mult = 1ULL << 30;
			break;
		default:
			return EINVAL;
		}
		p++;
	}
	if (*p)
		return EINVAL;
	if (overflow || v > UINT64_MAX / mult)
		return ERANGE;
	v *= mult;
	if (v < min || v > max)
		return ERANGE;
	*out = v;
	return 0;
}

int pp_parse_usec(const char *s, double *out)
{
	const char *p = s;
	double v = 0.0, scale = 1.0;
	bool digits = false;

	if (!s)
		return EINVAL;
	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		v = v * 10.0 + (*p - '0');
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			scale /= 10.0;
			v += (*p - '0') * scale;
		}
	}
	if (!digits || *p)
		return EINVAL; /* empty, ".", a sign, an exponent, garbage */
	if (!(v > 0.0) || v > PP_MAX_RTT_US_MAX)
		return ERANGE;
	*out = v;
	return 0;
}
