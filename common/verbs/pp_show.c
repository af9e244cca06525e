// SPDX-License-Identifier: MIT
/*
 * pp_show.c - --show-gids: devices, ports and GID tables, read with verbs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "pp_dev.h"
#include "pp_json.h"
#include "pp_show.h"

static const char *link_layer_name(uint8_t ll)
{
	const char *name = pp_link_layer_name(ll);

	return name ? name : "link layer unspecified";
}

/*
 * What was learnt of one port or, with port 0, why a device could not be
 * looked at: what both writers print.
 */
struct view {
	const char *dev;
	unsigned int port;  /* 0: the device itself failed */
	const char *failed; /* the step that failed, or NULL */
	int err;	    /* its errno */
	bool have_pa;	    /* @pa was read */
	struct ibv_port_attr pa;
	struct pp_gid_entry *tbl; /* NULL: @failed says why */
	int n, populated;
};

/* A writer: text to a FILE*, or JSON. */
struct sink {
	void (*port)(struct sink *s, const struct view *v);
	FILE *f;
	struct pp_json *j;
};

static bool is_roce(const struct pp_gid_entry *e)
{
	return e->type == PP_GID_TYPE_ROCE_V1 || e->type == PP_GID_TYPE_ROCE_V2;
}

/* The GID and, for RoCE, its IP address ("-" for InfiniBand). */
static void entry_text(const struct pp_gid_entry *e, char *gid, char *ip)
{
	if (!inet_ntop(AF_INET6, e->raw, gid, INET6_ADDRSTRLEN))
		gid[0] = '\0';
	if (is_roce(e))
		pp_gid_ip(e->raw, ip, INET6_ADDRSTRLEN);
	else
		strcpy(ip, "-");
}

static void text_port(struct sink *s, const struct view *v)
{
	char gid[INET6_ADDRSTRLEN], ip[INET6_ADDRSTRLEN];
	FILE *f = s->f;
	int i;

	if (!v->port) {
		fprintf(f, "%s: %s failed: %s\n", v->dev, v->failed,
			strerror(v->err));
		return;
	}
	if (!v->have_pa) {
		fprintf(f, "%s port %u: %s failed: %s\n", v->dev, v->port,
			v->failed, strerror(v->err));
		return;
	}
	fprintf(f,
		"%s port %u: %s, %s, LID 0x%04x, active MTU %u, max MTU %u, %d of %d GIDs populated\n",
		v->dev, v->port, ibv_port_state_str(v->pa.state),
		link_layer_name(v->pa.link_layer), v->pa.lid,
		pp_mtu_from_enum(v->pa.active_mtu),
		pp_mtu_from_enum(v->pa.max_mtu), v->populated,
		v->pa.gid_tbl_len);
	if (!v->tbl) {
		fprintf(f, "  %s failed: %s\n", v->failed, strerror(v->err));
		return;
	}
	if (v->populated)
		fprintf(f, "  %5s  %-7s  %-10s  %-25s  %s\n", "index", "type",
			"netdev", "IP address", "GID");
	for (i = 0; i < v->n; i++) {
		const struct pp_gid_entry *e = &v->tbl[i];

		if (!e->populated)
			continue;
		entry_text(e, gid, ip);
		fprintf(f, "  %5d  %-7s  %-10s  %-25s  %s\n", e->index,
			pp_gid_type_name(e->type), e->ndev[0] ? e->ndev : "-",
			ip, gid);
	}
}

static void json_port(struct sink *s, const struct view *v)
{
	char gid[INET6_ADDRSTRLEN], ip[INET6_ADDRSTRLEN], what[96];
	struct pp_json *j = s->j;
	int i;

	pp_json_begin_object(j);
	pp_json_key_string(j, "device", v->dev);
	pp_json_key_uint(j, "port", v->port);
	if (v->failed) {
		snprintf(what, sizeof(what), "%s failed: %s", v->failed,
			 strerror(v->err));
		pp_json_key_string(j, "error", what);
	}
	if (v->have_pa) {
		pp_json_key_string(j, "state", ibv_port_state_str(v->pa.state));
		pp_json_key_string(j, "link_layer",
				   link_layer_name(v->pa.link_layer));
		pp_json_key_uint(j, "lid", v->pa.lid);
		pp_json_key_uint(j, "active_mtu",
				 pp_mtu_from_enum(v->pa.active_mtu));
		pp_json_key_uint(j, "max_mtu", pp_mtu_from_enum(v->pa.max_mtu));
		pp_json_key_int(j, "gid_tbl_len", v->pa.gid_tbl_len);
	}
	if (v->tbl) {
		pp_json_key(j, "gids");
		pp_json_begin_array(j);
		for (i = 0; i < v->n; i++) {
			const struct pp_gid_entry *e = &v->tbl[i];

			if (!e->populated)
				continue;
			entry_text(e, gid, ip);
			pp_json_begin_object(j);
			pp_json_key_int(j, "index", e->index);
			pp_json_key_string(j, "type",
					   pp_gid_type_name(e->type));
			if (e->ndev[0])
				pp_json_key_string(j, "netdev", e->ndev);
			else
				pp_json_key_string(j, "netdev", NULL);
			if (is_roce(e))
				pp_json_key_string(j, "ip", ip);
			else
				pp_json_key_string(j, "ip", NULL);
			pp_json_key_string(j, "gid", gid);
			pp_json_end_object(j);
		}
		pp_json_end_array(j);
	}
	pp_json_end_object(j);
}

