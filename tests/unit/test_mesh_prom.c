// SPDX-License-Identifier: MIT
/*
 * test_mesh_prom.c - --mesh-prom (pp_mesh_prom): the metrics of made-up
 * meshes in the text format: every family with its HELP and TYPE, its
 * samples together, label values escaped, numbers in base units; the bound
 * on the per-pair families at large N; the file replaced whole (no
 * temporary file left, a reader never sees half of it), the checks and
 * failures of the path.
 */
#define _GNU_SOURCE /* asprintf */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "check_main.h"
#include "pp_mesh_prom.h"
#include "pp_mesh_report.h"
#include "pp_mesh_sched.h"

/* Every family, in the order written. */
static const char *const families[] = {
	"rdma_mesh_ranks",
	"rdma_mesh_ranks_joined",
	"rdma_mesh_pairs",
	"rdma_mesh_pairs_passed",
	"rdma_mesh_pairs_failed",
	"rdma_mesh_pairs_flagged",
	"rdma_mesh_pairs_listed",
	"rdma_mesh_ranks_slow",
	"rdma_mesh_rtt_median_seconds",
	"rdma_mesh_duration_seconds",
	"rdma_mesh_exit_status",
	"rdma_mesh_last_run_timestamp_seconds",
	"rdma_mesh_rank_joined",
	"rdma_mesh_rank_added_delay_seconds",
	"rdma_mesh_rank_slow",
	"rdma_mesh_rank_pairs_failed",
	"rdma_mesh_verdict",
	"rdma_mesh_pair_rtt_median_seconds",
	"rdma_mesh_pair_path_mtu_bytes",
	"rdma_mesh_pair_result",
};
#define NFAM (sizeof(families) / sizeof(families[0]))

/* @n ranks "h0", "h1", ... on "mlx5_0", every pair passed at 20 usec. */
static void make(struct pp_mesh_view *v, uint32_t n)
{
	size_t np = (size_t)n * (n - 1) / 2, k;
	uint32_t i;

	*v = (struct pp_mesh_view){ .tool = "rc_pingpong",
				    .transport = "rc",
				    .mesh_id = "slurm 42.0",
				    .n = n,
				    .elapsed_s = 2.5 };
	v->ranks = calloc(n, sizeof(*v->ranks));
	v->cells = calloc(np ? np : 1, sizeof(*v->cells));
	ck_assert(v->ranks && v->cells);
	for (k = 0; k < np; k++)
		v->cells[k] = (struct pp_mesh_cell){ .median_us = 20,
						     .path_mtu = 4096,
						     .code = PP_MESH_OK,
						     .ran = true,
						     .settled = true };
	for (i = 0; i < n; i++) {
		v->ranks[i].joined = true;
		snprintf(v->ranks[i].facts.host, sizeof(v->ranks[i].facts.host),
			 "h%u", i);
		strcpy(v->ranks[i].facts.dev, "mlx5_0");
	}
}

static struct pp_mesh_cell *cell(struct pp_mesh_view *v, uint32_t a, uint32_t b)
{
	return &v->cells[pp_mesh_pair_index(v->n, a, b)];
}

static void fail_pair(struct pp_mesh_view *v, uint32_t a, uint32_t b,
		      uint8_t code)
{
	struct pp_mesh_cell *c = cell(v, a, b);

	c->code = code;
	c->path_mtu = 0;
}

/* Rank @r adds @us to each of its pairs. */
static void slow(struct pp_mesh_view *v, uint32_t r, double us)
{
	uint32_t i;

	for (i = 0; i < v->n; i++)
		if (i != r)
			cell(v, r, i)->median_us += us;
}

static void unmake(struct pp_mesh_view *v)
{
	pp_mesh_view_free(v);
	free(v->ranks);
	free(v->cells);
}

static char *render(const struct pp_mesh_view *v, int status, double end_s)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pp_mesh_prom_write(v, status, end_s, f), 0);
	fclose(f);
	return out;
}

/* The family a line is about: its metric name, or a comment's. */
static void name_of(const char *line, char *out, size_t len)
{
	size_t n;

	if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7))
		line += 7;
	n = strcspn(line, "{ \n");
	ck_assert_uint_lt(n, len);
	memcpy(out, line, n);
	out[n] = '\0';
}

static int family_index(const char *name)
{
	size_t i;

	for (i = 0; i < NFAM; i++)
		if (!strcmp(families[i], name))
			return (int)i;
	return -1;
}

