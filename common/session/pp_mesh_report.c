// SPDX-License-Identifier: MIT
/*
 * pp_mesh_report.c - the text, the JSON document and the SVG heatmap of a
 * mesh (pp_mesh_report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_gid.h"
#include "pp_json.h"
#include "pp_mesh_report.h"
#include "pp_mesh_sched.h"

#define CELL_MIN 8  /* matrix column width, at least */
#define CELL_MAX 12 /* ... and at most */

static const struct pp_mesh_cell *cell(const struct pp_mesh_view *v, uint32_t a,
				       uint32_t b)
{
	return &v->cells[pp_mesh_pair_index(v->n, a, b)];
}

/* A pair that passed and kept no detail: both sides reported, no error. */
static const struct pp_mesh_detail passed = {
	.side = { { .have = true }, { .have = true } },
};

static const struct pp_mesh_detail *detail(const struct pp_mesh_cell *c)
{
	return c->d ? c->d : &passed;
}

struct pp_mesh_detail *pp_mesh_cell_detail(struct pp_mesh_cell *c)
{
	if (!c->d)
		c->d = calloc(1, sizeof(*c->d));
	return c->d;
}

/* The host's short name: up to the first '.' (not for an address). */
static void short_host(const char *host, char *out, size_t len)
{
	size_t n = strcspn(host, ".");
	bool numeric = strspn(host, "0123456789.") == strlen(host) ||
		       strchr(host, ':');

	if (numeric || !host[n])
		n = strlen(host);
	if (n >= len)
		n = len - 1;
	memcpy(out, host, n);
	out[n] = '\0';
}

static void make_labels(struct pp_mesh_view *v)
{
	char hi[PP_MESH_HOST_MAX], hj[PP_MESH_HOST_MAX];
	uint32_t i, j;

	for (i = 0; i < v->n; i++) {
		struct pp_mesh_rank *r = &v->ranks[i];
		bool shared = false;

		if (!r->joined) {
			snprintf(r->label, sizeof(r->label), "rank%u", i);
			continue;
		}
		short_host(r->facts.host, hi, sizeof(hi));
		for (j = 0; j < v->n && !shared; j++) {
			if (j == i || !v->ranks[j].joined)
				continue;
			short_host(v->ranks[j].facts.host, hj, sizeof(hj));
			shared = !strcmp(hi, hj);
		}
		if (shared)
			snprintf(r->label, sizeof(r->label), "%.240s#%u", hi,
				 i);
		else
			snprintf(r->label, sizeof(r->label), "%s", hi);
	}
}

int pp_mesh_view_judge(struct pp_mesh_view *v)
{
	size_t np = (size_t)v->n * (v->n - 1) / 2, k;
	double *us;
	uint32_t i;
	int ret;

	make_labels(v);
	v->added_us = calloc(v->n, sizeof(*v->added_us));
	v->slow = calloc(v->n, sizeof(*v->slow));
	us = calloc(np + 1, sizeof(*us));
	if (!v->added_us || !v->slow || !us) {
		free(us);
		return ENOMEM;
	}
	v->passed = v->failed = v->joined = 0;
	for (k = 0; k < np; k++) {
		const struct pp_mesh_cell *c = &v->cells[k];

		us[k] = c->code == PP_MESH_OK ? c->median_us : NAN;
		if (c->code == PP_MESH_OK)
			v->passed++;
		else
			v->failed++;
	}
	for (i = 0; i < v->n; i++)
		v->joined += v->ranks[i].joined;
	ret = pp_mesh_odd_judge(v->n, us, v->added_us, v->slow, &v->odd);
	free(us);
	v->exit_status = v->failed || v->joined < v->n || v->stopped ? 1 : 0;
	return ret;
}

void pp_mesh_view_free(struct pp_mesh_view *v)
{
	size_t np = (size_t)v->n * (v->n - 1) / 2, k;

	for (k = 0; v->cells && k < np; k++) {
		struct pp_mesh_detail *d = v->cells[k].d;

		if (!d)
			continue;
		free(d->side[0].doc);
		free(d->side[1].doc);
		free(d);
		v->cells[k].d = NULL;
	}
	free(v->added_us);
	free(v->slow);
	v->added_us = NULL;
	v->slow = NULL;
}

