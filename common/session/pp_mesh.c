// SPDX-License-Identifier: MIT
/*
 * pp_mesh.c - --mesh: the ranks meet at rank 0, which runs every pair in
 * rounds and prints the matrix (pp_mesh.h, docs/mesh.md).
 *
 * Processes.  Rank 0's process forks: the parent is the coordinator (it
 * listens on -p, never opens the device) and the child is rank 0's worker,
 * a rank like the others.  A worker forks once to read its host's facts
 * (device, port, MTU, GID) and once per pair, and the child runs the pair's
 * session: a plain server (listening on -p + 1 + its rank) or client, the
 * steps of pp_session.h with the options of a pair run.  Nothing that
 * touches the device lives longer than one child, so a fork never copies a
 * verbs context, and a pair that hangs is killed at its bound.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>

#include "pp_dev.h"
#include "pp_doc.h"
#include "pp_gid.h"
#include "pp_mesh.h"
#include "pp_mesh_dev.h"
#include "pp_mesh_prom.h"
#include "pp_mesh_report.h"
#include "pp_mesh_sched.h"
#include "pp_op.h"
#include "pp_probe.h"
#include "pp_run_rec.h"
#include "pp_session.h"
#include "pp_signal.h"
#include "pp_sock.h"
#include "pp_stats.h"
#include "pp_time.h"
#include "pp_version.h"

#define SLACK_MS 5000	 /* messages' transit and a child's exit, at most */
#define PIPE_MS 2000	 /* a child's facts, after it opened the device */
#define SWEEP_ALLOW_MS 1 /* an iteration's allowance in the pair's bound */
#define FLOOR_BYTES_PER_MS 100000 /* ... and per byte moved: 100 MB/s */
#define JOIN_SLACK_MS 1000	  /* after --mesh-join: for a JOIN on its way */
#define JOIN_BODY_MAX 2048	  /* a JOIN's body: at most about 1.3 KB */
#define STRAYS 64   /* connections beyond the ranks rank 0 may hold */
#define FD_SPARE 16 /* rank 0's descriptors besides its ranks' */

/* How the options of this rank make a pair's session. */
struct rank_ctx {
	struct pp_opts *o;
	struct pp_mesh_env env;
	int ctl;	   /* the connection to rank 0 */
	uint32_t rank;	   /* from WELCOME */
	uint32_t round_ms; /* from WELCOME: the longest wait for rank 0 */
	uint32_t local;	   /* the local index: the launcher's, or claimed */
	const char *local_from; /* where it came from, for messages */
	int claim;		/* the socket that holds a claimed index; -1 */
	char dev[PP_MESH_DEV_MAX];	 /* -d's list: this rank's device */
	char pick_err[PP_MESH_TEXT_MAX]; /* ... or why it has none */
};

static const char *env_get(const char *name, void *arg)
{
	(void)arg;
	return getenv(name);
}

/* One record to @fd, whole, by @deadline. */
static int send_msg(int fd, const struct pp_mesh_msg *m, int64_t deadline)
{
	size_t room = PP_MESH_WIRE_HDR + 8192, len;
	uint8_t *buf;
	int ret;

	if (m->type == PP_MESH_RESULT)
		room += m->u.result.doc_len;
	buf = malloc(room);
	if (!buf)
		return ENOMEM;
	ret = pp_mesh_wire_encode(m, buf, room, &len);
	if (!ret)
		ret = pp_sock_write_all(fd, buf, len, deadline);
	free(buf);
	return ret;
}

/*
 * One record from @fd by @deadline; @body holds the bytes a RESULT's doc
 * points into (the caller frees it).  Return 0, ECONNRESET (EOF), ETIMEDOUT,
 * ECANCELED, EPROTO or ENOMEM.
 */
static int recv_msg(int fd, struct pp_mesh_msg *m, uint8_t **body,
		    int64_t deadline)
{
	uint8_t hdr[PP_MESH_WIRE_HDR];
	uint16_t type;
	uint32_t len;
	int ret;

	*body = NULL;
	ret = pp_sock_read_all(fd, hdr, sizeof(hdr), deadline);
	if (ret)
		return ret;
	ret = pp_mesh_wire_header(hdr, &type, &len);
	if (ret)
		return ret;
	*body = malloc(len + 1);
	if (!*body)
		return ENOMEM;
	ret = pp_sock_read_all(fd, *body, len, deadline);
	if (!ret)
		ret = pp_mesh_wire_decode(type, *body, len, m);
	return ret;
}

/* Read @fd to its end (at most @max bytes) by @deadline. */
static int read_pipe(int fd, uint8_t *buf, size_t max, size_t *got,
		     int64_t deadline, int watch)
{
	struct pollfd p[2] = { { .fd = fd, .events = POLLIN },
			       { .fd = watch, .events = POLLIN } };
	ssize_t n;
	char c;

	*got = 0;
	for (;;) {
		nfds_t nfds = watch >= 0 ? 2 : 1;
		int ready, ret;

		if (pp_now_ns() >= deadline)
			return ETIMEDOUT;
		/* a stop signal ends the wait at once (pp_sock_poll()) */
		ret = pp_sock_poll(p, nfds, deadline, &ready);
		if (ret)
			return ret;
		if (nfds == 2 && p[1].revents) {
			/* rank 0 talks during a pair only when it is gone */
			n = recv(watch, &c, 1, MSG_PEEK | MSG_DONTWAIT);
			if (n == 0 || (n < 0 && errno != EAGAIN))
				return ECONNRESET;
			p[1].fd = -1;
		}
		if (!p[0].revents)
			continue;
		n = read(fd, buf + *got, max - *got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno;
		if (n == 0)
			return 0;
		*got += (size_t)n;
		if (*got == max)
			return EMSGSIZE;
	}
}

/* The child is done or stopped: reap it, killed if it still runs. */
static void reap(pid_t pid, bool kill_it)
{
	int status;

	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Reap a child that should end by itself within @ms; else kill it. */
static void reap_within(pid_t pid, int ms)
{
	int64_t deadline = pp_deadline(ms);
	int status;

	while (pp_now_ns() < deadline) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid || (r < 0 && errno != EINTR))
			return;
		usleep(10000);
	}
	reap(pid, true);
}

/* The GID a session to or from @fd's far end would choose, and why. */
static void facts_gid(struct pp_session *s, int fd, struct pp_mesh_join *j)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char why[PP_MESH_WHY_MAX] = "";
	int idx = s->gid_index;

	if (idx < 0 &&
	    pp_gid_choose(s->gids, s->ngids, s->caps.link_layer,
			  getsockname(fd, (struct sockaddr *)&ss, &len) ?
				  NULL :
				  (struct sockaddr *)&ss,
			  &idx, why, sizeof(why)))
		idx = -1;
	/* the record's field is shorter than the session's line: cut */
	snprintf(j->gid_reason, sizeof(j->gid_reason), "%.*s",
		 (int)sizeof(j->gid_reason) - 1,
		 s->gid_index >= 0 ? s->gid_reason : why);
	j->gid_index = (int16_t)idx;
	if (idx < 0 || idx >= s->ngids)
		return;
	j->gid_type = s->gids[idx].type;
	j->gid_family = (uint8_t)pp_gid_family(s->gids[idx].raw);
	pp_gid_format(s->gids[idx].raw, j->gid, sizeof(j->gid));
	/* as the pair's session reads it (--expect-mtu's line names it) */
	if (pp_netdev_mtu("", s->gids[idx].ndev, &j->netdev_mtu))
		j->netdev_mtu = 0;
}

/*
 * -d's list or auto: the device of this rank's local index into @out.
 * Return: 0, or why not as one line in @why.
 */
static int pick_dev(const struct rank_ctx *c, char *out, size_t len, char *why,
		    size_t wlen)
{
	const char *d = c->o->ib_devname;
	char found[1024];
	int ret;

	if (strcmp(d, "auto")) {
		if (!pp_mesh_dev_nth(d, c->local, out, len))
			return 0;
		snprintf(
			why, wlen,
			"local index %u (%s) is beyond -d %.200s: give a device for each rank of a host, or start fewer ranks a host",
			c->local, c->local_from, d);
		return ENOENT;
	}
	ret = pp_dev_active_names((uint8_t)c->o->ib_port, found, sizeof(found));
	if (!ret && !pp_mesh_dev_nth(found, c->local, out, len))
		return 0;
	if (ret)
		snprintf(why, wlen, "-d auto: listing the devices failed: %s",
			 strerror(ret));
	else
		snprintf(
			why, wlen,
			"local index %u (%s) is beyond -d auto: port %u is active on %s%.300s%s here (give -d a list, or start fewer ranks a host)",
			c->local, c->local_from, c->o->ib_port,
			found[0] ? "" : "no device", found,
			found[0] ? " only" : "");
	return ret ? ret : ENOENT;
}

