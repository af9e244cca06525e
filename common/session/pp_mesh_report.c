// SPDX-License-Identifier: MIT
/*
 * pp_mesh_report.c - the text, the JSON document and the SVG heatmap of a
 * mesh (pp_mesh_report.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pp_err.h"
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

/* "node1:mlx5_0": the short host and the device (none: the host alone). */
static void host_dev(const struct pp_mesh_join *j, char *out, size_t len)
{
	char sh[PP_MESH_HOST_MAX];

	short_host(j->host, sh, sizeof(sh));
	if (j->dev[0])
		snprintf(out, len, "%.160s:%.63s", sh, j->dev);
	else
		snprintf(out, len, "%.230s", sh);
}

static void make_labels(struct pp_mesh_view *v)
{
	char(*sh)[PP_MESH_HOST_MAX] = calloc(v->n, sizeof(*sh));
	uint32_t i, j;

	for (i = 0; sh && i < v->n; i++)
		if (v->ranks[i].joined)
			host_dev(&v->ranks[i].facts, sh[i], sizeof(sh[i]));
	for (i = 0; i < v->n; i++) {
		struct pp_mesh_rank *r = &v->ranks[i];
		bool shared = !sh; /* out of memory: host#rank, still unique */

		if (!r->joined) {
			snprintf(r->label, sizeof(r->label), "rank%u", i);
			continue;
		}
		for (j = 0; j < v->n && !shared; j++)
			shared = j != i && v->ranks[j].joined &&
				 !strcmp(sh[i], sh[j]);
		if (sh && shared)
			snprintf(r->label, sizeof(r->label), "%.240s#%u", sh[i],
				 i);
		else if (sh)
			snprintf(r->label, sizeof(r->label), "%s", sh[i]);
		else
			snprintf(r->label, sizeof(r->label), "%.240s#%u",
				 r->facts.host, i);
	}
	free(sh);
}

static int by_host(const void *x, const void *y)
{
	const struct pp_mesh_rank *const *p = x, *const *q = y;

	return strcmp((*p)->facts.host, (*q)->facts.host);
}

/* @v->host_id: ranks that named the same host share an id below n. */
static int make_host_ids(struct pp_mesh_view *v)
{
	const struct pp_mesh_rank **by = calloc(v->n, sizeof(*by));
	uint32_t i, nj = 0, id = 0;

	if (!by)
		return ENOMEM;
	for (i = 0; i < v->n; i++)
		if (v->ranks[i].joined)
			by[nj++] = &v->ranks[i];
		else
			v->host_id[i] = id++; /* a host of its own */
	qsort(by, nj, sizeof(*by), by_host);
	for (i = 0; i < nj; i++) {
		if (i && strcmp(by[i - 1]->facts.host, by[i]->facts.host))
			id++;
		v->host_id[by[i] - v->ranks] = id;
	}
	free(by);
	return 0;
}

/* The verdicts (pp_mesh_verdict.h) from the cells, read in place. */
static int judge_verdicts(struct pp_mesh_view *v)
{
	uint32_t *rail = calloc(v->n, sizeof(*rail)), i;
	bool *out = calloc(v->n, sizeof(*out));
	struct pp_mesh_verdict_in in = {
		.n = v->n,
		.pair_us = &v->cells[0].median_us,
		.us_stride = sizeof(v->cells[0]),
		.code = &v->cells[0].code,
		.code_stride = sizeof(v->cells[0]),
		.host = v->host_id,
		.rail = rail,
		.out = out,
		.stopped = v->stopped != NULL,
		.added_us = v->added_us,
		.slow = v->slow,
		.baseline_us = v->odd.baseline_us,
		.bar_us = v->odd.bar_us,
		.row_us = v->row_us,
		.row_median_us = v->odd.row_median_us,
		.link_noise_us = v->odd.link_noise_us,
	};
	int ret = ENOMEM;

	if (rail && out && !make_host_ids(v)) {
		for (i = 0; i < v->n; i++) {
			const struct pp_mesh_rank *r = &v->ranks[i];

			rail[i] = r->local;
			out[i] = !r->joined || r->gone || r->facts.error[0];
		}
		ret = pp_mesh_verdict_judge(&in, v->verdicts);
	}
	free(rail);
	free(out);
	return ret;
}

/* What pp_mesh_view_judge() allocated, released (again callable). */
static void judged_free(struct pp_mesh_view *v)
{
	free(v->added_us);
	free(v->row_us);
	free(v->slow);
	free(v->host_id);
	free(v->verdicts);
	v->added_us = v->row_us = NULL;
	v->slow = NULL;
	v->host_id = NULL;
	v->verdicts = NULL;
}

int pp_mesh_view_judge(struct pp_mesh_view *v)
{
	size_t np = (size_t)v->n * (v->n - 1) / 2, k;
	uint32_t i;
	int ret;

	judged_free(v); /* judged before: that judgement released */
	make_labels(v);
	v->added_us = calloc(v->n, sizeof(*v->added_us));
	v->row_us = calloc(v->n, sizeof(*v->row_us));
	v->slow = calloc(v->n, sizeof(*v->slow));
	v->host_id = calloc(v->n, sizeof(*v->host_id));
	v->verdicts = calloc(1, sizeof(*v->verdicts));
	if (!v->added_us || !v->row_us || !v->slow || !v->host_id ||
	    !v->verdicts)
		return ENOMEM;
	v->passed = v->failed = v->joined = v->dev_failed = v->nflagged = 0;
	v->not_selected = 0;
	memset(v->flagged, 0, sizeof(v->flagged));
	for (k = 0; k < np; k++) {
		struct pp_mesh_cell *c = &v->cells[k];

		if (c->unsel) {
			v->not_selected++;
			c->median_us = NAN;
			continue;
		}
		if (c->code == PP_MESH_OK) {
			v->passed++;
			continue;
		}
		if (pp_mesh_code_flagged(c->code)) {
			/* it ran whole: its median stays */
			v->flagged[c->code]++;
			v->nflagged++;
			continue;
		}
		v->failed++;
		c->median_us = NAN; /* a median only for a pair that ran */
	}
	v->selected = np - v->not_selected;
	for (i = 0; i < v->n; i++) {
		v->joined += v->ranks[i].joined;
		v->dev_failed += v->ranks[i].joined &&
				 v->ranks[i].facts.error[0] != '\0';
	}
	/* the cells' medians read in place: no copy of N^2 / 2 values */
	ret = pp_mesh_odd_judge_strided(v->n, &v->cells[0].median_us,
					sizeof(v->cells[0]), v->added_us,
					v->slow, v->row_us, &v->odd);
	if (!ret)
		ret = judge_verdicts(v);
	/* a device that did not open fails the mesh, in a pair or not */
	if (v->failed || v->joined < v->n || v->dev_failed || v->stopped)
		v->exit_status = PP_EXIT_FAIL;
	else if (v->nflagged || v->verdicts->total)
		v->exit_status = PP_EXIT_FLAGGED;
	else
		v->exit_status = PP_EXIT_OK;
	return ret;
}

void pp_mesh_view_free(struct pp_mesh_view *v)
{
	pp_mesh_store_free(v);
	judged_free(v);
}