/* A round trip as the matrix shows it: 4 significant digits or so. */
static void fmt_us(double us, char *buf, size_t len)
{
	if (us < 10)
		snprintf(buf, len, "%.2f", us);
	else if (us < 1000)
		snprintf(buf, len, "%.1f", us);
	else
		snprintf(buf, len, "%.0f", us);
}

const char *pp_mesh_cell_text(const struct pp_mesh_view *v, uint32_t a,
			      uint32_t b, char *buf)
{
	const struct pp_mesh_cell *c;

	if (a == b)
		return "-";
	c = cell(v, a, b);
	if (c->code != PP_MESH_OK)
		return pp_mesh_code_name(c->code);
	fmt_us(c->median_us, buf, 16);
	return buf;
}

static int label_width(const struct pp_mesh_view *v)
{
	int w = 4;
	uint32_t i;

	for (i = 0; i < v->n; i++)
		if ((int)strlen(v->ranks[i].label) > w)
			w = (int)strlen(v->ranks[i].label);
	return w;
}

static void print_matrix(const struct pp_mesh_view *v, FILE *f)
{
	int lw = label_width(v), cw = lw + 2;
	bool used[PP_MESH_CODE_COUNT] = { false };
	char buf[16];
	uint32_t a, b;
	unsigned int c;

	if (cw < CELL_MIN)
		cw = CELL_MIN;
	if (cw > CELL_MAX)
		cw = CELL_MAX;
	fprintf(f,
		"median round trip (usec) of each pair, or the step that failed:\n");
	fprintf(f, "%*s", lw + 6, "");
	for (b = 0; b < v->n; b++)
		fprintf(f, "%*.*s", cw, cw - 1, v->ranks[b].label);
	fputc('\n', f);
	for (a = 0; a < v->n; a++) {
		fprintf(f, "%4u  %-*s", a, lw, v->ranks[a].label);
		for (b = 0; b < v->n; b++) {
			fprintf(f, "%*s", cw, pp_mesh_cell_text(v, a, b, buf));
			if (a != b)
				used[cell(v, a, b)->code] = true;
		}
		fputc('\n', f);
	}
	fprintf(f,
		"legend: a number is the median round trip in usec (the client's samples); - a rank with itself");
	for (c = 1; c < PP_MESH_CODE_COUNT; c++)
		if (used[c])
			fprintf(f, "; %s %s", pp_mesh_code_name(c),
				pp_mesh_code_text(c));
	fputc('\n', f);
}

static const char *gid_kind(const struct pp_mesh_join *j, char *buf, size_t len)
{
	if (j->gid_index < 0)
		return "no GID";
	snprintf(buf, len, "%s %s", pp_gid_type_name(j->gid_type),
		 pp_gid_family_name((enum pp_gid_family)j->gid_family));
	return buf;
}

/*
 * The value most ranks have, by @key (a string of each rank's fact); the
 * ranks with another one are named on one line each.
 */
static void print_differ(const struct pp_mesh_view *v, FILE *f,
			 const char *what,
			 const char *(*key)(const struct pp_mesh_join *j,
					    char *buf, size_t len))
{
	char bi[192], bj[192], common[192] = "";
	const char *ki;
	uint32_t i, j, best = 0, cnt;

	/* ranks whose device failed have no facts to compare */
	for (i = 0; i < v->n; i++) {
		if (!v->ranks[i].joined || v->ranks[i].facts.error[0])
			continue;
		ki = key(&v->ranks[i].facts, bi, sizeof(bi));
		for (j = 0, cnt = 0; j < v->n; j++)
			if (v->ranks[j].joined && !v->ranks[j].facts.error[0] &&
			    !strcmp(ki,
				    key(&v->ranks[j].facts, bj, sizeof(bj))))
				cnt++;
		if (cnt > best) {
			best = cnt;
			snprintf(common, sizeof(common), "%s", ki);
		}
	}
	for (i = 0; i < v->n; i++) {
		if (!v->ranks[i].joined || v->ranks[i].facts.error[0])
			continue;
		ki = key(&v->ranks[i].facts, bi, sizeof(bi));
		if (!strcmp(common, ki))
			continue;
		fprintf(f, "  differs: %s (rank %u): %s %s, the others %s\n",
			v->ranks[i].facts.host, i, what, ki, common);
	}
}

