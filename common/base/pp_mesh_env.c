// SPDX-License-Identifier: MIT
/*
 * pp_mesh_env.c - a mesh rank's place from the launcher's environment
 * (pp_mesh_env.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pp_mesh_env.h"
#include "pp_mesh_sched.h"
#include "pp_opts.h"

struct var {
	const char *name;
	const char *value;
};

/* The first of @names that is set, or a var with NULL value. */
static struct var first_set(const char *(*get)(const char *, void *), void *arg,
			    const char *const *names)
{
	struct var v = { 0 };

	for (; *names; names++) {
		v.value = get(*names, arg);
		if (v.value) {
			v.name = *names;
			return v;
		}
	}
	return v;
}

static int number(const struct var *v, uint64_t max, uint32_t *out,
		  struct pp_err *err)
{
	uint64_t x;

	if (pp_parse_u64(v->value, false, 0, max, &x)) {
		pp_err_set(
			err,
			"--mesh: %s='%s' is not a number from 0 to %llu (is the launcher's environment damaged?)",
			v->name, v->value, (unsigned long long)max);
		return EINVAL;
	}
	*out = (uint32_t)x;
	return 0;
}

static const char *const slurm_rank[] = { "SLURM_PROCID", NULL };
static const char *const slurm_size[] = { "SLURM_NTASKS", "SLURM_NPROCS",
					  NULL };
static const char *const slurm_nodes[] = { "SLURM_STEP_NODELIST",
					   "SLURM_JOB_NODELIST",
					   "SLURM_NODELIST", NULL };
static const char *const pmix_rank[] = { "PMIX_RANK", NULL };
static const char *const pmi_rank[] = { "PMI_RANK", NULL };
static const char *const pmi_size[] = { "PMI_SIZE", "OMPI_COMM_WORLD_SIZE",
					NULL };
static const char *const ompi_rank[] = { "OMPI_COMM_WORLD_RANK", NULL };
static const char *const ompi_size[] = { "OMPI_COMM_WORLD_SIZE", NULL };
static const char *const k8s_rank[] = { "JOB_COMPLETION_INDEX", NULL };
static const char *const no_size[] = { NULL };
static const char *const slurm_local[] = { "SLURM_LOCALID", NULL };
static const char *const pmix_local[] = { "PMIX_LOCAL_RANK",
					  "OMPI_COMM_WORLD_LOCAL_RANK", NULL };
static const char *const pmi_local[] = { "MPI_LOCALRANKID", NULL };
static const char *const ompi_local[] = { "OMPI_COMM_WORLD_LOCAL_RANK", NULL };

/*
 * A launcher's variables.  The local index is read from the launcher the
 * rank came from only: mpirun inside sbatch inherits the batch step's
 * SLURM_LOCALID (0 on every host) as it does SLURM_PROCID.
 */
static const struct launcher {
	enum pp_mesh_launcher id;
	const char *const *rank;
	const char *const *size;
	const char *const *local;
} launchers[] = {
	{ PP_MESH_SLURM, slurm_rank, slurm_size, slurm_local },
	{ PP_MESH_PMIX, pmix_rank, pmi_size, pmix_local },
	{ PP_MESH_PMI, pmi_rank, pmi_size, pmi_local },
	{ PP_MESH_OMPI, ompi_rank, ompi_size, ompi_local },
	{ PP_MESH_K8S, k8s_rank, no_size, no_size },
};

/* The size: the launcher's, --mesh-size, or both when they agree. */
static int read_size(const struct var *sz, uint32_t opt_size,
		     struct pp_mesh_env *out, struct pp_err *err)
{
	uint32_t n = opt_size;

	if (sz->value && number(sz, PP_MESH_MAX_RANKS, &n, err))
		return EINVAL;
	if (sz->value && opt_size && n != opt_size) {
		pp_err_set(
			err,
			"--mesh-size %u disagrees with %s=%u from the launcher (drop --mesh-size)",
			opt_size, sz->name, n);
		return EINVAL;
	}
	if (!n) {
		pp_err_set(
			err,
			"--mesh: the number of ranks is not known: give --mesh-size N (no launcher, or one that does not say it, e.g. a Kubernetes Indexed Job)");
		return EINVAL;
	}
	if (n < 2 || n > PP_MESH_MAX_RANKS) {
		pp_err_set(err, "--mesh: %u ranks: a mesh has 2 to %u ranks", n,
			   PP_MESH_MAX_RANKS);
		return ERANGE;
	}
	out->size = n;
	return 0;
}

