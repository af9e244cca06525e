// SPDX-License-Identifier: MIT
/*
 * pp_doc.c - the --json document of one run (docs/measurement.md, schema 1).
 *
 * Everything comes from the session as it stands, so a run that failed at
 * any step still gets a document: what is not known yet is null.
 */
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "pp_clock.h"
#include "pp_gid.h"
#include "pp_hist.h"
#include "pp_json.h"
#include "pp_report.h"
#include "pp_run_rec.h"
#include "pp_doc.h"
#include "pp_version.h"

#ifndef PP_VERSION
#define PP_VERSION "unknown"
#endif

#define PP_DOC_SCHEMA 1

/* A version string of pp_version_get(), or null where it is unknown. */
static void key_version(struct pp_json *j, const char *key, const char *v)
{
	pp_json_key_string_or_null(j, key,
				   strcmp(v, PP_VERSION_UNKNOWN) ? v : NULL);
}

/* "software": the git commit and the libibverbs versions (pp_version.h). */
static void write_software(struct pp_json *j)
{
	struct pp_version v;

	pp_version_get(&v);
	pp_json_key(j, "software");
	pp_json_begin_object(j);
	key_version(j, "git", v.git);
	key_version(j, "libibverbs", v.ibverbs);
	key_version(j, "libibverbs_built", v.ibverbs_built);
	pp_json_end_object(j);
}

static void write_device(struct pp_json *j, const struct pp_session *s)
{
	char gid[INET6_ADDRSTRLEN];
	bool have_gid = s->gid_index >= 0;

	pp_json_key(j, "device");
	pp_json_begin_object(j);
	pp_json_key_string_or_null(j, "name", s->caps.devname);
	pp_json_key_uint(j, "port", s->caps.ib_port);
	pp_json_key_string_or_null(j, "link_layer",
				   pp_link_layer_name(s->caps.link_layer));
	pp_json_key_uint(j, "lid", s->caps.lid);
	pp_json_key_uint(j, "active_mtu", s->caps.active_mtu);
	pp_json_key_uint(j, "pkey_index", s->pkey_index);
	pp_json_key_int_or_null(j, "gid_index", have_gid, s->gid_index);
	pp_json_key_string_or_null(
		j, "gid",
		have_gid ? pp_gid_format(s->gid, gid, sizeof(gid)) : NULL);
	pp_json_key_string_or_null(
		j, "gid_type", have_gid ? pp_gid_type_name(s->gid_type) : NULL);
	pp_json_key_bool(j, "gid_auto", s->gid_auto);
	pp_json_key_bool(j, "grh", s->qcfg.use_grh);
	pp_json_key_int_or_null(j, "numa_node", s->place.node >= 0,
				s->place.node);
	pp_json_key_int_or_null(j, "cpu", s->place.cpu >= 0, s->place.cpu);
	pp_json_key_string_or_null(j, "cpu_rule", s->place.why);
	pp_json_end_object(j);
}

/*
 * The parameters in the order of PP_PARAMS: the agreed ones, or before the
 * HELLO exchange this side's own (from its HELLO, else from its options).
 * An automatic one (the MTU) is null until it is agreed.
 */
static void write_params(struct pp_json *j, const struct pp_session *s)
{
	const struct pp_hello *h = s->agreed.tool ? &s->agreed : &s->mine;
	const struct pp_opts *o = s->o;
	bool known = h->tool != 0, agreed = s->agreed.tool != 0;
	pp_param_names_fn nm;
	uint64_t v;
	bool null;

	pp_json_key(j, "params");
	pp_json_begin_object(j);
#define JSON_NUM(name, opt, type, off, valid, zero, wname, label, unit, json, \
		 jnull, dflt, names)                                          \
	pp_json_key(j, json);                                                 \
	if (known) {                                                          \
		const struct pp_hello *p = h;                                 \
		v = p->name;                                                  \
		null = jnull;                                                 \
	} else {                                                              \
		const struct pp_opts *p = o;                                  \
		v = p->name;                                                  \
		null = jnull;                                                 \
	}                                                                     \
	nm = names;                                                           \
	if (((zero) == PP_ZERO_AUTO && !agreed) ||                            \
	    ((zero) == PP_ZERO_OFF && !v) || null)                            \
		pp_json_null(j);                                              \
	else if (nm)                                                          \
		pp_json_string(j, nm(v));                                     \
	else                                                                  \
		pp_json_uint(j, v);