/* 1024 as "1,024". */
static const char *fmt_count(uint64_t n, char *buf, size_t len)
{
	char tmp[32];
	size_t l, i, o = 0;

	snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)n);
	l = strlen(tmp);
	for (i = 0; i < l && o + 2 < len; i++) {
		if (i && (l - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
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
	if (c->unsel)
		return ".";
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

/* A matrix column's width; the matrix's is 6 + @lw + n x that. */
static int cell_width(int lw)
{
	int cw = lw + 2;

	if (cw < CELL_MIN)
		cw = CELL_MIN;
	if (cw > CELL_MAX)
		cw = CELL_MAX;
	return cw;
}

bool pp_mesh_matrix_fits(const struct pp_mesh_view *v)
{
	int lw = label_width(v);

	return lw + 6 + (uint64_t)v->n * (uint64_t)cell_width(lw) <=
	       PP_MESH_TEXT_COLS;
}

/* The mode's name: a view that says none selects all. */
static const char *mode_name(const struct pp_mesh_view *v)
{
	return pp_mesh_pairs_name(v->pairs == PP_MESH_PAIRS_DEFAULT ?
					  PP_MESH_PAIRS_ALL :
					  v->pairs);
}

/* The legend: the codes of @used; with @unsel, the mark of a pair not run. */
static void legend(const struct pp_mesh_view *v, const bool *used, bool unsel,
		   FILE *f)
{
	unsigned int c;

	fprintf(f,
		"legend: a number is the median round trip in usec (the client's samples); - a rank with itself");
	if (unsel)
		fprintf(f, "; . a pair not selected (--mesh-pairs %s): not run",
			mode_name(v));
	for (c = 1; c < PP_MESH_CODE_COUNT; c++)
		if (used[c])
			fprintf(f, "; %s %s", pp_mesh_code_name(c),
				pp_mesh_code_text(c));
	fputc('\n', f);
}

/* A rank's line of the summary that stands for the matrix. */
struct rank_sum {
	uint32_t rank, passed, failed, worst_peer;
	double worst_us, added_us;
};

static int by_added(const void *x, const void *y)
{
	const struct rank_sum *p = x, *q = y;
	double a = isfinite(p->added_us) ? p->added_us : -INFINITY;
	double b = isfinite(q->added_us) ? q->added_us : -INFINITY;

	if (a != b)
		return a > b ? -1 : 1;
	if (p->failed != q->failed)
		return p->failed > q->failed ? -1 : 1;
	if (p->worst_us != q->worst_us)
		return p->worst_us > q->worst_us ? -1 : 1;
	return p->rank < q->rank ? -1 : 1;
}

/*
 * Too many ranks for a matrix: per rank, the first PP_MESH_LIST by what
 * they add (then by failed pairs, then by their slowest pair), and the
 * slowest pairs of all.
 */
static void print_per_rank(const struct pp_mesh_view *v, FILE *f)
{
	struct rank_sum *rs = calloc(v->n, sizeof(*rs));
	struct {
		uint32_t a, b;
		double us;
	} top[PP_MESH_LIST / 2] = { { 0, 0, 0 } };
	bool used[PP_MESH_CODE_COUNT] = { false }, unsel = false;
	char b1[32], b2[32], b3[16], b4[16];
	uint32_t a, b, i, ntop = 0, shown;
	size_t k = 0;

	fprintf(f,
		"%s ranks: too many for a matrix %d columns wide; --json has the matrix, --mesh-svg draws it\n",
		fmt_count(v->n, b1, sizeof(b1)), PP_MESH_TEXT_COLS);
	if (!rs) {
		fputc('\n', f);
		return;
	}
	for (i = 0; i < v->n; i++)
		rs[i] = (struct rank_sum){ .rank = i,
					   .worst_us = -1,
					   .added_us = v->added_us ?
							       v->added_us[i] :
							       NAN };
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++, k++) {
			const struct pp_mesh_cell *c = &v->cells[k];

			if (c->unsel) {
				unsel = true;
				continue;
			}
			used[c->code] = true;
			if (!pp_mesh_code_ran(c->code)) {
				rs[a].failed++;
				rs[b].failed++;
				continue;
			}
			/* a flagged pair ran: its median counts, not a pass */
			rs[a].passed += c->code == PP_MESH_OK;
			rs[b].passed += c->code == PP_MESH_OK;
			if (!isfinite(c->median_us))
				continue;
			if (c->median_us > rs[a].worst_us) {
				rs[a].worst_us = c->median_us;
				rs[a].worst_peer = b;
			}
			if (c->median_us > rs[b].worst_us) {
				rs[b].worst_us = c->median_us;
				rs[b].worst_peer = a;
			}
			/* the slowest pairs, slowest first */
			for (i = ntop; i > 0 && top[i - 1].us < c->median_us;
			     i--)
				if (i < PP_MESH_LIST / 2)
					top[i] = top[i - 1];
			if (i < PP_MESH_LIST / 2) {
				top[i].a = a;
				top[i].b = b;
				top[i].us = c->median_us;
				if (ntop < PP_MESH_LIST / 2)
					ntop++;
			}
		}
	qsort(rs, v->n, sizeof(*rs), by_added);
	shown = v->n < PP_MESH_LIST ? v->n : PP_MESH_LIST;
	fprintf(f,
		"per rank, the %u that add the most to their pairs' round trips first:\n",
		shown);
	fprintf(f, "  %4s  %-16s %8s %8s %10s %-16s %10s\n", "rank", "label",
		"passed", "failed", "worst usec", "(with)", "adds usec");
	for (i = 0; i < shown; i++) {
		const struct rank_sum *r = &rs[i];

		if (r->worst_us >= 0)
			fmt_us(r->worst_us, b3, sizeof(b3));
		else
			snprintf(b3, sizeof(b3), "-");
		if (isfinite(r->added_us))
			fmt_us(r->added_us, b4, sizeof(b4));
		else
			snprintf(b4, sizeof(b4), "-");
		fprintf(f, "  %4u  %-16s %8u %8u %10s %-16s %10s\n", r->rank,
			v->ranks[r->rank].label, r->passed, r->failed, b3,
			r->worst_us >= 0 ? v->ranks[r->worst_peer].label : "",
			b4);
	}
	if (v->n > shown)
		fprintf(f, "  and %s more ranks\n",
			fmt_count(v->n - shown, b2, sizeof(b2)));
	fprintf(f, "slowest pairs:%s\n", ntop ? "" : " none passed");
	for (i = 0; i < ntop; i++) {
		fmt_us(top[i].us, b3, sizeof(b3));
		fprintf(f, "  %s - %s: %s usec\n", v->ranks[top[i].a].label,
			v->ranks[top[i].b].label, b3);
	}
	used[PP_MESH_OK] = false;
	legend(v, used, unsel, f);
	free(rs);
}

static void print_matrix(const struct pp_mesh_view *v, FILE *f)
{
	int lw = label_width(v), cw = cell_width(lw);
	bool used[PP_MESH_CODE_COUNT] = { false }, unsel = false;
	char buf[16];
	uint32_t a, b;

	if (!pp_mesh_matrix_fits(v)) {
		print_per_rank(v, f);
		return;
	}
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
			if (a != b && cell(v, a, b)->unsel)
				unsel = true;
			else if (a != b)
				used[cell(v, a, b)->code] = true;
		}
		fputc('\n', f);
	}
	legend(v, used, unsel, f);
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
 * The value most ranks have, by @key (a string of each rank's fact), among
 * the first 16 values seen; the ranks with another one are named, one line
 * each, up to PP_MESH_LIST, then a count.
 */
static void print_differ(const struct pp_mesh_view *v, FILE *f,
			 const char *what,
			 const char *(*key)(const struct pp_mesh_join *j,
					    char *buf, size_t len))
{
	char cand[16][192], bi[192], common[192] = "", b1[32];
	uint32_t cnt[16] = { 0 }, i, c, ncand = 0, best = 0, shown = 0;
	uint64_t more = 0;
	const char *ki;

	/* ranks whose device failed have no facts to compare */
	for (i = 0; i < v->n; i++) {
		if (!v->ranks[i].joined || v->ranks[i].facts.error[0])
			continue;
		ki = key(&v->ranks[i].facts, bi, sizeof(bi));
		for (c = 0; c < ncand && strcmp(cand[c], ki); c++)
			;
		if (c == ncand && ncand < 16)
			snprintf(cand[ncand++], sizeof(cand[0]), "%s", ki);
		if (c < ncand && ++cnt[c] > best) {
			best = cnt[c];
			snprintf(common, sizeof(common), "%s", ki);
		}
	}
	for (i = 0; i < v->n; i++) {
		if (!v->ranks[i].joined || v->ranks[i].facts.error[0])
			continue;
		ki = key(&v->ranks[i].facts, bi, sizeof(bi));
		if (!strcmp(common, ki))
			continue;
		if (shown++ >= PP_MESH_LIST) {
			more++;
			continue;
		}
		fprintf(f, "  differs: %s (rank %u): %s %s, the others %s\n",
			v->ranks[i].label, i, what, ki, common);
	}
	if (more)
		fprintf(f,
			"  differs: and %s more ranks' %s (--json's hosts has each)\n",
			fmt_count(more, b1, sizeof(b1)), what);
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
	char kind[64], b1[32];

	fprintf(f, "hosts:\n");
	if (v->n > PP_MESH_HOST_ROWS)
		fprintf(f,
			"  %s ranks: --json's hosts has each one's facts; here, those that differ from most\n",
			fmt_count(v->n, b1, sizeof(b1)));
	else
		fprintf(f, "  %4s  %-16s %-8s %5s %4s %6s  %s\n", "rank",
			"host", "device", "local", "port", "mtu", "GID (why)");
	for (i = 0; i < v->n && v->n <= PP_MESH_HOST_ROWS; i++) {
		const struct pp_mesh_rank *r = &v->ranks[i];
		const struct pp_mesh_join *j = &r->facts;

		if (!r->joined) {
			fprintf(f, "  %4u  %-16s never joined\n", i, "?");
			continue;
		}
		if (j->error[0]) {
			fprintf(f, "  %4u  %-16s %-8s %5u  %s\n", i, j->host,
				j->dev[0] ? j->dev : "?", r->local, j->error);
			continue;
		}
		fprintf(f, "  %4u  %-16s %-8s %5u %4u %6u  %s (%s), %s; %s\n",
			i, j->host, j->dev, r->local, j->ib_port, j->active_mtu,
			j->gid_index >= 0 ? j->gid : "none",
			gid_kind(j, kind, sizeof(kind)), j->gid_reason,
			j->version);
	}
	print_differ(v, f, "active MTU", key_mtu);
	print_differ(v, f, "automatic GID", gid_kind);
	print_differ(v, f, "version", key_version);
}

/* FNV-1a of @s, each run of digits as one '#'. */
static uint64_t text_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (*s) {
		unsigned char c = (unsigned char)*s++;

		if (c >= '0' && c <= '9') {
			while (*s >= '0' && *s <= '9')
				s++;
			c = '#';
		}
		h = (h ^ c) * 0x100000001b3ULL;
	}
	return h;
}

/*
 * The ranks @pick chooses, grouped by their reason (@why: the same text
 * once each run of digits is read as one): a group of up to
 * PP_MESH_EXAMPLES ranks is printed a line a rank by @one, a larger one on
 * one line with its count and examples; up to PP_MESH_GROUPS groups, then
 * a count.  Return: whether any rank was picked.
 */
static bool print_rank_groups(const struct pp_mesh_view *v, FILE *f,
			      const char *what,
			      bool (*pick)(const struct pp_mesh_rank *r),
			      const char *(*why)(const struct pp_mesh_rank *r),
			      void (*one)(const struct pp_mesh_view *v,
					  uint32_t i, FILE *f))
{
	struct {
		uint64_t hash, count;
		uint32_t ex[PP_MESH_EXAMPLES];
	} g[PP_MESH_GROUPS];
	uint32_t ng = 0, i, k, e;
	uint64_t other = 0;
	char b1[32], b2[32];

	for (i = 0; i < v->n; i++) {
		uint64_t h;

		if (!pick(&v->ranks[i]))
			continue;
		h = text_hash(why(&v->ranks[i]));
		for (k = 0; k < ng && g[k].hash != h; k++)
			;
		if (k == ng && ng == PP_MESH_GROUPS) {
			other++;
			continue;
		}
		if (k == ng) {
			g[ng].hash = h;
			g[ng++].count = 0;
		}
		if (g[k].count < PP_MESH_EXAMPLES)
			g[k].ex[g[k].count] = i;
		g[k].count++;
	}
	for (k = 0; k < ng; k++) {
		if (g[k].count <= PP_MESH_EXAMPLES) {
			for (e = 0; e < g[k].count; e++)
				one(v, g[k].ex[e], f);
			continue;
		}
		fprintf(f, "  %s: %s: %s of %s ranks, e.g.", what,
			why(&v->ranks[g[k].ex[0]]),
			fmt_count(g[k].count, b1, sizeof(b1)),
			fmt_count(v->n, b2, sizeof(b2)));
		for (e = 0; e < PP_MESH_EXAMPLES; e++)
			fprintf(f, "%s %s (rank %u)", e ? "," : "",
				v->ranks[g[k].ex[e]].label, g[k].ex[e]);
		fputc('\n', f);
	}
	if (other)
		fprintf(f, "  %s: and %s more ranks of other reasons\n", what,
			fmt_count(other, b1, sizeof(b1)));
	return ng > 0;
}

static bool pick_absent(const struct pp_mesh_rank *r)
{
	return !r->joined;
}

static bool pick_gone(const struct pp_mesh_rank *r)
{
	return r->joined && r->gone;
}

static bool pick_dev(const struct pp_mesh_rank *r)
{
	return r->joined && r->facts.error[0];
}

static const char *why_absent(const struct pp_mesh_rank *r)
{
	return r->gone_why[0] ? r->gone_why : "the join deadline";
}

static const char *why_gone(const struct pp_mesh_rank *r)
{
	return r->gone_why;
}

static const char *why_dev(const struct pp_mesh_rank *r)
{
	return r->facts.error;
}

static void one_absent(const struct pp_mesh_view *v, uint32_t i, FILE *f)
{
	fprintf(f, "  never joined: rank %u (within %s)\n", i,
		why_absent(&v->ranks[i]));
}

static void one_gone(const struct pp_mesh_view *v, uint32_t i, FILE *f)
{
	fprintf(f, "  gone: %s (rank %u): %s\n", v->ranks[i].label, i,
		v->ranks[i].gone_why);
}

static void one_dev(const struct pp_mesh_view *v, uint32_t i, FILE *f)
{
	fprintf(f, "  device: %s (rank %u): %s\n", v->ranks[i].label, i,
		v->ranks[i].facts.error);
}

static void side_line(const struct pp_mesh_view *v, uint32_t rank, bool have,
		      const char *reason, FILE *f)
{
	fprintf(f, "      %s: %s\n", v->ranks[rank].label,
		!have	  ? "no result (the rank was gone)" :
		reason[0] ? reason :
			    "no failure on this side");
}

/* Where a pair's time went: one line, the mean and (the largest). */
static void print_times(const struct pp_mesh_view *v, FILE *f)
{
	unsigned int t;

	if (!v->times.sides)
		return;
	fprintf(f,
		"a pair's time, mean (largest) of %u sides:", v->times.sides);
	for (t = 0; t < PP_MESH_T_COUNT; t++)
		fprintf(f, "%s %s %.1f ms (%.1f)", t ? "," : "",
			pp_mesh_time_name(t, true),
			(double)v->times.sum_us[t] / v->times.sides / 1000,
			v->times.max_us[t] / 1000.0);
	fputc('\n', f);
}

/* The failed pairs from the store: each group whole or as one. */
static bool print_failed(const struct pp_mesh_view *v, FILE *f)
{
	const struct pp_mesh_store *s = v->store;
	char b1[32];
	uint32_t k, e;

	if (!s)
		return false;
	for (k = 0; k < s->ngroups; k++) {
		const struct pp_mesh_group *g = &s->group[k];
		/* a flagged pair ran whole: rank 0's line alone says why */
		bool flag = pp_mesh_code_flagged(g->code);
		const char *what = flag ? "flagged" : "failed";

		if (g->count > PP_MESH_EXAMPLES) {
			fprintf(f, "  %s: %s pairs at %s (%s)%s%s, e.g.", what,
				fmt_count(g->count, b1, sizeof(b1)),
				pp_mesh_code_name(g->code),
				pp_mesh_code_text(g->code),
				g->why[0][0] ? ": " : "", g->why[0]);
			for (e = 0; e < PP_MESH_EXAMPLES; e++)
				fprintf(f, "%s %s - %s", e ? "," : "",
					v->ranks[g->a[e]].label,
					v->ranks[g->b[e]].label);
			if (flag) {
				fputc('\n', f);
				continue;
			}
			fprintf(f, "; the first:\n");
			side_line(v, g->a[0], g->have[0][0], g->side[0][0], f);
			side_line(v, g->b[0], g->have[0][1], g->side[0][1], f);
			continue;
		}
		for (e = 0; e < g->count; e++) {
			fprintf(f, "  %s: %s - %s at %s (%s)%s%s\n", what,
				v->ranks[g->a[e]].label,
				v->ranks[g->b[e]].label,
				pp_mesh_code_name(g->code),
				pp_mesh_code_text(g->code),
				g->why[e][0] ? ": " : "", g->why[e]);
			if (flag)
				continue;
			side_line(v, g->a[e], g->have[e][0], g->side[e][0], f);
			side_line(v, g->b[e], g->have[e][1], g->side[e][1], f);
		}
	}
	if (s->other)
		fprintf(f,
			"  failed: and %s more pairs of other reasons (--json's pairs has each)\n",
			fmt_count(s->other, b1, sizeof(b1)));
	return s->ngroups > 0;
}

/* A NIC's name: "host:device", the host's short name. */
static const char *nic_name(const struct pp_mesh_view *v, uint32_t i, char *buf,
			    size_t len)
{
	char sh[PP_MESH_HOST_MAX];

	short_host(v->ranks[i].facts.host, sh, sizeof(sh));
	if (v->ranks[i].facts.dev[0]) /* host:device, as the labels */
		snprintf(buf, len, "%.200s:%.50s", sh, v->ranks[i].facts.dev);
	else
		snprintf(buf, len, "%.200s", sh);
	return buf;
}

/*
 * The other ranks of @i's host that @pick chooses, as "host:dev (rank k)",
 * up to 3, then a count.  Return: how many.
 */
static uint32_t
print_mates(const struct pp_mesh_view *v, uint32_t i,
	    bool (*pick)(const struct pp_mesh_view *v, uint32_t j), FILE *f)
{
	char nb[PP_MESH_HOST_MAX];
	uint32_t j, k = 0;

	for (j = 0; j < v->n; j++) {
		if (j == i || v->host_id[j] != v->host_id[i] || !pick(v, j))
			continue;
		if (k < 3)
			fprintf(f, "%s %s (rank %u)", k ? "," : "",
				nic_name(v, j, nb, sizeof(nb)), j);
		k++;
	}
	if (k > 3)
		fprintf(f, " and %u more", k - 3);
	return k;
}

/* A judged rank of a host, not slow / one that passed a pair. */
static bool mate_fast(const struct pp_mesh_view *v, uint32_t j)
{
	return isfinite(v->added_us[j]) && !v->slow[j];
}

static bool mate_passes(const struct pp_mesh_view *v, uint32_t j)
{
	uint32_t k;

	for (k = 0; k < v->n; k++)
		if (k != j && cell(v, j, k)->code == PP_MESH_OK)
			return true;
	return false;
}

/* The ranks of @first's host that were judged: "ranks 4, 5, 6 and 7". */
static void print_host_ranks(const struct pp_mesh_view *v, uint32_t first,
			     FILE *f)
{
	uint32_t j, k = 0;

	for (j = first; j < v->n; j++) {
		const struct pp_mesh_rank *r = &v->ranks[j];

		if (v->host_id[j] != v->host_id[first] || !r->joined ||
		    r->gone || r->facts.error[0])
			continue;
		if (k < 8)
			fprintf(f, "%s%u", k ? ", " : "", j);
		else if (k == 8)
			fprintf(f, ", ...");
		k++;
	}
}

static const char only_nic[] = "the host's only NIC in this mesh";

static void print_verdict(const struct pp_mesh_view *v,
			  const struct pp_mesh_verdict *d, FILE *f)
{
	char na[PP_MESH_HOST_MAX], nb[PP_MESH_HOST_MAX], sh[PP_MESH_HOST_MAX];
	char add[16], med[16], exp[16], rtt[16], b1[32];

	fmt_us(d->added_us, add, sizeof(add));
	fmt_us(v->odd.matrix_median_us, med, sizeof(med));
	fmt_count(d->pairs, b1, sizeof(b1));
	short_host(v->ranks[d->a].facts.host, sh, sizeof(sh));
	fprintf(f, "verdict: ");
	switch (d->kind * PP_MESH_VERDICT_STATES + d->state) {
	case PP_MESH_VERDICT_RAILS_KIND *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_NO_PATH:
		fprintf(f,
			"no path between rails %u and %u: all %s pairs across them failed, while those within each rail passed\n",
			d->a, d->b, b1);
		return;
	case PP_MESH_VERDICT_HOST *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_SLOW:
		fprintf(f, "slow host %s: its %u NICs (ranks ", sh,
			d->host_ranks);
		print_host_ranks(v, d->a, f);
		fprintf(f,
			") add about %s usec each to their %s pairs (matrix median %s usec)\n",
			add, b1, med);
		return;
	case PP_MESH_VERDICT_HOST *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_FAILING:
		fprintf(f,
			"failing host %s: all %s pairs of its %u NICs (ranks ",
			sh, b1, d->host_ranks);
		print_host_ranks(v, d->a, f);
		fprintf(f,
			") failed, while their peers pass their other pairs\n");
		return;
	case PP_MESH_VERDICT_NIC *PP_MESH_VERDICT_STATES + PP_MESH_VERDICT_SLOW:
		fprintf(f,
			"slow NIC %s (rank %u%s%s) adds %s usec to each of its %s pairs (matrix median %s usec)",
			nic_name(v, d->a, na, sizeof(na)), d->a,
			d->host_ranks == 1 ? ", " : "",
			d->host_ranks == 1 ? only_nic : "", add, b1, med);
		if (d->host_ranks > 1) {
			fprintf(f, "; %s's other NICs are fine:", sh);
			if (!print_mates(v, d->a, mate_fast, f))
				fprintf(f,
					" none: they are slow by other amounts");
		}
		fputc('\n', f);
		return;
	case PP_MESH_VERDICT_NIC *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_FAILING:
		fprintf(f,
			"failing NIC %s (rank %u%s%s): all its %s pairs failed, while its peers pass their other pairs",
			nic_name(v, d->a, na, sizeof(na)), d->a,
			d->host_ranks == 1 ? ", " : "",
			d->host_ranks == 1 ? only_nic : "", b1);
		if (d->host_ranks > 1) {
			fprintf(f, "; %s's other NICs pass theirs:", sh);
			print_mates(v, d->a, mate_passes, f);
		}
		fputc('\n', f);
		return;
	case PP_MESH_VERDICT_LINK *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_SLOW:
		fmt_us(d->expect_us, exp, sizeof(exp));
		fmt_us(d->expect_us + d->added_us, rtt, sizeof(rtt));
		fprintf(f,
			"slow link %s (rank %u) - %s (rank %u): %s usec, %s usec more than its two ends predict (%s usec); both ends are fine with their other pairs\n",
			nic_name(v, d->a, na, sizeof(na)), d->a,
			nic_name(v, d->b, nb, sizeof(nb)), d->b, rtt, add, exp);
		return;
	case PP_MESH_VERDICT_LINK *PP_MESH_VERDICT_STATES +
		PP_MESH_VERDICT_FAILING:
		fprintf(f,
			"failing link %s (rank %u) - %s (rank %u) at %s (%s), while both ends pass their other pairs (%llu of %llu, %llu of %llu)\n",
			nic_name(v, d->a, na, sizeof(na)), d->a,
			nic_name(v, d->b, nb, sizeof(nb)), d->b,
			pp_mesh_code_name(d->code), pp_mesh_code_text(d->code),
			(unsigned long long)d->a_passed,
			(unsigned long long)d->a_ran,
			(unsigned long long)d->b_passed,
			(unsigned long long)d->b_ran);
		return;
	}
	fputc('\n', f);
}

/* One line a verdict, PP_MESH_VERDICT_KEEP of each kind and state. */
static void print_verdicts(const struct pp_mesh_view *v, FILE *f)
{
	static const char *const what[PP_MESH_VERDICT_KINDS] = {
		"pairs of rails", "hosts", "NICs", "links"
	};
	const struct pp_mesh_verdicts *vd = v->verdicts;
	uint32_t kd, st, i;
	char b1[32];

	if (!vd || !vd->total)
		return;
	for (kd = 0; kd < PP_MESH_VERDICT_KINDS; kd++)
		for (st = 0; st < PP_MESH_VERDICT_STATES; st++) {
			uint64_t more = vd->found[kd][st] - vd->kept[kd][st];

			for (i = 0; i < vd->kept[kd][st]; i++)
				print_verdict(v, &vd->v[kd][st][i], f);
			if (more)
				fprintf(f,
					"verdict: and %s more %s %s (--json's summary counts them)\n",
					fmt_count(more, b1, sizeof(b1)),
					st == PP_MESH_VERDICT_NO_PATH ?
						"unconnected" :
						pp_mesh_verdict_state_name(st),
					what[kd]);
		}
	fputc('\n', f);
}

static void print_odd(const struct pp_mesh_view *v, FILE *f)
{
	bool any = false;

	fprintf(f, "odd ones out:\n");
	any |= print_rank_groups(v, f, "device", pick_dev, why_dev, one_dev);
	any |= print_rank_groups(v, f, "never joined", pick_absent, why_absent,
				 one_absent);
	any |= print_rank_groups(v, f, "gone", pick_gone, why_gone, one_gone);
	any |= print_failed(v, f);
	if (!any)
		fprintf(f, "  %s\n",
			v->verdicts && v->verdicts->total ?
				"no failure; the verdicts follow" :
				"none");
}

/* "rail pairs: 96 of 496 (...)": the mode and what it selects. */
static void print_selected(const struct pp_mesh_view *v, FILE *f)
{
	uint64_t all = (uint64_t)v->n * (v->n - 1) / 2;
	char b1[32], b2[32];

	fprintf(f, "%s pairs: %s of %s", mode_name(v),
		fmt_count(all - v->not_selected, b1, sizeof(b1)),
		fmt_count(all, b2, sizeof(b2)));
	if (v->pairs == PP_MESH_PAIRS_RAIL)
		fprintf(f,
			" (ranks of one local index on different hosts; the others not run)");
	else if (v->pairs == PP_MESH_PAIRS_REMOTE)
		fprintf(f,
			" (ranks on different hosts; those of one host not run)");
	fputc('\n', f);
}

void pp_mesh_print_text(const struct pp_mesh_view *v, FILE *f)
{
	uint32_t np = v->passed + v->nflagged + v->failed;
	char flags[96] = "";

	if (v->nflagged || v->expect_mtu || v->max_rtt_us > 0)
		snprintf(flags, sizeof(flags), " %u flagged (MTU %u, SLOW %u),",
			 v->nflagged, v->flagged[PP_MESH_MTU],
			 v->flagged[PP_MESH_SLOW]);
	print_matrix(v, f);
	fputc('\n', f);
	print_hosts(v, f);
	fputc('\n', f);
	print_odd(v, f);
	fputc('\n', f);
	print_verdicts(v, f);
	if (v->stopped)
		fprintf(f, "mesh stopped: %s\n", v->stopped);
	print_times(v, f);
	print_selected(v, f);
	fprintf(f,
		"mesh: %u of %u ranks joined, %u pairs: %u passed,%s %u failed, in %.1f s (bound %.0f s)\n",
		v->joined, v->n, np, v->passed, flags, v->failed, v->elapsed_s,
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
		pp_json_key_string_or_null(
			j, "device", r->joined && f->dev[0] ? f->dev : NULL);
		pp_json_key_int_or_null(j, "local", r->joined, r->local);
		pp_json_key_uint(j, "port", f->ib_port);
		pp_json_key_uint(j, "active_mtu", f->active_mtu);
		pp_json_key_int_or_null(j, "netdev_mtu", f->netdev_mtu != 0,
					f->netdev_mtu);
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
		if (!j->err)
			fputc('\n', j->f); /* a rank a line */
	}
	pp_json_end_array(j);
}

static void json_side(struct pp_json *j, uint32_t rank, const char *role,
		      const struct pp_mesh_side *s)
{
	pp_json_begin_object(j);
	pp_json_key_uint(j, "rank", rank);
	pp_json_key_string(j, "role", role);
	pp_json_key_bool(j, "reported", s->have);
	pp_json_key_string_or_null(
		j, "step", s->have ? pp_mesh_code_name(s->r.step) : NULL);
	pp_json_key_string_or_null(j, "error", s->have ? s->r.reason : NULL);
	pp_json_key(j, "time_ms");
	if (s->have && s->r.times_us[PP_MESH_T_START]) {
		unsigned int t;

		pp_json_begin_object(j);
		for (t = 0; t < PP_MESH_T_COUNT; t++)
			pp_json_key_double(j, pp_mesh_time_name(t, false),
					   s->r.times_us[t] / 1000.0);
		pp_json_end_object(j);
	} else {
		pp_json_null(j);
	}
	pp_json_key(j, "doc");
	if (!s->doc || pp_json_raw(j, s->doc))
		pp_json_null(j);
	pp_json_end_object(j);
}

void pp_mesh_json_pair(const struct pp_mesh_view *v, struct pp_json *j,
		       uint32_t a, uint32_t b, const struct pp_mesh_detail *d)
{
	const struct pp_mesh_cell *c = cell(v, a, b);
	/* a pair that passed with nothing kept: both sides reported */
	struct pp_mesh_detail none = {
		.side = { { .have = pp_mesh_code_ran(c->code) },
			  { .have = pp_mesh_code_ran(c->code) } },
	};

	if (!d)
		d = &none;
	pp_json_begin_object(j);
	pp_json_key_uint(j, "a", a);
	pp_json_key_uint(j, "b", b);
	pp_json_key_int_or_null(j, "round", c->ran, c->round);
	pp_json_key_string(j, "result", pp_mesh_code_name(c->code));
	pp_json_key_bool(j, "passed", c->code == PP_MESH_OK);
	key_us(j, "median_usec", c->median_us);
	pp_json_key_int_or_null(j, "path_mtu", c->path_mtu != 0, c->path_mtu);
	pp_json_key_string_or_null(j, "why", d->why);
	pp_json_key(j, "sides");
	pp_json_begin_array(j);
	json_side(j, a, "server", &d->side[0]);
	json_side(j, b, "client", &d->side[1]);
	pp_json_end_array(j);
	pp_json_end_object(j);
	if (!j->err)
		fputc('\n', j->f); /* a pair a line, however many */
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

			if (c && !c->unsel && pp_mesh_code_ran(c->code) &&
			    isfinite(c->median_us))
				pp_json_double(j, round(c->median_us * 1000) /
							  1000);
			else
				pp_json_null(j);
		}
		pp_json_end_array(j);
		if (!j->err)
			fputc('\n', j->f);
	}
	pp_json_end_array(j);
	pp_json_key(j, "cells");
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++) {
		pp_json_begin_array(j);
		for (b = 0; b < v->n; b++)
			pp_json_string(j, pp_mesh_cell_text(v, a, b, buf));
		pp_json_end_array(j);
		if (!j->err)
			fputc('\n', j->f);
	}
	pp_json_end_array(j);
	pp_json_end_object(j);
}