/*
 * The text's shape: each family's HELP, then TYPE gauge, then its samples
 * (and nothing of it later), in the order of families[]; each sample line
 * "name{labels} value" or "name value"; the last line ends in a newline.
 * Return: the samples of each family, in @count.
 */
static void check_shape(const char *t, unsigned int count[NFAM])
{
	const char *line = t, *nl;
	int cur = -1, want = 0;
	char name[128], prev[16] = "";

	memset(count, 0, NFAM * sizeof(count[0]));
	ck_assert(*t && t[strlen(t) - 1] == '\n');
	for (; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		ck_assert_ptr_nonnull(nl);
		name_of(line, name, sizeof(name));
		if (!strncmp(line, "# HELP ", 7)) {
			ck_assert_msg(family_index(name) == want,
				      "HELP of %s, want %s", name,
				      want < (int)NFAM ? families[want] :
							 "none");
			cur = want++;
			strcpy(prev, "HELP");
			continue;
		}
		ck_assert_msg(cur >= 0 && !strcmp(name, families[cur]),
			      "a line of %s among %s's: %.*s", name,
			      cur >= 0 ? families[cur] : "none",
			      (int)(nl - line), line);
		if (!strncmp(line, "# TYPE ", 7)) {
			ck_assert_str_eq(prev, "HELP");
			ck_assert(!strncmp(line + 7 + strlen(name), " gauge\n",
					   7));
			strcpy(prev, "TYPE");
			continue;
		}
		ck_assert_msg(strcmp(prev, "HELP"), "no TYPE before %s", name);
		strcpy(prev, "sample");
		{
			const char *sp = memrchr(line, ' ', nl - line);
			char *end;

			ck_assert_ptr_nonnull(sp);
			strtod(sp + 1, &end);
			ck_assert_msg(end == nl, "value of: %.*s",
				      (int)(nl - line), line);
			ck_assert(line[strlen(name)] == '{' ?
					  sp[-1] == '}' :
					  line + strlen(name) == sp);
		}
		count[cur]++;
	}
	ck_assert_int_eq(want, (int)NFAM);
}

