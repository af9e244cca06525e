// SPDX-License-Identifier: MIT
/*
 * pp_probe_run.c - --probe: the query, one bounded RC session per GID pair
 * and MTU, and the table or the JSON document (pp_probe_run.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>

#include "pp_json.h"
#include "pp_probe.h"
#include "pp_probe_run.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_stats.h"
#include "pp_time.h"

#define REASON_LEN (PP_ERR_LEN + 16)

/* One row: a pair and an MTU, and how its session ended. */
struct row {
	int l, r; /* positions in the local and the server's tables */
	uint32_t mtu;
	bool is_auto;
	bool ran;
	int tries; /* 2: the first try lost messages (pp_probe_try_again) */
	enum pp_probe_step step;
	double median_us; /* ok rows */
	char reason[REASON_LEN];
};

/* What a row's child process writes to the pipe: one write. */
struct row_msg {
	int step;	  /* enum pp_probe_step */
	int ret;	  /* the errno of the failing session step */
	double median_us; /* ok rows */
	char reason[REASON_LEN];
};

/* Everything the probe knows. */
struct probe {
	struct pp_opts *o;
	char devname[64];
	unsigned int ib_port;
	struct pp_gid_entry *loc; /* this port's table */
	int nl;
	struct pp_gid_entry *rem; /* the server's, from GIDS */
	int nr;
	uint32_t local_mtu, server_mtu, path_mtu; /* active, active, auto */
	int auto_local, auto_server;		  /* indexes; -1: none */
	char auto_reason[320];
	struct pp_probe_notes notes; /* the failed rows' reasons, printed once */
	struct pp_probe_pair pairs[PP_PROBE_MAX_ROWS];
	size_t npairs;
	uint32_t mtus[PP_PROBE_MTUS];
	size_t nmtus;
	struct row *rows;
	size_t nrows, ndone;
	bool stopped; /* a signal, or a server that went away */
	char stop_reason[REASON_LEN];
};

/* The server's GIDS as GID table entries: every netdev name whole. */
_Static_assert(sizeof(((struct pp_gid_entry *)0)->ndev) > PP_WIRE_NETDEV_LEN,
	       "a GID entry holds the 16 bytes of a GIDS netdev and the NUL");
static struct pp_gid_entry *gids_table(const struct pp_msg *m, int *n)
{
	struct pp_gid_entry *t;
	uint32_t i;

	t = calloc(m->u.gids.count, sizeof(*t));
	if (!t)
		return NULL;
	for (i = 0; i < m->u.gids.count; i++) {
		const struct pp_wire_gid *g = &m->u.gids.g[i];

		t[i].index = g->index;
		t[i].type = g->gid_type;
		memcpy(t[i].raw, g->gid, 16);
		snprintf(t[i].ndev, sizeof(t[i].ndev), "%s", g->netdev);
		t[i].populated = pp_gid_family(g->gid) != PP_GID_FAM_NONE;
	}
	*n = (int)m->u.gids.count;
	return t;
}

/*
 * The query: connect as a client asking for the server's GID table; this
 * side's automatic GID, the server's automatic GID and the path MTU come
 * with it.  Return 0 or an errno with @err set.
 */
static int query(struct probe *p, struct pp_err *err)
{
	struct pp_session s;
	struct pp_msg *m = NULL;
	int ret;

	ret = pp_session_open(&s, p->o, &pp_exchange_ours);
	if (ret)
		goto out;
	snprintf(p->devname, sizeof(p->devname), "%s", s.caps.devname);
	p->ib_port = s.caps.ib_port;
	if (s.caps.link_layer != IBV_LINK_LAYER_ETHERNET) {
		pp_err_set(
			&s.err,
			"--probe: port %s:%u is InfiniBand: its GIDs are not RoCE addresses, there are no pairs to try",
			s.caps.devname, s.caps.ib_port);
		ret = EOPNOTSUPP;
		goto out;
	}
	s.want_gids = true;
	ret = pp_session_connect(&s);
	if (ret)
		goto out;
	m = malloc(sizeof(*m));
	if (!m) {
		pp_err_set(&s.err, "out of memory");
		ret = ENOMEM;
		goto out;
	}
	ret = pp_hs_recv(&s.conn, PP_MSG_GIDS, m, &s.err);
	if (ret)
		goto out;
	p->rem = gids_table(m, &p->nr);
	p->loc = s.gids;
	p->nl = s.ngids;
	s.gids = NULL; /* kept past pp_session_close() */
	if (!p->rem) {
		pp_err_set(&s.err, "out of memory");
		ret = ENOMEM;
		goto out;
	}
	p->local_mtu = s.caps.active_mtu;
	p->server_mtu = s.agreed.active_mtu;
	p->path_mtu = s.agreed.mtu;
	p->auto_local = s.gid_index;
	p->auto_server = s.agreed.gid_index == PP_GID_INDEX_NONE ?
				 -1 :
				 s.agreed.gid_index;
	snprintf(p->auto_reason, sizeof(p->auto_reason), "%s", s.gid_reason);
out:
	if (ret)
		pp_err_set(err, "%s%s", s.err.remote ? "server: " : "",
			   s.err.msg);
	free(m);
	pp_session_close(&s); /* the server sees the close after GIDS */
	return ret;
}