/* The child: open the device and port and write this host's facts. */
static void facts_child(struct rank_ctx *c, int out)
{
	struct pp_mesh_join j = { 0 };
	struct pp_opts fo = *c->o;
	struct pp_version v;
	struct pp_session s;
	bool opened = false;

	j.gid_index = -1;
	j.tool = (uint8_t)c->o->tool;
	j.transport = (uint8_t)c->o->transport;
	if (gethostname(j.host, sizeof(j.host) - 1))
		snprintf(j.host, sizeof(j.host), "?");
	pp_version_get(&v);
	snprintf(j.version, sizeof(j.version), "%s (%s)", v.project, v.git);
	j.local = c->local;
	if (pp_mesh_dev_is_list(fo.ib_devname)) {
		if (pick_dev(c, j.dev, sizeof(j.dev), j.error, sizeof(j.error)))
			goto send;
		fo.ib_devname = j.dev;
	} else if (fo.ib_devname) {
		/* the device it tried, named even when it does not open */
		snprintf(j.dev, sizeof(j.dev), "%.*s", (int)sizeof(j.dev) - 1,
			 fo.ib_devname);
	}
	opened = true;
	if (pp_session_open(&s, &fo, &pp_exchange_ours)) {
		snprintf(j.error, sizeof(j.error), "%s", s.err.msg);
	} else {
		snprintf(j.dev, sizeof(j.dev), "%s", s.caps.devname);
		j.ib_port = s.caps.ib_port;
		j.link_layer = s.caps.link_layer;
		j.active_mtu = s.caps.active_mtu;
		facts_gid(&s, c->ctl, &j);
	}
send:
	if (opened)
		pp_session_close(&s);
	if (write(out, &j, sizeof(j)) != (ssize_t)sizeof(j))
		_exit(1);
	_exit(0);
}

/* This host's facts, read by a child. */
static int read_facts(struct rank_ctx *c, struct pp_mesh_join *j,
		      struct pp_err *err)
{
	uint8_t buf[sizeof(*j) + 1];
	int fds[2], ret;
	size_t got;
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	if (pipe(fds)) {
		ret = errno;
		pp_err_set(err, "--mesh: pipe: %s", strerror(ret));
		return ret;
	}
	pid = fork();
	if (pid == 0) {
		close(fds[0]);
		facts_child(c, fds[1]);
	}
	close(fds[1]);
	if (pid < 0) {
		ret = errno;
		close(fds[0]);
		pp_err_set(err, "--mesh: fork: %s", strerror(ret));
		return ret;
	}
	ret = read_pipe(fds[0], buf, sizeof(buf), &got,
			pp_deadline((int)c->o->timeout_ms + PIPE_MS), -1);
	reap(pid, ret != 0);
	close(fds[0]);
	if (!ret && got != sizeof(*j))
		ret = EIO;
	if (!ret)
		memcpy(j, buf, sizeof(*j));
	if (ret)
		pp_err_set(
			err,
			"--mesh: reading this host's device facts failed: %s",
			strerror(ret));
	j->host[sizeof(j->host) - 1] = '\0';
	return ret;
}

static uint8_t code_of_step(enum pp_probe_step st)
{
	switch (st) {
	case PP_PROBE_OK:
		return PP_MESH_OK;
	case PP_PROBE_HANDSHAKE:
		return PP_MESH_CONNECT;
	case PP_PROBE_RTR:
		return PP_MESH_RTR;
	case PP_PROBE_RTS:
		return PP_MESH_RTS;
	case PP_PROBE_FIRST:
		return PP_MESH_FIRST;
	case PP_PROBE_RUN:
		return PP_MESH_RUN_FAIL;
	case PP_PROBE_DATA:
		return PP_MESH_DATA;
	case PP_PROBE_DEADLINE:
		return PP_MESH_TIMEOUT;
	}
	return PP_MESH_CONNECT;
}