static const char *key_mtu(const struct pp_mesh_join *j, char *buf, size_t len)
{
	snprintf(buf, len, "%u", j->active_mtu);
	return buf;
}

static const char *key_version(const struct pp_mesh_join *j, char *buf,
			       size_t len)
{
	snprintf(buf, len, "%s", j->version);
	return buf;
}

static void print_hosts(const struct pp_mesh_view *v, FILE *f)
{
	uint32_t i;
	char kind[64];

	fprintf(f, "hosts:\n");
	fprintf(f, "  %4s  %-16s %-8s %4s %6s  %s\n", "rank", "host", "device",
		"port", "mtu", "GID (why)");
	for (i = 0; i < v->n; i++) {
		const struct pp_mesh_rank *r = &v->ranks[i];
		const struct pp_mesh_join *j = &r->facts;

		if (!r->joined) {
			fprintf(f, "  %4u  %-16s never joined\n", i, "?");
			continue;
		}
		if (j->error[0]) {
			fprintf(f, "  %4u  %-16s %s\n", i, j->host, j->error);
			continue;
		}
		fprintf(f, "  %4u  %-16s %-8s %4u %6u  %s (%s), %s; %s\n", i,
			j->host, j->dev, j->ib_port, j->active_mtu,
			j->gid_index >= 0 ? j->gid : "none",
			gid_kind(j, kind, sizeof(kind)), j->gid_reason,
			j->version);
	}
	print_differ(v, f, "active MTU", key_mtu);
	print_differ(v, f, "automatic GID", gid_kind);
	print_differ(v, f, "version", key_version);
}

static void side_line(const struct pp_mesh_view *v, uint32_t rank,
		      const struct pp_mesh_side *s, FILE *f)
{
	fprintf(f, "      %s: %s\n", v->ranks[rank].label,
		!s->have       ? "no result (the rank was gone)" :
		s->r.reason[0] ? s->r.reason :
				 "no failure on this side");
}

static void print_odd(const struct pp_mesh_view *v, FILE *f)
{
	char med[16], add[16];
	uint32_t a, b, i;
	bool any = false;

	fprintf(f, "odd ones out:\n");
	for (i = 0; i < v->n; i++) {
		if (!v->slow[i])
			continue;
		any = true;
		fmt_us(v->added_us[i], add, sizeof(add));
		fmt_us(v->odd.matrix_median_us, med, sizeof(med));
		fprintf(f,
			"  slow: %s (rank %u) adds %s usec to the round trip of each of its pairs (matrix median %s usec)\n",
			v->ranks[i].label, i, add, med);
	}
	for (i = 0; i < v->n; i++) {
		if (!v->ranks[i].joined) {
			any = true;
			fprintf(f, "  never joined: rank %u (within %s)\n", i,
				v->ranks[i].gone_why[0] ? v->ranks[i].gone_why :
							  "the join deadline");
		} else if (v->ranks[i].gone) {
			any = true;
			fprintf(f, "  gone: %s (rank %u): %s\n",
				v->ranks[i].label, i, v->ranks[i].gone_why);
		}
	}
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++) {
			const struct pp_mesh_cell *c = cell(v, a, b);
			const struct pp_mesh_detail *d = detail(c);

			if (c->code == PP_MESH_OK ||
			    c->code == PP_MESH_ABSENT ||
			    (c->code == PP_MESH_GONE && !c->ran))
				continue;
			any = true;
			fprintf(f, "  failed: %s - %s at %s (%s)%s%s\n",
				v->ranks[a].label, v->ranks[b].label,
				pp_mesh_code_name(c->code),
				pp_mesh_code_text(c->code),
				d->why[0] ? ": " : "", d->why);
			side_line(v, a, &d->side[0], f);
			side_line(v, b, &d->side[1], f);
		}
	if (!any)
		fprintf(f, "  none\n");
}

void pp_mesh_print_text(const struct pp_mesh_view *v, FILE *f)
{
	uint32_t np = v->passed + v->failed;

	print_matrix(v, f);
	fputc('\n', f);
	print_hosts(v, f);
	fputc('\n', f);
	print_odd(v, f);
	fputc('\n', f);
	if (v->stopped)
		fprintf(f, "mesh stopped: %s\n", v->stopped);
	fprintf(f,
		"mesh: %u of %u ranks joined, %u pairs: %u passed, %u failed, in %.1f s (bound %.0f s)\n",
		v->joined, v->n, np, v->passed, v->failed, v->elapsed_s,
		v->bound_s);
	fflush(f);
}