/* The rows: every pair, every MTU; the automatic pair at the path MTU. */
static int plan(struct probe *p, struct pp_err *err)
{
	size_t i, k, n = 0;

	p->npairs = pp_probe_pairs(p->loc, p->nl, p->rem, p->nr, p->pairs,
				   PP_PROBE_MAX_ROWS);
	p->nmtus = pp_probe_mtus(p->local_mtu, p->server_mtu, p->mtus);
	if (!p->npairs || !p->nmtus) {
		pp_err_set(
			err,
			"--probe: no GID of %s:%u has the type and address family of a GID of the server's port (see --show-gids on both hosts)",
			p->devname, p->ib_port);
		return ENODATA;
	}
	if (p->npairs * p->nmtus > PP_PROBE_MAX_ROWS)
		p->npairs = PP_PROBE_MAX_ROWS / p->nmtus;
	p->rows = calloc(p->npairs * p->nmtus, sizeof(*p->rows));
	if (!p->rows) {
		pp_err_set(err, "out of memory");
		return ENOMEM;
	}
	for (i = 0; i < p->npairs; i++)
		for (k = 0; k < p->nmtus; k++, n++)
			p->rows[n] = (struct row){
				.l = p->pairs[i].local,
				.r = p->pairs[i].remote,
				.mtu = p->mtus[k],
				.is_auto = p->loc[p->pairs[i].local].index ==
						   p->auto_local &&
					   p->rem[p->pairs[i].remote].index ==
						   p->auto_server &&
					   p->mtus[k] == p->path_mtu,
			};
	p->nrows = n;
	return 0;
}

/* The child: one session of the row, its outcome in @out. */
static void row_session(const struct probe *p, const struct row *rw,
			struct row_msg *out)
{
	struct pp_opts ro = *p->o;
	struct pp_session s;
	struct pp_stats st;
	uint64_t completed = 0;
	int phase = 0, ret;

	ro.gid_index = p->loc[rw->l].index;
	ro.mtu = rw->mtu;
	ro.validate = true;
	ro.set |= PP_OPT_BIT(PP_OPT_GID_IDX) | PP_OPT_BIT(PP_OPT_MTU) |
		  PP_OPT_BIT(PP_OPT_CHECK);
	if (!(ro.set & PP_OPT_BIT(PP_OPT_ITERS)))
		ro.iters = PP_PROBE_ITERS;
	ro.timeout_ms = PP_PROBE_STEP_MS;
	ro.json = false;
	ro.probe = false;
	memset(out, 0, sizeof(*out));
	ret = pp_session_open(&s, &ro, &pp_exchange_ours);
	if (!ret) {
		s.want_peer_gid = p->rem[rw->r].index;
		s.short_retry = true;
		ret = pp_session_steps(&s, &phase);
	}
	if (s.nresults)
		completed = s.results[0].completed;
	out->ret = ret;
	out->step = (int)pp_probe_step_of(phase, ret, s.err.msg, completed);
	if (phase == 2 && ret == ETIMEDOUT && !completed && !s.err.remote)
		/* the server is there (it answered the handshake) */
		snprintf(
			out->reason, sizeof(out->reason),
			"nothing completed within %d ms: the first message got no answer (no route between these two addresses, or dropped on the way)",
			PP_PROBE_STEP_MS);
	else if (ret)
		snprintf(out->reason, sizeof(out->reason), "%s%s",
			 s.err.remote ? "server: " : "", s.err.msg);
	else if (s.nresults && !pp_stats_compute(s.results[0].samples,
						 s.results[0].nsamples, &st))
		out->median_us = st.median;
	pp_session_close(&s);
}