/* "pair_time_ms": the mean and the largest of each part, over the sides. */
static void json_times(const struct pp_mesh_view *v, struct pp_json *j)
{
	unsigned int t, k;

	pp_json_key(j, "pair_time_ms");
	if (!v->times.sides) {
		pp_json_null(j);
		return;
	}
	pp_json_begin_object(j);
	pp_json_key_uint(j, "sides", v->times.sides);
	for (k = 0; k < 2; k++) {
		pp_json_key(j, k ? "max" : "mean");
		pp_json_begin_object(j);
		for (t = 0; t < PP_MESH_T_COUNT; t++)
			pp_json_key_double(
				j, pp_mesh_time_name(t, false),
				round(k ? v->times.max_us[t] :
					  (double)v->times.sum_us[t] /
						      v->times.sides) /
					1000.0);
		pp_json_end_object(j);
	}
	pp_json_end_object(j);
}

/* A rank as one end of a link: {"rank", "host", "device"}. */
static void json_end(const struct pp_mesh_view *v, struct pp_json *j,
		     uint32_t i)
{
	pp_json_begin_object(j);
	pp_json_key_uint(j, "rank", i);
	pp_json_key_string(j, "host", v->ranks[i].facts.host);
	pp_json_key_string(j, "device", v->ranks[i].facts.dev);
	pp_json_end_object(j);
}