/* The value of the sample line that begins with @head, or NULL. */
static const char *value_of(const char *t, const char *head, char *buf,
			    size_t len)
{
	const char *line = t;
	size_t hl = strlen(head);

	while (line && *line) {
		if (!strncmp(line, head, hl) &&
		    (strchr(head, '{') || line[hl] == ' ' || line[hl] == '{')) {
			const char *nl = strchr(line, '\n'),
				   *sp = memrchr(line, ' ', nl - line);

			snprintf(buf, len, "%.*s", (int)(nl - sp - 1), sp + 1);
			return buf;
		}
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	return NULL;
}

static void expect(const char *t, const char *head, const char *want)
{
	char buf[64];
	const char *got = value_of(t, head, buf, sizeof(buf));

	ck_assert_msg(got && !strcmp(got, want), "%s: %s, want %s", head,
		      got ? got : "no sample", want);
}

static unsigned int lines_with(const char *t, const char *what)
{
	unsigned int n = 0;

	for (t = strstr(t, what); t; t = strstr(t + 1, what))
		n++;
	return n;
}

/*
 * Six ranks: rank 3 adds 200 usec, pair 1-2 failed at RTR, rank 5 never
 * joined (its pairs ABSENT), hosts with a quote, a backslash and a newline.
 */
static void six(struct pp_mesh_view *v)
{
	uint32_t i;

	make(v, 6);
	strcpy(v->ranks[1].facts.host, "node\"1");
	strcpy(v->ranks[2].facts.host, "c:\\node2");
	strcpy(v->ranks[4].facts.host, "bad\nhost\xff");
	v->mesh_id = "a \"b\" \\c";
	slow(v, 3, 200);
	cell(v, 0, 1)->median_us = 31.25;
	fail_pair(v, 1, 2, PP_MESH_RTR);
	cell(v, 1, 2)->path_mtu = 1024;
	v->ranks[5].joined = false;
	for (i = 0; i < 5; i++)
		fail_pair(v, i, 5, PP_MESH_ABSENT);
	ck_assert_int_eq(pp_mesh_view_judge(v), 0);
}

START_TEST(prom_families)
{
	unsigned int count[NFAM];
	struct pp_mesh_view v;
	char *t;

	six(&v);
	t = render(&v, 1, 1700000000.25);
	check_shape(t, count);
	/* the mesh-level families: one sample each, its id and transport */
	expect(t,
	       "rdma_mesh_ranks{mesh_id=\"a \\\"b\\\" \\\\c\",transport=\"rc\"}",
	       "6");
	expect(t, "rdma_mesh_ranks_joined", "5");
	expect(t, "rdma_mesh_pairs", "15");
	expect(t, "rdma_mesh_pairs_passed", "9");
	expect(t, "rdma_mesh_pairs_failed", "6");
	expect(t, "rdma_mesh_pairs_listed", "15");
	expect(t, "rdma_mesh_ranks_slow", "1");
	expect(t, "rdma_mesh_duration_seconds", "2.5");
	expect(t, "rdma_mesh_exit_status", "1");
	expect(t, "rdma_mesh_last_run_timestamp_seconds", "1700000000.25");
	/* the matrix median of the 9 that passed: 4 x 20, 31.25, 4 x 220 */
	expect(t, "rdma_mesh_rtt_median_seconds", "3.125e-05");
	/* per rank: every rank, escaped; what rank 3 adds, in seconds */
	ck_assert_uint_eq(count[12], 6);
	ck_assert_uint_eq(count[14], 6);
	ck_assert_uint_eq(count[15], 6);
	expect(t,
	       "rdma_mesh_rank_joined{transport=\"rc\",rank=\"1\",host=\"node\\\"1\",device=\"mlx5_0\"}",
	       "1");
	expect(t,
	       "rdma_mesh_rank_joined{transport=\"rc\",rank=\"2\",host=\"c:\\\\node2\",device=\"mlx5_0\"}",
	       "1");
	/* a newline escaped; a byte that is not UTF-8 is '?' */
	expect(t,
	       "rdma_mesh_rank_joined{transport=\"rc\",rank=\"4\",host=\"bad\\nhost?\",device=\"mlx5_0\"}",
	       "1");
	expect(t,
	       "rdma_mesh_rank_joined{transport=\"rc\",rank=\"5\",host=\"\",device=\"\"}",
	       "0");
	{
		char buf[64], *end;
		const char *got = value_of(
			t,
			"rdma_mesh_rank_added_delay_seconds{transport=\"rc\",rank=\"3\",",
			buf, sizeof(buf));
		double s;

		ck_assert_ptr_nonnull(got);
		s = strtod(got, &end);
		/* the judge's figure, in seconds, to 15 digits */
		ck_assert_msg(fabs(s - v.added_us[3] / 1e6) < 1e-15 &&
				      fabs(s - 200e-6) < 10e-6,
			      "rank 3 adds %s s (judged %g usec)", got,
			      v.added_us[3]);
	}
	/* rank 5 was not judged: no sample; 5 judged */
	ck_assert_uint_eq(count[13], 5);
	ck_assert_ptr_null(strstr(
		t,
		"rdma_mesh_rank_added_delay_seconds{transport=\"rc\",rank=\"5\""));
	expect(t, "rdma_mesh_rank_slow{transport=\"rc\",rank=\"3\",", "1");
	/* the verdicts: the slow rank, a NIC of a host of one, */
	expect(t,
	       "rdma_mesh_verdict{transport=\"rc\",kind=\"nic\",state=\"slow\",rank=\"3\",",
	       "1");
	/* and the pair 1-2 that failed while both pass their others */
	expect(t,
	       "rdma_mesh_verdict{transport=\"rc\",kind=\"link\",state=\"failing\",rank_a=\"1\",",
	       "1");
	ck_assert_uint_eq(count[16], 2);
	expect(t, "rdma_mesh_rank_slow{transport=\"rc\",rank=\"0\",", "0");
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"1\",",
	       "2");
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"5\",",
	       "5");
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"0\",",
	       "1");
	/* per pair: the round trip in seconds, the MTU in bytes, the code */
	expect(t,
	       "rdma_mesh_pair_rtt_median_seconds{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"1\",host_b=\"node\\\"1\",device_b=\"mlx5_0\"}",
	       "3.125e-05");
	expect(t,
	       "rdma_mesh_pair_rtt_median_seconds{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"3\",",
	       "0.00022");
	ck_assert_uint_eq(count[17], 9); /* only the pairs that passed */
	expect(t,
	       "rdma_mesh_pair_path_mtu_bytes{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"1\",",
	       "4096");
	expect(t,
	       "rdma_mesh_pair_path_mtu_bytes{transport=\"rc\",rank_a=\"1\",host_a=\"node\\\"1\",device_a=\"mlx5_0\",rank_b=\"2\",",
	       "1024");
	ck_assert_uint_eq(count[18], 10); /* 9 passed, and 1-2's */
	ck_assert_uint_eq(count[19], 15); /* every pair */
	expect(t,
	       "rdma_mesh_pair_result{transport=\"rc\",rank_a=\"1\",host_a=\"node\\\"1\",device_a=\"mlx5_0\",rank_b=\"2\",host_b=\"c:\\\\node2\",device_b=\"mlx5_0\",result=\"RTR\"}",
	       "1");
	ck_assert_uint_eq(lines_with(t, ",result=\"ABSENT\"} 1\n"), 5);
	ck_assert_uint_eq(lines_with(t, ",result=\"ok\"} 1\n"), 9);
	free(t);
	/* rank 0 interrupted: its status as given */
	t = render(&v, 130, 1);
	expect(t, "rdma_mesh_exit_status", "130");
	expect(t, "rdma_mesh_last_run_timestamp_seconds", "1");
	free(t);
	unmake(&v);
}
END_TEST