#define JSON_FLAG(name, opt, bit_name, bit, inverted, label, json, ...) \
	pp_json_key_bool(j, json,                                       \
			 (known ? !!(h->flags & bit_name) : o->name) != \
				 (inverted));
#define JSON_LOCAL(name, json, is_bool)             \
	if (is_bool)                                \
		pp_json_key_bool(j, json, o->name); \
	else                                        \
		pp_json_key_uint(j, json, o->name);
	PP_PARAMS(JSON_NUM, JSON_FLAG, JSON_LOCAL)
#undef JSON_NUM
#undef JSON_FLAG
#undef JSON_LOCAL
	pp_json_end_object(j);
}

static void write_addr_list(struct pp_json *j, const char *key,
			    const struct pp_addr *a, uint32_t n, bool xrc)
{
	char gid[INET6_ADDRSTRLEN];
	uint32_t i;

	pp_json_key(j, key);
	pp_json_begin_array(j);
	for (i = 0; a && i < n; i++) {
		pp_json_begin_object(j);
		pp_json_key_uint(j, "lid", a[i].lid);
		pp_json_key_uint(j, "qpn", a[i].qpn);
		pp_json_key_uint(j, "psn", a[i].psn);
		pp_json_key_string(j, "gid",
				   pp_gid_format(a[i].gid, gid, sizeof(gid)));
		if (xrc) {
			pp_json_key_uint(j, "srqn", a[i].srqn);
			pp_json_key_uint(j, "tgt_qpn", a[i].tgt_qpn);
		}
		pp_json_end_object(j);
	}
	pp_json_end_array(j);
}

static void write_addresses(struct pp_json *j, const struct pp_session *s)
{
	bool xrc = pp_transport_of(s->o->transport)->xrc;
	uint32_t n = s->res ? s->res->num_qps : 0;

	pp_json_key(j, "addresses");
	pp_json_begin_object(j);
	write_addr_list(j, "local", s->res ? s->res->local : NULL, n, xrc);
	/* the peer's addresses are known once ADDRS came: QPNs are not 0 */
	write_addr_list(j, "remote",
			s->remote && s->remote[0].qpn ? s->remote : NULL, n,
			xrc);
	pp_json_end_object(j);
}

static void write_histogram(struct pp_json *j, const struct pp_run_result *r)
{
	struct pp_hist h;
	unsigned int i;

	pp_json_key(j, "histogram");
	if (pp_run_hist(r, PP_HIST_DEFAULT_BINS, &h)) {
		pp_json_null(j);
		return;
	}
	pp_json_begin_object(j);
	pp_json_key_uint(j, "lo_ns", h.lo);
	pp_json_key_uint(j, "width_ns", h.width);
	pp_json_key(j, "counts");
	pp_json_begin_array(j);
	for (i = 0; i < h.nbins; i++)
		pp_json_uint(j, h.count[i]);
	pp_json_end_array(j);
	pp_json_key_uint(j, "overflow", h.overflow);
	pp_json_key_uint(j, "max_ns", h.max);
	pp_json_end_object(j);
}

static void write_post(struct pp_json *j, const struct pp_run_result *r)
{
	pp_json_key(j, "post_send_usec");
	if (!r->posts) {
		pp_json_null(j);
		return;
	}
	pp_json_begin_object(j);
	pp_json_key_uint(j, "posts", r->posts);
	pp_json_key_double(j, "mean",
			   (double)r->post_ns / 1e3 / (double)r->posts);
	pp_json_key_double(j, "max", (double)r->post_max_ns / 1e3);
	pp_json_end_object(j);
}