/* A child's record into its pipe, whole (the parent reads to the end). */
static int write_record(int fd, const struct pp_mesh_msg *m)
{
	size_t room = PP_MESH_WIRE_HDR + 8192 + m->u.result.doc_len, len, off;
	uint8_t *buf = malloc(room);
	ssize_t n;
	int ret;

	if (!buf)
		return ENOMEM;
	ret = pp_mesh_wire_encode(m, buf, room, &len);
	for (off = 0; !ret && off < len;) {
		n = write(fd, buf + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			ret = n < 0 ? errno : EIO;
		else
			off += (size_t)n;
	}
	free(buf);
	return ret;
}

/* The pair's document, as pp_main.c's --json would write it. */
static char *pair_doc(const struct pp_session *s, int ret, const char *line,
		      uint32_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	pp_doc_write(s, f, pp_exit_status(ret), ret ? line : NULL);
	if (fclose(f) || n > PP_MESH_DOC_MAX) {
		free(buf);
		return NULL;
	}
	*len = (uint32_t)n;
	return buf;
}

/* The child of a pair: its session, and the RESULT record to @out. */
/* Microseconds from @from to @to, 0 when either is not known. */
static uint32_t span_us(int64_t from, int64_t to)
{
	int64_t us = (to - from) / 1000;

	if (!from || !to || us < 0)
		return 0;
	return us > UINT32_MAX ? UINT32_MAX : (uint32_t)us;
}

/* The pair's process: its session, and the RESULT into @out. */
static void pair_child(struct rank_ctx *c, const struct pp_mesh_run *run,
		       int out, int64_t forked)
{
	int64_t started = pp_now_ns(), opened;
	struct pp_opts ro = *c->o;
	struct pp_mesh_msg m = { .type = PP_MESH_RESULT };
	struct pp_mesh_result *r = &m.u.result;
	struct pp_session s;
	struct pp_stats st;
	uint64_t completed = 0;
	int phase = -1, ret;
	char *doc;

	ro.mesh = false;
	ro.json = false;
	/* rank 0 judges the thresholds, with its own: one truth per pair */
	ro.expect_mtu = 0;
	ro.max_rtt_us = 0;
	ro.host = (run->role & PP_MESH_ROLE_CONNECT) ? run->peer_host : NULL;
	ro.port = run->port;
	if (c->dev[0])
		ro.ib_devname = c->dev; /* -d's list: this rank's device */
	r->round = run->round;
	r->peer = run->peer;
	r->median_ns = UINT64_MAX;
	if (c->pick_err[0]) {
		/* -d's list has no device for this rank: as a device error */
		r->step = PP_MESH_DEVICE;
		r->gid_index = -1;
		r->ret = ENODEV;
		snprintf(r->reason, sizeof(r->reason), "%s", c->pick_err);
		_exit(write_record(out, &m) ? 1 : 0);
	}
	ret = pp_session_open(&s, &ro, &pp_exchange_ours);
	opened = pp_now_ns();
	s.token = run->token;
	if (!ret) {
		phase = 0;
		if (!(run->role & PP_MESH_ROLE_CONNECT)) {
			/*
			 * serve: one client, the peer (its token first),
			 * within -T x 2; a stray gets 1 s to show its token
			 */
			unsigned int strays = 0;

			ret = pp_session_listen(&s);
			if (!ret)
				ret = pp_sock_accept_token(
					s.lfd, run->token,
					pp_deadline(2 * (int)ro.timeout_ms),
					1000, &s.conn.fd, s.peer_addr,
					sizeof(s.peer_addr), &strays);
			if (ret && !s.err.msg[0])
				pp_err_set(
					&s.err,
					"no connection from rank %u (%s) on TCP port %u within %u s: %s (%u other connection%s closed: not the peer rank 0 assigned)",
					run->peer, run->peer_host, run->port,
					2 * ro.timeout_ms / 1000, strerror(ret),
					strays, strays == 1 ? "" : "s");
		}
	}
	if (!ret)
		ret = pp_session_steps(&s, &phase);
	r->times_us[PP_MESH_T_START] = span_us(forked, started);
	r->times_us[PP_MESH_T_DEVICE] = span_us(started, opened);
	r->times_us[PP_MESH_T_HANDSHAKE] = span_us(opened, s.step_end_ns[0]);
	r->times_us[PP_MESH_T_QP] = span_us(s.step_end_ns[0], s.step_end_ns[1]);
	r->times_us[PP_MESH_T_LOOP] =
		span_us(s.step_end_ns[1], s.step_end_ns[2]);
	if (s.nresults)
		completed = s.results[0].completed;
	r->completed = completed;
	r->ret = (uint32_t)ret;
	r->remote = s.err.remote;
	r->step = phase < 0 ?
			  PP_MESH_DEVICE :
			  code_of_step(pp_probe_step_of(phase, ret, s.err.msg,
							completed));
	if (ret)
		snprintf(r->reason, sizeof(r->reason), "%s%s%.480s",
			 s.err.remote ? pp_peer_name(&s.conn) : "",
			 s.err.remote ? ": " : "", s.err.msg);
	if (!ret && (run->role & PP_MESH_ROLE_CONNECT) && s.nresults &&
	    !pp_run_stats(&s.results[0], &st))
		r->median_ns = (uint64_t)llround(st.median * 1000);
	if (s.agreed.tool)
		r->path_mtu = s.agreed.mtu;
	r->gid_index = (int16_t)s.gid_index;
	if (s.gid_index >= 0) {
		r->gid_type = s.gid_type;
		r->gid_family = (uint8_t)pp_gid_family(s.gid);
		pp_gid_format(s.gid, r->gid, sizeof(r->gid));
		snprintf(r->gid_reason, sizeof(r->gid_reason), "%.*s",
			 (int)sizeof(r->gid_reason) - 1, s.gid_reason);
	}
	doc = (run->role & PP_MESH_ROLE_DOC) ?
		      pair_doc(&s, ret, r->reason, &r->doc_len) :
		      NULL;
	r->doc = doc;
	if (!doc)
		r->doc_len = 0;
	pp_session_close(&s);
	ret = write_record(out, &m);
	free(doc);
	_exit(ret ? 1 : 0);
}

/*
 * Run one pair in a child, for at most its bound; the RESULT goes to rank
 * 0.  Return 0, or ECONNRESET when rank 0 went away meanwhile (the child
 * is killed), or the errno of sending the RESULT.
 */
static int run_pair(struct rank_ctx *c, const struct pp_mesh_run *run)
{
	struct pp_mesh_msg m = { .type = PP_MESH_RESULT }, got;
	size_t max = PP_MESH_WIRE_HDR + PP_MESH_WIRE_MAX, n = 0;
	uint16_t type;
	uint32_t len;
	uint8_t *buf;
	int fds[2], ret;
	pid_t pid = -1;

	m.u.result.round = run->round;
	m.u.result.peer = run->peer;
	m.u.result.median_ns = UINT64_MAX;
	m.u.result.gid_index = -1;
	buf = malloc(max);
	if (!buf)
		return ENOMEM;
	fflush(stdout);
	fflush(stderr);
	ret = pipe(fds) ? errno : 0;
	if (!ret) {
		int64_t forked = pp_now_ns();

		pid = fork();
		if (pid == 0) {
			close(fds[0]);
			close(c->ctl);
			pair_child(c, run, fds[1], forked);
		}
		close(fds[1]);
		if (pid < 0) {
			ret = errno;
			close(fds[0]);
		}
	}
	if (ret) {
		m.u.result.step = PP_MESH_CONNECT;
		snprintf(m.u.result.reason, sizeof(m.u.result.reason),
			 "could not start the pair's process: %s",
			 strerror(ret));
		goto send;
	}
	ret = read_pipe(fds[0], buf, max, &n, pp_deadline_ms(run->pair_ms),
			c->ctl);
	reap(pid, ret != 0);
	close(fds[0]);
	if (ret == ECONNRESET || ret == ECANCELED) {
		free(buf);
		return ret;
	}
	if (!ret && n >= PP_MESH_WIRE_HDR &&
	    !pp_mesh_wire_header(buf, &type, &len) &&
	    n == PP_MESH_WIRE_HDR + len && type == PP_MESH_RESULT &&
	    !pp_mesh_wire_decode(type, buf + PP_MESH_WIRE_HDR, len, &got)) {
		/* the child's own record, as it wrote it */
		ret = pp_sock_write_all(c->ctl, buf, n, pp_deadline(SLACK_MS));
		free(buf);
		return ret;
	}
	m.u.result.step = PP_MESH_TIMEOUT;
	if (ret == ETIMEDOUT)
		snprintf(
			m.u.result.reason, sizeof(m.u.result.reason),
			"the pair had not ended after %u ms (its bound): stopped",
			run->pair_ms);
	else
		snprintf(m.u.result.reason, sizeof(m.u.result.reason),
			 "the pair's process ended without a result (%s)",
			 ret ? strerror(ret) : "no record");
send:
	free(buf);
	return send_msg(c->ctl, &m, pp_deadline(SLACK_MS));
}

/*
 * No launcher said the local index: the first of 0, 1, ... that no other
 * rank of this mesh on this host holds.  Each index is an abstract Unix
 * socket named for the mesh, bound while the worker lives: bind() is
 * atomic, so ranks that start at once take distinct indexes, and one that
 * ends gives its index back without leaving anything behind.  Return: 0
 * or errno, with @err.
 */
static int claim_local(struct rank_ctx *c, struct pp_err *err)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *p;
	uint32_t k;
	int ret = 0;

	for (p = c->env.id; *p; p++)
		h = (h ^ (unsigned char)*p) * 0x100000001b3ULL;
	for (k = 0; k < c->env.size; k++) {
		struct sockaddr_un a = { .sun_family = AF_UNIX };
		int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), n;

		if (fd < 0) {
			ret = errno;
			break;
		}
		/* sun_path[0] = 0: the abstract namespace, no file */
		n = snprintf(a.sun_path + 1, sizeof(a.sun_path) - 1,
			     "pp-mesh-local %016llx %u", (unsigned long long)h,
			     k);
		if (!bind(fd, (struct sockaddr *)&a,
			  (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
				      1 + (size_t)n))) {
			c->claim = fd;
			c->local = k;
			c->local_from = "by arrival on this host";
			return 0;
		}
		ret = errno;
		close(fd);
		if (ret != EADDRINUSE)
			break;
	}
	pp_err_set(
		err,
		"--mesh: no local index for this rank on this host: %s (set PP_MESH_LOCAL to the rank's place among the ranks of its host, from 0)",
		ret ? strerror(ret) : "every one is taken");
	return ret ? ret : EADDRINUSE;
}

