// SPDX-License-Identifier: MIT
/*
 * pp_mesh_standin.c - many ranks of a mesh in one process, speaking the
 * mesh records (common/base/pp_mesh_wire.h, linked, not copied) to a real
 * rank 0 (rc_pingpong --mesh) over TCP, with no RDMA device: the tests and
 * the benchmark of rank 0 at scale (docs/dev/testing.md, "The mesh at scale").
 *
 * One process, one poll loop, one TCP connection per rank it plays, so a
 * mesh of 4,096 fits on one machine.  No pair runs: each RUN is answered
 * with a RESULT made from the model below.
 *
 * The model, given on the command line:
 *   --ranks LIST     the ranks it plays (default 1..size-1); the others are
 *                    played by someone else (rank 0's own worker) or absent
 *   --any            ask for no rank (PP_MESH_RANK_ANY: rank 0 gives them
 *                    by arrival); without it, each JOIN asks for its rank
 *                    (a launcher).  With --any, the numbers of LIST only
 *                    name this process's slots: the options below that act
 *                    before WELCOME (--facts) take slots, those that act
 *                    after it (--add, --fail, --die, --silent) the rank
 *                    WELCOME gave
 *   --base-us US     a pair's median round trip with nothing added (20)
 *   --add R:US       rank R adds US to each of its pairs: the median of a
 *                    pair {a, b} is base + added(a) + added(b)
 *   --add-pair A-B:US    the pair {A, B} alone takes US more (a slow link)
 *   --per-host K     K ranks a host: rank (or slot) i is on host
 *                    "sim<i / K>" with device "sim<i % K>" (default 1)
 *   --fail R:STEP[:TEXT]   every pair of rank R fails at STEP (a code name
 *                    of the matrix: CONN, RTR, RTS, 1ST, RUN, DATA, TIME,
 *                    DEV); R's side reports STEP with TEXT as its own
 *                    error, its peer's side the same step heard from the
 *                    peer; "all" for R: every pair fails
 *   --fail-pair A-B:STEP[:TEXT]   the pair {A, B} alone fails so
 *   --mtu R|all:ACTIVE:NETDEV   rank R's port: its active MTU and its
 *                    netdev's MTU, as its JOIN says (default 1024 and
 *                    1500); a passing pair's path MTU is the lower of its
 *                    two ranks' active MTUs (by rank: give it without
 *                    --any)
 *   --answer-ms MS   each RESULT goes out MS after its RUN (0: at once)
 *   --facts MS | MIN-MAX | R:MS   the delay between a rank's connect and
 *                    its JOIN (the real worker reads its device facts
 *                    there); MIN-MAX: uniform per rank (--seed)
 *   --die R:K        rank R closes its connection when round K's record
 *                    comes (rounds count from 1, as rank 0 prints them)
 *   --silent R       rank R joins, then never answers
 *   --stray MS       a connection that sends nothing, every MS, held open
 *   --garbage MS     a connection that sends bytes that are not a record,
 *                    every MS, held open
 *   --stray-for S    strays and garbage only in the first S seconds
 *   --place ID:HOST:DEV:LOCAL   the rank of slot ID claims host HOST,
 *                    device DEV and local index LOCAL in its JOIN (default
 *                    host "simID", device "sim0", local index 0), as a
 *                    rank of a host with several NICs would (--mesh-pairs)
 *   --mesh-id ID     the mesh id its JOINs carry (default: PP_MESH_ID, else
 *                    the id rank 0 makes with no launcher from --root,
 *                    --port and --size; under a launcher give it)
 * A pair with rank 0 (rank 0's own worker, which has no device here and
 * reports DEV) gets a CONN heard from the peer on the stand-in's side, so
 * its cell is DEV; unless the stand-in plays rank 0 itself (--ranks with
 * 0, without --any: rank 0's own worker then never joins, see
 * pp_sim_nodev.c), when rank 0's pairs are modeled like the others.  A passing pair's client side carries the median, its
 * server side none, as the real ranks do; a RUN asking for the document
 * gets a small JSON object of about --doc-bytes.
 *
 * Like the real worker, a rank retries a refused connect every 100 ms,
 * gives up connecting and waiting for WELCOME after --join-s (+5 s for the
 * WELCOME), and after WELCOME takes rank 0 as gone when no record comes
 * within the round's bound (+5 s).  END ends the rank with its status.
 *
 * At the end (every rank ended or gave up; strays are closed then) it
 * prints a summary on stdout, "standin: " lines:
 *   standin: ranks P (explicit|any), welcomed W, refused F, not taken in G,
 *            ended E, gone X, died D, silent S
 *   standin: end status S: K ranks                   (one line per status)
 *   standin: refused K: TEXT (ranks ...)             (one line per text)
 *   standin: not taken in K: TEXT (ranks ...)
 *   standin: gone K: TEXT (ranks ...)
 *   standin: join: last WELCOME at T s
 *   standin: rounds R: per round median M ms, mean A ms, max X ms
 *   standin: cpu U s user, S s system              (the stand-in's own)
 *   standin: strays K (silent S, garbage G)
 * and exits 0 (2: a usage error, 1: it could not run).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "pp_mesh_env.h"
#include "pp_mesh_sched.h"
#include "pp_mesh_wire.h"
#include "pp_time.h"
#include "pp_transport.h"
#include "pp_version.h"
#include "pp_wire.h"

#define RETRY_NS 100000000LL  /* a refused connect, again after 100 ms */
#define SLACK_NS 5000000000LL /* rank 0's SLACK_MS */
#define IN_MAX 2048	      /* the longest record rank 0 sends us */
#define MAX_GROUPS 16	      /* distinct texts in the summary */
#define MS_NS 1000000LL

enum state {
	S_WAIT,	      /* not yet connecting: --ranks says later, or never */
	S_CONNECTING, /* connect() in progress or to be retried */
	S_FACTS,      /* connected; JOIN after the facts delay */
	S_JOINED,     /* JOIN sent: waiting for WELCOME or REFUSE */
	S_RUNNING,    /* welcomed: RUN / IDLE until END */
	S_DONE,	      /* ended one way or another (outcome) */
};

enum outcome {
	O_NONE,
	O_REFUSED, /* REFUSE */
	O_NOT_IN,  /* no connection or no WELCOME in time */
	O_ENDED,   /* END */
	O_GONE,	   /* rank 0 closed, sent garbage or went silent */
	O_DIED,	   /* --die */
};

struct rank {
	uint32_t id;   /* the rank asked for, or the slot (--any) */
	uint32_t rank; /* from WELCOME; UINT32_MAX before */
	enum state state;
	enum outcome outcome;
	bool welcomed, silent;
	int fd;
	int64_t t_due;	   /* S_CONNECTING: retry; S_FACTS: JOIN; answer */
	int64_t deadline;  /* connect + WELCOME, or the next record */
	uint32_t round_ms; /* from WELCOME */
	uint8_t in[IN_MAX];
	size_t in_len;
	uint8_t *out;
	size_t out_len, out_off;
	bool answer_due; /* a RESULT waits for t_due */
	uint32_t events; /* what epoll watches on fd */
	struct pp_mesh_run run;
	uint32_t end_status;
	char why[PP_MESH_TEXT_MAX];
};

