/* SPDX-License-Identifier: MIT */
/*
 * pp_run_stock.h - the loop variant toward a stock rdma-core tool
 * (docs/interop.md).
 */
#ifndef PP_RUN_STOCK_H
#define PP_RUN_STOCK_H

struct pp_run_loop;

/*
 * Messages carry no number (plain sends, pp_res_attr.plain_send); -c is the
 * stock rule (pp_rdmacore_chk_fill(); the server checks each message with
 * pp_rdmacore_chk_ok(), the client that each reply echoes its message); an
 * srq server takes up to one message per QP at once and replies on the QP
 * it came in on, -n replies in all.  The client and the other servers are
 * the general loops (pp_run_general.h).
 */
extern const struct pp_run_loop pp_run_loop_stock;

#endif /* PP_RUN_STOCK_H */