static void key_us(struct pp_json *j, const char *key, double us)
{
	pp_json_key(j, key);
	if (isfinite(us))
		pp_json_double(j, round(us * 1000) / 1000);
	else
		pp_json_null(j);
}

static void json_hosts(const struct pp_mesh_view *v, struct pp_json *j)
{
	char kind[64];
	uint32_t i;

	pp_json_key(j, "hosts");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++) {
		const struct pp_mesh_rank *r = &v->ranks[i];
		const struct pp_mesh_join *f = &r->facts;

		pp_json_begin_object(j);
		pp_json_key_uint(j, "rank", i);
		pp_json_key_bool(j, "joined", r->joined);
		pp_json_key_string_or_null(j, "host",
					   r->joined ? f->host : NULL);
		pp_json_key_string(j, "label", r->label);
		pp_json_key_string_or_null(j, "addr", r->addr);
		pp_json_key_string_or_null(j, "gone",
					   r->gone ? r->gone_why : NULL);
		pp_json_key_string_or_null(j, "device", f->dev);
		pp_json_key_uint(j, "port", f->ib_port);
		pp_json_key_uint(j, "active_mtu", f->active_mtu);
		pp_json_key_int_or_null(j, "gid_index",
					r->joined && f->gid_index >= 0,
					f->gid_index);
		pp_json_key_string_or_null(j, "gid",
					   f->gid_index >= 0 ? f->gid : NULL);
		pp_json_key_string_or_null(
			j, "gid_kind",
			r->joined ? gid_kind(f, kind, sizeof(kind)) : NULL);
		pp_json_key_string_or_null(j, "gid_reason", f->gid_reason);
		pp_json_key_string_or_null(j, "version", f->version);
		pp_json_key_string_or_null(j, "error", f->error);
		pp_json_end_object(j);
	}
	pp_json_end_array(j);
}

static void json_side(const struct pp_mesh_view *v, struct pp_json *j,
		      uint32_t rank, const char *role,
		      const struct pp_mesh_side *s)
{
	(void)v;
	pp_json_begin_object(j);
	pp_json_key_uint(j, "rank", rank);
	pp_json_key_string(j, "role", role);
	pp_json_key_bool(j, "reported", s->have);
	pp_json_key_string_or_null(
		j, "step", s->have ? pp_mesh_code_name(s->r.step) : NULL);
	pp_json_key_string_or_null(j, "error", s->have ? s->r.reason : NULL);
	pp_json_key(j, "doc");
	if (!s->doc || pp_json_raw(j, s->doc))
		pp_json_null(j);
	pp_json_end_object(j);
}

static void json_pairs(const struct pp_mesh_view *v, struct pp_json *j)
{
	uint32_t a, b;

	pp_json_key(j, "pairs");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++) {
			const struct pp_mesh_cell *c = cell(v, a, b);

			pp_json_begin_object(j);
			pp_json_key_uint(j, "a", a);
			pp_json_key_uint(j, "b", b);
			pp_json_key_int_or_null(j, "round", c->ran, c->round);
			pp_json_key_string(j, "result",
					   pp_mesh_code_name(c->code));
			pp_json_key_bool(j, "passed", c->code == PP_MESH_OK);
			key_us(j, "median_usec", c->median_us);
			pp_json_key_int_or_null(j, "path_mtu", c->path_mtu != 0,
						c->path_mtu);
			pp_json_key_string_or_null(j, "why", detail(c)->why);
			pp_json_key(j, "sides");
			pp_json_begin_array(j);
			json_side(v, j, a, "server", &detail(c)->side[0]);
			json_side(v, j, b, "client", &detail(c)->side[1]);
			pp_json_end_array(j);
			pp_json_end_object(j);
		}
	pp_json_end_array(j);
}