struct pair_fail {
	uint32_t a, b;
	uint8_t step;
	const char *text;
};

struct pair_add {
	uint32_t a, b;
	double us;
};

struct model {
	const char *root;
	uint32_t port, size;
	bool any;
	char mesh_id[PP_MESH_ID_MAX];
	const char *opt_id; /* --mesh-id */
	uint8_t tool, transport;
	double base_us;
	double *added_us;		   /* per rank */
	uint32_t *active_mtu, *netdev_mtu; /* per rank */
	int16_t *fail_step;		   /* per rank, -1: none */
	const char **fail_text;
	int fail_all; /* -1: none, else the step */
	const char *fail_all_text;
	struct pair_fail *pfail;
	size_t npfail;
	struct pair_add *padd; /* --add-pair */
	size_t npadd;
	uint32_t per_host; /* --per-host */
	uint32_t answer_ms;
	uint32_t facts_min, facts_max;
	int32_t *facts_ms;   /* per id, -1: the range */
	uint32_t *die_round; /* per rank, 0: never */
	bool *silent;	     /* per rank */
	bool *plays;	     /* per id */
	const char **place;  /* per id: "HOST:DEV:LOCAL" (--place); NULL */
	uint32_t stray_ms, garbage_ms, stray_for_s;
	uint32_t join_s;
	uint32_t doc_bytes;
	uint64_t iters;
	uint64_t seed;
};

struct group {
	char text[PP_MESH_TEXT_MAX];
	uint32_t count;
	char ranks[96];
};

/* What a garbage stray sends: not a mesh record. */
static const char garbage[] = "GET / HTTP/1.0\r\n\r\nnot a mesh record";

static volatile sig_atomic_t stop;

/* The loop's state: the epoll set, and when the timers are next due. */
static int epfd = -1;
static int64_t next_scan; /* the earliest timer or deadline, at most */

static void due_at(int64_t t)
{
	if (t < next_scan)
		next_scan = t;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s --port P --size N [--root HOST] [--ranks LIST] [--any]\n"
		"  [--mesh-id ID] [--tool NAME] [--transport NAME] [--base-us US]\n"
		"  [--add R:US]... [--add-pair A-B:US]... [--per-host K]\n"
		"  [--mtu R|all:ACTIVE:NETDEV]...\n"
		"  [--fail R|all:STEP[:TEXT]]... [--fail-pair A-B:STEP[:TEXT]]...\n"
		"  [--answer-ms MS] [--facts MS|MIN-MAX|R:MS]... [--die R:K]... [--silent R]...\n"
		"  [--stray MS] [--garbage MS] [--stray-for S] [--join-s S] [--doc-bytes N]\n"
		"  [--iters N] [--seed N] [--place ID:HOST:DEV:LOCAL]...\n"
		"The model is described at the top of tests/mesh_sim/pp_mesh_standin.c.\n",
		prog);
}

static int fail_usage(const char *prog, const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s '%s' (see --help)\n", prog, what, arg);
	return 2;
}

/* A number from @s up to @end (NULL: its end) within @max. */
static bool num(const char *s, const char **end, uint64_t max, uint64_t *out)
{
	char *e;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || v > max || (!end && *e))
		return false;
	if (end)
		*end = e;
	*out = v;
	return true;
}

static int step_of(const char *name)
{
	unsigned int c;

	for (c = 0; c < PP_MESH_CODE_COUNT; c++)
		if (!strcasecmp(name, pp_mesh_code_name(c)))
			return c == PP_MESH_OK || c == PP_MESH_GONE ||
					       c == PP_MESH_ABSENT ?
				       -1 :
				       (int)c;
	return -1;
}

/* "1-5,7,9-10" into @set (size @n). */
static bool parse_list(const char *s, bool *set, uint32_t n)
{
	uint64_t a, b;

	for (;;) {
		if (!num(s, &s, n - 1, &a))
			return false;
		b = a;
		if (*s == '-' && !num(s + 1, &s, n - 1, &b))
			return false;
		if (b < a)
			return false;
		for (; a <= b; a++)
			set[a] = true;
		if (!*s)
			return true;
		if (*s++ != ',')
			return false;
	}
}

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64* */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl >= 0)
		fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