/* A worker: join, then run what rank 0 says until END. */
static int worker(struct rank_ctx *c, const char *connect_to)
{
	struct pp_opts *o = c->o;
	struct pp_mesh_msg m = { .type = PP_MESH_JOIN };
	struct pp_err err = { .msg = "" };
	int64_t deadline;
	uint8_t *body = NULL;
	int ret;

	deadline = pp_now_ns();
	/* a name not resolving yet, a host not up yet: both are retried */
	ret = pp_sock_connect_patient(
		connect_to, o->port,
		pp_deadline_ms((uint64_t)o->mesh_join_s * 1000), &c->ctl, &err);
	if (ret) {
		/* how long it tried tells a late rank 0 from a late worker */
		fprintf(stderr,
			"%s: --mesh: cannot reach rank 0 (tried for %.1f s, --mesh-join %u): %s\n",
			o->prog, (double)(pp_now_ns() - deadline) / 1e9,
			o->mesh_join_s, err.msg);
		return PP_EXIT_FAIL;
	}
	/* rank 0's host dying silently ends this rank within -T */
	(void)pp_sock_silent_peer(c->ctl, o->timeout_ms);
	c->local = c->env.local;
	c->local_from = c->env.local_from;
	ret = c->local == PP_MESH_LOCAL_ANY ? claim_local(c, &err) : 0;
	if (!ret)
		ret = read_facts(c, &m.u.join, &err);
	if (ret) {
		fprintf(stderr, "%s: %s\n", o->prog, err.msg);
		return PP_EXIT_FAIL;
	}
	if (pp_mesh_dev_is_list(o->ib_devname)) {
		/* the device of its local index, or why it has none */
		if (m.u.join.dev[0])
			snprintf(c->dev, sizeof(c->dev), "%s", m.u.join.dev);
		else
			snprintf(c->pick_err, sizeof(c->pick_err), "%s",
				 m.u.join.error);
	}
	m.u.join.want_rank = c->env.rank;
	m.u.join.size = c->env.size;
	snprintf(m.u.join.mesh_id, sizeof(m.u.join.mesh_id), "%s", c->env.id);
	ret = send_msg(c->ctl, &m, pp_deadline((int)o->timeout_ms));
	/* rank 0 answers when the joining is over */
	deadline = pp_deadline((int)o->mesh_join_s * 1000 + SLACK_MS);
	if (!ret)
		ret = recv_msg(c->ctl, &m, &body, deadline);
	free(body);
	if (!ret && m.type == PP_MESH_REFUSE) {
		fprintf(stderr, "%s: --mesh: rank 0 refused this rank: %s\n",
			o->prog, m.u.text);
		return PP_EXIT_FAIL;
	}
	if (!ret && m.type != PP_MESH_WELCOME)
		ret = EPROTO;
	if (ret) {
		fprintf(stderr,
			"%s: --mesh: rank 0 at %s:%u did not take this rank in: %s\n",
			o->prog, connect_to, o->port, strerror(ret));
		return pp_exit_status(ret);
	}
	c->rank = m.u.welcome.rank;
	c->round_ms = m.u.welcome.round_ms;
	for (;;) {
		ret = recv_msg(
			c->ctl, &m, &body,
			pp_deadline_ms((uint64_t)c->round_ms + SLACK_MS));
		free(body);
		body = NULL;
		if (ret)
			break;
		if (m.type == PP_MESH_END) {
			close(c->ctl);
			return (int)m.u.end.status;
		}
		if (m.type == PP_MESH_RUN) {
			ret = run_pair(c, &m.u.run);
			if (ret)
				break;
		} else if (m.type != PP_MESH_IDLE) {
			ret = EPROTO;
			break;
		}
	}
	close(c->ctl);
	if (ret == ECANCELED) {
		fprintf(stderr, "%s: --mesh: rank %u interrupted by %s\n",
			o->prog, c->rank, pp_signal_name(pp_signal_caught()));
		return PP_EXIT_INTR;
	}
	fprintf(stderr,
		"%s: --mesh: rank %u: rank 0 (%s:%u) is gone (%s): stopping\n",
		o->prog, c->rank, connect_to, o->port,
		ret == ETIMEDOUT ?
			"no word within a round's bound" :
		ret == EHOSTDOWN ?
			"its host stopped answering: TCP gave up after -T" :
		ret == EPROTO ? "a record that is not ours" :
				strerror(ret));
	return PP_EXIT_FAIL;
}

/*
 * A connection whose JOIN has not all come yet: rank 0 reads it as it
 * comes, between everything else, so a connection that sends nothing, or
 * sends it slowly, holds a slot and costs no time.
 */
struct pend {
	int fd;
	int64_t due;  /* closed then, unjoined */
	uint32_t got; /* bytes of the record so far */
	uint32_t len; /* the body's length, once the header is in */
	uint8_t buf[PP_MESH_WIRE_HDR + JOIN_BODY_MAX];
};

/* The coordinator's state. */
struct coord {
	struct pp_opts *o;
	struct pp_mesh_env *env;
	struct pp_mesh_view v;
	int lfd;
	int *fd; /* per rank; -1: none */
	struct pp_mesh_pair *pairs;
	struct pp_mesh_plan plan; /* the selected pairs and their rounds */
	bool interrupted;
	bool joining;	       /* false: the join is over, a JOIN is refused */
	struct pend *pend;     /* slots */
	uint32_t npend, slots; /* connections held, joined or not, at most */
	struct pollfd *pf;     /* the join's: 1 + slots */
	int64_t accept_again;  /* out of descriptors: no accept() before */
	bool lfd_parked;       /* ... and out of the rounds' epoll set */
	int ep;		       /* the rounds' epoll set; -1: none */
	bool told_short;       /* ... and rank 0 said so */
	uint32_t next_any;     /* no launcher: the next rank to give */
	uint32_t foreign;      /* JOINs of another mesh refused */
	char foreign_first[PP_MESH_TEXT_MAX];
};

/* "10.0.0.2" from a connection, loopback as rank 0's host. */
static void peer_host(int fd, const char *root, char *out, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN];
	const char *h = host;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), NULL, 0,
			NI_NUMERICHOST)) {
		snprintf(out, len, "%s", root);
		return;
	}
	if (!strncmp(h, "::ffff:", 7) && strchr(h + 7, '.'))
		h += 7;
	if (!strncmp(h, "127.", 4) || !strcmp(h, "::1"))
		h = root; /* rank 0's own host, as the others name it */
	snprintf(out, len, "%s", h);
}

/* Say why, and close. */
static void refuse(int fd, struct pp_mesh_msg *m)
{
	m->type = PP_MESH_REFUSE;
	send_msg(fd, m, pp_deadline(1000));
	close(fd);
}

/* One JOIN, read whole: its rank, or a refusal. */
static void take_join(struct coord *c, int fd, struct pp_mesh_msg *m)
{
	uint32_t rank;

	if (strcmp(m->u.join.mesh_id, c->env->id)) {
		char who[INET6_ADDRSTRLEN + 8];

		peer_host(fd, "this host", who, sizeof(who));
		if (!c->foreign++)
			snprintf(c->foreign_first, sizeof(c->foreign_first),
				 "mesh '%.120s' from %s", m->u.join.mesh_id,
				 who);
		snprintf(
			m->u.text, sizeof(m->u.text),
			"it belongs to mesh '%.120s', rank 0 runs mesh '%.120s' (two meshes on one port: give one of them another -p)",
			m->u.join.mesh_id, c->env->id);
		refuse(fd, m);
		return;
	}
	if (!c->joining) {
		snprintf(
			m->u.text, sizeof(m->u.text),
			"the join is over (--mesh-join %u s, or every rank came): the mesh has begun without this rank",
			c->o->mesh_join_s);
		refuse(fd, m);
		return;
	}
	if (m->u.join.size != c->v.n) {
		snprintf(
			m->u.text, sizeof(m->u.text),
			"it says %u ranks, rank 0 has %u (give every rank the same --mesh-size)",
			m->u.join.size, c->v.n);
		refuse(fd, m);
		return;
	}
	if (m->u.join.tool != c->o->tool ||
	    m->u.join.transport != c->o->transport) {
		snprintf(
			m->u.text, sizeof(m->u.text),
			"it runs %s (%s), rank 0 %s (%s): start every rank with the same tool and transport",
			pp_tool_name((enum pp_tool)m->u.join.tool),
			pp_transport_name(
				(enum pp_transport)m->u.join.transport),
			pp_tool_name(c->o->tool),
			pp_transport_name(c->o->transport));
		refuse(fd, m);
		return;
	}
	rank = m->u.join.want_rank;
	if (rank == PP_MESH_RANK_ANY) {
		while (c->next_any < c->v.n && c->v.ranks[c->next_any].joined)
			c->next_any++;
		rank = c->next_any;
	}
	if (rank >= c->v.n || c->v.ranks[rank].joined) {
		snprintf(
			m->u.text, sizeof(m->u.text),
			"rank %u has joined already, or is not one of the %u ranks",
			rank, c->v.n);
		refuse(fd, m);
		return;
	}
	/* a host that dies silently is named within -T, not at the bound */
	(void)pp_sock_silent_peer(fd, c->o->timeout_ms);
	c->v.ranks[rank].joined = true;
	c->v.ranks[rank].facts = m->u.join;
	c->v.ranks[rank].local = m->u.join.local;
	peer_host(fd, c->env->root, c->v.ranks[rank].addr,
		  sizeof(c->v.ranks[rank].addr));
	c->fd[rank] = fd;
	c->v.joined++;
}

/* Close waiting connection @k (the last one takes its place). */
static void pend_drop(struct coord *c, uint32_t k)
{
	close(c->pend[k].fd);
	c->pend[k] = c->pend[--c->npend];
}

/*
 * Accept what waits on the listening socket.  A connection waits at most
 * until @due for its JOIN (a rank sends it once it has read its facts).
 * Rank 0 holds at most c->slots connections, joined or waiting: every
 * rank's and STRAYS more; past that the one that has waited longest makes
 * room.  Out of descriptors: no accept() for 100 ms, instead of a loop of
 * failing ones, and one line says so.
 */