/* Read @len bytes of @fd until @deadline; 0, ETIMEDOUT, ECANCELED or EIO. */
static int read_until(int fd, void *buf, size_t len, int64_t deadline)
{
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int64_t left = deadline - pp_now_ns();
		int ms = left > 0 ? (int)(left / 1000000) + 1 : 0;

		if (pp_signal_caught())
			return ECANCELED;
		if (left <= 0)
			return ETIMEDOUT;
		n = poll(&pfd, 1, ms);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return EIO;
		if (!n)
			continue;
		n = read(fd, (char *)buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return EIO;
		got += (size_t)n;
	}
	return 0;
}

/* Run row @rw in a child, until @deadline at most. */
static void run_row(struct probe *p, struct row *rw, int64_t deadline)
{
	struct row_msg msg;
	int fds[2], status = 0, ret;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds)) {
		rw->step = PP_PROBE_HANDSHAKE;
		snprintf(rw->reason, sizeof(rw->reason), "pipe: %s",
			 strerror(errno));
		rw->ran = true;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		row_session(p, rw, &msg);
		if (write(fds[1], &msg, sizeof(msg)) != (ssize_t)sizeof(msg))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0) {
		close(fds[0]);
		rw->step = PP_PROBE_HANDSHAKE;
		snprintf(rw->reason, sizeof(rw->reason), "fork: %s",
			 strerror(errno));
		rw->ran = true;
		return;
	}
	ret = read_until(fds[0], &msg, sizeof(msg), deadline);
	if (ret)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	close(fds[0]);
	rw->ran = true;
	if (ret == ECANCELED) {
		p->stopped = true;
		snprintf(p->stop_reason, sizeof(p->stop_reason),
			 "interrupted by %s",
			 pp_signal_name(pp_signal_caught()));
		rw->ran = false;
		return;
	}
	if (ret == ETIMEDOUT) {
		rw->step = PP_PROBE_DEADLINE;
		snprintf(rw->reason, sizeof(rw->reason),
			 "the row had not ended after %d ms: stopped",
			 PP_PROBE_ROW_MS);
		return;
	}
	if (ret) {
		rw->step = PP_PROBE_HANDSHAKE;
		snprintf(
			rw->reason, sizeof(rw->reason),
			"the row's process ended without a result (status 0x%x)",
			status);
		return;
	}
	rw->step = (enum pp_probe_step)msg.step;
	rw->median_us = msg.median_us;
	snprintf(rw->reason, sizeof(rw->reason), "%s", msg.reason);
	/*
	 * The server was there for the query: refusing or closing before it
	 * answers HELLO, it is not --persistent (or it was stopped).  A server
	 * that ends after the query may still have taken the next connection
	 * into its backlog: that row sees the close.
	 */
	if ((msg.ret == ECONNREFUSED || msg.ret == ECONNRESET) &&
	    rw->step == PP_PROBE_HANDSHAKE) {
		rw->ran = false; /* not a result of the pair */
		p->stopped = true;
		snprintf(
			p->stop_reason, sizeof(p->stop_reason),
			"the server at %s stopped taking clients after the query (%.200s): --probe needs a server started with --persistent",
			p->o->host, msg.reason);
	}
}

/*
 * Row @rw within PP_PROBE_ROW_MS, with a second try when the first lost
 * messages (pp_probe_try_again) and half the bound is left: a second try
 * that does not end in time leaves the first one's result.
 */
static void try_row(struct probe *p, struct row *rw)
{
	int64_t deadline = pp_deadline(PP_PROBE_ROW_MS);
	struct row first;

	rw->tries = 1;
	run_row(p, rw, deadline);
	if (!rw->ran || p->stopped || !pp_probe_try_again(rw->step) ||
	    deadline - pp_now_ns() < PP_PROBE_ROW_MS / 2 * 1000000LL)
		return;
	first = *rw;
	rw->tries = 2;
	run_row(p, rw, deadline);
	if (!p->stopped && rw->step == PP_PROBE_DEADLINE) {
		*rw = first;
		rw->tries = 2;
	}
}