/* Two ranks: nothing judged, no median of a failed pair: no samples. */
/*
 * Rails: pairs 0-1 and 2-3 not selected, pair 0-2 flagged SLOW (it ran
 * whole, its median kept): the pairs not selected have no per-pair
 * sample, the flagged pair's result is SLOW with its round trip, and it
 * counts as neither rank's failed pair.
 */
START_TEST(prom_unselected_flagged)
{
	struct pp_mesh_view v;
	char *t;

	make(&v, 6);
	pp_mesh_view_unselect(&v, 0, 1);
	pp_mesh_view_unselect(&v, 2, 3);
	cell(&v, 0, 2)->code = PP_MESH_SLOW;
	cell(&v, 0, 2)->median_us = 250;
	v.max_rtt_us = 100;
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 4, 1700000000);
	expect(t, "rdma_mesh_pairs", "13");
	expect(t, "rdma_mesh_pairs_listed", "13");
	expect(t, "rdma_mesh_pairs_flagged", "1");
	expect(t, "rdma_mesh_pairs_failed", "0");
	ck_assert_uint_eq(lines_with(t, "\nrdma_mesh_pair_result{"), 13);
	ck_assert_uint_eq(lines_with(t, "result=\"ok\""), 12);
	ck_assert_uint_eq(
		lines_with(
			t,
			"rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"1\""),
		0);
	ck_assert_uint_eq(
		lines_with(
			t,
			"rank_a=\"2\",host_a=\"h2\",device_a=\"mlx5_0\",rank_b=\"3\""),
		0);
	expect(t,
	       "rdma_mesh_pair_result{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"2\",host_b=\"h2\",device_b=\"mlx5_0\",result=\"SLOW\"}",
	       "1");
	expect(t,
	       "rdma_mesh_pair_rtt_median_seconds{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"2\",host_b=\"h2\",device_b=\"mlx5_0\"}",
	       "0.00025");
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"0\",",
	       "0");
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"2\",",
	       "0");
	free(t);
	unmake(&v);
}
END_TEST

START_TEST(prom_empty_families)
{
	unsigned int count[NFAM];
	struct pp_mesh_view v;
	char *t;

	make(&v, 2);
	fail_pair(&v, 0, 1, PP_MESH_DEVICE);
	v.mesh_id = NULL;
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 1, 5);
	check_shape(t, count);
	ck_assert_uint_eq(count[8], 0);	 /* no pair passed: no median */
	ck_assert_uint_eq(count[13], 0); /* not judged */
	ck_assert_uint_eq(count[17], 0);
	ck_assert_uint_eq(count[18], 0);
	ck_assert_uint_eq(count[19], 1);
	expect(t, "rdma_mesh_ranks{mesh_id=\"\",transport=\"rc\"}", "2");
	free(t);
	unmake(&v);
}
END_TEST

/*
 * Beyond PP_MESH_PROM_PAIRS pairs: the failed pairs, then those with a slow
 * rank; per rank, every rank.
 */