static void accept_new(struct coord *c, int64_t due)
{
	uint32_t k, oldest;
	int fd, err;

	for (;;) {
		err = pp_sock_accept_ready(c->lfd, &fd);
		if (err == EAGAIN)
			return; /* nothing left, or a client gone */
		if (err) {
			c->accept_again = pp_now_ns() + 100 * 1000000LL;
			if (!c->told_short &&
			    pp_sock_accept_retry(err) == PP_ACCEPT_BACK_OFF) {
				struct rlimit rl = { 0 };

				getrlimit(RLIMIT_NOFILE, &rl);
				fprintf(stderr,
					"%s: --mesh: rank 0 cannot take more connections: %s (open files: soft limit %llu, hard %llu; raise them with ulimit -n)\n",
					c->o->prog, strerror(err),
					(unsigned long long)rl.rlim_cur,
					(unsigned long long)rl.rlim_max);
				c->told_short = true;
			}
			return;
		}
		if (c->npend && c->npend + c->v.joined >= c->slots) {
			for (k = 1, oldest = 0; k < c->npend; k++)
				if (c->pend[k].due < c->pend[oldest].due)
					oldest = k;
			pend_drop(c, oldest);
		}
		c->pend[c->npend++] = (struct pend){ .fd = fd, .due = due };
	}
}

/*
 * Read what waiting connection @k has sent.  A record that is not a JOIN
 * of ours, or a connection closed, is dropped; a whole JOIN is taken.
 * Return: true when @k left the queue.
 */
static bool pend_read(struct coord *c, uint32_t k)
{
	struct pend *p = &c->pend[k];
	uint32_t need = PP_MESH_WIRE_HDR + p->len;
	struct pp_mesh_msg m;
	uint16_t type;
	ssize_t n;
	int fd;

	n = read(p->fd, p->buf + p->got, need - p->got);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return false;
	if (n <= 0)
		goto drop;
	p->got += (uint32_t)n;
	if (p->got < need)
		return false;
	if (p->got == PP_MESH_WIRE_HDR) {
		if (pp_mesh_wire_header(p->buf, &type, &p->len) ||
		    type != PP_MESH_JOIN || p->len > JOIN_BODY_MAX)
			goto drop; /* not one of ours */
		if (p->len)
			return false;
	}
	if (pp_mesh_wire_decode(PP_MESH_JOIN, p->buf + PP_MESH_WIRE_HDR, p->len,
				&m))
		goto drop;
	fd = p->fd;
	c->pend[k] = c->pend[--c->npend];
	take_join(c, fd, &m);
	return true;
drop:
	pend_drop(c, k);
	return true;
}

/*
 * The waiting connections and the listening socket, as the first
 * entries of c->pf (the listening socket only while @accept and not
 * backing off).  Return: how many.
 */
static nfds_t joinq_fds(struct coord *c, bool accept, int64_t now)
{
	nfds_t n = 0;
	uint32_t k;

	c->pf[n++] = (struct pollfd){
		.fd = accept && now >= c->accept_again ? c->lfd : -1,
		.events = POLLIN,
	};
	for (k = 0; k < c->npend; k++)
		c->pf[n++] = (struct pollfd){ .fd = c->pend[k].fd,
					      .events = POLLIN };
	return n;
}

/* The earliest of @wake, a waiting connection's due and the back-off. */
static int64_t joinq_wake(const struct coord *c, int64_t wake)
{
	uint32_t k;

	for (k = 0; k < c->npend; k++)
		if (c->pend[k].due < wake)
			wake = c->pend[k].due;
	if (c->accept_again > pp_now_ns() && c->accept_again < wake)
		wake = c->accept_again;
	return wake;
}

/*
 * After a poll of joinq_fds()'s @n entries: read the waiting connections
 * (from the last, so that one leaving moves none not yet seen), drop those
 * past their due, then accept the new ones (waiting until @due at most).
 */
static void joinq_serve(struct coord *c, nfds_t n, int64_t due)
{
	int64_t now = pp_now_ns();
	uint32_t k;

	for (k = (uint32_t)n - 1; k >= 1; k--)
		if (c->pf[k].revents)
			pend_read(c, k - 1);
	for (k = c->npend; k-- > 0;)
		if (c->pend[k].due <= now)
			pend_drop(c, k);
	if (c->pf[0].fd >= 0 && c->pf[0].revents)
		accept_new(c, due);
}

/*
 * Wait for the ranks until all joined or --mesh-join passed.  Every
 * connection is read as it comes, so none holds up the others.  At the
 * deadline the connections already waiting in the backlog are taken, and
 * those whose JOIN is still coming get JOIN_SLACK_MS more; then the join
 * is over.
 */
static void join_phase(struct coord *c)
{
	int64_t deadline = pp_deadline_ms((uint64_t)c->o->mesh_join_s * 1000);
	int64_t end = deadline + JOIN_SLACK_MS * 1000000LL, now, due, wake;
	/* a rank sends JOIN once it has read its facts: -T and 2 s */
	uint64_t wait_ms = (uint64_t)c->o->timeout_ms + PIPE_MS + 1000;
	bool last = false;
	struct pp_mesh_msg m;
	int ready, ret;
	uint32_t i;
	nfds_t n;

	c->joining = true;
	while (c->v.joined < c->v.n) {
		now = pp_now_ns();
		if (now >= deadline && !last) {
			last = true;
			accept_new(c, end);
		}
		if (last && (!c->npend || now >= end))
			break;
		due = pp_deadline_ms(wait_ms);
		if (due > end)
			due = end;
		n = joinq_fds(c, !last, now);
		wake = joinq_wake(c, last ? end : deadline);
		ret = pp_sock_poll(c->pf, n, wake, &ready);
		if (ret == ECANCELED) {
			c->interrupted = true;
			break;
		}
		if (ret)
			break;
		joinq_serve(c, n, due);
	}
	c->joining = false;
	/* the rest: told why, not left to time out */
	m = (struct pp_mesh_msg){ .type = PP_MESH_REFUSE };
	snprintf(
		m.u.text, sizeof(m.u.text),
		"the join is over (--mesh-join %u s, or every rank came): the mesh has begun without this rank",
		c->o->mesh_join_s);
	while (c->npend) {
		refuse(c->pend[0].fd, &m);
		c->pend[0] = c->pend[--c->npend];
	}
	for (i = 0; i < c->v.n; i++)
		if (!c->v.ranks[i].joined)
			snprintf(c->v.ranks[i].gone_why,
				 sizeof(c->v.ranks[i].gone_why),
				 "the join deadline, --mesh-join %u s",
				 c->o->mesh_join_s);
}

/* Rank 0 refused ranks of another mesh: one line, not one per rank. */
static void tell_foreign(struct coord *c)
{
	if (!c->foreign)
		return;
	fprintf(stderr,
		"%s: --mesh: rank 0 refused %u rank%s of another mesh (the first: %s); this mesh is '%s'\n",
		c->o->prog, c->foreign, c->foreign == 1 ? "" : "s",
		c->foreign_first, c->env->id);
	c->foreign = 0;
}

static bool alive(const struct coord *c, uint32_t r)
{
	return c->v.ranks[r].joined && !c->v.ranks[r].gone;
}

/* Rank @r is gone: say why (rounds count from 1 in what is printed). */
__attribute__((format(printf, 3, 4))) static void
rank_gone(struct coord *c, uint32_t r, const char *fmt, ...)
{
	struct pp_mesh_rank *k = &c->v.ranks[r];
	va_list ap;

	if (k->gone)
		return;
	k->gone = true;
	va_start(ap, fmt);
	vsnprintf(k->gone_why, sizeof(k->gone_why), fmt, ap);
	va_end(ap);
	if (c->fd[r] >= 0)
		close(c->fd[r]);
	c->fd[r] = -1;
}

/*
 * A pair's token: its server takes only the client that shows it, so a
 * stray client on the pair's port (another mesh's, a late one) cannot take
 * the peer's place.  Not a secret against someone who reads the traffic.
 * One random key per round (one getrandom() call, not one per pair), mixed
 * with the pair's place in the round by splitmix64's finalizer: distinct
 * inputs give distinct tokens.
 */
static uint64_t round_key(void)
{
	uint64_t t = 0;

	if (getrandom(&t, sizeof(t), GRND_NONBLOCK) != (ssize_t)sizeof(t))
		t = (uint64_t)pp_now_ns() * 0x9e3779b97f4a7c15ULL ^
		    (uint64_t)getpid();
	return t;
}

static uint64_t pair_token(uint64_t key, uint32_t k)
{
	uint64_t z = key + ((uint64_t)k + 1) * 0x9e3779b97f4a7c15ULL;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return z ? z : 1; /* 0 means none */
}