static void json_matrix(const struct pp_mesh_view *v, struct pp_json *j)
{
	char buf[16];
	uint32_t a, b;

	pp_json_key(j, "matrix");
	pp_json_begin_object(j);
	pp_json_key(j, "labels");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++)
		pp_json_string(j, v->ranks[a].label);
	pp_json_end_array(j);
	pp_json_key(j, "median_usec");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++) {
		pp_json_begin_array(j);
		for (b = 0; b < v->n; b++) {
			const struct pp_mesh_cell *c = a == b ? NULL :
								cell(v, a, b);

			if (c && c->code == PP_MESH_OK)
				pp_json_double(j, round(c->median_us * 1000) /
							  1000);
			else
				pp_json_null(j);
		}
		pp_json_end_array(j);
	}
	pp_json_end_array(j);
	pp_json_key(j, "cells");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++) {
		pp_json_begin_array(j);
		for (b = 0; b < v->n; b++)
			pp_json_string(j, pp_mesh_cell_text(v, a, b, buf));
		pp_json_end_array(j);
	}
	pp_json_end_array(j);
	pp_json_end_object(j);
}

static void json_summary(const struct pp_mesh_view *v, struct pp_json *j)
{
	uint32_t a, b, i;

	pp_json_key(j, "summary");
	pp_json_begin_object(j);
	pp_json_key_uint(j, "ranks", v->n);
	pp_json_key_uint(j, "joined", v->joined);
	pp_json_key_uint(j, "pairs", v->passed + v->failed);
	pp_json_key_uint(j, "passed", v->passed);
	pp_json_key_uint(j, "failed", v->failed);
	key_us(j, "matrix_median_usec", v->odd.matrix_median_us);
	key_us(j, "baseline_usec", v->odd.baseline_us);
	pp_json_key(j, "slow");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++) {
		if (!v->slow[i])
			continue;
		pp_json_begin_object(j);
		pp_json_key_uint(j, "rank", i);
		pp_json_key_string(j, "host", v->ranks[i].facts.host);
		key_us(j, "added_usec", v->added_us[i]);
		pp_json_end_object(j);
	}
	pp_json_end_array(j);
	pp_json_key(j, "added_usec");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++)
		if (isfinite(v->added_us[i]))
			pp_json_double(j, round(v->added_us[i] * 1000) / 1000);
		else
			pp_json_null(j);
	pp_json_end_array(j);
	pp_json_key(j, "failed_pairs");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++) {
			const struct pp_mesh_cell *c = cell(v, a, b);

			if (c->code == PP_MESH_OK)
				continue;
			pp_json_begin_object(j);
			pp_json_key_uint(j, "a", a);
			pp_json_key_uint(j, "b", b);
			pp_json_key_string(j, "result",
					   pp_mesh_code_name(c->code));
			pp_json_end_object(j);
		}
	pp_json_end_array(j);
	pp_json_key(j, "absent");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++)
		if (!v->ranks[i].joined)
			pp_json_uint(j, i);
	pp_json_end_array(j);
	pp_json_key(j, "gone");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++)
		if (v->ranks[i].gone)
			pp_json_uint(j, i);
	pp_json_end_array(j);
	pp_json_key_string_or_null(j, "stopped", v->stopped);
	pp_json_key_uint(j, "exit_status", (uint64_t)v->exit_status);
	pp_json_end_object(j);
}

int pp_mesh_write_json(const struct pp_mesh_view *v, FILE *f)
{
	struct pp_json j;

	pp_json_init(&j, f, false);
	pp_json_begin_object(&j);
	pp_json_key(&j, "mesh");
	pp_json_begin_object(&j);
	pp_json_key_uint(&j, "schema", 1);
	pp_json_key_string(&j, "tool", v->tool);
	pp_json_key_string(&j, "transport", v->transport);
	pp_json_key_string_or_null(&j, "run", v->what);
	pp_json_key_string(&j, "launcher", pp_mesh_launcher_name(v->launcher));
	pp_json_key_string_or_null(&j, "root", v->root);
	pp_json_key_uint(&j, "port", v->port);
	pp_json_key_uint(&j, "size", v->n);
	pp_json_key_bool(&j, "serial", v->serial);
	pp_json_key_uint(&j, "rounds", v->rounds);
	pp_json_key_double(&j, "pair_bound_s", v->pair_ms / 1000.0);
	pp_json_key_double(&j, "bound_s", v->bound_s);
	pp_json_key_double(&j, "elapsed_s", round(v->elapsed_s * 1000) / 1000);
	pp_json_end_object(&j);
	json_hosts(v, &j);
	json_pairs(v, &j);
	json_matrix(v, &j);
	json_summary(v, &j);
	pp_json_end_object(&j);
	return pp_json_finish(&j);
}