static void write_results(struct pp_json *j, const struct pp_session *s)
{
	size_t k;

	pp_json_key(j, "results");
	pp_json_begin_array(j);
	for (k = 0; k < s->nresults; k++) {
		const struct pp_run_result *r = &s->results[k];
		struct pp_stats st;
		bool have = !pp_run_stats(r, &st);

		pp_json_begin_object(j);
		pp_json_key_uint(j, "size", r->size);
		pp_json_key_uint(j, "completed", r->completed);
		pp_json_key_uint(j, "lost", r->lost);
		pp_json_key(j, "figures");
		pp_json_figures(j, have ? &st : NULL, r->size, r->completed,
				r->seconds);
		write_histogram(j, r);
		write_post(j, r);
		pp_json_end_object(j);
	}
	pp_json_end_array(j);
}

/* One side's port counters: its deltas, why they are missing, or null. */
static void write_counters_side(struct pp_json *j, const struct pp_session *s,
				const char *key, bool mine)
{
	const struct pp_session_counters *c = &s->ctr;

	pp_json_key(j, key);
	if (mine && c->have_mine) {
		pp_counters_json(j, &c->mine);
	} else if (!mine && c->have_peer) {
		pp_counters_json(j, &c->peer);
	} else if (mine && c->err) {
		pp_json_begin_object(j);
		pp_json_key_string_or_null(j, "device", s->caps.devname);
		pp_json_key_uint(j, "port", s->caps.ib_port);
		pp_json_key_string(j, "error", strerror(c->err));
		pp_json_end_object(j);
	} else {
		pp_json_null(j);
	}
}

/*
 * --counters: {"client": ..., "server": ...}, each side's deltas
 * (pp_counters_json()); the client has both, the server its own; null
 * when this side read none.
 */
static void write_counters(struct pp_json *j, const struct pp_session *s)
{
	bool server = s->conn.is_server;

	pp_json_key(j, "counters");
	if (!s->ctr.on) {
		pp_json_null(j);
		return;
	}
	pp_json_begin_object(j);
	write_counters_side(j, s, "client", !server);
	write_counters_side(j, s, "server", server);
	pp_json_end_object(j);
}

static void write_started(struct pp_json *j, int64_t started)
{
	time_t t = (time_t)started;
	struct tm tm;
	char buf[32];

	if (!started || !gmtime_r(&t, &tm) ||
	    !strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm)) {
		pp_json_key(j, "started");
		pp_json_null(j);
		return;
	}
	pp_json_key_string(j, "started", buf);
}

/*
 * "clock": the clock of the run (pp_clock.h) and the end-of-run comparison
 * of the cycle counter with CLOCK_MONOTONIC; null before a run.
 */
static void write_clock(struct pp_json *j, const struct pp_session *s)
{
	const struct pp_session_clock *c = &s->clock;

	pp_json_key(j, "clock");
	if (!c->chosen) {
		pp_json_null(j);
		return;
	}
	pp_json_begin_object(j);
	pp_json_key_string(j, "source",
			   c->counter ? "cycle counter" : "CLOCK_MONOTONIC");
	pp_json_key(j, "ghz");
	if (c->counter)
		pp_json_double(j, c->ghz);
	else
		pp_json_null(j);
	pp_json_key_string_or_null(j, "why", c->why);
	pp_json_key_int_or_null(j, "diff_ns", c->compared, c->diff_ns);
	pp_json_key_int_or_null(j, "elapsed_ns", c->compared, c->elapsed_ns);
	pp_json_key_bool(j, "differs",
			 c->compared &&
				 pp_clock_differs(c->diff_ns, c->elapsed_ns));
	pp_json_end_object(j);
}

