// SPDX-License-Identifier: MIT
/*
 * pp_mesh_prom.c - --mesh-prom: a mesh's result as Prometheus metrics
 * (pp_mesh_prom.h).  Each family is a row of families[]: its name, its help
 * and the function that writes its samples, so a new family (a verdict, a
 * new code) is one row and one function.  Every family is a gauge: a mesh
 * is one run, its counts do not grow across runs.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "pp_mesh_prom.h"
#include "pp_mesh_sched.h"

#define STR_(x) #x
#define STR(x) STR_(x)

/* A pair the per-pair families hold. */
struct prom_pair {
	uint32_t a, b; /* a < b */
	size_t k;      /* pp_mesh_pair_index() */
};

struct prom {
	FILE *f;
	const struct pp_mesh_view *v;
	int status;
	double end_s;
	struct prom_pair
		*pairs; /* the pairs written, PP_MESH_PROM_PAIRS at most */
	size_t npairs;
	uint32_t *failed;     /* n: each rank's pairs that failed */
	unsigned int nlabels; /* of the sample being written */
};

/*
 * A label value: backslash, double quote and newline escaped; a byte that is
 * not part of valid UTF-8 (the format's encoding) written as '?'.
 */
static void put_value_text(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;

	while (*u) {
		unsigned int len = *u < 0x80	       ? 1 :
				   (*u & 0xe0) == 0xc0 ? 2 :
				   (*u & 0xf0) == 0xe0 ? 3 :
				   (*u & 0xf8) == 0xf0 ? 4 :
							 0;
		unsigned int i;

		for (i = 1; i < len; i++)
			if ((u[i] & 0xc0) != 0x80)
				len = 0;
		if (len == 1 && (*u == '\\' || *u == '"'))
			fprintf(f, "\\%c", *u);
		else if (len == 1 && *u == '\n')
			fputs("\\n", f);
		else if (len)
			fwrite(u, 1, len, f);
		else
			fputc('?', f);
		u += len ? len : 1;
	}
}

static void begin(struct prom *p, const char *name)
{
	fputs(name, p->f);
	p->nlabels = 0;
}

static void label(struct prom *p, const char *key, const char *val)
{
	fprintf(p->f, "%c%s=\"", p->nlabels++ ? ',' : '{', key);
	put_value_text(p->f, val ? val : "");
	fputc('"', p->f);
}

static void label_uint(struct prom *p, const char *key, uint32_t val)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", val);
	label(p, key, buf);
}

/* The sample's value: 15 significant digits, exact for any count. */
static void end(struct prom *p, double val)
{
	fprintf(p->f, "%s %.15g\n", p->nlabels ? "}" : "", val);
}

/* The labels of a mesh-level family. */
static void mesh_labels(struct prom *p)
{
	label(p, "mesh_id", p->v->mesh_id);
	label(p, "transport", p->v->transport);
}

/* A rank's labels: rank, host, device, each with @sfx ("", "_a", "_b"). */
static void rank_labels(struct prom *p, uint32_t rank, const char *sfx)
{
	const struct pp_mesh_rank *r = &p->v->ranks[rank];
	char key[16];

	snprintf(key, sizeof(key), "rank%s", sfx);
	label_uint(p, key, rank);
	snprintf(key, sizeof(key), "host%s", sfx);
	label(p, key, r->joined ? r->facts.host : "");
	snprintf(key, sizeof(key), "device%s", sfx);
	label(p, key, r->joined ? r->facts.dev : "");
}

static void begin_rank(struct prom *p, const char *name, uint32_t rank)
{
	begin(p, name);
	label(p, "transport", p->v->transport);
	rank_labels(p, rank, "");
}

static void begin_pair(struct prom *p, const char *name,
		       const struct prom_pair *q)
{
	begin(p, name);
	label(p, "transport", p->v->transport);
	rank_labels(p, q->a, "_a");
	rank_labels(p, q->b, "_b");
}

/* The mesh-level families' values; NaN: no sample. */

static double mesh_ranks(const struct prom *p)
{
	return p->v->n;
}

static double mesh_joined(const struct prom *p)
{
	return p->v->joined;
}

static double mesh_pairs(const struct prom *p)
{
	return (double)p->v->n * (p->v->n - 1) / 2 - (double)p->v->not_selected;
}

static double mesh_passed(const struct prom *p)
{
	return p->v->passed;
}

