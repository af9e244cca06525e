// SPDX-License-Identifier: MIT
/*
 * test_mesh_place.c - where a mesh rank stands: Slurm's host lists
 * (pp_hostlist), the circle schedule (pp_mesh_sched) and the launchers'
 * environments (pp_mesh_env).
 */
#include <check.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "pp_hostlist.h"
#include "pp_mesh_env.h"
#include "pp_mesh_sched.h"

/* The hosts of @list joined by spaces, or "error N". */
static int join_host(const char *host, void *arg)
{
	char *out = arg;

	if (*out)
		strcat(out, " ");
	strcat(out, host);
	return 0;
}

static const char *expand(const char *list, char *out)
{
	int ret;

	out[0] = '\0';
	ret = pp_hostlist_walk(list, join_host, out);
	if (ret)
		sprintf(out, "error %d", ret);
	return out;
}

START_TEST(hostlist_forms)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "node1", "node1" },
		{ "a[1-3,5]", "a1 a2 a3 a5" },
		{ "node[01-04,07]", "node01 node02 node03 node04 node07" },
		{ "a[01-10]b",
		  "a01b a02b a03b a04b a05b a06b a07b a08b a09b a10b" },
		{ "x,y[2-3]", "x y2 y3" },
		{ "r[1-2]n[1-2]", "r1n1 r1n2 r2n1 r2n2" },
		{ "gpu[8-10]", "gpu8 gpu9 gpu10" },
		{ "n[098-101]", "n098 n099 n100 n101" },
		{ "a[0]", "a0" },
		{ "h-1.ex.com,h-2.ex.com", "h-1.ex.com h-2.ex.com" },
		{ "[1-2]", "1 2" },
		{ "a[3-1]", "error 22" },
		{ "a[1-", "error 22" },
		{ "a[1-2", "error 22" },
		{ "a1-2]", "error 22" },
		{ "a[[1]]", "error 22" },
		{ "a[]", "error 22" },
		{ "a[1,]", "error 22" },
		{ "a[x]", "error 22" },
		{ "a[1-2]]", "error 22" },
		{ "a,,b", "error 22" },
		{ "a,", "error 22" },
		{ ",a", "error 22" },
		{ "", "error 22" },
		{ "a b", "error 22" },
		{ "a[1234567890]", "error 22" },
	};
	char out[4096];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		ck_assert_msg(!strcmp(expand(cases[i].in, out), cases[i].out),
			      "%s: got '%s', want '%s'", cases[i].in, out,
			      cases[i].out);
}
END_TEST

START_TEST(hostlist_nth_count)
{
	char host[PP_HOSTLIST_HOST_MAX], small[4], long_name[400];
	size_t n;

	ck_assert_int_eq(
		pp_hostlist_nth("node[07-09],z", 0, host, sizeof(host)), 0);
	ck_assert_str_eq(host, "node07");
	ck_assert_int_eq(
		pp_hostlist_nth("node[07-09],z", 3, host, sizeof(host)), 0);
	ck_assert_str_eq(host, "z");
	ck_assert_int_eq(pp_hostlist_nth("node[07-09],z", 4, host,
					 sizeof(host)),
			 ENOENT);
	/* a bad tail is an error even for the first host */
	ck_assert_int_eq(pp_hostlist_nth("a,b[", 0, host, sizeof(host)),
			 EINVAL);
	ck_assert_int_eq(pp_hostlist_nth("node1", 0, small, sizeof(small)),
			 ENAMETOOLONG);
	ck_assert_int_eq(pp_hostlist_count("a[1-3,5],b[01-10]c", &n), 0);
	ck_assert_uint_eq(n, 14);
	memset(long_name, 'x', 300);
	long_name[300] = '\0';
	ck_assert_int_eq(pp_hostlist_count(long_name, &n), E2BIG);
	/* more than PP_HOSTLIST_MAX_HOSTS */
	ck_assert_int_eq(pp_hostlist_count("a[1-999999]", &n), E2BIG);
	ck_assert_int_eq(pp_hostlist_count("a[1-99999]", &n), 0);
	ck_assert_uint_eq(n, 99999);
}
END_TEST

/*
 * Every N from 1 to 1024: each pair once, no rank twice in a round.  The
 * checks are plain ifs: a Check assertion per pair (half a billion of them)
 * would cost minutes in fork mode.
 */