/* A non-blocking connect to rank 0 started: 0, or an errno. */
static int start_connect(const struct sockaddr_storage *ss, socklen_t sl,
			 int *fd)
{
	int s = socket(ss->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;

	if (s < 0)
		return errno;
	set_nonblock(s);
	setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (connect(s, (const struct sockaddr *)ss, sl) &&
	    errno != EINPROGRESS) {
		int e = errno;

		close(s);
		return e;
	}
	*fd = s;
	return 0;
}

static void close_rank(struct rank *r)
{
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
	free(r->out);
	r->out = NULL;
	r->out_len = r->out_off = 0;
	r->answer_due = false;
}

__attribute__((format(printf, 3, 4))) static void
finish(struct rank *r, enum outcome o, const char *fmt, ...)
{
	va_list ap;

	if (r->state == S_DONE)
		return;
	r->state = S_DONE;
	r->outcome = o;
	if (fmt) {
		va_start(ap, fmt);
		vsnprintf(r->why, sizeof(r->why), fmt, ap);
		va_end(ap);
	}
	close_rank(r);
}

/* Queue @m on @r's connection. */
static int queue(struct rank *r, const struct pp_mesh_msg *m)
{
	size_t room = PP_MESH_WIRE_HDR + 8192, len;
	uint8_t *buf;
	int ret;

	if (m->type == PP_MESH_RESULT)
		room += m->u.result.doc_len;
	if (r->out_len - r->out_off + room > (size_t)64 << 20)
		return ENOBUFS;
	buf = realloc(r->out, r->out_len + room);
	if (!buf)
		return ENOMEM;
	r->out = buf;
	ret = pp_mesh_wire_encode(m, r->out + r->out_len, room, &len);
	if (ret)
		return ret;
	r->out_len += len;
	return 0;
}

/* Write what is queued; 0, or an errno (the connection is lost). */
static int flush_out(struct rank *r)
{
	while (r->out_off < r->out_len) {
		ssize_t n = send(r->fd, r->out + r->out_off,
				 r->out_len - r->out_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n < 0)
			return errno;
		r->out_off += (size_t)n;
	}
	r->out_off = r->out_len = 0;
	return 0;
}

/* Rank @id's delay between connect and JOIN (--facts). */
static int64_t facts_ns(struct model *md, uint32_t id)
{
	uint32_t ms = md->facts_min;

	if (md->facts_ms[id] >= 0)
		ms = (uint32_t)md->facts_ms[id];
	else if (md->facts_max > md->facts_min)
		ms += (uint32_t)(rng_next(&md->seed) %
				 (md->facts_max - md->facts_min + 1));
	return (int64_t)ms * MS_NS;
}

static void send_join(const struct model *md, struct rank *r)
{
	struct pp_mesh_msg m = { .type = PP_MESH_JOIN };
	struct pp_mesh_join *j = &m.u.join;
	struct pp_version v;

	j->want_rank = md->any ? PP_MESH_RANK_ANY : r->id;
	j->size = md->size;
	j->tool = md->tool;
	j->transport = md->transport;
	j->ib_port = 1;
	j->link_layer = IBV_LINK_LAYER_ETHERNET;
	j->gid_index = 1;
	j->gid_type = PP_GID_TYPE_ROCE_V2;
	j->gid_family = 1; /* IPv4-mapped (pp_gid.h) */
	j->active_mtu = md->active_mtu[r->id];
	j->netdev_mtu = md->netdev_mtu[r->id];
	snprintf(j->host, sizeof(j->host), "sim%u", r->id / md->per_host);
	snprintf(j->dev, sizeof(j->dev), "sim%u", r->id % md->per_host);
	j->local = r->id % md->per_host;
	if (md->place[r->id]) {
		/* HOST:DEV:LOCAL, checked by apply() */
		const char *p = md->place[r->id], *d = strchr(p, ':');
		const char *l = strchr(d + 1, ':');

		snprintf(j->host, sizeof(j->host), "%.*s", (int)(d - p), p);
		snprintf(j->dev, sizeof(j->dev), "%.*s", (int)(l - d - 1),
			 d + 1);
		j->local = (uint32_t)strtoul(l + 1, NULL, 10);
	}
	snprintf(j->gid, sizeof(j->gid), "::ffff:127.0.0.1");
	snprintf(j->gid_reason, sizeof(j->gid_reason),
		 "a stand-in rank (tests/mesh_sim)");
	pp_version_get(&v);
	snprintf(j->version, sizeof(j->version), "%s (%s)", v.project, v.git);
	snprintf(j->mesh_id, sizeof(j->mesh_id), "%s", md->mesh_id);
	if (queue(r, &m)) {
		finish(r, O_NOT_IN, "could not encode its JOIN");
		return;
	}
	r->state = S_JOINED;
	/* WELCOME comes when the join is over: as the real worker waits */
	r->deadline =
		pp_now_ns() + (int64_t)md->join_s * 1000 * MS_NS + SLACK_NS;
}

/* The step pair {@a, @b} fails at, or -1; its text; whose failure. */
static int pair_fails(const struct model *md, uint32_t a, uint32_t b,
		      const char **text, uint32_t *who)
{
	size_t i;

	for (i = 0; i < md->npfail; i++)
		if ((md->pfail[i].a == a && md->pfail[i].b == b) ||
		    (md->pfail[i].a == b && md->pfail[i].b == a)) {
			*text = md->pfail[i].text;
			*who = a < b ? a : b;
			return md->pfail[i].step;
		}
	if (md->fail_step[a] >= 0) {
		*text = md->fail_text[a];
		*who = a;
		return md->fail_step[a];
	}
	if (md->fail_step[b] >= 0) {
		*text = md->fail_text[b];
		*who = b;
		return md->fail_step[b];
	}
	if (md->fail_all >= 0) {
		*text = md->fail_all_text;
		*who = a < b ? a : b;
		return md->fail_all;
	}
	return -1;
}

/* A small JSON document of about @bytes for a RUN that asks for one. */
static char *make_doc(const struct model *md, const struct rank *r,
		      const struct pp_mesh_result *res, uint32_t *len)
{
	size_t room = md->doc_bytes + 256;
	char *d = malloc(room);
	int n;

	if (!d)
		return NULL;
	n = snprintf(
		d, room,
		"{\"standin\":{\"rank\":%u,\"peer\":%u,\"round\":%u,\"step\":\"%s\"},\"pad\":\"",
		r->rank, res->peer, res->round, pp_mesh_code_name(res->step));
	while ((size_t)n + 3 < md->doc_bytes && (size_t)n + 3 < room)
		d[n++] = 'x';
	memcpy(d + n, "\"}\n", 3);
	*len = (uint32_t)n + 3;
	return d;
}

static void answer(const struct model *md, struct rank *r)
{
	struct pp_mesh_msg m = { .type = PP_MESH_RESULT };
	struct pp_mesh_result *res = &m.u.result;
	const struct pp_mesh_run *run = &r->run;
	uint32_t who = 0;
	const char *text = NULL;
	int step;
	char *doc = NULL;

	r->answer_due = false;
	res->round = run->round;
	res->peer = run->peer;
	res->median_ns = UINT64_MAX;
	res->gid_index = -1;
	if (run->peer == 0 && (md->any || !md->plays[0])) {
		step = PP_MESH_CONNECT;
		who = 0;
		text = "rank 0's own worker has no RDMA device here";
	} else {
		step = pair_fails(md, r->rank, run->peer, &text, &who);
	}
	if (step >= 0) {
		res->step = (uint8_t)step;
		res->remote = who != r->rank;
		res->ret = EIO;
		snprintf(res->reason, sizeof(res->reason), "%s%s%s",
			 res->remote ? "peer: " : "",
			 text ? text : "a modeled failure",
			 res->remote ? "" : " (stand-in)");
	} else {
		double us = md->base_us + md->added_us[r->rank] +
			    md->added_us[run->peer];
		size_t i;

		for (i = 0; i < md->npadd; i++)
			if ((md->padd[i].a == r->rank &&
			     md->padd[i].b == run->peer) ||
			    (md->padd[i].b == r->rank &&
			     md->padd[i].a == run->peer))
				us += md->padd[i].us;

		res->step = PP_MESH_OK;
		res->completed = md->iters;
		res->path_mtu = md->active_mtu[r->rank] <
						md->active_mtu[run->peer] ?
					md->active_mtu[r->rank] :
					md->active_mtu[run->peer];
		if (run->role & PP_MESH_ROLE_CONNECT)
			res->median_ns = (uint64_t)(us * 1000 + 0.5);
	}
	if (run->role & PP_MESH_ROLE_DOC) {
		doc = make_doc(md, r, res, &res->doc_len);
		res->doc = doc;
		if (!doc)
			res->doc_len = 0;
	}
	if (queue(r, &m))
		finish(r, O_GONE, "could not encode its RESULT");
	free(doc);
}

struct stats {
	int64_t t0, last_welcome;
	int64_t *round_t; /* first record of each round */
	uint32_t nround_t;
	uint32_t strays, garbage;
};

/* One record from rank 0 for @r. */
static void take(const struct model *md, struct rank *r, struct stats *st,
		 uint16_t type, const uint8_t *body, uint32_t len)
{
	struct pp_mesh_msg m;
	uint32_t round;

	if (pp_mesh_wire_decode(type, body, len, &m)) {
		finish(r, O_GONE, "rank 0 sent a record that is not ours");
		return;
	}
	if (r->state == S_JOINED) {
		if (m.type == PP_MESH_REFUSE) {
			finish(r, O_REFUSED, "%s", m.u.text);
		} else if (m.type == PP_MESH_WELCOME) {
			r->welcomed = true;
			r->rank = m.u.welcome.rank;
			r->round_ms = m.u.welcome.round_ms;
			r->state = S_RUNNING;
			r->deadline = pp_now_ns() +
				      (int64_t)r->round_ms * MS_NS + SLACK_NS;
			r->silent = md->silent[r->rank];
			st->last_welcome = pp_now_ns();
		} else {
			finish(r, O_GONE, "rank 0 sent %u before WELCOME",
			       m.type);
		}
		return;
	}
	r->deadline = pp_now_ns() + (int64_t)r->round_ms * MS_NS + SLACK_NS;
	switch (m.type) {
	case PP_MESH_END:
		r->end_status = m.u.end.status;
		finish(r, O_ENDED, "%s", m.u.end.text);
		return;
	case PP_MESH_RUN:
	case PP_MESH_IDLE:
		round = m.type == PP_MESH_RUN ? m.u.run.round : m.u.round;
		if (round < st->nround_t && !st->round_t[round])
			st->round_t[round] = pp_now_ns();
		if (md->die_round[r->rank] &&
		    round + 1 >= md->die_round[r->rank]) {
			finish(r, O_DIED, "died at round %u", round + 1);
			return;
		}
		if (m.type == PP_MESH_IDLE || r->silent)
			return;
		if (r->answer_due) /* a RUN before the last one's answer */
			answer(md, r);
		r->run = m.u.run;
		r->answer_due = true;
		r->t_due = pp_now_ns() + (int64_t)md->answer_ms * MS_NS;
		if (!md->answer_ms)
			answer(md, r);
		else
			due_at(r->t_due);
		return;
	default:
		finish(r, O_GONE, "rank 0 sent %u while running", m.type);
	}
}

/* Read what @r's connection has and take every whole record. */
static void on_readable(const struct model *md, struct rank *r,
			struct stats *st)
{
	for (;;) {
		ssize_t n = recv(r->fd, r->in + r->in_len,
				 sizeof(r->in) - r->in_len, 0);
		size_t off = 0;

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0) {
			if (r->state == S_JOINED || r->state == S_FACTS)
				finish(r, O_NOT_IN,
				       "rank 0 closed the connection before WELCOME (%s)",
				       n ? strerror(errno) : "EOF");
			else
				finish(r, O_GONE, "rank 0 closed (%s)",
				       n ? strerror(errno) : "EOF");
			return;
		}
		r->in_len += (size_t)n;
		while (r->state != S_DONE &&
		       r->in_len - off >= PP_MESH_WIRE_HDR) {
			uint16_t type;
			uint32_t len;

			if (pp_mesh_wire_header(r->in + off, &type, &len) ||
			    len > IN_MAX - PP_MESH_WIRE_HDR) {
				finish(r, O_GONE,
				       "rank 0 sent a header that is not ours");
				return;
			}
			if (r->in_len - off < PP_MESH_WIRE_HDR + len)
				break;
			take(md, r, st, type, r->in + off + PP_MESH_WIRE_HDR,
			     len);
			off += PP_MESH_WIRE_HDR + len;
		}
		if (r->state == S_DONE)
			return;
		memmove(r->in, r->in + off, r->in_len - off);
		r->in_len -= off;
	}
}