/* --- the table ---------------------------------------------------------- */

static const char *ip_of(const struct pp_gid_entry *e, char *buf, size_t len)
{
	return pp_gid_ip(e->raw, buf, len);
}

static void print_plan(const struct probe *p, FILE *f)
{
	fprintf(f,
		"probe: %zu GID pairs x %zu MTUs (%u..%u) = %zu rows, each at most %d s: at most %zu s\n",
		p->npairs, p->nmtus, p->mtus[0], p->mtus[p->nmtus - 1],
		p->nrows, PP_PROBE_ROW_MS / 1000,
		p->nrows * PP_PROBE_ROW_MS / 1000);
	fprintf(f,
		"automatic choice: local GID index %d, server GID index %d, path MTU %u (local active %u, server active %u)\n",
		p->auto_local, p->auto_server, p->path_mtu, p->local_mtu,
		p->server_mtu);
	fflush(f);
}

static void print_header(FILE *f)
{
	fprintf(f, "%3s %-7s %-10s %-25s %3s %-10s %-25s %4s %-4s %s\n", "idx",
		"type", "netdev", "local IP", "idx", "netdev", "server IP",
		"MTU", "", "result");
}

static void print_row(struct probe *p, const struct row *rw, FILE *f)
{
	const struct pp_gid_entry *l = &p->loc[rw->l], *r = &p->rem[rw->r];
	char lip[PP_GID_TEXT_LEN], rip[PP_GID_TEXT_LEN];

	fprintf(f, "%3d %-7s %-10s %-25s %3d %-10s %-25s %4u %-4s ", l->index,
		pp_gid_type_name(l->type), l->ndev[0] ? l->ndev : "-",
		ip_of(l, lip, sizeof(lip)), r->index,
		r->ndev[0] ? r->ndev : "-", ip_of(r, rip, sizeof(rip)), rw->mtu,
		rw->is_auto ? "auto" : "");
	if (rw->step == PP_PROBE_OK) {
		fprintf(f, "ok: median %.1f us%s\n", rw->median_us,
			rw->tries > 1 ? " (2nd try)" : "");
	} else {
		size_t code = pp_probe_note(&p->notes, rw->reason);

		if (code)
			fprintf(f, "failed at %s: E%zu\n",
				pp_probe_step_name(rw->step), code);
		else
			fprintf(f, "failed at %s: %s\n",
				pp_probe_step_name(rw->step), rw->reason);
	}
	fflush(f);
}

/* Below the table: each failure reason once, by its code. */
static void print_notes(struct probe *p, FILE *f)
{
	size_t i;

	if (p->notes.n)
		fprintf(f, "\n");
	for (i = 0; i < p->notes.n; i++)
		fprintf(f, "E%zu: %s\n", i + 1, p->notes.text[i]);
	fflush(f);
}

/* --- the JSON document -------------------------------------------------- */

static void json_gid(struct pp_json *j, const char *key,
		     const struct pp_gid_entry *e, bool with_type)
{
	char ip[PP_GID_TEXT_LEN], gid[PP_GID_TEXT_LEN];

	pp_json_key(j, key);
	pp_json_begin_object(j);
	pp_json_key_int(j, "index", e->index);
	if (with_type)
		pp_json_key_string(j, "type", pp_gid_type_name(e->type));
	pp_json_key(j, "netdev");
	if (e->ndev[0])
		pp_json_string(j, e->ndev);
	else
		pp_json_null(j);
	pp_json_key_string(j, "ip", ip_of(e, ip, sizeof(ip)));
	pp_json_key_string(j, "gid", pp_gid_format(e->raw, gid, sizeof(gid)));
	pp_json_end_object(j);
}

static void key_int_or_null(struct pp_json *j, const char *key, int v)
{
	pp_json_key(j, key);
	if (v >= 0)
		pp_json_int(j, v);
	else
		pp_json_null(j);
}