START_TEST(prom_bound)
{
	unsigned int count[NFAM];
	struct pp_mesh_view v;
	uint32_t i;
	char *t;

	/* 64 ranks: every pair */
	make(&v, 64);
	ck_assert_uint_eq(64 * 63 / 2, PP_MESH_PROM_PAIRS);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 0, 1);
	check_shape(t, count);
	ck_assert_uint_eq(count[19], PP_MESH_PROM_PAIRS);
	ck_assert_uint_eq(count[17], PP_MESH_PROM_PAIRS);
	free(t);
	unmake(&v);

	/* 100 ranks: 10 failed pairs, rank 7 slow (99 pairs, one failed) */
	make(&v, 100);
	for (i = 0; i < 10; i++)
		fail_pair(&v, 7 + i, 50 + i, PP_MESH_RUN_FAIL);
	slow(&v, 7, 500);
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	ck_assert(v.slow[7]);
	t = render(&v, 1, 1);
	check_shape(t, count);
	ck_assert_uint_eq(count[19], 10 + 98);
	ck_assert_uint_eq(count[17], 98); /* the slow rank's that passed */
	expect(t, "rdma_mesh_pairs_listed", "108");
	expect(t, "rdma_mesh_pairs", "4950");
	ck_assert_uint_eq(lines_with(t, ",result=\"RUN\"} 1\n"), 10);
	/* the failed first: in rank order, before the slow rank's */
	ck_assert_ptr_nonnull(strstr(
		t,
		"rank_a=\"16\",host_a=\"h16\",device_a=\"mlx5_0\",rank_b=\"59\",host_b=\"h59\",device_b=\"mlx5_0\",result=\"RUN\"} 1\nrdma_mesh_pair_result{transport=\"rc\",rank_a=\"0\",host_a=\"h0\",device_a=\"mlx5_0\",rank_b=\"7\","));
	ck_assert_uint_eq(count[12], 100);
	ck_assert_uint_eq(count[13], 100);
	free(t);
	unmake(&v);
}
END_TEST

/* 1,500 ranks, every pair failed: 2,016 of 1,124,250 pairs listed. */
START_TEST(prom_bound_all_failed)
{
	unsigned int count[NFAM];
	struct pp_mesh_view v;
	char *t, want[32];
	uint32_t i;

	make(&v, 1500);
	for (i = 0; i < 1500 * 1499 / 2; i++)
		v.cells[i].code = PP_MESH_CONNECT;
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 1, 1);
	check_shape(t, count);
	ck_assert_uint_eq(count[19], PP_MESH_PROM_PAIRS);
	snprintf(want, sizeof(want), "%u", PP_MESH_PROM_PAIRS);
	expect(t, "rdma_mesh_pairs_listed", want);
	expect(t, "rdma_mesh_pairs_failed", "1124250");
	ck_assert_uint_eq(count[15], 1500);
	expect(t, "rdma_mesh_rank_pairs_failed{transport=\"rc\",rank=\"700\",",
	       "1499");
	/* per rank 3 x 1,500 lines, per pair 2 x 2,016: under 1.5 MB */
	ck_assert_msg(strlen(t) < 1500000, "%zu bytes", strlen(t));
	free(t);
	unmake(&v);
}
END_TEST

/* The whole file as it reads now (NULL: it could not be opened). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, got;

	if (!f)
		return NULL;
	do {
		char *more = realloc(buf, len + 65536 + 1);

		if (!more) {
			free(buf);
			fclose(f);
			return NULL;
		}
		buf = more;
		got = fread(buf + len, 1, 65536, f);
		len += got;
	} while (got);
	buf[len] = '\0';
	fclose(f);
	return buf;
}

/* The names in @dir other than . and .., joined by spaces. */
static void list_dir(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	out[0] = '\0';
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			snprintf(out + strlen(out), len - strlen(out), "%s%s",
				 out[0] ? " " : "", e->d_name);
	closedir(d);
}