static void json_verdict(const struct pp_mesh_view *v, struct pp_json *j,
			 const struct pp_mesh_verdict *d)
{
	bool rails = d->kind == PP_MESH_VERDICT_RAILS_KIND;
	bool link = d->kind == PP_MESH_VERDICT_LINK;
	bool nic = d->kind == PP_MESH_VERDICT_NIC;
	uint32_t i;

	pp_json_begin_object(j);
	pp_json_key_string(j, "kind", pp_mesh_verdict_kind_name(d->kind));
	pp_json_key_string(j, "state", pp_mesh_verdict_state_name(d->state));
	pp_json_key_string_or_null(
		j, "host", rails || link ? NULL : v->ranks[d->a].facts.host);
	pp_json_key_string_or_null(j, "device",
				   nic ? v->ranks[d->a].facts.dev : NULL);
	pp_json_key(j, "ranks");
	pp_json_begin_array(j);
	if (link) {
		pp_json_uint(j, d->a);
		pp_json_uint(j, d->b);
	} else if (nic) {
		pp_json_uint(j, d->a);
	} else if (!rails) {
		for (i = d->a; i < v->n; i++) {
			const struct pp_mesh_rank *r = &v->ranks[i];

			if (v->host_id[i] == v->host_id[d->a] && r->joined &&
			    !r->gone && !r->facts.error[0])
				pp_json_uint(j, i);
		}
	}
	pp_json_end_array(j);
	pp_json_key(j, "ends");
	if (link) {
		pp_json_begin_array(j);
		json_end(v, j, d->a);
		json_end(v, j, d->b);
		pp_json_end_array(j);
	} else {
		pp_json_null(j);
	}
	pp_json_key(j, "rails");
	if (rails) {
		pp_json_begin_array(j);
		pp_json_uint(j, d->a);
		pp_json_uint(j, d->b);
		pp_json_end_array(j);
	} else {
		pp_json_null(j);
	}
	pp_json_key_int_or_null(j, "host_nics", !rails && !link, d->host_ranks);
	pp_json_key_uint(j, "pairs", d->pairs);
	key_us(j, "added_usec", d->added_us);
	key_us(j, "expected_usec", d->expect_us);
	pp_json_key_string_or_null(j, "result",
				   link && d->state == PP_MESH_VERDICT_FAILING ?
					   pp_mesh_code_name(d->code) :
					   NULL);
	pp_json_end_object(j);
}