static double mesh_failed(const struct prom *p)
{
	return p->v->failed;
}

static double mesh_flagged(const struct prom *p)
{
	return p->v->nflagged;
}

static double mesh_listed(const struct prom *p)
{
	return (double)p->npairs;
}

static double mesh_slow(const struct prom *p)
{
	return p->v->odd.nslow;
}

static double mesh_median(const struct prom *p)
{
	return p->v->odd.matrix_median_us / 1e6;
}

static double mesh_duration(const struct prom *p)
{
	return p->v->elapsed_s;
}

static double mesh_status(const struct prom *p)
{
	return p->status;
}

static double mesh_end(const struct prom *p)
{
	return p->end_s;
}

/* The per-rank families. */

static void rank_joined(struct prom *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->v->n; i++) {
		begin_rank(p, name, i);
		end(p, p->v->ranks[i].joined);
	}
}

static void rank_added(struct prom *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->v->n; i++) {
		if (!isfinite(p->v->added_us[i]))
			continue; /* not judged */
		begin_rank(p, name, i);
		end(p, p->v->added_us[i] / 1e6);
	}
}

static void rank_slow(struct prom *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->v->n; i++) {
		begin_rank(p, name, i);
		end(p, p->v->slow[i]);
	}
}

/*
 * rdma_mesh_verdict{kind, state, ...} 1, one sample a verdict kept (the
 * text's lines): a NIC's rank, host and device; a host's host; a link's
 * two ends (_a, _b); two rails' indexes.
 */
static void verdict_samples(struct prom *p, const char *name)
{
	const struct pp_mesh_verdicts *vd = p->v->verdicts;
	uint32_t kd, st, i;

	for (kd = 0; vd && kd < PP_MESH_VERDICT_KINDS; kd++)
		for (st = 0; st < PP_MESH_VERDICT_STATES; st++)
			for (i = 0; i < vd->kept[kd][st]; i++) {
				const struct pp_mesh_verdict *d =
					&vd->v[kd][st][i];

				begin(p, name);
				label(p, "transport", p->v->transport);
				label(p, "kind", pp_mesh_verdict_kind_name(kd));
				label(p, "state",
				      pp_mesh_verdict_state_name(st));
				if (kd == PP_MESH_VERDICT_RAILS_KIND) {
					label_uint(p, "rail_a", d->a);
					label_uint(p, "rail_b", d->b);
				} else if (kd == PP_MESH_VERDICT_LINK) {
					rank_labels(p, d->a, "_a");
					rank_labels(p, d->b, "_b");
				} else if (kd == PP_MESH_VERDICT_HOST) {
					label(p, "host",
					      p->v->ranks[d->a].facts.host);
				} else {
					rank_labels(p, d->a, "");
				}
				end(p, 1);
			}
}

static void rank_failed(struct prom *p, const char *name)
{
	uint32_t i;

	for (i = 0; i < p->v->n; i++) {
		begin_rank(p, name, i);
		end(p, p->failed[i]);
	}
}

/* The per-pair families, over the pairs chosen. */

static void pair_rtt(struct prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->npairs; i++) {
		const struct pp_mesh_cell *c = &p->v->cells[p->pairs[i].k];

		/* a flagged pair ran whole: its median is kept */
		if ((c->code != PP_MESH_OK && !pp_mesh_code_flagged(c->code)) ||
		    !isfinite(c->median_us))
			continue;
		begin_pair(p, name, &p->pairs[i]);
		end(p, c->median_us / 1e6);
	}
}

static void pair_mtu(struct prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->npairs; i++) {
		const struct pp_mesh_cell *c = &p->v->cells[p->pairs[i].k];

		if (!c->path_mtu)
			continue; /* not known */
		begin_pair(p, name, &p->pairs[i]);
		end(p, c->path_mtu);
	}
}

static void pair_result(struct prom *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->npairs; i++) {
		const struct pp_mesh_cell *c = &p->v->cells[p->pairs[i].k];

		begin_pair(p, name, &p->pairs[i]);
		label(p, "result", pp_mesh_code_name(c->code));
		end(p, 1);
	}
}

struct family {
	const char *name;
	const char *help;
	double (*value)(const struct prom *p);		   /* mesh-level */
	void (*samples)(struct prom *p, const char *name); /* else */
};