/* Look at one port and hand it to @s; the errno of the port query. */
static int show_port(struct sink *s, struct ibv_context *ctx,
		     unsigned int ib_port)
{
	struct view v = {
		.dev = ibv_get_device_name(ctx->device),
		.port = ib_port,
	};
	int i, ret;

	ret = ibv_query_port(ctx, (uint8_t)ib_port, &v.pa);
	if (ret) {
		v.failed = "query port";
		v.err = ret;
		s->port(s, &v);
		return ret;
	}
	v.have_pa = true;
	v.tbl = pp_gid_read_table(ctx, (uint8_t)ib_port, &v.n);
	if (!v.tbl) {
		ret = errno;
		v.failed = "query GID table";
		v.err = ret;
	}
	for (i = 0; i < v.n; i++)
		v.populated += v.tbl[i].populated;
	s->port(s, &v);
	free(v.tbl);
	return ret;
}

int pp_show_port(FILE *f, struct ibv_context *ctx, uint8_t ib_port)
{
	struct sink s = { .port = text_port, .f = f };

	return show_port(&s, ctx, ib_port);
}

/* Every port of @ctx, or only @ib_port; the first error. */
static int show_device(struct sink *s, struct ibv_context *ctx,
		       unsigned int ib_port, struct pp_err *err)
{
	struct view v = { .dev = ibv_get_device_name(ctx->device) };
	struct ibv_device_attr da;
	int ret, first = 0;
	unsigned int p;

	ret = ibv_query_device(ctx, &da);
	if (ret) {
		v.failed = "query device";
		v.err = ret;
		s->port(s, &v);
		return ret;
	}
	if (ib_port > da.phys_port_cnt) {
		pp_err_set(err, "port %u of %s does not exist (it has %u)",
			   ib_port, v.dev, da.phys_port_cnt);
		return EINVAL;
	}
	for (p = 1; p <= da.phys_port_cnt; p++) {
		if (ib_port && p != ib_port)
			continue;
		ret = show_port(s, ctx, p);
		if (ret && !first)
			first = ret;
	}
	return first;
}

static int show_all(struct sink *s, const char *devname, unsigned int ib_port,
		    struct pp_err *err)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	int n, i, ret, first = 0;
	bool found = false;
	char names[160];
	size_t used = 0;

	pp_err_clear(err);
	list = ibv_get_device_list(&n);
	if (!list || n == 0) {
		pp_err_set(err, PP_DEV_NONE_MSG);
		if (list)
			ibv_free_device_list(list);
		return ENODEV;
	}
	names[0] = '\0';
	for (i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);

		if (used < sizeof(names))
			used += (size_t)snprintf(names + used,
						 sizeof(names) - used, "%s%s",
						 i ? ", " : "", name);
		if (devname && strcmp(devname, name))
			continue;
		found = true;
		ctx = ibv_open_device(list[i]);
		if (!ctx) {
			struct view v = { .dev = name, .failed = "open" };

			ret = v.err = errno ? errno : ENODEV;
			s->port(s, &v);
		} else {
			ret = show_device(s, ctx, ib_port, err);
			ibv_close_device(ctx);
		}
		if (ret && !first)
			first = ret;
	}
	ibv_free_device_list(list);
	if (!found) {
		pp_err_set(err, "device %s not found (devices here: %s)",
			   devname, names);
		return ENODEV;
	}
	if (first && err && !err->msg[0])
		pp_err_set(err, "showing the devices failed: %s",
			   strerror(first));
	return first;
}

int pp_show_gids(FILE *f, const char *devname, unsigned int ib_port,
		 struct pp_err *err)
{
	struct sink s = { .port = text_port, .f = f };

	return show_all(&s, devname, ib_port, err);
}

int pp_show_gids_json(struct pp_json *j, const char *devname,
		      unsigned int ib_port, struct pp_err *err)
{
	struct sink s = { .port = json_port, .j = j };
	int ret;

	pp_json_begin_object(j);
	pp_json_key_int(j, "schema", 1);
	pp_json_key(j, "ports");
	pp_json_begin_array(j);
	ret = show_all(&s, devname, ib_port, err);
	pp_json_end_array(j);
	pp_json_end_object(j);
	if (!ret && j->err) {
		ret = j->err;
		pp_err_set(err, "writing JSON failed: %s", strerror(ret));
	}
	return ret;
}
