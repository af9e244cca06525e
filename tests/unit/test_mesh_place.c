// SPDX-License-Identifier: MIT
/*
 * test_mesh_place.c - where a mesh rank stands: Slurm's host lists
 * (pp_hostlist), the circle schedule and the plans of --mesh-pairs
 * (pp_mesh_sched), the launchers' environments (pp_mesh_env) and -d's lists (pp_mesh_dev).
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
#include "pp_mesh_dev.h"
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
 * Every N from LO to HI (at most 1024): each pair once, no rank twice in a
 * round.  The checks are plain ifs: a Check assertion per pair (half a
 * billion of them) would cost minutes in fork mode.
 */
static void check_schedules(uint32_t lo, uint32_t hi)
{
	struct pp_mesh_pair *p = malloc(sizeof(*p) * 512);
	uint8_t *seen = malloc(1024 * 1023 / 2);
	uint32_t *in_round = malloc(sizeof(*in_round) * 1024);
	uint32_t n, r, k, np;
	size_t total;

	ck_assert_uint_le(hi, 1024);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(seen);
	ck_assert_ptr_nonnull(in_round);
	for (n = lo; n <= hi; n++) {
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

START_TEST(schedule_every_n)
{
	check_schedules(1, 256);
}
END_TEST

/* The same up to 1,024 ranks: most of a minute under valgrind ("scale"). */
START_TEST(schedule_every_n_large)
{
	check_schedules(257, 1024);
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

/* The local index: PP_MESH_LOCAL, else the launcher's own, else unknown. */
START_TEST(env_local_index)
{
	const char *slurm[] = { "SLURM_PROCID=3", "SLURM_NTASKS=8",
				"SLURM_LOCALID=1", "SLURM_NODELIST=n[1-4]",
				NULL };
	const char *pmix[] = { "PMIX_RANK=2", "PMI_SIZE=4", "PMIX_LOCAL_RANK=0",
			       "OMPI_COMM_WORLD_LOCAL_RANK=3", NULL };
	const char *pmix_ompi[] = { "PMIX_RANK=2", "PMI_SIZE=4",
				    "OMPI_COMM_WORLD_LOCAL_RANK=3", NULL };
	const char *pmi[] = { "PMI_RANK=1", "PMI_SIZE=3", "MPI_LOCALRANKID=2",
			      "SLURM_LOCALID=0", NULL };
	const char *ompi[] = { "OMPI_COMM_WORLD_RANK=5",
			       "OMPI_COMM_WORLD_SIZE=8",
			       "OMPI_COMM_WORLD_LOCAL_RANK=1", NULL };
	/* mpirun inside sbatch: the batch step's SLURM_LOCALID is not ours */
	const char *inherited[] = { "OMPI_COMM_WORLD_RANK=5",
				    "OMPI_COMM_WORLD_SIZE=8",
				    "OMPI_COMM_WORLD_LOCAL_RANK=1",
				    "SLURM_PROCID=0",
				    "SLURM_NTASKS=1",
				    "SLURM_LOCALID=0",
				    "SLURM_JOB_NODELIST=gpu[03-04]",
				    NULL };
	const char *inherited_nolocal[] = {
		"OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=8",
		"SLURM_PROCID=0",	  "SLURM_NTASKS=1",
		"SLURM_LOCALID=0",	  NULL
	};
	const char *k8s[] = { "JOB_COMPLETION_INDEX=5", "SLURM_LOCALID=1",
			      NULL };
	const char *none[] = { NULL };
	const char *by_hand[] = { "PP_MESH_LOCAL=2", NULL };
	const char *over[] = { "PP_MESH_LOCAL=0",   "SLURM_PROCID=3",
			       "SLURM_NTASKS=8",    "SLURM_LOCALID=1",
			       "SLURM_NODELIST=n1", NULL };
	const char *empty_own[] = { "PP_MESH_LOCAL=",	 "SLURM_PROCID=3",
				    "SLURM_NTASKS=8",	 "SLURM_LOCALID=1",
				    "SLURM_NODELIST=n1", NULL };
	const char *junk[] = { "SLURM_PROCID=3", "SLURM_NTASKS=8",
			       "SLURM_LOCALID=one", "SLURM_NODELIST=n1", NULL };
	const char *big[] = { "PP_MESH_LOCAL=4", NULL };
	struct pp_err err = { .msg = "" };
	struct pp_mesh_env e;

	ck_assert_int_eq(read_env(slurm, 0, NULL, &e, &err), 0);
	ck_assert_uint_eq(e.local, 1);
	ck_assert_str_eq(e.local_from, "SLURM_LOCALID");
	ck_assert_int_eq(read_env(pmix, 0, "h", &e, &err), 0);
	ck_assert_uint_eq(e.local, 0);
	ck_assert_str_eq(e.local_from, "PMIX_LOCAL_RANK");
	ck_assert_int_eq(read_env(pmix_ompi, 0, "h", &e, &err), 0);
	ck_assert_uint_eq(e.local, 3);
	ck_assert_str_eq(e.local_from, "OMPI_COMM_WORLD_LOCAL_RANK");
	ck_assert_int_eq(read_env(pmi, 0, "h", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_PMI);
	ck_assert_uint_eq(e.local, 2);
	ck_assert_str_eq(e.local_from, "MPI_LOCALRANKID");
	ck_assert_int_eq(read_env(ompi, 0, "h", &e, &err), 0);
	ck_assert_uint_eq(e.local, 1);
	ck_assert_int_eq(read_env(inherited, 0, NULL, &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_OMPI);
	ck_assert_uint_eq(e.local, 1);
	ck_assert_str_eq(e.local_from, "OMPI_COMM_WORLD_LOCAL_RANK");
	/* the MPI launcher says none: Slurm's inherited one is not taken */
	ck_assert_int_eq(read_env(inherited_nolocal, 0, "h", &e, &err), 0);
	ck_assert_int_eq(e.launcher, PP_MESH_OMPI);
	ck_assert_uint_eq(e.local, PP_MESH_LOCAL_ANY);
	ck_assert_ptr_null(e.local_from);
	/* Kubernetes and no launcher: by arrival (the worker claims one) */
	ck_assert_int_eq(read_env(k8s, 8, "job-0", &e, &err), 0);
	ck_assert_uint_eq(e.local, PP_MESH_LOCAL_ANY);
	ck_assert_int_eq(read_env(none, 4, "node1", &e, &err), 0);
	ck_assert_uint_eq(e.local, PP_MESH_LOCAL_ANY);
	ck_assert_int_eq(read_env(by_hand, 4, "node1", &e, &err), 0);
	ck_assert_uint_eq(e.local, 2);
	ck_assert_str_eq(e.local_from, "PP_MESH_LOCAL");
	/* PP_MESH_LOCAL wins over the launcher's; empty, it is not set */
	ck_assert_int_eq(read_env(over, 0, NULL, &e, &err), 0);
	ck_assert_uint_eq(e.local, 0);
	ck_assert_str_eq(e.local_from, "PP_MESH_LOCAL");
	ck_assert_int_eq(read_env(empty_own, 0, NULL, &e, &err), 0);
	ck_assert_uint_eq(e.local, 1);
	ck_assert_int_eq(read_env(junk, 0, NULL, &e, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--mesh: SLURM_LOCALID='one' is not a number from 0 to 4096 (is the launcher's environment damaged?)");
	ck_assert_int_eq(read_env(big, 4, "node1", &e, &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"--mesh: PP_MESH_LOCAL=4 is not below the number of ranks, 4 (a local index counts the ranks of one host from 0)");
}
END_TEST

/* -d's list: which strings are lists, their checks, the k-th name. */
START_TEST(dev_list)
{
	struct pp_err err = { .msg = "" };
	char out[PP_MESH_DEV_MAX], longl[200];

	ck_assert(pp_mesh_dev_is_list("mlx5_0,mlx5_1"));
	ck_assert(pp_mesh_dev_is_list("auto"));
	ck_assert(!pp_mesh_dev_is_list("mlx5_0"));
	ck_assert(!pp_mesh_dev_is_list(NULL));
	ck_assert_int_eq(pp_mesh_dev_list_check("a,b,c", &err), 0);
	ck_assert_int_eq(pp_mesh_dev_list_check("auto", &err), 0);
	ck_assert_int_eq(pp_mesh_dev_list_check("rxe0", &err), 0);
	ck_assert_int_eq(pp_mesh_dev_list_check("a,,b", &err), EINVAL);
	ck_assert_str_eq(
		err.msg,
		"-d 'a,,b': an empty name in the list (give names separated by single commas, e.g. -d mlx5_0,mlx5_1)");
	ck_assert_int_eq(pp_mesh_dev_list_check("a,b,", &err), EINVAL);
	ck_assert_int_eq(pp_mesh_dev_list_check(",a", &err), EINVAL);
	ck_assert_int_eq(pp_mesh_dev_list_check("mlx5_0,mlx5_1,mlx5_0", &err),
			 EINVAL);
	ck_assert_str_eq(
		err.msg,
		"-d 'mlx5_0,mlx5_1,mlx5_0' names mlx5_0 twice (a list gives each rank of a host its own device)");
	/* a name that is a prefix of another is not the same name */
	ck_assert_int_eq(pp_mesh_dev_list_check("mlx5_1,mlx5_10", &err), 0);
	memset(longl, 'x', 70);
	strcpy(longl + 70, ",a");
	ck_assert_int_eq(pp_mesh_dev_list_check(longl, &err), EINVAL);
	ck_assert_ptr_nonnull(strstr(err.msg, "longer than 63"));

	ck_assert_int_eq(pp_mesh_dev_nth("a,bb,ccc", 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "a");
	ck_assert_int_eq(pp_mesh_dev_nth("a,bb,ccc", 2, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "ccc");
	ck_assert_int_eq(pp_mesh_dev_nth("a,bb,ccc", 3, out, sizeof(out)),
			 ENOENT);
	ck_assert_int_eq(pp_mesh_dev_nth("rxe0", 0, out, sizeof(out)), 0);
	ck_assert_str_eq(out, "rxe0");
	ck_assert_int_eq(pp_mesh_dev_nth("", 0, out, sizeof(out)), ENOENT);
	ck_assert_int_eq(pp_mesh_dev_nth("a,bb", 1, out, 2), ENAMETOOLONG);
}
END_TEST

/* The pairs a plan should run, told without the plan. */
static bool want_pair(enum pp_mesh_pairs mode, const uint32_t *host,
		      const uint32_t *local, uint32_t a, uint32_t b)
{
	if (mode == PP_MESH_PAIRS_ALL)
		return true;
	if (host[a] == PP_MESH_HOST_NONE || host[b] == PP_MESH_HOST_NONE ||
	    host[a] == host[b])
		return false;
	return mode == PP_MESH_PAIRS_REMOTE || local[a] == local[b];
}

/*
 * One plan against its rules: every pair it runs is selected and runs
 * once, no rank twice in a round, no round empty, every selected pair
 * runs; its rounds.  Plain ifs (a Check assertion per pair costs too much
 * in fork mode); the first fault is returned as a line.  Return: the
 * rounds, or -1 with @why.
 */
static long plan_fault(enum pp_mesh_pairs mode, uint32_t n,
		       const uint32_t *host, const uint32_t *local, char *why,
		       size_t len)
{
	struct pp_mesh_plan p;
	struct pp_mesh_pair *pr = malloc(sizeof(*pr) * (n / 2 + 1));
	uint8_t *seen = calloc((size_t)n * n, 1);
	uint32_t *in_round = calloc(n, sizeof(*in_round));
	uint32_t r, k, np, a, b;
	uint64_t want = 0, got = 0;
	long ret = -1;

	if (!pr || !seen || !in_round ||
	    pp_mesh_plan_make(&p, mode, n, host, local)) {
		snprintf(why, len, "no plan");
		goto out;
	}
	for (a = 0; a < n; a++)
		for (b = a + 1; b < n; b++) {
			bool w = want_pair(mode, host, local, a, b);

			want += w;
			if (w != pp_mesh_plan_selected(&p, a, b) ||
			    w != pp_mesh_plan_selected(&p, b, a)) {
				snprintf(why, len, "pair %u-%u selected: %d", a,
					 b, !w);
				goto free_plan;
			}
		}
	for (r = 0; r < p.rounds; r++) {
		np = pp_mesh_plan_round(&p, r, pr);
		if (!np) {
			snprintf(why, len, "round %u is empty", r);
			goto free_plan;
		}
		for (k = 0; k < np; k++) {
			a = pr[k].a;
			b = pr[k].b;
			if (a >= b || b >= n ||
			    !want_pair(mode, host, local, a, b) ||
			    seen[(size_t)a * n + b]++ || in_round[a] == r + 1 ||
			    in_round[b] == r + 1) {
				snprintf(
					why, len,
					"round %u: pair %u-%u not selected, twice, or a rank twice in the round",
					r, a, b);
				goto free_plan;
			}
			in_round[a] = in_round[b] = r + 1;
			got++;
		}
	}
	if (got != want || p.selected != want ||
	    pp_mesh_plan_round(&p, p.rounds, pr)) {
		snprintf(why, len, "%llu pairs run, %llu said, %llu selected",
			 (unsigned long long)got,
			 (unsigned long long)p.selected,
			 (unsigned long long)want);
		goto free_plan;
	}
	ret = p.rounds;
free_plan:
	pp_mesh_plan_free(&p);
out:
	free(pr);
	free(seen);
	free(in_round);
	return ret;
}

/* Hosts of @per ranks (the last @short_by fewer), ranks block or cyclic. */
static uint32_t layout(uint32_t n, uint32_t per, uint32_t seed, bool cyclic,
		       uint32_t *host, uint32_t *local)
{
	uint32_t count[PP_MESH_MAX_RANKS] = { 0 }, i, h = 0, left = 0, hosts;

	/* host sizes 1..per (seed 0: all per), laid out in turn */
	for (i = 0; i < n; i++) {
		if (!left) {
			left = seed ? 1 + (seed * 2654435761u + h * 40503u) %
						       per :
				      per;
			h++;
		}
		host[i] = h - 1;
		left--;
	}
	hosts = h;
	if (cyclic) /* rank i on host i mod hosts, as --map-by node */
		for (i = 0; i < n; i++)
			host[i] = i % hosts;
	for (i = 0; i < n; i++)
		local[i] = count[host[i]]++;
	return hosts;
}

/*
 * Every N up to 64, 1..8 ranks a host, hosts of one size and of uneven
 * sizes, ranks in blocks and cyclic: each mode's plan keeps its rules,
 * and its rounds are what the mode promises.
 */
START_TEST(plan_every_layout)
{
	static uint32_t host[64], local[64];
	uint32_t n, per, seed, hosts, i, most, rail_max;
	enum pp_mesh_pairs mode;
	char why[160] = "";
	long rounds;
	int cyc;

	for (n = 2; n <= 64; n++)
		for (per = 1; per <= 8; per++)
			for (seed = 0; seed < 4; seed++)
				for (cyc = 0; cyc < 2; cyc++) {
					uint32_t size[64] = { 0 },
						 rail[64] = { 0 };

					hosts = layout(n, per, seed, cyc, host,
						       local);
					most = 0;
					rail_max = 0;
					for (i = 0; i < n; i++) {
						size[host[i]]++;
						rail[local[i]]++;
					}
					for (i = 0; i < 64; i++) {
						if (size[i] > most)
							most = size[i];
						if (pp_mesh_rounds(rail[i]) >
						    rail_max)
							rail_max =
								pp_mesh_rounds(
									rail[i]);
					}
					for (mode = PP_MESH_PAIRS_ALL;
					     mode <= PP_MESH_PAIRS_REMOTE;
					     mode++) {
						rounds = plan_fault(
							mode, n, host, local,
							why, sizeof(why));
						ck_assert_msg(
							rounds >= 0,
							"%s, n %u, %u a host (seed %u, %s): %s",
							pp_mesh_pairs_name(
								mode),
							n, per, seed,
							cyc ? "cyclic" :
							      "blocks",
							why);
						if (mode == PP_MESH_PAIRS_ALL)
							ck_assert_int_eq(
								rounds,
								pp_mesh_rounds(
									n));
						/* a rail's ranks on distinct hosts */
						if (mode == PP_MESH_PAIRS_RAIL)
							ck_assert_int_eq(
								rounds,
								rail_max);
						if (mode !=
						    PP_MESH_PAIRS_REMOTE)
							continue;
						/* no more than the circle */
						ck_assert_int_le(
							rounds,
							pp_mesh_rounds(n));
						/* H hosts of W, H even: (H - 1) W */
						if (!seed && hosts % 2 == 0 &&
						    n % per == 0)
							ck_assert_int_eq(
								rounds,
								(hosts - 1) *
									per);
						/* at least a rank's pairs */
						ck_assert_int_ge(
							rounds,
							hosts > 1 ? n - most :
								    0);
					}
				}
}
END_TEST

/* Ranks that never joined (no host) and a rail with two ranks of a host. */
START_TEST(plan_absent_and_odd_rails)
{
	/* 4 hosts x 2 NICs; rank 5 absent; rank 7 claims local 0 on host 3 */
	uint32_t host[8] = { 0, 0, 1, 1, 2, PP_MESH_HOST_NONE, 3, 3 };
	uint32_t local[8] = { 0, 1, 0, 1, 0, 1, 0, 0 };
	struct pp_mesh_plan p;
	struct pp_mesh_pair pr[4];
	char why[160] = "";
	enum pp_mesh_pairs mode;

	for (mode = PP_MESH_PAIRS_ALL; mode <= PP_MESH_PAIRS_REMOTE; mode++)
		ck_assert_msg(plan_fault(mode, 8, host, local, why,
					 sizeof(why)) >= 0,
			      "%s: %s", pp_mesh_pairs_name(mode), why);
	ck_assert_int_eq(
		pp_mesh_plan_make(&p, PP_MESH_PAIRS_RAIL, 8, host, local), 0);
	/* rail 0: 0 2 4 6 7 (6-7 one host); rail 1: 1 3 */
	ck_assert_uint_eq(p.selected, 9 + 1);
	ck_assert(!pp_mesh_plan_selected(&p, 6, 7));
	ck_assert(!pp_mesh_plan_selected(&p, 1, 5));
	ck_assert(pp_mesh_plan_selected(&p, 1, 3));
	ck_assert_uint_eq(pp_mesh_plan_round(&p, 0, pr) > 0, 1);
	pp_mesh_plan_free(&p);
	ck_assert_int_eq(pp_mesh_plan_make(&p, PP_MESH_PAIRS_DEFAULT, 8, host,
					   local),
			 EINVAL);
	ck_assert_int_eq(pp_mesh_plan_make(&p, PP_MESH_PAIRS_ALL, 1, host,
					   local),
			 EINVAL);
	pp_mesh_plan_free(&p); /* a zeroed plan: nothing to free */
}
END_TEST

/* The 32 ranks of 4 hosts x 8 NICs: 8 rails of 4, 3 rounds, 48 pairs. */
START_TEST(plan_rail_counts)
{
	uint32_t host[512], local[512], i;
	struct pp_mesh_plan p;
	enum pp_mesh_pairs m;

	for (i = 0; i < 32; i++) {
		host[i] = i / 8;
		local[i] = i % 8;
	}
	ck_assert_int_eq(
		pp_mesh_plan_make(&p, PP_MESH_PAIRS_RAIL, 32, host, local), 0);
	ck_assert_uint_eq(p.rounds, 3);
	ck_assert_uint_eq(p.selected, 8 * 6);
	pp_mesh_plan_free(&p);
	ck_assert_int_eq(pp_mesh_plan_make(&p, PP_MESH_PAIRS_REMOTE, 32, host,
					   local),
			 0);
	ck_assert_uint_eq(p.rounds, 24);
	ck_assert_uint_eq(p.selected, 32 * 31 / 2 - 4 * 28);
	pp_mesh_plan_free(&p);
	/* 64 hosts x 8: the rails take 63 rounds, not 511 */
	for (i = 0; i < 512; i++) {
		host[i] = i / 8;
		local[i] = i % 8;
	}
	ck_assert_int_eq(
		pp_mesh_plan_make(&p, PP_MESH_PAIRS_RAIL, 512, host, local), 0);
	ck_assert_uint_eq(p.rounds, 63);
	ck_assert_uint_eq(p.selected, 8 * 64 * 63 / 2);
	pp_mesh_plan_free(&p);
	ck_assert_int_eq(pp_mesh_pairs_parse("rail", &m), 0);
	ck_assert_int_eq(m, PP_MESH_PAIRS_RAIL);
	ck_assert_int_eq(pp_mesh_pairs_parse("remote", &m), 0);
	ck_assert_int_eq(m, PP_MESH_PAIRS_REMOTE);
	ck_assert_int_eq(pp_mesh_pairs_parse("all", &m), 0);
	ck_assert_int_eq(m, PP_MESH_PAIRS_ALL);
	ck_assert_int_eq(pp_mesh_pairs_parse("rails", &m), EINVAL);
	ck_assert_int_eq(pp_mesh_pairs_parse("", &m), EINVAL);
}
END_TEST

static Suite *mesh_place_suite(void)
{
	Suite *s = suite_create("mesh_place");
	TCase *tc = tcase_create("core"), *scale = tcase_create("scale");

	tcase_set_timeout(tc, 60);
	tcase_set_timeout(scale, 60);
	tcase_set_tags(scale, "scale"); /* valgrind.sh leaves it out */
	tcase_add_test(scale, schedule_every_n_large);
	tcase_add_test(tc, hostlist_forms);
	tcase_add_test(tc, hostlist_nth_count);
	tcase_add_test(tc, schedule_every_n);
	tcase_add_test(tc, pair_index_order);
	tcase_add_test(tc, env_slurm);
	tcase_add_test(tc, env_pmi_ompi_k8s);
	tcase_add_test(tc, env_mesh_id);
	tcase_add_test(tc, env_local_index);
	tcase_add_test(tc, dev_list);
	tcase_add_test(tc, plan_every_layout);
	tcase_add_test(tc, plan_absent_and_odd_rails);
	tcase_add_test(tc, plan_rail_counts);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, scale);
	return s;
}

PP_CHECK_MAIN(mesh_place_suite)