static const struct family families[] = {
	{ "rdma_mesh_ranks", "Ranks the mesh expected.", mesh_ranks, NULL },
	{ "rdma_mesh_ranks_joined", "Ranks that joined the mesh.", mesh_joined,
	  NULL },
	{ "rdma_mesh_pairs",
	  "Pairs of the mesh: every pair of its ranks that --mesh-pairs selected.",
	  mesh_pairs, NULL },
	{ "rdma_mesh_pairs_passed", "Pairs that passed.", mesh_passed, NULL },
	{ "rdma_mesh_pairs_failed",
	  "Pairs that failed, never ran (a rank absent or gone) or were not run (the mesh was stopped).",
	  mesh_failed, NULL },
	{ "rdma_mesh_pairs_flagged",
	  "Pairs that ran but missed --expect-mtu (MTU) or --max-rtt (SLOW).",
	  mesh_flagged, NULL },
	{ "rdma_mesh_pairs_listed",
	  "Pairs in the per-pair families: every pair of a mesh of up to " STR(PP_MESH_PROM_PAIRS) " pairs; beyond, the failed pairs first, then those with a slow rank, " STR(
		  PP_MESH_PROM_PAIRS) " at most.",
	  mesh_listed, NULL },
	{ "rdma_mesh_ranks_slow",
	  "Ranks judged slow: each adds to every one of its pairs' round trips at least as much again as a typical rank.",
	  mesh_slow, NULL },
	{ "rdma_mesh_rtt_median_seconds",
	  "Median of the median round trips of the pairs that passed.",
	  mesh_median, NULL },
	{ "rdma_mesh_duration_seconds", "Wall time of the mesh, join included.",
	  mesh_duration, NULL },
	{ "rdma_mesh_exit_status",
	  "Exit status of the mesh: 0 every rank joined and every pair passed with no verdict, 4 every pair ran but a threshold or a verdict flagged something, 1 otherwise, 130 rank 0 was interrupted.",
	  mesh_status, NULL },
	{ "rdma_mesh_last_run_timestamp_seconds",
	  "When the mesh ended, in seconds since the epoch.", mesh_end, NULL },
	{ "rdma_mesh_rank_joined", "1 when the rank joined the mesh, else 0.",
	  NULL, rank_joined },
	{ "rdma_mesh_rank_added_delay_seconds",
	  "What the rank adds to the round trip of each of its pairs, over a typical rank (the odd-one-out rule); no sample where it was not judged.",
	  NULL, rank_added },
	{ "rdma_mesh_rank_slow", "1 when the rank was judged slow, else 0.",
	  NULL, rank_slow },
	{ "rdma_mesh_rank_pairs_failed", "Pairs of the rank that failed.", NULL,
	  rank_failed },
	{ "rdma_mesh_verdict",
	  "A verdict of the mesh, 1: kind nic, host, link or rails; state slow, failing or no_path; the NIC's rank, host and device, the host, a link's two ends (_a, _b) or the two rails; the strongest 16 of each kind and state.",
	  NULL, verdict_samples },
	{ "rdma_mesh_pair_rtt_median_seconds",
	  "Median round trip of the pair (the client's samples), for a pair that passed or was flagged; a is the lower rank.",
	  NULL, pair_rtt },
	{ "rdma_mesh_pair_path_mtu_bytes",
	  "Path MTU of the pair's QPs, where known.", NULL, pair_mtu },
	{ "rdma_mesh_pair_result",
	  "1, with the pair's result as label: ok; MTU or SLOW, it ran but missed a threshold; or the code of the step that failed (CONN, RTR, RTS, 1ST, RUN, DATA, TIME, GONE, ABSENT, DEV). Pairs that --mesh-pairs did not select have no sample.",
	  NULL, pair_result },
};

/*
 * The pairs the per-pair families hold: all of a mesh of up to
 * PP_MESH_PROM_PAIRS; else the failed ones, then those with a slow rank, in
 * rank order, that many at most.  And each rank's failed pairs.
 */