/* "verdicts" (those kept) and "verdicts_left_off" (the others). */
static void json_verdicts(const struct pp_mesh_view *v, struct pp_json *j)
{
	const struct pp_mesh_verdicts *vd = v->verdicts;
	uint64_t kept = 0;
	uint32_t kd, st, i;

	pp_json_key(j, "verdicts");
	pp_json_begin_array(j);
	for (kd = 0; vd && kd < PP_MESH_VERDICT_KINDS; kd++)
		for (st = 0; st < PP_MESH_VERDICT_STATES; st++)
			for (i = 0; i < vd->kept[kd][st]; i++, kept++)
				json_verdict(v, j, &vd->v[kd][st][i]);
	pp_json_end_array(j);
	pp_json_key_uint(j, "verdicts_left_off", vd ? vd->total - kept : 0);
}

/*
 * @key: [{"a", "b", "result"}] of the selected pairs that failed, or with
 * @flagged, of those that ran but were flagged (MTU, SLOW).
 */
static void json_pair_list(const struct pp_mesh_view *v, struct pp_json *j,
			   const char *key, bool flagged)
{
	uint32_t a, b;

	pp_json_key(j, key);
	pp_json_begin_array(j);
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++) {
			const struct pp_mesh_cell *c = cell(v, a, b);

			if (c->unsel ||
			    (flagged ? !pp_mesh_code_flagged(c->code) :
				       pp_mesh_code_ran(c->code)))
				continue;
			pp_json_begin_object(j);
			pp_json_key_uint(j, "a", a);
			pp_json_key_uint(j, "b", b);
			pp_json_key_string(j, "result",
					   pp_mesh_code_name(c->code));
			pp_json_end_object(j);
		}
	pp_json_end_array(j);
}