START_TEST(schedule_every_n)
{
	struct pp_mesh_pair *p = malloc(sizeof(*p) * 512);
	uint8_t *seen = malloc(1024 * 1023 / 2);
	uint32_t *in_round = malloc(sizeof(*in_round) * 1024);
	uint32_t n, r, k, np;
	size_t total;

	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(seen);
	ck_assert_ptr_nonnull(in_round);
	for (n = 1; n <= 1024; n++) {
		size_t npairs = (size_t)n * (n - 1) / 2, i;

		memset(seen, 0, npairs);
		for (i = 0; i < n; i++)
			in_round[i] = UINT32_MAX;
		total = 0;
		ck_assert_uint_eq(pp_mesh_rounds(n), n < 2 ? 0 :
						     n % 2 ? n :
							     n - 1);
		for (r = 0; r < pp_mesh_rounds(n); r++) {
			np = pp_mesh_round(n, r, p);
			if (np != n / 2)
				ck_abort_msg("n %u round %u: %u pairs", n, r,
					     np);
			for (k = 0; k < np; k++) {
				size_t idx;

				if (p[k].a >= p[k].b || p[k].b >= n)
					ck_abort_msg("n %u: pair %u-%u", n,
						     p[k].a, p[k].b);
				if (in_round[p[k].a] == r ||
				    in_round[p[k].b] == r)
					ck_abort_msg(
						"n %u round %u: rank twice", n,
						r);
				in_round[p[k].a] = r;
				in_round[p[k].b] = r;
				idx = pp_mesh_pair_index(n, p[k].a, p[k].b);
				if (idx >= npairs ||
				    idx != pp_mesh_pair_index(n, p[k].b,
							      p[k].a))
					ck_abort_msg("n %u: index %zu", n, idx);
				if (seen[idx])
					ck_abort_msg("n %u: pair %u-%u twice",
						     n, p[k].a, p[k].b);
				seen[idx] = 1;
				total++;
			}
		}
		if (total != npairs)
			ck_abort_msg("n %u: %zu of %zu pairs", n, total,
				     npairs);
		ck_assert_uint_eq(pp_mesh_round(n, pp_mesh_rounds(n), p), 0);
	}
	free(p);
	free(seen);
	free(in_round);
}
END_TEST

START_TEST(pair_index_order)
{
	/* row by row: 0-1 0-2 0-3 1-2 1-3 2-3 */
	ck_assert_uint_eq(pp_mesh_pair_index(4, 0, 1), 0);
	ck_assert_uint_eq(pp_mesh_pair_index(4, 0, 3), 2);
	ck_assert_uint_eq(pp_mesh_pair_index(4, 1, 2), 3);
	ck_assert_uint_eq(pp_mesh_pair_index(4, 3, 2), 5);
}
END_TEST

/* A made-up environment: "NAME=value" strings. */
static const char *fake_get(const char *name, void *arg)
{
	const char *const *env = arg;
	size_t n = strlen(name);

	for (; *env; env++)
		if (!strncmp(*env, name, n) && (*env)[n] == '=')
			return *env + n + 1;
	return NULL;
}

static int read_env(const char *const *env, uint32_t size, const char *root,
		    struct pp_mesh_env *out, struct pp_err *err)
{
	return pp_mesh_env_read(fake_get, (void *)env, size, root, NULL, 18515,
				out, err);
}