/* Send RUN (or for the ranks without a pair, IDLE) for @np pairs. */
static void start_pairs(struct coord *c, const struct pp_mesh_pair *p,
			uint32_t np, uint32_t round, int32_t *peer_of)
{
	struct pp_mesh_msg m;
	uint32_t i, k, side;
	uint64_t key = round_key(), token;

	for (i = 0; i < c->v.n; i++)
		peer_of[i] = -1;
	for (k = 0; k < np; k++) {
		struct pp_mesh_cell *cell =
			&c->v.cells[pp_mesh_pair_index(c->v.n, p[k].a, p[k].b)];

		cell->round = round;
		for (side = 0; side < 2; side++) {
			uint32_t r = side ? p[k].b : p[k].a;

			if (!c->v.ranks[r].joined) {
				cell->code = PP_MESH_ABSENT;
				pp_mesh_view_why(&c->v, p[k].a, p[k].b,
						 "rank %u never joined", r);
			} else if (c->v.ranks[r].gone &&
				   !pp_mesh_view_has_why(&c->v, p[k].a,
							 p[k].b)) {
				cell->code = PP_MESH_GONE;
				pp_mesh_view_why(
					&c->v, p[k].a, p[k].b,
					"rank %u was gone before this pair's round",
					r);
			}
		}
		if (cell->code != PP_MESH_OK) {
			pp_mesh_view_settle(&c->v, p[k].a, p[k].b);
			continue;
		}
		cell->ran = true;
		token = pair_token(key, k);
		for (side = 0; side < 2; side++) {
			uint32_t r = side ? p[k].b : p[k].a;
			uint32_t peer = side ? p[k].a : p[k].b;

			m = (struct pp_mesh_msg){ .type = PP_MESH_RUN };
			m.u.run = (struct pp_mesh_run){
				.round = round,
				.peer = peer,
				.role = (uint8_t)(side |
						  (c->o->json ?
							   PP_MESH_ROLE_DOC :
							   0)),
				.port = c->o->port + 1 + p[k].a,
				.pair_ms = c->v.pair_ms,
				.token = token,
			};
			snprintf(m.u.run.peer_host, sizeof(m.u.run.peer_host),
				 "%s", c->v.ranks[peer].addr);
			if (send_msg(c->fd[r], &m, pp_deadline(SLACK_MS)))
				rank_gone(
					c, r,
					"its connection to rank 0 failed in round %u",
					round + 1);
			else
				peer_of[r] = (int32_t)peer;
		}
	}
	for (i = 0; i < c->v.n; i++) {
		if (!alive(c, i) || peer_of[i] >= 0)
			continue;
		m = (struct pp_mesh_msg){ .type = PP_MESH_IDLE };
		m.u.round = round;
		if (send_msg(c->fd[i], &m, pp_deadline(SLACK_MS)))
			rank_gone(c, i,
				  "its connection to rank 0 failed in round %u",
				  round + 1);
	}
}

#define TAG_LISTEN UINT32_MAX /* epoll: the listening socket */
#define TAG_PEND 0x80000000U  /* epoll: a connection joining late, | fd */

/* Add @fd to the rounds' epoll set with @tag; a failure leaves it out. */
static void watch(struct coord *c, int fd, uint32_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = tag };

	(void)epoll_ctl(c->ep, EPOLL_CTL_ADD, fd, &ev);
}

/*
 * The rounds' epoll set: every rank's connection (its rank as the tag)
 * and the listening socket.  A closed descriptor leaves the set by itself.
 * Return: 0 or errno.
 */
static int rounds_watch(struct coord *c)
{
	uint32_t i;

	c->ep = epoll_create1(EPOLL_CLOEXEC);
	if (c->ep < 0)
		return errno;
	for (i = 0; i < c->v.n; i++)
		if (c->fd[i] >= 0)
			watch(c, c->fd[i], i);
	watch(c, c->lfd, TAG_LISTEN);
	return 0;
}

/*
 * The listening socket during the rounds: a late rank, or one of another
 * mesh, is read and told so (take_join() refuses it) instead of waiting
 * in the backlog.  Out of descriptors, it leaves the set until the
 * back-off has passed, so that nothing spins.
 */
static void rounds_accept(struct coord *c, bool readable)
{
	uint32_t k = c->npend;

	if (c->lfd_parked && pp_now_ns() >= c->accept_again) {
		c->lfd_parked = false;
		watch(c, c->lfd, TAG_LISTEN);
	}
	if (!readable)
		return;
	accept_new(c, pp_deadline((int)c->o->timeout_ms));
	for (; k < c->npend; k++)
		watch(c, c->pend[k].fd, TAG_PEND | (uint32_t)c->pend[k].fd);
	if (c->accept_again > pp_now_ns() && !c->lfd_parked) {
		(void)epoll_ctl(c->ep, EPOLL_CTL_DEL, c->lfd, NULL);
		c->lfd_parked = true;
	}
}

/* A connection joining late has something to read. */
static void rounds_pend(struct coord *c, int fd)
{
	uint32_t k;

	for (k = 0; k < c->npend; k++)
		if (c->pend[k].fd == fd) {
			pend_read(c, k);
			return;
		}
}

/* Rank @r's connection is readable in round @round: its RESULT, or why not. */
static void rounds_rank(struct coord *c, uint32_t r, uint32_t round,
			int32_t *peer_of, uint32_t *left)
{
	struct pp_mesh_msg m;
	uint8_t *body;
	int ret;

	if (!alive(c, r))
		return;
	ret = recv_msg(c->fd[r], &m, &body, pp_deadline(SLACK_MS));
	if (!ret && (peer_of[r] < 0 || m.type != PP_MESH_RESULT ||
		     m.u.result.round != round ||
		     m.u.result.peer != (uint32_t)peer_of[r]))
		ret = EPROTO; /* a record out of turn */
	if (!ret)
		pp_mesh_view_side(&c->v, r, (uint32_t)peer_of[r], &m.u.result);
	else if (ret == ECONNRESET)
		rank_gone(
			c, r,
			"its connection to rank 0 closed in round %u (it died or was stopped)",
			round + 1);
	else if (ret == EHOSTDOWN)
		rank_gone(
			c, r,
			"its host stopped answering rank 0 in round %u (TCP gave up after -T, %u ms)",
			round + 1, c->o->timeout_ms);
	else
		rank_gone(c, r, "it sent rank 0 a bad record in round %u",
			  round + 1);
	free(body);
	if (peer_of[r] >= 0) {
		peer_of[r] = -1;
		(*left)--;
	}
}

/*
 * Wait for the RESULT of every rank that runs a pair, until the bound: one
 * epoll set over every rank, so a wake costs what is ready, not N.
 */
static void collect(struct coord *c, uint32_t round, int32_t *peer_of)
{
	int64_t deadline = pp_deadline_ms((uint64_t)c->v.pair_ms + SLACK_MS);
	struct epoll_event ev[64];
	uint32_t i, k, left = 0;
	int ready;

	for (i = 0; i < c->v.n; i++)
		if (peer_of[i] >= 0 && alive(c, i))
			left++;
	while (left && pp_now_ns() < deadline) {
		rounds_accept(c, false);
		if (pp_sock_epoll_wait(c->ep, ev, 64, joinq_wake(c, deadline),
				       &ready))
			break;
		for (k = 0; k < (uint32_t)ready; k++) {
			uint32_t tag = ev[k].data.u32;

			if (tag == TAG_LISTEN)
				rounds_accept(c, true);
			else if (tag & TAG_PEND)
				rounds_pend(c, (int)(tag & ~TAG_PEND));
			else if (tag < c->v.n)
				rounds_rank(c, tag, round, peer_of, &left);
		}
		for (k = c->npend; k-- > 0;)
			if (c->pend[k].due <= pp_now_ns())
				pend_drop(c, k);
	}
	if (pp_signal_caught())
		c->interrupted = true;
	for (i = 0; i < c->v.n; i++)
		if (peer_of[i] >= 0 && alive(c, i) && !c->interrupted)
			rank_gone(
				c, i,
				"no result within its pair's bound in round %u: it stopped answering",
				round + 1);
}

/* One step: the pairs @p run at once, and their cells settled. */
static void run_step(struct coord *c, const struct pp_mesh_pair *p, uint32_t np,
		     uint32_t round)
{
	int32_t *peer_of = calloc(c->v.n, sizeof(*peer_of));
	uint32_t k;

	if (!peer_of) {
		c->interrupted = true;
		return;
	}
	start_pairs(c, p, np, round, peer_of);
	collect(c, round, peer_of);
	for (k = 0; k < np; k++) {
		struct pp_mesh_cell *cell =
			&c->v.cells[pp_mesh_pair_index(c->v.n, p[k].a, p[k].b)];

		if (cell->ran)
			pp_mesh_view_settle(&c->v, p[k].a, p[k].b);
	}
	free(peer_of);
}