START_TEST(prom_save)
{
	char dir[] = "/tmp/test_mesh_prom.XXXXXX", *path, *t, *got, names[256];
	struct pp_err err = { .msg = "" };
	struct pp_mesh_view v;
	struct stat st;
	FILE *f;
	ino_t old;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/mesh.prom", dir), -1);
	/* the check leaves nothing behind */
	ck_assert_int_eq(pp_mesh_prom_check(path, &err), 0);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "");
	/* an old file, longer than the new one: replaced whole */
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 20000; i++)
		fputs("old_metric{x=\"y\"} 1\n", f);
	fclose(f);
	ck_assert_int_eq(stat(path, &st), 0);
	old = st.st_ino;
	six(&v);
	ck_assert_int_eq(pp_mesh_prom_save(&v, 1, 1700000000, path, &err), 0);
	got = slurp(path);
	t = render(&v, 1, 1700000000);
	ck_assert_str_eq(got, t);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "mesh.prom"); /* no mesh.prom.tmp-PID */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(st.st_ino != old); /* a new file renamed over it */
	ck_assert_uint_eq(st.st_mode & 0777, 0644 & ~umask(022));
	free(got);
	free(t);
	/* a directory in its place: refused before, and at the rename */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(pp_mesh_prom_check(path, &err), EISDIR);
	ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "directory"),
		      "%s", err.msg);
	ck_assert_int_ne(pp_mesh_prom_save(&v, 1, 1, path, &err), 0);
	ck_assert_msg(strstr(err.msg, "renaming"), "%s", err.msg);
	list_dir(dir, names, sizeof(names));
	ck_assert_str_eq(names, "mesh.prom");
	ck_assert_int_eq(rmdir(path), 0);
	free(path);
	/* a directory that does not exist: ENOENT, the path named */
	ck_assert_int_ne(asprintf(&path, "%s/no/such/mesh.prom", dir), -1);
	ck_assert_int_eq(pp_mesh_prom_check(path, &err), ENOENT);
	ck_assert_msg(strstr(err.msg, path) && strstr(err.msg, "creating") &&
			      strstr(err.msg, strerror(ENOENT)) &&
			      !strchr(err.msg, '\n'),
		      "%s", err.msg);
	ck_assert_int_eq(pp_mesh_prom_save(&v, 1, 1, path, &err), ENOENT);
	ck_assert_msg(strstr(err.msg, path), "%s", err.msg);
	free(path);
	ck_assert_int_eq(rmdir(dir), 0);
	unmake(&v);
}
END_TEST

/*
 * A reader that reads the file over and over while it is saved again and
 * again sees a whole file each time: the first family's HELP at the start,
 * the last family's last sample at the end.
 */
START_TEST(prom_save_whole)
{
	char dir[] = "/tmp/test_mesh_prom.XXXXXX", *path, *t;
	struct pp_err err = { .msg = "" };
	struct pp_mesh_view v;
	int status, i, pipefd[2];
	pid_t reader;
	char tail[512];
	size_t tl;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ne(asprintf(&path, "%s/mesh.prom", dir), -1);
	make(&v, 64); /* every pair: ~600 KB */
	ck_assert_int_eq(pp_mesh_view_judge(&v), 0);
	t = render(&v, 0, 1);
	tl = strlen(t);
	snprintf(tail, sizeof(tail), "%s", t + tl - 200);
	free(t);
	ck_assert_int_eq(pp_mesh_prom_save(&v, 0, 1, path, &err), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		unsigned int reads = 0, bad = 0;
		char c;

		close(pipefd[1]);
		/* until the writer closes the pipe */
		while (read(pipefd[0], &c, 1) == 1) {
			char *got = slurp(path);
			size_t len = got ? strlen(got) : 0;

			reads++;
			if (!got || len != tl ||
			    strncmp(got, "# HELP rdma_mesh_ranks ", 23) ||
			    strcmp(got + len - 200, tail))
				bad++;
			free(got);
		}
		_exit(bad ? 1 : reads ? 0 : 2);
	}
	close(pipefd[0]);
	signal(SIGPIPE, SIG_IGN); /* a reader gone early: EPIPE, said below */
	for (i = 0; i < 30; i++) {
		ck_assert_msg(write(pipefd[1], "r", 1) == 1,
			      "the reader ended early"); /* read now */
		ck_assert_int_eq(pp_mesh_prom_save(&v, 0, 1, path, &err), 0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(waitpid(reader, &status, 0), reader);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the reader saw a partial file (status %d)", status);
	unlink(path);
	rmdir(dir);
	free(path);
	unmake(&v);
}
END_TEST

static Suite *mesh_prom_suite(void)
{
	Suite *s = suite_create("mesh_prom");
	TCase *tc = tcase_create("core"), *scale = tcase_create("scale");

	tcase_add_test(tc, prom_families);
	tcase_add_test(tc, prom_unselected_flagged);
	tcase_add_test(tc, prom_empty_families);
	tcase_add_test(tc, prom_bound);
	tcase_add_test(tc, prom_save);
	tcase_add_test(tc, prom_save_whole);
	tcase_set_timeout(tc, 60);
	/* 1,500 ranks, 1.1 million pairs */
	tcase_add_test(scale, prom_bound_all_failed);
	tcase_set_timeout(scale, 120);
	tcase_set_tags(scale, "scale"); /* valgrind.sh leaves it out */
	suite_add_tcase(s, scale);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_prom_suite)