static void json_summary(const struct pp_mesh_view *v, struct pp_json *j)
{
	uint32_t i;

	pp_json_key(j, "summary");
	pp_json_begin_object(j);
	pp_json_key_uint(j, "ranks", v->n);
	pp_json_key_uint(j, "joined", v->joined);
	pp_json_key_uint(j, "pairs", v->passed + v->nflagged + v->failed);
	pp_json_key_uint(j, "passed", v->passed);
	pp_json_key_uint(j, "flagged", v->nflagged);
	pp_json_key_uint(j, "failed", v->failed);
	pp_json_key_uint(j, "not_selected", v->not_selected);
	pp_json_key_uint(j, "device_failed", v->dev_failed);
	json_times(v, j);
	key_us(j, "matrix_median_usec", v->odd.matrix_median_us);
	key_us(j, "baseline_usec", v->odd.baseline_us);
	key_us(j, "noise_usec", v->odd.noise_us);
	key_us(j, "noise_k", v->odd.noise_k);
	key_us(j, "bar_usec", v->odd.bar_us);
	pp_json_key(j, "slow");
	pp_json_begin_array(j);
	for (i = 0; i < v->n; i++) {
		if (!v->slow[i])
			continue;
		pp_json_begin_object(j);
		pp_json_key_uint(j, "rank", i);
		pp_json_key_string(j, "host", v->ranks[i].facts.host);
		pp_json_key_string(j, "label", v->ranks[i].label);
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
	json_verdicts(v, j);
	json_pair_list(v, j, "failed_pairs", false);
	json_pair_list(v, j, "flagged_pairs", true);
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
	pp_json_key_double(j, "elapsed_s", round(v->elapsed_s * 1000) / 1000);
	pp_json_key_string_or_null(j, "stopped", v->stopped);
	pp_json_key_uint(j, "exit_status", (uint64_t)v->exit_status);
	pp_json_end_object(j);
}

/* The document up to the pairs: "mesh" and the opening of "pairs". */
static void json_head(const struct pp_mesh_view *v, struct pp_json *j)
{
	pp_json_begin_object(j);
	pp_json_key(j, "mesh");
	pp_json_begin_object(j);
	pp_json_key_uint(j, "schema", 1);
	pp_json_key_string(j, "tool", v->tool);
	pp_json_key_string(j, "transport", v->transport);
	pp_json_key_string_or_null(j, "run", v->what);
	pp_json_key_string(j, "launcher", pp_mesh_launcher_name(v->launcher));
	pp_json_key_string_or_null(j, "root", v->root);
	pp_json_key_uint(j, "port", v->port);
	pp_json_key_uint(j, "size", v->n);
	pp_json_key_bool(j, "serial", v->serial);
	pp_json_key_string(j, "pair_mode", mode_name(v));
	pp_json_key_uint(j, "selected", v->selected);
	pp_json_key_uint(j, "rounds", v->rounds);
	pp_json_key_double(j, "pair_bound_s", v->pair_ms / 1000.0);
	pp_json_key_double(j, "bound_s", v->bound_s);
	pp_json_key_int_or_null(j, "expect_mtu", v->expect_mtu != 0,
				v->expect_mtu);
	pp_json_key(j, "max_rtt_usec");
	if (v->max_rtt_us > 0)
		pp_json_double(j, v->max_rtt_us);
	else
		pp_json_null(j);
	pp_json_end_object(j);
	pp_json_key(j, "pairs");
	pp_json_begin_array(j);
	if (!j->err)
		fputc('\n', j->f);
}

/* The document after the pairs. */
static int json_tail(const struct pp_mesh_view *v, struct pp_json *j)
{
	pp_json_end_array(j);
	json_hosts(v, j);
	if (!j->err)
		fputc('\n', j->f);
	json_matrix(v, j);
	json_summary(v, j);
	pp_json_end_object(j);
	return pp_json_finish(j);
}

int pp_mesh_view_begin_json(struct pp_mesh_view *v, FILE *f)
{
	struct pp_mesh_store *s;

	s = pp_mesh_store_get(v);
	if (!s)
		return ENOMEM;
	pp_json_init(&s->json, f, false);
	s->json_f = f;
	json_head(v, &s->json);
	return s->json.err;
}

int pp_mesh_view_end_json(struct pp_mesh_view *v)
{
	size_t np = (size_t)v->n * (v->n - 1) / 2, k;
	uint32_t a = 0, b = 1;
	int ret;

	if (!v->store || !v->store->json_f)
		return EINVAL;
	for (k = 0; k < np; k++) {
		if (!v->cells[k].settled)
			pp_mesh_view_settle(v, a, b);
		if (++b == v->n) {
			a++;
			b = a + 1;
		}
	}
	ret = json_tail(v, &v->store->json);
	v->store->json_f = NULL;
	return ret;
}

int pp_mesh_write_json(const struct pp_mesh_view *v, FILE *f)
{
	struct pp_json j;
	uint32_t a, b;

	pp_json_init(&j, f, false);
	json_head(v, &j);
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++)
			if (!cell(v, a, b)->unsel)
				pp_mesh_json_pair(v, &j, a, b, NULL);
	return json_tail(v, &j);
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

/* The picture's frame and white ground, and the title's start: @tool. */
static void svg_head(FILE *f, int w, int h, const char *tool)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		w, h, w, h);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">");
	xml_text(f, tool);
}

