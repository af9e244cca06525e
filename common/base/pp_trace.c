// SPDX-License-Identifier: MIT
/*
 * pp_trace.c - --trace: timed steps, QP transitions decoded, messages.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <string.h>

#include "pp_time.h"
#include "pp_trace.h"

#define NAME_WIDTH 26 /* "ah_attr.grh.traffic_class" and a space */

void pp_trace_init(struct pp_trace *tr, FILE *f)
{
	*tr = (struct pp_trace){ .f = f, .on = f != NULL };
	tr->t0 = tr->last = pp_now_ns();
}

static int64_t now(const struct pp_trace *tr)
{
	return tr->clock ? tr->clock() : pp_now_ns();
}

/* "[   1.234 ms +0.120] ": since the start, and since the last line. */
static void stamp(struct pp_trace *tr)
{
	int64_t t = now(tr);

	fprintf(tr->f, "[%8.3f ms +%.3f] ", (double)(t - tr->t0) / 1e6,
		(double)(t - tr->last) / 1e6);
	tr->last = t;
}

void pp_trace_step(struct pp_trace *tr, const char *fmt, ...)
{
	va_list ap;

	if (!tr || !tr->on)
		return;
	stamp(tr);
	va_start(ap, fmt);
	vfprintf(tr->f, fmt, ap);
	va_end(ap);
	fputc('\n', tr->f);
}

void pp_trace_msg(struct pp_trace *tr, const char *dir, const char *type,
		  size_t bytes)
{
	pp_trace_step(tr, "%s %s (%zu bytes)", dir, type, bytes);
}

/* One attribute: its name in a column, then its value. */
static void attr_line(FILE *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void attr_line(FILE *f, const char *name, const char *fmt, ...)
{
	va_list ap;

	fprintf(f, "    %-*s", NAME_WIDTH, name);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
}

static const char *state_name(enum ibv_qp_state s)
{
	switch (s) {
	case IBV_QPS_RESET:
		return "RESET";
	case IBV_QPS_INIT:
		return "INIT";
	case IBV_QPS_RTR:
		return "RTR";
	case IBV_QPS_RTS:
		return "RTS";
	case IBV_QPS_SQD:
		return "SQD";
	case IBV_QPS_SQE:
		return "SQE";
	case IBV_QPS_ERR:
		return "ERR";
	default:
		return "unknown";
	}
}

static const char *mig_name(enum ibv_mig_state s)
{
	switch (s) {
	case IBV_MIG_MIGRATED:
		return "MIGRATED";
	case IBV_MIG_REARM:
		return "REARM";
	case IBV_MIG_ARMED:
		return "ARMED";
	}
	return "unknown";
}

struct bit_name {
	unsigned int bit;
	const char *name;
};

#define BIT_NAME(b)   \
	{             \
		b, #b \
	}

static const struct bit_name mask_bits[] = {
	BIT_NAME(IBV_QP_STATE),
	BIT_NAME(IBV_QP_CUR_STATE),
	BIT_NAME(IBV_QP_EN_SQD_ASYNC_NOTIFY),
	BIT_NAME(IBV_QP_ACCESS_FLAGS),
	BIT_NAME(IBV_QP_PKEY_INDEX),
	BIT_NAME(IBV_QP_PORT),
	BIT_NAME(IBV_QP_QKEY),
	BIT_NAME(IBV_QP_AV),
	BIT_NAME(IBV_QP_PATH_MTU),
	BIT_NAME(IBV_QP_TIMEOUT),
	BIT_NAME(IBV_QP_RETRY_CNT),
	BIT_NAME(IBV_QP_RNR_RETRY),
	BIT_NAME(IBV_QP_RQ_PSN),
	BIT_NAME(IBV_QP_MAX_QP_RD_ATOMIC),
	BIT_NAME(IBV_QP_ALT_PATH),
	BIT_NAME(IBV_QP_MIN_RNR_TIMER),
	BIT_NAME(IBV_QP_SQ_PSN),
	BIT_NAME(IBV_QP_MAX_DEST_RD_ATOMIC),
	BIT_NAME(IBV_QP_PATH_MIG_STATE),
	BIT_NAME(IBV_QP_CAP),
	BIT_NAME(IBV_QP_DEST_QPN),
	BIT_NAME(IBV_QP_RATE_LIMIT),
};

static const struct bit_name access_bits[] = {
	BIT_NAME(IBV_ACCESS_LOCAL_WRITE),
	BIT_NAME(IBV_ACCESS_REMOTE_WRITE),
	BIT_NAME(IBV_ACCESS_REMOTE_READ),
	BIT_NAME(IBV_ACCESS_REMOTE_ATOMIC),
	BIT_NAME(IBV_ACCESS_MW_BIND),
	BIT_NAME(IBV_ACCESS_ZERO_BASED),
	BIT_NAME(IBV_ACCESS_ON_DEMAND),
	BIT_NAME(IBV_ACCESS_HUGETLB),
	BIT_NAME(IBV_ACCESS_RELAXED_ORDERING),
};

/* @v as "A|B|0x40" from @names; "0" when @v is 0. */
static char *bits_text(unsigned int v, const struct bit_name *names, size_t n,
		       char *buf, size_t len)
{
	size_t used = 0, i;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++) {
		if (!(v & names[i].bit))
			continue;
		w = snprintf(buf + used, len - used, "%s%s", used ? "|" : "",
			     names[i].name);
		used += w > 0 ? (size_t)w : 0;
		v &= ~names[i].bit;
	}
	if (v && used < len)
		used += (size_t)snprintf(buf + used, len - used, "%s0x%x",
					 used ? "|" : "", v);
	if (!used)
		snprintf(buf, len, "0");
	return buf;
}