/* XML text: the five characters escaped. */
static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

/* Green (0) to yellow to red (1). */
static void heat(double t, char *buf, size_t len)
{
	int r, g;

	if (!isfinite(t) || t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	r = t < 0.5 ? (int)(510 * t) : 255;
	g = t < 0.5 ? 200 : (int)(200 * (1 - t) * 2);
	snprintf(buf, len, "#%02x%02x40", r, g);
}

int pp_mesh_write_svg(const struct pp_mesh_view *v, FILE *f)
{
	const int cs = v->n > 64 ? 8 : v->n > 16 ? 20 : 48, lm = 140, tm = 140;
	double lo = INFINITY, hi = -INFINITY, t;
	int w = lm + cs * (int)v->n + 40, h = tm + cs * (int)v->n + 90;
	char col[16], buf[16];
	uint32_t a, b;
	size_t k, np = (size_t)v->n * (v->n - 1) / 2;

	if (w < lm + 520)
		w = lm + 520; /* room for the key */
	for (k = 0; k < np; k++)
		if (v->cells[k].code == PP_MESH_OK) {
			lo = fmin(lo, v->cells[k].median_us);
			hi = fmax(hi, v->cells[k].median_us);
		}
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		w, h, w, h);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">");
	xml_text(f, v->tool);
	fprintf(f,
		" --mesh: median round trip (usec) of each pair, %u ranks, %u passed, %u failed</text>\n",
		v->n, v->passed, v->failed);
	for (a = 0; a < v->n; a++) {
		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\" dominant-baseline=\"middle\">",
			lm - 6, tm + cs * (int)a + cs / 2);
		xml_text(f, v->ranks[a].label);
		fprintf(f, "</text>\n");
		fprintf(f, "<text transform=\"translate(%d,%d) rotate(-60)\">",
			lm + cs * (int)a + cs / 2, tm - 6);
		xml_text(f, v->ranks[a].label);
		fprintf(f, "</text>\n");
	}
	for (a = 0; a < v->n; a++)
		for (b = 0; b < v->n; b++) {
			int x = lm + cs * (int)b, y = tm + cs * (int)a;
			const struct pp_mesh_cell *c = a == b ? NULL :
								cell(v, a, b);
			bool ok = c && c->code == PP_MESH_OK;

			if (!c) {
				snprintf(col, sizeof(col), "#dddddd");
			} else if (ok) {
				t = hi > lo ? log(c->median_us / lo) /
						      log(hi / lo) :
					      0;
				heat(t, col, sizeof(col));
			} else {
				snprintf(col, sizeof(col), "#202020");
			}
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"white\"><title>",
				x, y, cs, cs, col);
			xml_text(f, v->ranks[a].label);
			fprintf(f, " - ");
			xml_text(f, v->ranks[b].label);
			fprintf(f, ": %s</title></rect>\n",
				pp_mesh_cell_text(v, a, b, buf));
			if (c && cs >= 20)
				fprintf(f,
					"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" dominant-baseline=\"middle\" font-size=\"%d\" fill=\"%s\">%s</text>\n",
					x + cs / 2, y + cs / 2,
					cs >= 48 ? 11 : 7,
					ok ? "black" : "white",
					pp_mesh_cell_text(v, a, b, buf));
		}
	if (isfinite(lo)) {
		int y = tm + cs * (int)v->n + 30;

		heat(0, col, sizeof(col));
		fmt_us(lo, buf, sizeof(buf));
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s usec (fastest)</text>\n",
			lm, y, col, lm + 22, y + 12, buf);
		heat(1, col, sizeof(col));
		fmt_us(hi, buf, sizeof(buf));
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s usec (slowest)</text>\n",
			lm + 160, y, col, lm + 182, y + 12, buf);
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"#202020\"/><text x=\"%d\" y=\"%d\">failed (the step's code)</text>\n",
			lm + 320, y, lm + 342, y + 12);
	}
	fprintf(f, "</svg>\n");
	fflush(f);
	return ferror(f) ? EIO : 0;
}
