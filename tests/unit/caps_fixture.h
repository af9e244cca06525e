/* SPDX-License-Identifier: MIT */
/*
 * caps_fixture.h - the port the pure handshake tests run against: rxe0's
 * limits, as pp_dev_query() reports them on Soft-RoCE, with XRC.
 */
#ifndef CAPS_FIXTURE_H
#define CAPS_FIXTURE_H

#include <infiniband/verbs.h>

#include "pp_dev.h"

static inline void caps_fixture(struct pp_port_caps *c, uint32_t active_mtu)
{
	*c = (struct pp_port_caps){
		.devname = "rxe0",
		.ib_port = 1,
		.link_layer = IBV_LINK_LAYER_ETHERNET,
		.active_mtu = active_mtu,
		.max_mtu = 4096,
		.max_msg_sz = 1U << 31,
		.max_mr_size = ~0ULL,
		.max_qp_wr = 16384,
		.max_srq_wr = 16384,
		.max_qp = 4096,
		.max_cqe = 65536,
		.gid_tbl_len = 16,
		.xrc = true,
	};
}

#endif /* CAPS_FIXTURE_H */