char *pp_trace_mask_names(int mask, char *buf, size_t len)
{
	return bits_text((unsigned int)mask, mask_bits,
			 sizeof(mask_bits) / sizeof(mask_bits[0]), buf, len);
}

char *pp_trace_access(unsigned int access, char *buf, size_t len)
{
	return bits_text(access, access_bits,
			 sizeof(access_bits) / sizeof(access_bits[0]), buf,
			 len);
}

/* A duration in microseconds as "67.1 ms". */
static void duration(double us, char *buf, size_t len)
{
	if (us < 1000)
		snprintf(buf, len, "%.1f us", us);
	else if (us < 1e6)
		snprintf(buf, len, "%.1f ms", us / 1e3);
	else
		snprintf(buf, len, "%.2f s", us / 1e6);
}

/* The RNR NAK timer encodings of the IB spec (table 45), in microseconds. */
static const uint32_t rnr_timer_us[32] = {
	655360, 10,    20,    30,     40,     60,     80,     120,
	160,	240,   320,   480,    640,    960,    1280,   1920,
	2560,	3840,  5120,  7680,   10240,  15360,  20480,  30720,
	40960,	61440, 81920, 122880, 163840, 245760, 327680, 491520,
};

static void print_av(FILE *f, const struct ibv_ah_attr *ah)
{
	char gid[INET6_ADDRSTRLEN];

	attr_line(f, "ah_attr.dlid", "0x%04x", ah->dlid);
	attr_line(f, "ah_attr.sl", "%u", ah->sl);
	attr_line(f, "ah_attr.src_path_bits", "%u", ah->src_path_bits);
	attr_line(f, "ah_attr.static_rate", "%u", ah->static_rate);
	attr_line(f, "ah_attr.port_num", "%u", ah->port_num);
	attr_line(f, "ah_attr.is_global", "%u (%s)", ah->is_global,
		  ah->is_global ? "a GRH in every packet" : "no GRH");
	if (!ah->is_global)
		return;
	if (!inet_ntop(AF_INET6, ah->grh.dgid.raw, gid, sizeof(gid)))
		gid[0] = '\0';
	attr_line(f, "ah_attr.grh.dgid", "%s", gid);
	attr_line(f, "ah_attr.grh.sgid_index", "%u", ah->grh.sgid_index);
	attr_line(f, "ah_attr.grh.hop_limit", "%u", ah->grh.hop_limit);
	attr_line(f, "ah_attr.grh.traffic_class", "%u", ah->grh.traffic_class);
	attr_line(f, "ah_attr.grh.flow_label", "0x%05x", ah->grh.flow_label);
}