static int read_root(const char *(*get)(const char *, void *), void *arg,
		     const char *opt_root, struct pp_mesh_env *out,
		     struct pp_err *err)
{
	const char *env = get("PP_MESH_ROOT", arg);
	struct var nodes;
	int ret;

	if (opt_root || (env && *env)) {
		const char *r = opt_root ? opt_root : env;

		if (!*r || strlen(r) >= sizeof(out->root)) {
			pp_err_set(
				err,
				"--mesh: rank 0's host '%.64s' from %s is empty or too long",
				r, opt_root ? "--mesh-root" : "PP_MESH_ROOT");
			return EINVAL;
		}
		snprintf(out->root, sizeof(out->root), "%s", r);
		out->root_from = opt_root ? "--mesh-root" : "PP_MESH_ROOT";
		return 0;
	}
	/* also under mpirun in an allocation: it places rank 0 first */
	if (out->launcher == PP_MESH_SLURM ||
	    first_set(get, arg, slurm_rank).value) {
		nodes = first_set(get, arg, slurm_nodes);
		if (nodes.value) {
			ret = pp_hostlist_nth(nodes.value, 0, out->root,
					      sizeof(out->root));
			if (ret) {
				pp_err_set(
					err,
					"--mesh: %s='%.128s' is not a host list Slurm prints: %s (give --mesh-root HOST)",
					nodes.name, nodes.value, strerror(ret));
				return EINVAL;
			}
			out->root_from = nodes.name;
			return 0;
		}
	}
	pp_err_set(
		err,
		"--mesh: rank 0's host is not known: give --mesh-root HOST or set PP_MESH_ROOT (Slurm gives it in SLURM_STEP_NODELIST)");
	return EINVAL;
}

/* Is @s a usable id: 1 .. PP_MESH_ID_MAX - 1 printable bytes? */
static bool id_ok(const char *s)
{
	size_t n = strlen(s), i;

	if (!n || n >= PP_MESH_ID_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < 0x20 || s[i] > 0x7e)
			return false;
	return true;
}

static const char *const slurm_job[] = { "SLURM_JOB_ID", "SLURM_JOBID", NULL };
static const char *const slurm_step[] = { "SLURM_STEP_ID", "SLURM_STEPID",
					  NULL };
static const char *const pmix_ns[] = { "PMIX_NAMESPACE", NULL };
static const char *const ompi_job[] = { "OMPI_MCA_ess_base_jobid",
					"PMIX_NAMESPACE", NULL };

/* The mesh's id: the option, PP_MESH_ID, the launcher's, else made. */
static int read_id(const char *(*get)(const char *, void *), void *arg,
		   const char *opt_id, uint32_t port, struct pp_mesh_env *out,
		   struct pp_err *err)
{
	const char *env = get("PP_MESH_ID", arg);
	struct var job = { 0 }, step = { 0 };

	if (opt_id || (env && *env)) {
		const char *id = opt_id ? opt_id : env;

		out->id_from = opt_id ? "--mesh-id" : "PP_MESH_ID";
		if (!id_ok(id)) {
			pp_err_set(
				err,
				"--mesh: the mesh id '%.64s' from %s is empty, longer than %u bytes or not printable (give a short name such as the job's)",
				id, out->id_from, PP_MESH_ID_MAX - 1);
			return EINVAL;
		}
		snprintf(out->id, sizeof(out->id), "%s", id);
		return 0;
	}
	if (out->launcher == PP_MESH_SLURM) {
		job = first_set(get, arg, slurm_job);
		step = first_set(get, arg, slurm_step);
		if (job.value)
			snprintf(out->id, sizeof(out->id), "slurm %.40s%s%.40s",
				 job.value, step.value ? "." : "",
				 step.value ? step.value : "");
	} else if (out->launcher == PP_MESH_PMIX ||
		   out->launcher == PP_MESH_PMI) {
		job = first_set(get, arg, pmix_ns);
		if (job.value)
			snprintf(out->id, sizeof(out->id), "pmix %.100s",
				 job.value);
	} else if (out->launcher == PP_MESH_OMPI) {
		job = first_set(get, arg, ompi_job);
		if (job.value)
			snprintf(out->id, sizeof(out->id), "openmpi %.100s",
				 job.value);
	}
	if (job.value && id_ok(out->id)) {
		out->id_from = job.name;
		return 0;
	}
	/* what every rank was given alike */
	snprintf(out->id, sizeof(out->id), "%.80s:%u size %u", out->root, port,
		 out->size);
	out->id_from = "-p, --mesh-size and rank 0's host";
	return 0;
}