#define UNSEL_FILL "#f2f2f2" /* a pair not selected: neutral, not a colour */

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

/* A failed pair's colour, and a flagged one's (MTU, SLOW: it ran). */
#define SVG_FAILED "#202020"
#define SVG_FLAGGED "#8e44ad"

/* A block of the aggregated picture: the pairs of its ranks. */
struct block {
	uint32_t pairs, failed, flagged;
	uint8_t code; /* the first failure's */
	double worst_us;
};

/* The key: fastest, slowest, failed; with @unsel, the pairs not run. */
static void svg_key(FILE *f, double lo, double hi, int lm, int y,
		    uint64_t unsel)
{
	char col[16], buf[16];

	if (unsel)
		fprintf(f,
			"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\" stroke=\"#bbbbbb\"/><text x=\"%d\" y=\"%d\">not selected (--mesh-pairs): not run</text>\n",
			lm, y + 24, UNSEL_FILL, lm + 22, y + 36);
	if (!isfinite(lo))
		return;
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
		"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">failed (the step's code)</text>\n",
		lm + 320, y, SVG_FAILED, lm + 342, y + 12);
	fprintf(f,
		"<rect x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">ran, flagged by a threshold (MTU: --expect-mtu, SLOW: --max-rtt)</text>\n",
		lm, y + 22, SVG_FLAGGED, lm + 22, y + 34);
}