/* The attributes of the first half of the mask bits, in bit order. */
static void print_attrs_lo(FILE *f, const struct ibv_qp_attr *a, int mask)
{
	char buf[256];

	if (mask & IBV_QP_STATE)
		attr_line(f, "qp_state", "%s", state_name(a->qp_state));
	if (mask & IBV_QP_CUR_STATE)
		attr_line(f, "cur_qp_state", "%s", state_name(a->cur_qp_state));
	if (mask & IBV_QP_EN_SQD_ASYNC_NOTIFY)
		attr_line(f, "en_sqd_async_notify", "%u",
			  a->en_sqd_async_notify);
	if (mask & IBV_QP_ACCESS_FLAGS)
		attr_line(f, "qp_access_flags", "0x%x (%s)", a->qp_access_flags,
			  a->qp_access_flags ?
				  bits_text(a->qp_access_flags, access_bits,
					    sizeof(access_bits) /
						    sizeof(access_bits[0]),
					    buf, sizeof(buf)) :
				  "none: sends and receives only");
	if (mask & IBV_QP_PKEY_INDEX)
		attr_line(f, "pkey_index", "%u", a->pkey_index);
	if (mask & IBV_QP_PORT)
		attr_line(f, "port_num", "%u", a->port_num);
	if (mask & IBV_QP_QKEY)
		attr_line(f, "qkey", "0x%08x", a->qkey);
	if (mask & IBV_QP_AV)
		print_av(f, &a->ah_attr);
	if (mask & IBV_QP_PATH_MTU) {
		if (a->path_mtu >= IBV_MTU_256 && a->path_mtu <= IBV_MTU_4096)
			attr_line(f, "path_mtu", "%u bytes (IBV_MTU_%u)",
				  128U << a->path_mtu, 128U << a->path_mtu);
		else
			attr_line(f, "path_mtu", "%d (not an IB MTU)",
				  (int)a->path_mtu);
	}
	if (mask & IBV_QP_TIMEOUT) {
		if (a->timeout) {
			duration(4.096 * (double)(1ULL << (a->timeout & 31)),
				 buf, sizeof(buf));
			attr_line(f, "timeout", "%u (4.096 us * 2^%u = %s)",
				  a->timeout, a->timeout, buf);
		} else {
			attr_line(f, "timeout", "0 (infinite)");
		}
	}
	if (mask & IBV_QP_RETRY_CNT)
		attr_line(f, "retry_cnt", "%u", a->retry_cnt);
	if (mask & IBV_QP_RNR_RETRY)
		attr_line(f, "rnr_retry",
			  a->rnr_retry == 7 ? "%u (infinite)" : "%u",
			  a->rnr_retry);
	if (mask & IBV_QP_RQ_PSN)
		attr_line(f, "rq_psn", "0x%06x", a->rq_psn);
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		attr_line(f, "max_rd_atomic", "%u", a->max_rd_atomic);
}

/* The attributes of the second half of the mask bits, in bit order. */
static void print_attrs_hi(FILE *f, const struct ibv_qp_attr *a, int mask)
{
	char buf[64];

	if (mask & IBV_QP_ALT_PATH)
		attr_line(f, "alt path",
			  "port_num %u, pkey_index %u, timeout %u, dlid 0x%04x",
			  a->alt_port_num, a->alt_pkey_index, a->alt_timeout,
			  a->alt_ah_attr.dlid);
	if (mask & IBV_QP_MIN_RNR_TIMER) {
		snprintf(buf, sizeof(buf), "%.2f ms",
			 rnr_timer_us[a->min_rnr_timer & 31] / 1e3);
		attr_line(f, "min_rnr_timer", "%u (%s)", a->min_rnr_timer, buf);
	}
	if (mask & IBV_QP_SQ_PSN)
		attr_line(f, "sq_psn", "0x%06x", a->sq_psn);
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		attr_line(f, "max_dest_rd_atomic", "%u", a->max_dest_rd_atomic);
	if (mask & IBV_QP_PATH_MIG_STATE)
		attr_line(f, "path_mig_state", "%s",
			  mig_name(a->path_mig_state));
	if (mask & IBV_QP_CAP)
		attr_line(
			f, "cap",
			"max_send_wr %u, max_recv_wr %u, max_send_sge %u, max_recv_sge %u, max_inline_data %u",
			a->cap.max_send_wr, a->cap.max_recv_wr,
			a->cap.max_send_sge, a->cap.max_recv_sge,
			a->cap.max_inline_data);
	if (mask & IBV_QP_DEST_QPN)
		attr_line(f, "dest_qp_num", "0x%06x", a->dest_qp_num);
	if (mask & IBV_QP_RATE_LIMIT)
		attr_line(f, "rate_limit", "%u kbps", a->rate_limit);
}

void pp_trace_qp(struct pp_trace *tr, uint32_t qpn, const char *step,
		 const struct ibv_qp_attr *attr, int mask)
{
	char names[640];

	if (!tr || !tr->on)
		return;
	pp_trace_step(tr, "modify QP 0x%06x to %s", qpn, step);
	print_attrs_lo(tr->f, attr, mask);
	print_attrs_hi(tr->f, attr, mask);
	attr_line(tr->f, "mask", "%s",
		  pp_trace_mask_names(mask, names, sizeof(names)));
}