static int choose(struct prom *p)
{
	const struct pp_mesh_view *v = p->v;
	size_t np = (size_t)v->n * (v->n - 1) / 2, k;
	bool all = np <= PP_MESH_PROM_PAIRS;
	uint32_t a, b, pass;

	p->failed = calloc(v->n, sizeof(*p->failed));
	p->pairs = calloc(all ? np + 1 : PP_MESH_PROM_PAIRS, sizeof(*p->pairs));
	if (!p->failed || !p->pairs)
		return ENOMEM;
	for (pass = 0; pass < 2; pass++)
		for (a = 0, k = 0; a < v->n; a++)
			for (b = a + 1; b < v->n; b++, k++) {
				const struct pp_mesh_cell *c = &v->cells[k];
				bool ok = c->code == PP_MESH_OK, want;

				/* not selected (--mesh-pairs): not a pair */
				if (c->unsel)
					continue;
				if (pass == 0 && !ok &&
				    !pp_mesh_code_flagged(c->code)) {
					p->failed[a]++;
					p->failed[b]++;
				}
				if (all)
					want = pass == 0;
				else if (pass == 0)
					want = !ok;
				else
					want = ok && (v->slow[a] || v->slow[b]);
				if (!want || p->npairs == PP_MESH_PROM_PAIRS)
					continue;
				p->pairs[p->npairs++] = (struct prom_pair){
					.a = a, .b = b, .k = k
				};
			}
	return 0;
}

int pp_mesh_prom_write(const struct pp_mesh_view *v, int status, double end_s,
		       FILE *f)
{
	struct prom p = { .f = f, .v = v, .status = status, .end_s = end_s };
	size_t i;
	int ret;

	ret = choose(&p);
	for (i = 0; !ret && i < sizeof(families) / sizeof(families[0]); i++) {
		const struct family *fam = &families[i];

		fprintf(f, "# HELP %s %s\n# TYPE %s gauge\n", fam->name,
			fam->help, fam->name);
		if (fam->samples) {
			fam->samples(&p, fam->name);
			continue;
		}
		if (isnan(fam->value(&p)))
			continue;
		begin(&p, fam->name);
		mesh_labels(&p);
		end(&p, fam->value(&p));
	}
	free(p.pairs);
	free(p.failed);
	if (!ret && (fflush(f) || ferror(f)))
		ret = EIO;
	return ret;
}

static void tmp_name(const char *path, char *buf, size_t len)
{
	snprintf(buf, len, "%s.tmp-%ld", path, (long)getpid());
}

int pp_mesh_prom_check(const char *path, struct pp_err *err)
{
	char tmp[PATH_MAX + 32];
	struct stat st;
	int fd;

	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		pp_err_set(err, "cannot write %s: %s", path, strerror(EISDIR));
		return EISDIR;
	}
	tmp_name(path, tmp, sizeof(tmp));
	unlink(tmp); /* a dead process's of the same PID */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		int e = errno;

		pp_err_set(err, "cannot write %s: creating %s: %s", path, tmp,
			   strerror(e));
		return e;
	}
	close(fd);
	unlink(tmp);
	return 0;
}

/* fsync the directory of @path, so that the rename lasts (best effort). */
static void sync_dir(const char *path)
{
	char *copy = strdup(path);
	int fd;

	if (!copy)
		return;
	fd = open(dirname(copy), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(copy);
}

int pp_mesh_prom_save(const struct pp_mesh_view *v, int status, double end_s,
		      const char *path, struct pp_err *err)
{
	char tmp[PATH_MAX + 32];
	const char *step = "creating";
	FILE *f = NULL;
	int fd, ret;

	tmp_name(path, tmp, sizeof(tmp));
	unlink(tmp);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		ret = errno;
		goto out_err;
	}
	f = fdopen(fd, "w");
	if (!f) {
		ret = errno;
		close(fd);
		goto out_unlink;
	}
	step = "writing";
	errno = 0;
	ret = pp_mesh_prom_write(v, status, end_s, f);
	if (ret == EIO && errno)
		ret = errno;
	if (ret)
		goto out_close;
	step = "syncing";
	if (fsync(fileno(f))) {
		ret = errno;
		goto out_close;
	}
	step = "closing";
	ret = fclose(f) ? errno : 0;
	f = NULL;
	if (ret)
		goto out_unlink;
	step = "renaming";
	if (rename(tmp, path)) {
		ret = errno;
		goto out_unlink;
	}
	sync_dir(path);
	return 0;

out_close:
	fclose(f);
out_unlink:
	unlink(tmp);
out_err:
	pp_err_set(err, "cannot write %s: %s %s: %s", path, step, tmp,
		   strerror(ret));
	return ret;
}
