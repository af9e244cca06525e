/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_env.h - a mesh rank's place: its rank, the number of ranks and
 * the host of rank 0, from the launcher's environment or the options.
 *
 * The launchers, in the order they are looked for:
 *   Slurm       SLURM_PROCID, SLURM_NTASKS (or SLURM_NPROCS), rank 0's
 *               host the first of SLURM_STEP_NODELIST (or SLURM_JOB_NODELIST,
 *               SLURM_NODELIST), expanded by pp_hostlist.h
 *   PMIx / PMI  PMIX_RANK or PMI_RANK; PMI_SIZE (else OMPI_COMM_WORLD_SIZE)
 *   Open MPI    OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE
 *   Kubernetes  JOB_COMPLETION_INDEX (an Indexed Job); the size from
 *               --mesh-size
 *   none        --mesh-size, ranks given by rank 0 in order of arrival
 * A Slurm step's variables and an MPI launcher's (PMIx, PMI, Open MPI)
 * that disagree on the rank or the size: the MPI launcher's win, since
 * mpirun inside an sbatch script inherits the batch step's SLURM_PROCID and
 * SLURM_NTASKS (srun --mpi=pmix sets both alike).
 * Rank 0's host: --mesh-root, else PP_MESH_ROOT, else Slurm's node list.
 * A size from the launcher and a different --mesh-size is an error.
 *
 * The local index (the rank's place among the ranks of its host, which
 * picks its device from a -d list): PP_MESH_LOCAL, else the variable of
 * the launcher the rank came from (Slurm SLURM_LOCALID; PMIx
 * PMIX_LOCAL_RANK, else OMPI_COMM_WORLD_LOCAL_RANK; PMI MPI_LOCALRANKID;
 * Open MPI OMPI_COMM_WORLD_LOCAL_RANK), else not known here
 * (PP_MESH_LOCAL_ANY: the worker claims one by arrival on its host).
 *
 * The mesh's id, which every rank's JOIN carries and rank 0 checks, so
 * that two meshes on one port never merge: --mesh-id, else PP_MESH_ID,
 * else the launcher's (Slurm "slurm JOB.STEP"; PMIx "pmix NAMESPACE"; Open
 * MPI "openmpi JOBID"), else made from what every rank was given: "HOST:PORT
 * size N" (rank 0's host, -p, the size).
 */
#ifndef PP_MESH_ENV_H
#define PP_MESH_ENV_H

#include <stdint.h>

#include "pp_err.h"
#include "pp_hostlist.h"

enum pp_mesh_launcher {
	PP_MESH_NONE = 0, /* no launcher: ranks by arrival */
	PP_MESH_SLURM,
	PP_MESH_PMIX,
	PP_MESH_PMI,
	PP_MESH_OMPI,
	PP_MESH_K8S,
};

#define PP_MESH_RANK_ANY UINT32_MAX  /* no launcher: rank 0 assigns it */
#define PP_MESH_ID_MAX 128	     /* a mesh id's room, NUL included */
#define PP_MESH_LOCAL_ANY UINT32_MAX /* the local index is not known yet */

struct pp_mesh_env {
	enum pp_mesh_launcher launcher;
	uint32_t rank;			 /* PP_MESH_RANK_ANY with no launcher */
	uint32_t size;			 /* 2 .. PP_MESH_MAX_RANKS */
	char root[PP_HOSTLIST_HOST_MAX]; /* rank 0's host */
	const char *root_from;	 /* "--mesh-root", "PP_MESH_ROOT", ... */
	const char *rank_from;	 /* the variable the rank came from; NULL */
	char id[PP_MESH_ID_MAX]; /* the mesh's id */
	const char *id_from; /* "--mesh-id", "PP_MESH_ID", "SLURM_JOB_ID", ... */
	uint32_t local;	     /* the local index; PP_MESH_LOCAL_ANY: not known */
	const char *local_from; /* "PP_MESH_LOCAL", "SLURM_LOCALID", ...; NULL */
};

/**
 * pp_mesh_env_read() - the place of this process in the mesh
 * @get: reads an environment variable (getenv(), or a table in tests);
 *       NULL when unset
 * @arg: passed to @get
 * @opt_size: --mesh-size, 0 when not given
 * @opt_root: --mesh-root, NULL when not given
 * @opt_id: --mesh-id, NULL when not given
 * @port: -p, for an id made from what every rank was given
 * @out: the rank, size, root host, launcher and mesh id
 * @err: one line naming the variable or option and what to do
 *
 * Return: 0; EINVAL (a variable that is not a number, a rank or a local
 * index not below the size, no size, no root host, sizes that disagree, a
 * node list that does not parse, an id that is empty, too long or not
 * printable); ERANGE (a size above PP_MESH_MAX_RANKS, or below 2).
 */
int pp_mesh_env_read(const char *(*get)(const char *name, void *arg), void *arg,
		     uint32_t opt_size, const char *opt_root,
		     const char *opt_id, uint32_t port, struct pp_mesh_env *out,
		     struct pp_err *err);

/**
 * pp_mesh_launcher_name() - "slurm", "pmix", "pmi", "openmpi",
 * "kubernetes" or "none"
 * @l: enum pp_mesh_launcher
 */
const char *pp_mesh_launcher_name(enum pp_mesh_launcher l);

#endif /* PP_MESH_ENV_H */
