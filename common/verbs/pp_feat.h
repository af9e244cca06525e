/* SPDX-License-Identifier: MIT */
/*
 * pp_feat.h - the device features that rdma-core's rc_pingpong letters ask
 * for (-o, -O, -P, -t, -j, -U), read with ibv_query_device_ex(), and the
 * rule that refuses a letter the device or this build cannot do.
 *
 * Each side checks its own device when it opens it, before any resource
 * is made and before the network: these letters act on one side's memory
 * or completion queue, not on the wire, so they are not negotiated (the
 * stock tool reads them the same way, on each side).
 */
#ifndef PP_FEAT_H
#define PP_FEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "pp_err.h"
#include "pp_opts.h"

struct ibv_context;

/* What a device offers, as ibv_query_device_ex() says: plain data. */
struct pp_dev_feats {
	uint64_t odp_general; /* odp_caps.general_caps: IBV_ODP_SUPPORT... */
	uint32_t odp_rc;      /* odp_caps.per_transport_caps.rc_odp_caps */
	uint32_t odp_uc;
	uint32_t odp_ud;
	uint32_t odp_xrc;     /* xrc_odp_caps */
	uint64_t ts_mask;     /* completion_timestamp_mask; 0: none */
	uint64_t max_dm_size; /* device memory; 0: none */
};

/**
 * pp_feat_query() - read @ctx's features
 * @ctx: open device
 * @f: filled (all zero where the query is not supported)
 * @err: one line naming the failure
 *
 * Return: 0, or the errno of ibv_query_device_ex() (EOPNOTSUPP and ENOSYS
 * are not failures: @f stays zero, a device without extended attributes).
 */
int pp_feat_query(struct ibv_context *ctx, struct pp_dev_feats *f,
		  struct pp_err *err);

/**
 * pp_feat_wanted() - does @o ask for any of the letters this module checks?
 * @o: the options
 */
bool pp_feat_wanted(const struct pp_opts *o);

/**
 * pp_feat_check() - may @o's letters run on a device with @f?
 * @o: the options (the transport and the operation choose the ODP bits
 *     a run needs)
 * @f: the device's features
 * @dev: the device's name, for the message
 * @err: one line naming the letter and the missing capability
 *       ("-t/--ts: device rxe0 has no completion timestamps
 *       (completion_timestamp_mask is 0)")
 *
 * Return: 0 or EOPNOTSUPP.
 */
int pp_feat_check(const struct pp_opts *o, const struct pp_dev_feats *f,
		  const char *dev, struct pp_err *err);

/**
 * pp_feat_odp_needed() - the per-transport ODP bits (IBV_ODP_SUPPORT_*) a
 * run of @o needs: sends and receives (the SRQ's, with one), and the
 * one-sided operation's own bit
 * @o: the options
 */
uint32_t pp_feat_odp_needed(const struct pp_opts *o);

#endif /* PP_FEAT_H */