/*
 * A pair's bound: its steps' -T, the run, and the exchange of DONE.  An
 * iteration is allowed 1 ms and its bytes (a message each way) at 100
 * MB/s, so that a large -s on a healthy link is not cut.
 */
uint32_t pp_mesh_pair_bound_ms(const struct pp_opts *o)
{
	uint64_t sizes = 1, bytes = 2 * o->size, run_ms;

	if (o->sweep) {
		sizes = 24; /* pp_sweep_sizes(): up to 8 MiB */
		bytes = 2 * 2 * (8ULL << 20); /* their sum, at most */
	}
	if (o->duration_s)
		run_ms = (uint64_t)o->duration_s * 1000 * sizes;
	else
		run_ms = (o->iters + o->warmup) *
			 (SWEEP_ALLOW_MS * sizes + bytes / FLOOR_BYTES_PER_MS);
	run_ms += 6ULL * o->timeout_ms; /* accept, HELLO, ADDRS, READY, DONE */
	return run_ms > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)run_ms;
}

static void describe_run(const struct pp_opts *o, char *buf, size_t len)
{
	if (o->duration_s)
		snprintf(buf, len, "%s, %llu bytes, %u s per pair",
			 pp_op_name(o->op), (unsigned long long)o->size,
			 (unsigned)o->duration_s);
	else
		snprintf(buf, len, "%s, %llu bytes, %llu iterations",
			 pp_op_name(o->op), (unsigned long long)o->size,
			 (unsigned long long)o->iters);
}

/* Tell every rank still there that the mesh is over. */
static void end_all(struct coord *c, int status, const char *text)
{
	struct pp_mesh_msg m = { .type = PP_MESH_END };
	uint32_t i;

	m.u.end.status = (uint32_t)status;
	snprintf(m.u.end.text, sizeof(m.u.end.text), "%s", text);
	for (i = 0; i < c->v.n; i++) {
		if (c->fd[i] < 0)
			continue;
		send_msg(c->fd[i], &m, pp_deadline(1000));
		close(c->fd[i]);
		c->fd[i] = -1;
	}
}

static void run_rounds(struct coord *c)
{
	uint32_t r, k, np, step = 0;

	for (r = 0; r < c->plan.rounds && !c->interrupted; r++) {
		np = pp_mesh_plan_round(&c->plan, r, c->pairs);
		if (!c->o->mesh_serial) {
			run_step(c, c->pairs, np, step++);
			continue;
		}
		for (k = 0; k < np && !c->interrupted; k++)
			run_step(c, &c->pairs[k], 1, step++);
	}
}

static int by_host(const void *x, const void *y)
{
	const struct pp_mesh_rank *const *a = x, *const *b = y;

	return strcmp((*a)->facts.host, (*b)->facts.host);
}

/*
 * The plan of --mesh-pairs over the ranks that joined (a host id per host
 * name), and the pairs it leaves out marked in the matrix.  Return: 0 or
 * ENOMEM.
 */
static int make_plan(struct coord *c)
{
	struct pp_mesh_view *v = &c->v;
	enum pp_mesh_pairs mode = c->o->mesh_pairs;
	const struct pp_mesh_rank **by = calloc(v->n, sizeof(*by));
	uint32_t *host = calloc(v->n, sizeof(*host));
	uint32_t *local = calloc(v->n, sizeof(*local));
	uint32_t i, b, k = 0, id = 0;
	int ret = ENOMEM;

	if (mode == PP_MESH_PAIRS_DEFAULT)
		mode = pp_mesh_dev_is_list(c->o->ib_devname) ?
			       PP_MESH_PAIRS_RAIL :
			       PP_MESH_PAIRS_ALL;
	if (!by || !host || !local)
		goto out;
	for (i = 0; i < v->n; i++) {
		host[i] = PP_MESH_HOST_NONE;
		local[i] = v->ranks[i].local;
		if (v->ranks[i].joined)
			by[k++] = &v->ranks[i];
	}
	/* one id per host name: sorted, equal names are neighbours */
	qsort(by, k, sizeof(*by), by_host);
	for (i = 0; i < k; i++) {
		if (i && strcmp(by[i]->facts.host, by[i - 1]->facts.host))
			id++;
		host[by[i] - v->ranks] = id;
	}
	ret = pp_mesh_plan_make(&c->plan, mode, v->n, host, local);
	if (ret)
		goto out;
	v->pairs = mode;
	v->selected = c->plan.selected;
	for (i = 0; mode != PP_MESH_PAIRS_ALL && i < v->n; i++)
		for (b = i + 1; b < v->n; b++)
			if (!pp_mesh_plan_selected(&c->plan, i, b))
				pp_mesh_view_unselect(v, i, b);
out:
	free(by);
	free(host);
	free(local);
	return ret;
}

static int coordinate(struct coord *c, pid_t own)
{
	struct pp_opts *o = c->o;
	struct pp_mesh_view *v = &c->v;
	FILE *info = o->json ? stderr : stdout;
	uint32_t np = v->n / 2, i, b;
	size_t npairs = (size_t)v->n * (v->n - 1) / 2;
	char what[128];
	int64_t t0 = pp_now_ns();
	int ret = 0;

	describe_run(o, what, sizeof(what));
	v->what = what;
	join_phase(c);
	if (make_plan(c)) {
		fprintf(stderr, "%s: --mesh: out of memory\n", o->prog);
		c->interrupted = true;
	}
	v->rounds = o->mesh_serial ? (uint32_t)v->selected : c->plan.rounds;
	v->bound_s = (double)v->rounds * (v->pair_ms + SLACK_MS) / 1000 +
		     (pp_now_ns() - t0) / 1e9;
	for (i = 0; i < v->n; i++) {
		struct pp_mesh_msg m = { .type = PP_MESH_WELCOME };

		if (c->fd[i] < 0)
			continue;
		m.u.welcome = (struct pp_mesh_welcome){
			.rank = i,
			.size = v->n,
			.pair_ms = v->pair_ms,
			.round_ms = v->pair_ms + SLACK_MS,
		};
		if (send_msg(c->fd[i], &m, pp_deadline(SLACK_MS)))
			rank_gone(
				c, i,
				"its connection to rank 0 failed before round %u",
				1);
	}
	for (i = 0, v->joined = 0; i < v->n; i++)
		v->joined += v->ranks[i].joined;
	fprintf(info,
		"mesh: %u of %u ranks joined (%s); %s pairs: %llu of %llu; %u %s of up to %u pairs at once (%s), each pair at most %.0f s: at most %.0f s in all\n",
		v->joined, v->n, pp_mesh_launcher_name(c->env->launcher),
		pp_mesh_pairs_name(v->pairs), (unsigned long long)v->selected,
		(unsigned long long)npairs, v->rounds,
		o->mesh_serial ? "pairs one at a time" : "rounds",
		o->mesh_serial ? 1 : np, what, v->pair_ms / 1000.0, v->bound_s);
	fflush(info);
	tell_foreign(c);
	if (o->json && pp_mesh_view_begin_json(v, stdout))
		fprintf(stderr, "%s: --mesh: cannot write the document: %s\n",
			o->prog, strerror(errno));
	if (!c->interrupted && rounds_watch(c)) {
		fprintf(stderr, "%s: --mesh: epoll: %s\n", o->prog,
			strerror(errno));
		c->interrupted = true;
	}
	if (!c->interrupted)
		run_rounds(c);
	tell_foreign(c);
	if (c->interrupted)
		v->stopped = pp_signal_caught() == SIGTERM ?
				     "rank 0 was interrupted by SIGTERM" :
				     "rank 0 was interrupted by SIGINT";
	for (i = 0; i < v->n; i++)
		for (b = i + 1; b < v->n; b++) {
			struct pp_mesh_cell *cell =
				&v->cells[pp_mesh_pair_index(v->n, i, b)];

			if (cell->ran || cell->unsel ||
			    cell->code != PP_MESH_OK)
				continue;
			cell->code = PP_MESH_TIMEOUT;
			pp_mesh_view_why(v, i, b,
					 "not run: the mesh was stopped");
			pp_mesh_view_settle(v, i, b);
		}
	v->elapsed_s = (pp_now_ns() - t0) / 1e9;
	if (pp_mesh_view_judge(v)) {
		fprintf(stderr, "%s: --mesh: out of memory\n", o->prog);
		ret = PP_EXIT_FAIL;
	}
	end_all(c, ret ? ret : v->exit_status,
		v->stopped ? v->stopped : "the mesh is over");
	reap_within(own, SLACK_MS);
	if (ret)
		return ret;
	if (o->json)
		pp_mesh_view_end_json(v);
	else
		pp_mesh_print_text(v, stdout);
	if (o->mesh_svg) {
		FILE *f = fopen(o->mesh_svg, "w");

		if (!f || pp_mesh_write_svg(v, f)) {
			fprintf(stderr,
				"%s: --mesh-svg: cannot write %s: %s (give a writable path)\n",
				o->prog, o->mesh_svg, strerror(errno));
			v->exit_status = PP_EXIT_FAIL;
		}
		if (f)
			fclose(f);
	}
	if (o->mesh_prom) {
		struct pp_err err = { .msg = "" };
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		if (pp_mesh_prom_save(
			    v, c->interrupted ? PP_EXIT_INTR : v->exit_status,
			    now.tv_sec + now.tv_nsec / 1e9, o->mesh_prom,
			    &err)) {
			fprintf(stderr,
				"%s: --mesh-prom: %s (give a writable path)\n",
				o->prog, err.msg);
			v->exit_status = PP_EXIT_FAIL;
		}
	}
	if (c->interrupted)
		return PP_EXIT_INTR;
	return v->exit_status;
}