START_TEST(env_slurm)
{
	const char *env[] = { "SLURM_PROCID=3", "SLURM_NTASKS=8",
			      "SLURM_STEP_NODELIST=node[07-09,12]",
			      "SLURM_JOB_NODELIST=other[1-9]", NULL };
	const char *bad[] = { "SLURM_PROCID=8", "SLURM_NTASKS=8",
			      "SLURM_STEP_NODELIST=n1", NULL };
	const char *badlist[] = { "SLURM_PROCID=1", "SLURM_NTASKS=2",
				  "SLURM_STEP_NODELIST=n[1-", NULL };
	const char *both[] = { "PMIX_RANK=1",	   "PMI_SIZE=2",
			       "SLURM_PROCID=1",   "SLURM_NTASKS=2",
			       "SLURM_NODELIST=a", NULL };
	/* mpirun inside sbatch: the batch step's rank 0 of 1 inherited */
	const char *inherited[] = { "OMPI_COMM_WORLD_RANK=5",
				    "OMPI_COMM_WORLD_SIZE=8",
				    "OMPI_MCA_ess_base_jobid=3735945217",
				    "SLURM_PROCID=0",
				    "SLURM_NTASKS=1",
				    "SLURM_JOB_ID=4242",
				    "SLURM_JOB_NODELIST=gpu[03-04]",
				    NULL };
	struct pp_err err = { .msg = "" };
	struct pp_mesh_env e;

	ck_assert_int_eq(read_env(env, 0, NULL, &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_SLURM);
	ck_assert_uint_eq(e.rank, 3);
	ck_assert_uint_eq(e.size, 8);
	ck_assert_str_eq(e.root, "node07");
	ck_assert_str_eq(e.root_from, "SLURM_STEP_NODELIST");
	/* --mesh-root wins; a --mesh-size that disagrees is an error */
	ck_assert_int_eq(read_env(env, 0, "head", &e, &err), 0);
	ck_assert_str_eq(e.root, "head");
	ck_assert_int_eq(read_env(env, 8, NULL, &e, &err), 0);
	ck_assert_int_eq(read_env(env, 4, NULL, &e, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--mesh-size 4 disagrees with SLURM_NTASKS=8 from the launcher (drop --mesh-size)");
	ck_assert_int_eq(read_env(bad, 0, NULL, &e, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--mesh: SLURM_PROCID=8 is not below the number of ranks, 8");
	ck_assert_int_eq(read_env(badlist, 0, NULL, &e, &err), EINVAL);
	ck_assert_int_eq(read_env(both, 0, NULL, &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_SLURM); /* srun --mpi=pmix */
	ck_assert_str_eq(e.rank_from, "SLURM_PROCID");
	ck_assert_uint_eq(e.rank, 1);
	ck_assert_uint_eq(e.size, 2);
	ck_assert_str_eq(e.root, "a");
	ck_assert_int_eq(read_env(inherited, 0, NULL, &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_OMPI);
	ck_assert_str_eq(e.rank_from, "OMPI_COMM_WORLD_RANK");
	ck_assert_uint_eq(e.rank, 5);
	ck_assert_uint_eq(e.size, 8);
	ck_assert_str_eq(e.root, "gpu03"); /* mpirun puts rank 0 first */
	ck_assert_str_eq(e.id, "openmpi 3735945217");
	ck_assert_int_eq(read_env(badlist, 0, NULL, &e, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "give --mesh-root HOST"));
}
END_TEST

/* The mesh id: the option, PP_MESH_ID, the launcher's, else made. */
START_TEST(env_mesh_id)
{
	const char *slurm[] = { "SLURM_PROCID=3",	  "SLURM_NTASKS=8",
				"SLURM_STEP_NODELIST=n1", "SLURM_JOB_ID=4242",
				"SLURM_STEP_ID=7",	  NULL };
	const char *slurm_job[] = { "SLURM_PROCID=3", "SLURM_NTASKS=8",
				    "SLURM_NODELIST=n1", "SLURM_JOBID=99",
				    NULL };
	const char *pmix[] = { "PMIX_RANK=2", "PMI_SIZE=4",
			       "PMIX_NAMESPACE=prterun-h-1234@1", NULL };
	const char *named[] = { "PP_MESH_ID=rack7",  "SLURM_PROCID=3",
				"SLURM_NTASKS=8",    "SLURM_STEP_NODELIST=n1",
				"SLURM_JOB_ID=4242", NULL };
	const char *bad[] = { "PP_MESH_ID=a\tb", NULL };
	const char *none[] = { NULL };
	struct pp_err err = { .msg = "" };
	struct pp_mesh_env e;
	char longid[PP_MESH_ID_MAX + 1];

	ck_assert_int_eq(read_env(slurm, 0, NULL, &e, &err), 0);
	ck_assert_str_eq(e.id, "slurm 4242.7");
	ck_assert_str_eq(e.id_from, "SLURM_JOB_ID");
	ck_assert_int_eq(read_env(slurm_job, 0, NULL, &e, &err), 0);
	ck_assert_str_eq(e.id, "slurm 99");
	ck_assert_int_eq(read_env(pmix, 0, "h", &e, &err), 0);
	ck_assert_str_eq(e.id, "pmix prterun-h-1234@1");
	ck_assert_int_eq(read_env(named, 0, NULL, &e, &err), 0);
	ck_assert_str_eq(e.id, "rack7");
	ck_assert_str_eq(e.id_from, "PP_MESH_ID");
	/* the option wins over the variable */
	ck_assert_int_eq(pp_mesh_env_read(fake_get, (void *)named, 0, NULL,
					  "job-a", 18515, &e, &err),
			 0);
	ck_assert_str_eq(e.id, "job-a");
	ck_assert_str_eq(e.id_from, "--mesh-id");
	/* no launcher, no name: what every rank was given */
	ck_assert_int_eq(read_env(none, 4, "node1", &e, &err), 0);
	ck_assert_str_eq(e.id, "node1:18515 size 4");
	ck_assert_int_eq(read_env(bad, 4, "node1", &e, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "not printable"));
	memset(longid, 'x', PP_MESH_ID_MAX);
	longid[PP_MESH_ID_MAX] = '\0';
	ck_assert_int_eq(pp_mesh_env_read(fake_get, (void *)none, 4, "node1",
					  longid, 18515, &e, &err),
			 EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "--mesh-id"));
}
END_TEST

START_TEST(env_pmi_ompi_k8s)
{
	const char *pmix[] = { "PMIX_RANK=2", "OMPI_COMM_WORLD_SIZE=4",
			       "OMPI_COMM_WORLD_RANK=2", "PP_MESH_ROOT=r0",
			       NULL };
	const char *pmi[] = { "PMI_RANK=1", "PMI_SIZE=3", NULL };
	const char *ompi[] = { "OMPI_COMM_WORLD_RANK=0",
			       "OMPI_COMM_WORLD_SIZE=16", NULL };
	const char *k8s[] = { "JOB_COMPLETION_INDEX=5", NULL };
	const char *junk[] = { "PMI_RANK=1x", "PMI_SIZE=3", NULL };
	const char *none[] = { NULL };
	struct pp_err err = { .msg = "" };
	struct pp_mesh_env e;

	ck_assert_int_eq(read_env(pmix, 0, NULL, &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_PMIX);
	ck_assert_uint_eq(e.rank, 2);
	ck_assert_uint_eq(e.size, 4);
	ck_assert_str_eq(e.root, "r0");
	ck_assert_str_eq(e.root_from, "PP_MESH_ROOT");

	ck_assert_int_eq(read_env(pmi, 0, "h", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_PMI);
	ck_assert_uint_eq(e.rank, 1);
	ck_assert_uint_eq(e.size, 3);
	/* no root: a line that says how to give it */
	ck_assert_int_eq(read_env(pmi, 0, NULL, &e, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "--mesh-root HOST"));

	ck_assert_int_eq(read_env(ompi, 0, "h", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_OMPI);
	ck_assert_uint_eq(e.rank, 0);
	ck_assert_uint_eq(e.size, 16);

	/* Kubernetes says the index only: the size from --mesh-size */
	ck_assert_int_eq(read_env(k8s, 0, "job-0.svc", &e, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "give --mesh-size N"));
	ck_assert_int_eq(read_env(k8s, 8, "job-0.svc", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_K8S);
	ck_assert_uint_eq(e.rank, 5);
	ck_assert_int_eq(read_env(k8s, 5, "job-0.svc", &e, &err), EINVAL);

	ck_assert_int_eq(read_env(junk, 0, "h", &e, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--mesh: PMI_RANK='1x' is not a number from 0 to 4096 (is the launcher's environment damaged?)");

	/* no launcher: ranks by arrival */
	ck_assert_int_eq(read_env(none, 4, "node1", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_NONE);
	ck_assert_uint_eq(e.rank, PP_MESH_RANK_ANY);
	ck_assert_uint_eq(e.size, 4);
	ck_assert_int_eq(read_env(none, 1, "node1", &e, &err), ERANGE);
	ck_assert_str_eq(pp_mesh_launcher_name(PP_MESH_K8S), "kubernetes");
}
END_TEST

static Suite *mesh_place_suite(void)
{
	Suite *s = suite_create("mesh_place");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, hostlist_forms);
	tcase_add_test(tc, hostlist_nth_count);
	tcase_add_test(tc, schedule_every_n);
	tcase_add_test(tc, pair_index_order);
	tcase_add_test(tc, env_slurm);
	tcase_add_test(tc, env_pmi_ompi_k8s);
	tcase_add_test(tc, env_mesh_id);
	suite_add_tcase(s, tc);
	return s;
}

PP_CHECK_MAIN(mesh_place_suite)