/*
 * A Slurm step and an MPI launcher that disagree: the MPI launcher's
 * variables are its own, Slurm's were inherited by mpirun from the batch
 * step.  Return: the index in launchers[] to use.
 */
static size_t most_specific(const char *(*get)(const char *, void *), void *arg,
			    size_t slurm)
{
	struct var srk = first_set(get, arg, launchers[slurm].rank);
	struct var ssz = first_set(get, arg, launchers[slurm].size);
	size_t i;

	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		struct var rk, sz;

		if (launchers[i].id == PP_MESH_SLURM ||
		    launchers[i].id == PP_MESH_K8S)
			continue;
		rk = first_set(get, arg, launchers[i].rank);
		if (!rk.value)
			continue;
		sz = first_set(get, arg, launchers[i].size);
		if (strcmp(rk.value, srk.value) ||
		    (sz.value && (!ssz.value || strcmp(sz.value, ssz.value))))
			return i;
	}
	return slurm;
}

/* The local index: PP_MESH_LOCAL, else the launcher's, else not known. */
static int read_local(const char *(*get)(const char *, void *), void *arg,
		      const struct var *launcher_local, struct pp_mesh_env *out,
		      struct pp_err *err)
{
	static const char *const own[] = { "PP_MESH_LOCAL", NULL };
	struct var lc = first_set(get, arg, own);

	if (!lc.value || !*lc.value)
		lc = *launcher_local;
	if (!lc.value)
		return 0;
	if (number(&lc, PP_MESH_MAX_RANKS, &out->local, err))
		return EINVAL;
	if (out->local >= out->size) {
		pp_err_set(
			err,
			"--mesh: %s=%u is not below the number of ranks, %u (a local index counts the ranks of one host from 0)",
			lc.name, out->local, out->size);
		out->local = PP_MESH_LOCAL_ANY;
		return EINVAL;
	}
	out->local_from = lc.name;
	return 0;
}

int pp_mesh_env_read(const char *(*get)(const char *name, void *arg), void *arg,
		     uint32_t opt_size, const char *opt_root,
		     const char *opt_id, uint32_t port, struct pp_mesh_env *out,
		     struct pp_err *err)
{
	struct var rk = { 0 }, sz = { 0 }, lc = { 0 };
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	out->rank = PP_MESH_RANK_ANY;
	out->local = PP_MESH_LOCAL_ANY;
	for (i = 0; i < sizeof(launchers) / sizeof(launchers[0]); i++) {
		rk = first_set(get, arg, launchers[i].rank);
		if (!rk.value)
			continue;
		if (launchers[i].id == PP_MESH_SLURM)
			i = most_specific(get, arg, i);
		rk = first_set(get, arg, launchers[i].rank);
		out->launcher = launchers[i].id;
		out->rank_from = rk.name;
		sz = first_set(get, arg, launchers[i].size);
		lc = first_set(get, arg, launchers[i].local);
		break;
	}
	ret = read_size(&sz, opt_size, out, err);
	if (ret)
		return ret;
	ret = read_local(get, arg, &lc, out, err);
	if (ret)
		return ret;
	if (rk.value) {
		if (number(&rk, PP_MESH_MAX_RANKS, &out->rank, err))
			return EINVAL;
		if (out->rank >= out->size) {
			pp_err_set(
				err,
				"--mesh: %s=%u is not below the number of ranks, %u",
				rk.name, out->rank, out->size);
			return EINVAL;
		}
	}
	ret = read_root(get, arg, opt_root, out, err);
	if (ret)
		return ret;
	return read_id(get, arg, opt_id, port, out, err);
}

const char *pp_mesh_launcher_name(enum pp_mesh_launcher l)
{
	switch (l) {
	case PP_MESH_NONE:
		return "none";
	case PP_MESH_SLURM:
		return "slurm";
	case PP_MESH_PMIX:
		return "pmix";
	case PP_MESH_PMI:
		return "pmi";
	case PP_MESH_OMPI:
		return "openmpi";
	case PP_MESH_K8S:
		return "kubernetes";
	}
	return "?";
}