/*
 * Beyond PP_MESH_SVG_FULL ranks: a square is a block of k x k pairs (k =
 * ceil(N / PP_MESH_SVG_BLOCKS)): black when any of its pairs failed, else
 * coloured by its slowest pair; its title says how many failed and the
 * slowest.
 */
static int write_svg_blocks(const struct pp_mesh_view *v, FILE *f)
{
	const uint32_t k = (v->n + PP_MESH_SVG_BLOCKS - 1) / PP_MESH_SVG_BLOCKS;
	const uint32_t nb = (v->n + k - 1) / k;
	const int cs = 8, lm = 140, tm = 140;
	int w = lm + cs * (int)nb + 40, h = tm + cs * (int)nb + 90;
	struct block *bl = calloc((size_t)nb * nb, sizeof(*bl));
	double lo = INFINITY, hi = -INFINITY, t;
	char col[16], buf[16], b1[32];
	uint32_t a, b, x, y;
	size_t i = 0;

	if (!bl)
		return ENOMEM;
	if (w < lm + 520)
		w = lm + 520;
	for (a = 0; a < v->n; a++)
		for (b = a + 1; b < v->n; b++, i++) {
			const struct pp_mesh_cell *c = &v->cells[i];
			struct block *p = &bl[(size_t)(a / k) * nb + b / k];

			if (c->unsel)
				continue;
			p->pairs++;
			if (pp_mesh_code_flagged(c->code))
				p->flagged++;
			if (!pp_mesh_code_ran(c->code)) {
				if (!p->failed++)
					p->code = c->code;
			} else if (isfinite(c->median_us)) {
				p->worst_us = fmax(p->worst_us, c->median_us);
				lo = fmin(lo, c->median_us);
				hi = fmax(hi, c->median_us);
			}
		}
	svg_head(f, w, h, v->tool);
	fprintf(f,
		" --mesh: %u ranks, %u passed, %u flagged, %u failed; a square is %u x %u pairs: black if any failed, else purple if any was flagged, else its slowest pair</text>\n",
		v->n, v->passed, v->nflagged, v->failed, k, k);
	for (x = 0; x < nb; x++) {
		uint32_t r0 = x * k,
			 r1 = r0 + k - 1 < v->n ? r0 + k - 1 : v->n - 1;

		fprintf(f,
			"<text x=\"%d\" y=\"%d\" text-anchor=\"end\" dominant-baseline=\"middle\" font-size=\"7\">%u-%u</text>\n",
			lm - 6, tm + cs * (int)x + cs / 2, r0, r1);
		fprintf(f,
			"<text transform=\"translate(%d,%d) rotate(-60)\" font-size=\"7\">%u-%u</text>\n",
			lm + cs * (int)x + cs / 2, tm - 6, r0, r1);
	}
	for (y = 0; y < nb; y++)
		for (x = 0; x < nb; x++) {
			const struct block *p =
				&bl[(size_t)(y < x ? y : x) * nb +
				    (y < x ? x : y)];
			uint32_t r0 = y * k, c0 = x * k;

			if (!p->pairs)
				snprintf(col, sizeof(col),
					 x == y ? "#dddddd" : UNSEL_FILL);
			else if (p->failed)
				snprintf(col, sizeof(col), SVG_FAILED);
			else if (p->flagged)
				snprintf(col, sizeof(col), SVG_FLAGGED);
			else {
				t = hi > lo ? log(p->worst_us / lo) /
						      log(hi / lo) :
					      0;
				heat(t, col, sizeof(col));
			}
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"><title>ranks %u-%u - ranks %u-%u: %s pairs",
				lm + cs * (int)x, tm + cs * (int)y, cs, cs, col,
				r0, r0 + k - 1 < v->n ? r0 + k - 1 : v->n - 1,
				c0, c0 + k - 1 < v->n ? c0 + k - 1 : v->n - 1,
				fmt_count(p->pairs, b1, sizeof(b1)));
			if (p->failed)
				fprintf(f, ", %s failed (first %s)",
					fmt_count(p->failed, b1, sizeof(b1)),
					pp_mesh_code_name(p->code));
			if (p->flagged)
				fprintf(f, ", %s flagged",
					fmt_count(p->flagged, b1, sizeof(b1)));
			if (p->worst_us > 0) {
				fmt_us(p->worst_us, buf, sizeof(buf));
				fprintf(f, ", slowest %s usec", buf);
			}
			fprintf(f, "</title></rect>\n");
		}
	svg_key(f, lo, hi, lm, tm + cs * (int)nb + 30, v->not_selected);
	fprintf(f, "</svg>\n");
	free(bl);
	fflush(f);
	return ferror(f) ? EIO : 0;
}

int pp_mesh_write_svg(const struct pp_mesh_view *v, FILE *f)
{
	const int cs = v->n > 64 ? 8 : v->n > 16 ? 20 : 48, lm = 140, tm = 140;
	double lo = INFINITY, hi = -INFINITY, t;
	int w = lm + cs * (int)v->n + 40, h = tm + cs * (int)v->n + 90;
	char col[16], buf[16];
	uint32_t a, b;
	size_t k, np = (size_t)v->n * (v->n - 1) / 2;

	if (v->n > PP_MESH_SVG_FULL)
		return write_svg_blocks(v, f);
	if (w < lm + 520)
		w = lm + 520; /* room for the key */
	for (k = 0; k < np; k++)
		if (!v->cells[k].unsel && pp_mesh_code_ran(v->cells[k].code) &&
		    isfinite(v->cells[k].median_us)) {
			lo = fmin(lo, v->cells[k].median_us);
			hi = fmax(hi, v->cells[k].median_us);
		}
	svg_head(f, w, h, v->tool);
	fprintf(f,
		" --mesh: median round trip (usec) of each pair, %u ranks, %u passed, %u flagged, %u failed</text>\n",
		v->n, v->passed, v->nflagged, v->failed);
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
			bool ok = c && !c->unsel && c->code == PP_MESH_OK;

			if (!c) {
				snprintf(col, sizeof(col), "#dddddd");
			} else if (c->unsel) {
				snprintf(col, sizeof(col), UNSEL_FILL);
			} else if (ok) {
				t = hi > lo ? log(c->median_us / lo) /
						      log(hi / lo) :
					      0;
				heat(t, col, sizeof(col));
			} else if (pp_mesh_code_flagged(c->code)) {
				snprintf(col, sizeof(col), SVG_FLAGGED);
			} else {
				snprintf(col, sizeof(col), SVG_FAILED);
			}
			fprintf(f,
				"<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\" stroke=\"white\"><title>",
				x, y, cs, cs, col);
			xml_text(f, v->ranks[a].label);
			fprintf(f, " - ");
			xml_text(f, v->ranks[b].label);
			fprintf(f, ": %s</title></rect>\n",
				pp_mesh_cell_text(v, a, b, buf));
			if (c && !c->unsel && cs >= 20)
				fprintf(f,
					"<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" dominant-baseline=\"middle\" font-size=\"%d\" fill=\"%s\">%s</text>\n",
					x + cs / 2, y + cs / 2,
					cs >= 48 ? 11 : 7,
					ok ? "black" : "white",
					pp_mesh_cell_text(v, a, b, buf));
		}
	svg_key(f, lo, hi, lm, tm + cs * (int)v->n + 30, v->not_selected);
	fprintf(f, "</svg>\n");
	fflush(f);
	return ferror(f) ? EIO : 0;
}