static void add_group(struct group *g, size_t *ng, const char *text,
		      uint32_t id)
{
	size_t i, l;

	for (i = 0; i < *ng; i++)
		if (!strcmp(g[i].text, text))
			break;
	if (i == *ng) {
		if (*ng == MAX_GROUPS)
			i = MAX_GROUPS - 1; /* the rest into the last */
		else
			snprintf(g[(*ng)++].text, sizeof(g[i].text), "%s",
				 text);
	}
	g[i].count++;
	l = strlen(g[i].ranks);
	if (g[i].count <= 8)
		snprintf(g[i].ranks + l, sizeof(g[i].ranks) - l, "%s%u",
			 l ? ", " : "", id);
	else if (g[i].count == 9)
		snprintf(g[i].ranks + l, sizeof(g[i].ranks) - l, ", ...");
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

static void summary(const struct model *md, struct rank *rk, uint32_t n,
		    struct stats *st)
{
	struct group refused[MAX_GROUPS] = { 0 }, notin[MAX_GROUPS] = { 0 },
		     gone[MAX_GROUPS] = { 0 };
	size_t nref = 0, nnot = 0, ngone = 0, i;
	uint32_t status_count[256] = { 0 };
	uint32_t cnt[O_DIED + 1] = { 0 }, welcomed = 0, silent = 0, k;
	int64_t *d;
	uint32_t nd = 0;
	struct rusage ru;

	for (k = 0; k < n; k++) {
		struct rank *r = &rk[k];
		uint32_t who = r->welcomed ? r->rank : r->id;

		cnt[r->outcome]++;
		welcomed += r->welcomed;
		silent += r->silent;
		if (r->outcome == O_REFUSED)
			add_group(refused, &nref, r->why, who);
		else if (r->outcome == O_NOT_IN)
			add_group(notin, &nnot, r->why, who);
		else if (r->outcome == O_GONE)
			add_group(gone, &ngone, r->why, who);
		else if (r->outcome == O_ENDED)
			status_count[r->end_status & 255]++;
	}
	printf("standin: ranks %u (%s), welcomed %u, refused %u, not taken in %u, ended %u, gone %u, died %u, silent %u\n",
	       n, md->any ? "any" : "explicit", welcomed, cnt[O_REFUSED],
	       cnt[O_NOT_IN], cnt[O_ENDED], cnt[O_GONE], cnt[O_DIED], silent);
	for (k = 0; k < 256; k++)
		if (status_count[k])
			printf("standin: end status %u: %u ranks\n", k,
			       status_count[k]);
	for (i = 0; i < nref; i++)
		printf("standin: refused %u: %s (ranks %s)\n", refused[i].count,
		       refused[i].text, refused[i].ranks);
	for (i = 0; i < nnot; i++)
		printf("standin: not taken in %u: %s (ranks %s)\n",
		       notin[i].count, notin[i].text, notin[i].ranks);
	for (i = 0; i < ngone; i++)
		printf("standin: gone %u: %s (ranks %s)\n", gone[i].count,
		       gone[i].text, gone[i].ranks);
	if (st->last_welcome)
		printf("standin: join: last WELCOME at %.3f s\n",
		       (double)(st->last_welcome - st->t0) / 1e9);
	d = calloc(st->nround_t + 1, sizeof(*d));
	for (k = 0; d && k + 1 < st->nround_t; k++)
		if (st->round_t[k] && st->round_t[k + 1])
			d[nd++] = st->round_t[k + 1] - st->round_t[k];
	if (nd) {
		double sum = 0;

		for (k = 0; k < nd; k++)
			sum += (double)d[k];
		qsort(d, nd, sizeof(*d), cmp_i64);
		printf("standin: rounds %u: per round median %.3f ms, mean %.3f ms, max %.3f ms\n",
		       nd + 1, (double)d[nd / 2] / 1e6, sum / nd / 1e6,
		       (double)d[nd - 1] / 1e6);
	}
	free(d);
	if (!getrusage(RUSAGE_SELF, &ru))
		printf("standin: cpu %.2f s user, %.2f s system\n",
		       (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
	if (md->stray_ms || md->garbage_ms)
		printf("standin: strays %u (silent %u, garbage %u)\n",
		       st->strays + st->garbage, st->strays, st->garbage);
	fflush(stdout);
}

static int resolve(const char *host, uint32_t port, struct sockaddr_storage *ss,
		   socklen_t *sl)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res;
	char p[16];
	int ret;

	snprintf(p, sizeof(p), "%u", port);
	ret = getaddrinfo(host, p, &hints, &res);
	if (ret)
		return ret;
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

/* Room for every connection: raise the soft limit (and the hard, as root). */
static int fd_room(uint32_t need)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return errno;
	if (rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = need;
	if (rl.rlim_max < need)
		rl.rlim_max = need;
	return setrlimit(RLIMIT_NOFILE, &rl) ? errno : 0;
}

/* Watch @fd for @events (token @tok); @add: a new descriptor. */
static int watch(int fd, uint32_t events, uint32_t tok, bool add)
{
	struct epoll_event ev = { .events = events, .data.u32 = tok };

	return epoll_ctl(epfd, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &ev) ?
		       errno :
		       0;
}

/*
 * After anything happened to rank @k: write what is queued, and watch its
 * connection for what it waits for now.
 */
static void settle_rank(struct rank *r, uint32_t k)
{
	uint32_t want;

	if (r->state == S_DONE || r->fd < 0)
		return;
	if (r->out_len && flush_out(r)) {
		finish(r, r->welcomed ? O_GONE : O_NOT_IN,
		       "its connection to rank 0 failed: %s", strerror(errno));
		return;
	}
	want = r->state == S_CONNECTING ? EPOLLOUT :
	       r->out_len		? EPOLLIN | EPOLLOUT :
					  EPOLLIN;
	if (want != r->events && !watch(r->fd, want, k, false))
		r->events = want;
	if (r->state == S_FACTS || r->answer_due)
		due_at(r->t_due);
	due_at(r->deadline);
}

/* Rank @r's timers and deadline, at @now. */
static void on_time(struct model *md, struct rank *r, uint32_t k,
		    const struct sockaddr_storage *ss, socklen_t sl,
		    int64_t now)
{
	int ret;

	if (r->state == S_CONNECTING && r->fd < 0 && now >= r->t_due) {
		ret = start_connect(ss, sl, &r->fd);
		if (ret == EMFILE || ret == ENFILE) {
			finish(r, O_NOT_IN, "socket: %s", strerror(ret));
			return;
		}
		if (ret) {
			r->t_due = now + RETRY_NS;
		} else if ((ret = watch(r->fd, EPOLLOUT, k, true))) {
			finish(r, O_NOT_IN, "epoll: %s", strerror(ret));
			return;
		} else {
			r->events = EPOLLOUT;
		}
	}
	if (r->state == S_FACTS && now >= r->t_due)
		send_join(md, r);
	if (r->state == S_RUNNING && r->answer_due && now >= r->t_due)
		answer(md, r);
	if (r->state != S_DONE && now >= r->deadline) {
		if (r->state == S_RUNNING)
			finish(r, O_GONE,
			       "no word from rank 0 within a round's bound");
		else if (r->state == S_JOINED)
			finish(r, O_NOT_IN,
			       "no WELCOME within --join-s %u s + 5 s",
			       md->join_s);
		else
			finish(r, O_NOT_IN,
			       "no connection to rank 0 within --join-s %u s",
			       md->join_s);
	}
	if (r->state == S_CONNECTING && r->fd < 0)
		due_at(r->t_due);
	settle_rank(r, k);
}

/* Rank @r's connect() ended: on to its fact read, or retry. */
static void on_connected(struct model *md, struct rank *r)
{
	int err = 0;
	socklen_t el = sizeof(err);

	getsockopt(r->fd, SOL_SOCKET, SO_ERROR, &err, &el);
	if (err) {
		close(r->fd); /* leaves the epoll set */
		r->fd = -1;
		r->events = 0;
		r->t_due = pp_now_ns() + RETRY_NS;
		due_at(r->t_due);
		return;
	}
	r->state = S_FACTS;
	r->t_due = pp_now_ns() + facts_ns(md, r->id);
	r->deadline = INT64_MAX; /* JOIN at t_due */
	if (r->t_due <= pp_now_ns())
		send_join(md, r);
}

/*
 * The stand-in's whole run: one epoll loop over every rank and stray.  A
 * wake costs what is ready; the ranks' timers are looked at when the
 * earliest is due (next_scan), and each rank's own are noted as they are
 * set.
 */
static int run(struct model *md, struct rank *rk, uint32_t n)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct epoll_event *evs;
	uint32_t k, nlive;
	uint32_t nstray_room = md->stray_ms || md->garbage_ms ? 1024 : 0;
	int *strays, nstrays = 0, i, ret;
	struct stats st = { 0 };
	int64_t next_stray, next_garbage, stray_end;
	const int max_ev = 256;

	ret = resolve(md->root, md->port, &ss, &sl);
	if (ret) {
		fprintf(stderr, "standin: cannot resolve '%s': %s\n", md->root,
			gai_strerror(ret));
		return 1;
	}
	ret = fd_room(n + nstray_room + 64);
	if (ret) {
		fprintf(stderr,
			"standin: cannot raise the descriptor limit to %u for %u ranks: %s (raise ulimit -n)\n",
			n + nstray_room + 64, n, strerror(ret));
		return 1;
	}
	epfd = epoll_create1(EPOLL_CLOEXEC);
	evs = calloc(max_ev, sizeof(*evs));
	strays = calloc(nstray_room + 1, sizeof(*strays));
	st.nround_t = md->size * 2 + 2;
	st.round_t = calloc(st.nround_t, sizeof(*st.round_t));
	if (epfd < 0 || !evs || !strays || !st.round_t) {
		fprintf(stderr, "standin: epoll or memory: %s\n",
			strerror(errno));
		return 1;
	}
	st.t0 = pp_now_ns();
	next_stray = md->stray_ms ? st.t0 : INT64_MAX;
	next_garbage = md->garbage_ms ? st.t0 : INT64_MAX;
	stray_end = md->stray_for_s ?
			    st.t0 + (int64_t)md->stray_for_s * 1000 * MS_NS :
			    INT64_MAX;
	for (k = 0; k < n; k++) {
		rk[k].state = S_CONNECTING;
		rk[k].t_due = st.t0;
		rk[k].deadline = st.t0 + (int64_t)md->join_s * 1000 * MS_NS;
	}
	next_scan = st.t0;
	while (!stop) {
		int64_t now = pp_now_ns(), wake;
		int tmo, nev;

		if (now >= next_scan) {
			next_scan = INT64_MAX;
			for (k = 0; k < n; k++)
				if (rk[k].state != S_DONE)
					on_time(md, &rk[k], k, &ss, sl, now);
		}
		for (k = 0, nlive = 0; k < n && !nlive; k++)
			nlive += rk[k].state != S_DONE;
		if (!nlive)
			break;
		/* strays: opened on their timers, read and dropped */
		wake = next_scan;
		if (now < stray_end && nstrays < (int)nstray_room) {
			int fd;

			if (now >= next_stray) {
				if (!start_connect(&ss, sl, &fd)) {
					strays[nstrays] = fd;
					watch(fd, EPOLLIN,
					      n + (uint32_t)nstrays, true);
					nstrays++;
					st.strays++;
				}
				next_stray =
					now + (int64_t)md->stray_ms * MS_NS;
			}
			if (now >= next_garbage && nstrays < (int)nstray_room) {
				/* its bytes go out once it is connected */
				if (!start_connect(&ss, sl, &fd)) {
					strays[nstrays] = -fd - 2;
					watch(fd, EPOLLOUT,
					      n + (uint32_t)nstrays, true);
					nstrays++;
					st.garbage++;
				}
				next_garbage =
					now + (int64_t)md->garbage_ms * MS_NS;
			}
			if (next_stray < wake)
				wake = next_stray;
			if (next_garbage < wake)
				wake = next_garbage;
		}
		now = pp_now_ns();
		tmo = wake == INT64_MAX ? 1000 :
		      wake <= now	? 0 :
					  (int)((wake - now) / MS_NS) + 1;
		if (tmo > 1000)
			tmo = 1000;
		nev = epoll_wait(epfd, evs, max_ev, tmo);
		if (nev < 0 && errno != EINTR) {
			fprintf(stderr, "standin: epoll_wait: %s\n",
				strerror(errno));
			return 1;
		}
		for (i = 0; i < nev; i++) {
			uint32_t tok = evs[i].data.u32;
			struct rank *r;

			if (tok >= n) {
				/* a stray: drop what comes; garbage once */
				int *s = &strays[tok - n];
				char junk[512];
				ssize_t got;

				if (*s == -1)
					continue;
				if (*s < -1) {
					*s = -*s - 2;
					(void)!send(*s, garbage,
						    sizeof(garbage) - 1,
						    MSG_NOSIGNAL);
					watch(*s, EPOLLIN, tok, false);
					continue;
				}
				got = recv(*s, junk, sizeof(junk), 0);
				if (got == 0 || (got < 0 && errno != EAGAIN &&
						 errno != EINTR)) {
					close(*s);
					*s = -1;
				}
				continue;
			}
			r = &rk[tok];
			if (r->state == S_DONE || r->fd < 0)
				continue;
			if (r->state == S_CONNECTING)
				on_connected(md, r);
			else if (evs[i].events &
				 (EPOLLIN | EPOLLHUP | EPOLLERR))
				on_readable(md, r, &st);
			settle_rank(r, tok);
		}
	}
	for (i = 0; i < nstrays; i++)
		if (strays[i] != -1)
			close(strays[i] >= 0 ? strays[i] : -strays[i] - 2);
	for (k = 0; k < n; k++)
		if (rk[k].state != S_DONE)
			finish(&rk[k], O_NOT_IN, "the stand-in was stopped");
	summary(md, rk, n, &st);
	close(epfd);
	free(evs);
	free(strays);
	free(st.round_t);
	return 0;
}

enum {
	OPT_PORT = 256,
	OPT_ROOT,
	OPT_SIZE,
	OPT_RANKS,
	OPT_ANY,
	OPT_MESH_ID,
	OPT_TOOL,
	OPT_TRANSPORT,
	OPT_BASE,
	OPT_ADD,
	OPT_ADD_PAIR,
	OPT_PER_HOST,
	OPT_FAIL,
	OPT_FAIL_PAIR,
	OPT_ANSWER,
	OPT_FACTS,
	OPT_DIE,
	OPT_SILENT,
	OPT_STRAY,
	OPT_GARBAGE,
	OPT_STRAY_FOR,
	OPT_JOIN,
	OPT_DOC,
	OPT_ITERS,
	OPT_SEED,
	OPT_PLACE,
	OPT_MTU,
	OPT_HELP,
};

static const struct option longopts[] = {
	{ "port", required_argument, NULL, OPT_PORT },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "ranks", required_argument, NULL, OPT_RANKS },
	{ "any", no_argument, NULL, OPT_ANY },
	{ "mesh-id", required_argument, NULL, OPT_MESH_ID },
	{ "tool", required_argument, NULL, OPT_TOOL },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "base-us", required_argument, NULL, OPT_BASE },
	{ "add", required_argument, NULL, OPT_ADD },
	{ "add-pair", required_argument, NULL, OPT_ADD_PAIR },
	{ "per-host", required_argument, NULL, OPT_PER_HOST },
	{ "fail", required_argument, NULL, OPT_FAIL },
	{ "fail-pair", required_argument, NULL, OPT_FAIL_PAIR },
	{ "answer-ms", required_argument, NULL, OPT_ANSWER },
	{ "facts", required_argument, NULL, OPT_FACTS },
	{ "die", required_argument, NULL, OPT_DIE },
	{ "silent", required_argument, NULL, OPT_SILENT },
	{ "stray", required_argument, NULL, OPT_STRAY },
	{ "garbage", required_argument, NULL, OPT_GARBAGE },
	{ "stray-for", required_argument, NULL, OPT_STRAY_FOR },
	{ "join-s", required_argument, NULL, OPT_JOIN },
	{ "doc-bytes", required_argument, NULL, OPT_DOC },
	{ "iters", required_argument, NULL, OPT_ITERS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "place", required_argument, NULL, OPT_PLACE },
	{ "mtu", required_argument, NULL, OPT_MTU },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* PP_MESH_ID alone of the environment: no launcher for the id. */
static const char *id_env(const char *name, void *arg)
{
	(void)arg;
	return strcmp(name, "PP_MESH_ID") ? NULL : getenv(name);
}

/*
 * The id the JOINs carry: --mesh-id, else PP_MESH_ID, else the one rank 0
 * makes without a launcher from its host, -p and the size (the library's
 * rule, pp_mesh_env_read()).  Under a launcher, give --mesh-id.
 */
static int mesh_id(struct model *md)
{
	struct pp_mesh_env env;
	struct pp_err err = { .msg = "" };

	if (pp_mesh_env_read(id_env, NULL, md->size, md->root, md->opt_id,
			     md->port, &env, &err)) {
		fprintf(stderr, "pp_mesh_standin: %s\n", err.msg);
		return 2;
	}
	snprintf(md->mesh_id, sizeof(md->mesh_id), "%s", env.id);
	return 0;
}

/* The options that need the size are kept and read after it. */
struct later {
	int opt;
	const char *arg;
};

/* "R:REST" or "all:REST": the rank (UINT32_MAX for all) and REST. */
static bool rank_colon(const char *arg, uint32_t n, bool all_ok, uint32_t *r,
		       const char **rest)
{
	uint64_t v;

	if (all_ok && !strncmp(arg, "all:", 4)) {
		*r = UINT32_MAX;
		*rest = arg + 4;
		return true;
	}
	if (!num(arg, rest, n - 1, &v) || **rest != ':')
		return false;
	(*rest)++;
	*r = (uint32_t)v;
	return true;
}

/* "STEP[:TEXT]" */
static bool step_text(const char *s, int *step, const char **text)
{
	char name[16];
	const char *colon = strchr(s, ':');
	size_t l = colon ? (size_t)(colon - s) : strlen(s);

	if (l >= sizeof(name))
		return false;
	memcpy(name, s, l);
	name[l] = '\0';
	*step = step_of(name);
	*text = colon ? colon + 1 : NULL;
	return *step >= 0;
}

static int apply(struct model *md, const struct later *o, const char *prog)
{
	uint32_t n = md->size, r, k;
	const char *rest, *text;
	uint64_t v, w = 0;
	int step;

	switch (o->opt) {
	case OPT_RANKS:
		memset(md->plays, 0, n * sizeof(*md->plays));
		if (!parse_list(o->arg, md->plays, n))
			return fail_usage(
				prog,
				"--ranks: not a list of ranks below --size",
				o->arg);
		return 0;
	case OPT_ADD:
		if (!rank_colon(o->arg, n, false, &r, &rest) ||
		    !num(rest, NULL, 1000000000, &v))
			return fail_usage(prog, "--add: not R:USEC", o->arg);
		md->added_us[r] = (double)v;
		return 0;
	case OPT_MTU:
		if (!rank_colon(o->arg, n, true, &r, &rest) ||
		    !num(rest, &rest, 4096, &v) || *rest != ':' ||
		    !num(rest + 1, NULL, 65535, &w) ||
		    (v != 256 && v != 512 && v != 1024 && v != 2048 &&
		     v != 4096))
			return fail_usage(
				prog,
				"--mtu: not R|all:ACTIVE:NETDEV (ACTIVE: 256 to 4096)",
				o->arg);
		for (k = 0; k < n; k++)
			if (r == UINT32_MAX || k == r) {
				md->active_mtu[k] = (uint32_t)v;
				md->netdev_mtu[k] = (uint32_t)w;
			}
		return 0;
	case OPT_FAIL:
		if (!rank_colon(o->arg, n, true, &r, &rest) ||
		    !step_text(rest, &step, &text))
			return fail_usage(
				prog,
				"--fail: not R:STEP[:TEXT] (STEP: CONN RTR RTS 1ST RUN DATA TIME DEV)",
				o->arg);
		if (r == UINT32_MAX) {
			md->fail_all = step;
			md->fail_all_text = text;
		} else {
			md->fail_step[r] = (int16_t)step;
			md->fail_text[r] = text;
		}
		return 0;
	case OPT_ADD_PAIR: {
		struct pair_add *pa;
		uint64_t us;

		if (!num(o->arg, &rest, n - 1, &v) || *rest != '-' ||
		    !num(rest + 1, &rest, n - 1, &w) || *rest != ':' ||
		    v == w || !num(rest + 1, NULL, 1000000000, &us))
			return fail_usage(prog, "--add-pair: not A-B:USEC",
					  o->arg);
		pa = realloc(md->padd, (md->npadd + 1) * sizeof(*pa));
		if (!pa)
			return 1;
		md->padd = pa;
		pa[md->npadd++] = (struct pair_add){ (uint32_t)v, (uint32_t)w,
						     (double)us };
		return 0;
	}
	case OPT_PER_HOST:
		if (!num(o->arg, NULL, n, &v) || !v)
			return fail_usage(prog,
					  "--per-host: not 1 to --size ranks",
					  o->arg);
		md->per_host = (uint32_t)v;
		return 0;
	case OPT_FAIL_PAIR: {
		struct pair_fail *pf;

		if (!num(o->arg, &rest, n - 1, &v) || *rest != '-' ||
		    !num(rest + 1, &rest, n - 1, &w) || *rest != ':' ||
		    v == w || !step_text(rest + 1, &step, &text))
			return fail_usage(prog,
					  "--fail-pair: not A-B:STEP[:TEXT]",
					  o->arg);
		pf = realloc(md->pfail, (md->npfail + 1) * sizeof(*pf));
		if (!pf)
			return 1;
		md->pfail = pf;
		pf[md->npfail++] = (struct pair_fail){ (uint32_t)v, (uint32_t)w,
						       (uint8_t)step, text };
		return 0;
	}
	case OPT_FACTS:
		if (strchr(o->arg, ':')) {
			if (!rank_colon(o->arg, n, false, &r, &rest) ||
			    !num(rest, NULL, 3600000, &v))
				return fail_usage(prog, "--facts: not R:MS",
						  o->arg);
			md->facts_ms[r] = (int32_t)v;
		} else if (!num(o->arg, &rest, 3600000, &v) ||
			   (*rest &&
			    (*rest != '-' ||
			     !num(rest + 1, NULL, 3600000, &w) || w < v))) {
			return fail_usage(prog, "--facts: not MS or MIN-MAX",
					  o->arg);
		} else {
			md->facts_min = (uint32_t)v;
			md->facts_max = *rest ? (uint32_t)w : (uint32_t)v;
		}
		return 0;
	case OPT_DIE:
		if (!rank_colon(o->arg, n, false, &r, &rest) ||
		    !num(rest, NULL, UINT32_MAX, &v) || !v)
			return fail_usage(prog, "--die: not R:K (K from 1)",
					  o->arg);
		md->die_round[r] = (uint32_t)v;
		return 0;
	case OPT_PLACE: {
		const char *d, *l;

		if (!rank_colon(o->arg, n, false, &r, &rest) ||
		    !(d = strchr(rest, ':')) || d == rest ||
		    d - rest >= PP_MESH_HOST_MAX || !(l = strchr(d + 1, ':')) ||
		    l == d + 1 || l - d - 1 >= PP_MESH_DEV_MAX ||
		    !num(l + 1, NULL, n - 1, &v))
			return fail_usage(
				prog,
				"--place: not ID:HOST:DEV:LOCAL (LOCAL below --size)",
				o->arg);
		md->place[r] = rest;
		return 0;
	}
	case OPT_SILENT:
		if (!num(o->arg, NULL, n - 1, &v))
			return fail_usage(prog,
					  "--silent: not a rank below --size",
					  o->arg);
		md->silent[v] = true;
		return 0;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prog = "pp_mesh_standin";
	struct model md = {
		.root = "127.0.0.1",
		.tool = PP_TOOL_RC,
		.transport = PP_TR_RC,
		.base_us = 20,
		.per_host = 1,
		.fail_all = -1,
		.join_s = 30,
		.doc_bytes = 1200,
		.iters = 1000,
		.seed = 0x9e3779b97f4a7c15ULL,
	};
	struct later *later = calloc((size_t)argc, sizeof(*later));
	size_t nlater = 0, i;
	struct rank *rk;
	uint32_t n = 0, k;
	uint64_t v;
	int c, ret;

	if (!later)
		return 1;
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		const char *a = optarg;

		switch (c) {
		case OPT_PORT:
			if (!num(a, NULL, 65535, &v) || !v)
				return fail_usage(prog,
						  "--port: not a TCP port", a);
			md.port = (uint32_t)v;
			break;
		case OPT_ROOT:
			md.root = a;
			break;
		case OPT_SIZE:
			if (!num(a, NULL, PP_MESH_MAX_RANKS, &v) || v < 2)
				return fail_usage(prog, "--size: not 2 to 4096",
						  a);
			md.size = (uint32_t)v;
			break;
		case OPT_ANY:
			md.any = true;
			break;
		case OPT_MESH_ID:
			md.opt_id = a;
			break;
		case OPT_TOOL:
			for (v = PP_TOOL_RC; v <= PP_TOOL_XRC; v++)
				if (!strcmp(a, pp_tool_name((enum pp_tool)v)))
					break;
			if (v > PP_TOOL_XRC)
				return fail_usage(
					prog,
					"--tool: not a tool's name (rc_pingpong, ...)",
					a);
			md.tool = (uint8_t)v;
			break;
		case OPT_TRANSPORT:
			for (v = PP_TR_FIRST; v <= PP_TR_LAST; v++)
				if (!strcmp(a, pp_transport_name(
						       (enum pp_transport)v)))
					break;
			if (v > PP_TR_LAST)
				return fail_usage(
					prog,
					"--transport: not rc, uc, ud, srq or xrc",
					a);
			md.transport = (uint8_t)v;
			break;
		case OPT_BASE:
			if (!num(a, NULL, 1000000000, &v))
				return fail_usage(
					prog, "--base-us: not a number of usec",
					a);
			md.base_us = (double)v;
			break;
		case OPT_ANSWER:
			if (!num(a, NULL, 3600000, &v))
				return fail_usage(
					prog, "--answer-ms: not a number of ms",
					a);
			md.answer_ms = (uint32_t)v;
			break;
		case OPT_STRAY:
		case OPT_GARBAGE:
			if (!num(a, NULL, 3600000, &v) || !v)
				return fail_usage(
					prog,
					"--stray/--garbage: not a period in ms (at least 1)",
					a);
			*(c == OPT_STRAY ? &md.stray_ms : &md.garbage_ms) =
				(uint32_t)v;
			break;
		case OPT_STRAY_FOR:
			if (!num(a, NULL, 3600, &v) || !v)
				return fail_usage(
					prog,
					"--stray-for: not a number of seconds",
					a);
			md.stray_for_s = (uint32_t)v;
			break;
		case OPT_JOIN:
			if (!num(a, NULL, 3600, &v) || !v)
				return fail_usage(
					prog,
					"--join-s: not a number of seconds", a);
			md.join_s = (uint32_t)v;
			break;
		case OPT_DOC:
			if (!num(a, NULL, PP_MESH_DOC_MAX - 256, &v))
				return fail_usage(
					prog,
					"--doc-bytes: not a size up to 1 MiB",
					a);
			md.doc_bytes = (uint32_t)v;
			break;
		case OPT_ITERS:
			if (!num(a, NULL, UINT32_MAX, &v))
				return fail_usage(prog, "--iters: not a number",
						  a);
			md.iters = v;
			break;
		case OPT_SEED:
			if (!num(a, NULL, UINT64_MAX, &v))
				return fail_usage(prog, "--seed: not a number",
						  a);
			md.seed = v ? v : 1;
			break;
		case OPT_HELP:
		case 'h':
			usage(stdout, prog);
			return 0;
		case '?':
			usage(stderr, prog);
			return 2;
		default:
			later[nlater++] = (struct later){ c, a };
		}
	}
	if (optind < argc || !md.port || !md.size) {
		usage(stderr, prog);
		return 2;
	}
	ret = mesh_id(&md);
	if (ret)
		return ret;
	n = md.size;
	md.added_us = calloc(n, sizeof(*md.added_us));
	md.active_mtu = calloc(n, sizeof(*md.active_mtu));
	md.netdev_mtu = calloc(n, sizeof(*md.netdev_mtu));
	md.fail_step = calloc(n, sizeof(*md.fail_step));
	md.fail_text = calloc(n, sizeof(*md.fail_text));
	md.facts_ms = calloc(n, sizeof(*md.facts_ms));
	md.die_round = calloc(n, sizeof(*md.die_round));
	md.silent = calloc(n, sizeof(*md.silent));
	md.plays = calloc(n, sizeof(*md.plays));
	md.place = calloc(n, sizeof(*md.place));
	if (!md.added_us || !md.active_mtu || !md.netdev_mtu || !md.fail_step ||
	    !md.fail_text || !md.facts_ms || !md.die_round || !md.silent ||
	    !md.plays || !md.place)
		return 1;
	for (k = 0; k < n; k++) {
		md.fail_step[k] = -1;
		md.facts_ms[k] = -1;
		md.plays[k] = k != 0;
		md.active_mtu[k] = 1024;
		md.netdev_mtu[k] = 1500;
	}
	for (i = 0; i < nlater; i++) {
		ret = apply(&md, &later[i], prog);
		if (ret)
			return ret;
	}
	for (k = 0, i = 0; k < n; k++)
		i += md.plays[k];
	rk = calloc(i ? i : 1, sizeof(*rk));
	if (!rk)
		return 1;
	for (k = 0, i = 0; k < n; k++)
		if (md.plays[k])
			rk[i++] = (struct rank){ .id = k,
						 .rank = UINT32_MAX,
						 .fd = -1 };
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	ret = run(&md, rk, (uint32_t)i);
	for (k = 0; k < i; k++)
		close_rank(&rk[k]);
	free(rk);
	free(md.added_us);
	free(md.active_mtu);
	free(md.netdev_mtu);
	free(md.fail_step);
	free(md.fail_text);
	free(md.facts_ms);
	free(md.die_round);
	free(md.silent);
	free(md.plays);
	free(md.place);
	free(md.pfail);
	free(md.padd);
	free(later);
	return ret;
}