/*
 * "thresholds": --expect-mtu and --max-rtt (null when not given), what was
 * judged against them, which were exceeded and the lines that say so.
 */
static void write_thresholds(struct pp_json *j, const struct pp_session *s)
{
	struct pp_session_thresh t;

	pp_session_thresholds(s, &t);
	pp_json_key(j, "thresholds");
	pp_json_begin_object(j);
	pp_json_key_int_or_null(j, "expect_mtu", t.expect_mtu != 0,
				t.expect_mtu);
	pp_json_key_int_or_null(j, "path_mtu", t.path_mtu != 0, t.path_mtu);
	pp_json_key(j, "max_rtt_usec");
	if (t.max_rtt_us > 0)
		pp_json_double(j, t.max_rtt_us);
	else
		pp_json_null(j);
	pp_json_key(j, "median_usec");
	if (t.max_rtt_us > 0 && t.median_us > 0)
		pp_json_double(j, t.median_us);
	else
		pp_json_null(j);
	pp_json_key(j, "exceeded");
	pp_json_begin_array(j);
	if (t.mtu_below)
		pp_json_string(j, "expect_mtu");
	if (t.rtt_above)
		pp_json_string(j, "max_rtt");
	pp_json_end_array(j);
	pp_json_key(j, "lines");
	pp_json_begin_array(j);
	if (t.mtu_below)
		pp_json_string(j, t.mtu_line);
	if (t.rtt_above)
		pp_json_string(j, t.rtt_line);
	pp_json_end_array(j);
	pp_json_end_object(j);
}

int pp_doc_write(const struct pp_session *s, FILE *f, int exit_status,
		 const char *error)
{
	const struct pp_opts *o = s->o;
	struct pp_json j;
	char host[256] = "";

	if (gethostname(host, sizeof(host)))
		host[0] = '\0';
	host[sizeof(host) - 1] = '\0';
	pp_json_init(&j, f, false);
	pp_json_begin_object(&j);
	pp_json_key_int(&j, "schema", PP_DOC_SCHEMA);
	pp_json_key_string(&j, "version", PP_VERSION);
	write_software(&j);
	pp_json_key_string(&j, "tool", pp_tool_name(o->tool));
	pp_json_key_string(&j, "role", o->host ? "client" : "server");
	pp_json_key_string(&j, "transport",
			   pp_transport_name(s->agreed.tool ?
						     s->agreed.transport :
						     o->transport));
	write_started(&j, s->started);
	pp_json_key_string_or_null(&j, "host", host);
	pp_json_key_string_or_null(&j, "peer",
				   o->host ? o->host : s->peer_addr);
	write_device(&j, s);
	write_params(&j, s);
	write_addresses(&j, s);
	write_results(&j, s);
	write_counters(&j, s);
	write_clock(&j, s);
	write_thresholds(&j, s);
	pp_json_key(&j, "status");
	pp_json_begin_object(&j);
	pp_json_key_int(&j, "exit", exit_status);
	pp_json_key_string_or_null(&j, "error", error);
	pp_json_end_object(&j);
	pp_json_end_object(&j);
	return pp_json_finish(&j);
}

int pp_doc_interval(FILE *f, const struct pp_run_interval *iv)
{
	struct pp_json j;

	pp_json_init(&j, f, false);
	pp_json_begin_object(&j);
	pp_json_key(&j, "interval");
	pp_json_begin_object(&j);
	pp_json_key_uint(&j, "index", iv->index);
	pp_json_key_uint(&j, "size", iv->size);
	pp_json_key_double(&j, "start_s", iv->start_s);
	pp_json_key_double(&j, "end_s", iv->end_s);
	pp_json_key(&j, "figures");
	pp_json_figures(&j, iv->stats, iv->size, iv->samples,
			iv->end_s - iv->start_s);
	pp_json_end_object(&j);
	pp_json_end_object(&j);
	return pp_json_finish(&j);
}
