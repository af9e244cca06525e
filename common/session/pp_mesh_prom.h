/* SPDX-License-Identifier: MIT */
/*
 * pp_mesh_prom.h - --mesh-prom: rank 0's result as Prometheus metrics (the
 * text exposition format 0.0.4), for node_exporter's textfile collector
 * (docs/mesh.md, "Metrics for monitoring").  Read from the judged view the
 * way pp_mesh_report.h's views are; the file is replaced whole (a temporary
 * file in the same directory, fsync, rename), so a reader never sees half of
 * it.
 */
#ifndef PP_MESH_PROM_H
#define PP_MESH_PROM_H

#include <stddef.h>
#include <stdio.h>

#include "pp_err.h"
#include "pp_mesh_report.h"

/*
 * The per-pair families hold every pair of a mesh of up to this many pairs
 * (64 ranks); beyond, only the pairs that failed, then those with a slow
 * rank, this many at most.  The per-rank and mesh families are whole.
 */
#define PP_MESH_PROM_PAIRS 2016

/**
 * pp_mesh_prom_write() - the metrics of a mesh in the text format
 * @v: a judged view (pp_mesh_view_judge())
 * @status: the exit status of rank 0
 * @end_s: when the mesh ended, seconds since the epoch
 * @f: stream
 *
 * Return: 0, ENOMEM (the pairs could not be chosen; nothing written) or
 * EIO (the stream failed).
 */
int pp_mesh_prom_write(const struct pp_mesh_view *v, int status, double end_s,
		       FILE *f);

/**
 * pp_mesh_prom_check() - can @path be written as pp_mesh_prom_save() does?
 * Creates its temporary file (@path.tmp-PID) and removes it again.
 * @path: the file --mesh-prom names
 * @err: one line naming the path and the cause
 *
 * Return: 0, or the errno of creating the temporary file (EACCES, ENOENT,
 * EROFS, ...), or EISDIR when @path is a directory.
 */
int pp_mesh_prom_check(const char *path, struct pp_err *err);

/**
 * pp_mesh_prom_save() - write the metrics to @path atomically: into
 * @path.tmp-PID in the same directory, fsync, rename over @path; the
 * temporary file is removed when a step fails
 * @v: a judged view
 * @status: the exit status of rank 0
 * @end_s: when the mesh ended, seconds since the epoch
 * @path: the file --mesh-prom names
 * @err: one line naming the path, the step and the cause
 *
 * Return: 0, or the errno of the step that failed (of open(), write(),
 * fsync(), rename(); ENOMEM).
 */
int pp_mesh_prom_save(const struct pp_mesh_view *v, int status, double end_s,
		      const char *path, struct pp_err *err);

#endif /* PP_MESH_PROM_H */