/* Is @host one of this host's addresses (a socket can bind to it)? */
static bool host_is_local(const char *host)
{
	struct addrinfo hints = { .ai_socktype = SOCK_DGRAM }, *res, *a;
	bool local = false;

	if (getaddrinfo(host, NULL, &hints, &res))
		return false;
	for (a = res; a && !local; a = a->ai_next) {
		int fd = socket(a->ai_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			continue;
		local = !bind(fd, a->ai_addr, a->ai_addrlen);
		close(fd);
	}
	freeaddrinfo(res);
	return local;
}

/*
 * Rank 0 holds one connection per rank, and a few for connections still
 * joining: a soft limit of 1024 descriptors (the usual default) would stop
 * a mesh of 1,000 ranks.  Raise it to the hard limit when it is short;
 * still short, say so before anyone joins.  Return: how many connections
 * rank 0 may hold, joined or waiting for their JOIN (at least @n), or 0
 * after the line.
 */
static uint32_t fit_fd_limit(const struct pp_opts *o, uint32_t n)
{
	rlim_t need = (rlim_t)n + FD_SPARE;
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1;
	if (rl.rlim_cur < need + STRAYS && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need + STRAYS)
		return n + STRAYS;
	if (rl.rlim_cur >= need)
		return (uint32_t)(rl.rlim_cur - FD_SPARE);
	fprintf(stderr,
		"%s: --mesh: rank 0 needs a descriptor per rank: %u ranks need %llu open files, and its limit is %llu (soft) and %llu (hard): raise it (ulimit -n %llu) or run at most %llu ranks\n",
		o->prog, n, (unsigned long long)need,
		(unsigned long long)rl.rlim_cur,
		(unsigned long long)rl.rlim_max, (unsigned long long)need,
		rl.rlim_cur > FD_SPARE ?
			(unsigned long long)(rl.rlim_cur - FD_SPARE) :
			0ULL);
	return 0;
}

/* Rank 0: listen, fork rank 0's own worker, coordinate. */
static int root_main(struct rank_ctx *rc, int lfd)
{
	struct coord c = { .o = rc->o,
			   .env = &rc->env,
			   .lfd = lfd,
			   .ep = -1,
			   .next_any = rc->env.launcher == PP_MESH_NONE ?
					       1 :
					       rc->env.size };
	size_t npairs = (size_t)rc->env.size * (rc->env.size - 1) / 2;
	struct pp_err err = { .msg = "" };
	pid_t own;
	uint32_t i;
	int ret;

	c.v = (struct pp_mesh_view){
		.tool = pp_tool_name(rc->o->tool),
		.transport = pp_transport_name(rc->o->transport),
		.mesh_id = rc->env.id,
		.launcher = rc->env.launcher,
		.root = rc->env.root,
		.port = rc->o->port,
		.n = rc->env.size,
		.serial = rc->o->mesh_serial,
		.pair_ms = pp_mesh_pair_bound_ms(rc->o),
		.expect_mtu = rc->o->expect_mtu,
		.asked_mtu = rc->o->mtu,
		.max_rtt_us = rc->o->max_rtt_us,
		/* the cell's median is the client's, of the first size */
		.rtt_size = rc->o->sweep ? 1 : rc->o->size,
	};
	/* an unwritable --mesh-prom is said before anyone joins */
	if (rc->o->mesh_prom && pp_mesh_prom_check(rc->o->mesh_prom, &err)) {
		fprintf(stderr, "%s: --mesh-prom: %s (give a writable path)\n",
			rc->o->prog, err.msg);
		ret = PP_EXIT_FAIL;
		goto out;
	}
	c.v.ranks = calloc(c.v.n, sizeof(*c.v.ranks));
	c.v.cells = calloc(npairs, sizeof(*c.v.cells));
	c.fd = calloc(c.v.n, sizeof(*c.fd));
	c.pairs = calloc(c.v.n / 2 + 1, sizeof(*c.pairs));
	c.slots = fit_fd_limit(rc->o, c.v.n);
	if (!c.slots) {
		ret = PP_EXIT_FAIL;
		goto out;
	}
	c.pend = calloc(c.slots, sizeof(*c.pend));
	c.pf = calloc(1 + c.slots, sizeof(*c.pf));
	if (!c.v.ranks || !c.v.cells || !c.fd || !c.pairs || !c.pend || !c.pf) {
		fprintf(stderr, "%s: --mesh: out of memory\n", rc->o->prog);
		ret = PP_EXIT_FAIL;
		goto out;
	}
	for (i = 0; i < c.v.n; i++)
		c.fd[i] = -1;
	for (i = 0; i < npairs; i++)
		c.v.cells[i].median_us = NAN;
	fflush(stdout);
	fflush(stderr);
	own = fork();
	if (own == 0) {
		close(lfd);
		rc->env.rank = 0;
		_exit(worker(rc, rc->env.root));
	}
	if (own < 0) {
		fprintf(stderr, "%s: --mesh: fork: %s\n", rc->o->prog,
			strerror(errno));
		ret = PP_EXIT_FAIL;
		goto out;
	}
	ret = coordinate(&c, own);
out:
	close(lfd);
	pp_mesh_view_free(&c.v);
	free(c.v.ranks);
	free(c.v.cells);
	free(c.fd);
	free(c.pairs);
	free(c.pend);
	free(c.pf);
	pp_mesh_plan_free(&c.plan);
	if (c.ep >= 0)
		close(c.ep);
	return ret;
}

int pp_mesh_main(struct pp_opts *o)
{
	struct rank_ctx rc = { .o = o, .ctl = -1, .claim = -1 };
	struct pp_err err = { .msg = "" };
	int lfd = -1, ret;
	bool root;

	/*
	 * Ranks of one host run their pairs at once: pinned by the one rule
	 * they would pile on one CPU, so a mesh (its pairs and its facts)
	 * pins only when --cpu says so.
	 */
	if (!(o->set & PP_OPT_BIT(PP_OPT_CPU)))
		o->cpu_spec = "none";
	ret = pp_mesh_env_read(env_get, NULL, o->mesh_size, o->mesh_root,
			       o->mesh_id, o->port, &rc.env, &err);
	if (ret) {
		fprintf(stderr, "%s: %s\n", o->prog, err.msg);
		return PP_EXIT_USAGE;
	}
	if (rc.env.launcher != PP_MESH_NONE) {
		root = rc.env.rank == 0;
		if (root)
			ret = pp_sock_listen(NULL, o->port, &lfd, &err);
	} else {
		/* the first process on rank 0's host to take the port */
		root = host_is_local(rc.env.root) &&
		       !pp_sock_listen(NULL, o->port, &lfd, &err);
		pp_err_clear(&err);
	}
	if (ret) {
		fprintf(stderr, "%s: --mesh: rank 0 cannot listen: %s\n",
			o->prog, err.msg);
		return PP_EXIT_FAIL;
	}
	if (root)
		return root_main(&rc, lfd);
	return worker(&rc, rc.env.root);
}