static int write_json(const struct probe *p, FILE *f, int status,
		      const char *error)
{
	struct pp_json j;
	size_t i;

	pp_json_init(&j, f, true);
	pp_json_begin_object(&j);
	pp_json_key_string(&j, "tool", pp_tool_name(p->o->tool));
	pp_json_key_string(&j, "mode", "probe");
	pp_json_key_string(&j, "server", p->o->host);
	pp_json_key(&j, "device");
	if (p->devname[0])
		pp_json_string(&j, p->devname);
	else
		pp_json_null(&j);
	pp_json_key_uint(&j, "port", p->ib_port);
	pp_json_key_uint(&j, "local_active_mtu", p->local_mtu);
	pp_json_key_uint(&j, "server_active_mtu", p->server_mtu);
	pp_json_key_uint(&j, "rows_planned", p->nrows);
	pp_json_key_uint(&j, "row_bound_ms", PP_PROBE_ROW_MS);
	pp_json_key_uint(&j, "iters",
			 p->o->set & PP_OPT_BIT(PP_OPT_ITERS) ? p->o->iters :
								PP_PROBE_ITERS);
	pp_json_key(&j, "auto");
	pp_json_begin_object(&j);
	key_int_or_null(&j, "local_index", p->auto_local);
	key_int_or_null(&j, "server_index", p->auto_server);
	pp_json_key_uint(&j, "mtu", p->path_mtu);
	pp_json_end_object(&j);
	pp_json_key(&j, "rows");
	pp_json_begin_array(&j);
	for (i = 0; i < p->nrows; i++) {
		const struct row *rw = &p->rows[i];

		if (!rw->ran)
			continue;
		pp_json_begin_object(&j);
		json_gid(&j, "local", &p->loc[rw->l], true);
		json_gid(&j, "server", &p->rem[rw->r], false);
		pp_json_key_uint(&j, "mtu", rw->mtu);
		pp_json_key_bool(&j, "auto", rw->is_auto);
		pp_json_key_bool(&j, "ok", rw->step == PP_PROBE_OK);
		pp_json_key_string(&j, "step", pp_probe_step_name(rw->step));
		pp_json_key_int(&j, "tries", rw->tries);
		pp_json_key(&j, "rtt_median_us");
		if (rw->step == PP_PROBE_OK)
			pp_json_double(&j, rw->median_us);
		else
			pp_json_null(&j);
		pp_json_key(&j, "reason");
		if (rw->step == PP_PROBE_OK)
			pp_json_null(&j);
		else
			pp_json_string(&j, rw->reason);
		pp_json_end_object(&j);
	}
	pp_json_end_array(&j);
	pp_json_key_int(&j, "exit_status", status);
	pp_json_key(&j, "error");
	if (error)
		pp_json_string(&j, error);
	else
		pp_json_null(&j);
	pp_json_end_object(&j);
	return pp_json_finish(&j);
}

int pp_probe_main(struct pp_opts *o)
{
	struct probe *p = calloc(1, sizeof(*p));
	/* --json: the document on stdout, the plan and the rows on stderr */
	FILE *text = o->json ? stderr : stdout;
	struct pp_err err = { .msg = "" };
	int status = PP_EXIT_OK, ret;
	size_t i;

	if (!p) {
		fprintf(stderr, "%s: out of memory\n", o->prog);
		return PP_EXIT_FAIL;
	}
	p->o = o;
	p->auto_local = p->auto_server = -1;
	ret = query(p, &err);
	if (!ret)
		ret = plan(p, &err);
	if (!ret) {
		print_plan(p, text);
		print_header(text);
		for (i = 0; i < p->nrows && !p->stopped; i++) {
			struct row *rw = &p->rows[i];

			try_row(p, rw);
			if (p->rows[i].ran)
				print_row(p, &p->rows[i], text);
			p->ndone += p->rows[i].ran;
		}
		print_notes(p, text);
		if (p->stopped) {
			pp_err_set(&err, "%s (%zu of %zu rows run)",
				   p->stop_reason, p->ndone, p->nrows);
			ret = pp_signal_caught() ? ECANCELED : ECONNREFUSED;
		}
	}
	if (ret) {
		status = ret == ECANCELED ? PP_EXIT_INTR : PP_EXIT_FAIL;
		fprintf(stderr, "%s: %s\n", o->prog, err.msg);
	}
	if (o->json && write_json(p, stdout, status, ret ? err.msg : NULL))
		status = PP_EXIT_FAIL;
	fflush(stdout);
	free(p->rows);
	free(p->loc);
	free(p->rem);
	free(p);
	return status;
}
