// SPDX-License-Identifier: MIT
/*
 * pp_counters.c - a port's counters from sysfs, their deltas, one line of
 * text, JSON and a byte codec.  The rules are at the top of pp_counters.h.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pp_be.h"
#include "pp_counters.h"
#include "pp_json.h"

/* Files of a counters directory that are not counters. */
static const struct {
	uint8_t dir;
	const char *name;
} not_counters[] = {
	/* the ms that the core caches hw_counters/ values for */
	{ PP_COUNTERS_HW, "lifespan" },
};

/*
 * The widths of the PMA PortCounters as the kernel reads them
 * (drivers/infiniband/core/sysfs.c).  port_{xmit,rcv}_{data,packets} are
 * 32 bits, or 64 where the device has the extended set: 32 is checked, and
 * a 64-bit counter at exactly 2^32-1 is not worth a second thought.  The
 * extended-only counters (unicast_*, multicast_*) are 64 bits and never
 * saturate in practice: not listed.
 */
static const struct {
	const char *name;
	unsigned int bits;
} pma_widths[] = {
	{ "symbol_error", 16 },
	{ "link_error_recovery", 8 },
	{ "link_downed", 8 },
	{ "port_rcv_errors", 16 },
	{ "port_rcv_remote_physical_errors", 16 },
	{ "port_rcv_switch_relay_errors", 16 },
	{ "port_xmit_discards", 16 },
	{ "port_xmit_constraint_errors", 8 },
	{ "port_rcv_constraint_errors", 8 },
	{ "local_link_integrity_errors", 4 },
	{ "excessive_buffer_overrun_errors", 4 },
	{ "VL15_dropped", 16 },
	{ "port_xmit_data", 32 },
	{ "port_rcv_data", 32 },
	{ "port_xmit_packets", 32 },
	{ "port_rcv_packets", 32 },
	{ "port_xmit_wait", 32 },
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define MARK ", ..."
#define SCOPE "all traffic on the port, not only this run's"

const char *pp_counters_dir_name(unsigned int dir)
{
	switch (dir) {
	case PP_COUNTERS_HW:
		return "hw_counters";
	case PP_COUNTERS_PMA:
		return "counters";
	default:
		return "?";
	}
}

/* A name we keep and send: printable ASCII without space or '/'. */
static bool name_ok(const char *s, size_t n, size_t max)
{
	size_t i;

	if (n == 0 || n > max)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] <= ' ' || s[i] > '~' || s[i] == '/')
			return false;
	return true;
}

static bool dev_ok(const char *dev)
{
	size_t n = strlen(dev);

	return name_ok(dev, n, PP_COUNTERS_DEV_MAX) && strcmp(dev, ".") &&
	       strcmp(dev, "..");
}

static int cmp_key(const char *a_name, unsigned int a_dir, const char *b_name,
		   unsigned int b_dir)
{
	int c = strcmp(a_name, b_name);

	if (c)
		return c;
	return (a_dir > b_dir) - (a_dir < b_dir);
}

static int cmp_counter(const void *a, const void *b)
{
	const struct pp_counter *x = a, *y = b;

	return cmp_key(x->name, x->dir, y->name, y->dir);
}

static bool is_counter(unsigned int dir, const char *name)
{
	size_t i;

	if (name[0] == '.')
		return false;
	for (i = 0; i < ARRAY_LEN(not_counters); i++)
		if (not_counters[i].dir == dir &&
		    !strcmp(not_counters[i].name, name))
			return false;
	return true;
}

/* One decimal number, optionally followed by white space. */
static int parse_value(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	const char *p = s;

	if (*p < '0' || *p > '9')
		return PP_COUNTERS_ENOTNUM;
	for (; *p >= '0' && *p <= '9'; p++) {
		unsigned int digit = (unsigned int)(*p - '0');

		if (x > (UINT64_MAX - digit) / 10)
			return ERANGE;
		x = x * 10 + digit;
	}
	while (*p == '\n' || *p == ' ' || *p == '\t')
		p++;
	if (*p)
		return PP_COUNTERS_ENOTNUM;
	*v = x;
	return 0;
}

/* Read the file @name of the directory @dfd as one number. */
static int read_value(int dfd, const char *name, uint64_t *v)
{
	char buf[64];
	size_t got = 0;
	ssize_t n;
	int fd, ret = 0;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno;
	while (got < sizeof(buf) - 1) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (ret)
		return ret;
	if (got == sizeof(buf) - 1)
		return PP_COUNTERS_ENOTNUM; /* longer than any number */
	buf[got] = '\0';
	if (strlen(buf) != got)
		return PP_COUNTERS_ENOTNUM; /* a NUL inside */
	return parse_value(buf, v);
}

/* Keep @c: appended while there is room, else in place of the greatest
 * entry when it sorts before it (so the first PP_COUNTERS_MAX by name are
 * kept, whatever the directory order). */
static void keep(struct pp_counters *snap, const struct pp_counter *c)
{
	unsigned int i, max = 0;

	if (snap->n < PP_COUNTERS_MAX) {
		snap->c[snap->n++] = *c;
		return;
	}
	snap->skipped++;
	for (i = 1; i < snap->n; i++)
		if (cmp_counter(&snap->c[i], &snap->c[max]) > 0)
			max = i;
	if (cmp_counter(c, &snap->c[max]) < 0)
		snap->c[max] = *c;
}

/* Read one directory of the port; *found: it exists. */
static int read_dir(int port_fd, unsigned int dir, struct pp_counters *snap,
		    bool *found)
{
	struct dirent *e;
	DIR *d;
	int fd, ret = 0;

	*found = false;
	fd = openat(port_fd, pp_counters_dir_name(dir),
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		return errno;
	}
	d = fdopendir(fd);
	if (!d) {
		ret = errno;
		close(fd);
		return ret;
	}
	*found = true;
	for (;;) {
		struct pp_counter c = { .dir = (uint8_t)dir };
		size_t n;

		errno = 0;
		e = readdir(d);
		if (!e) {
			ret = errno;
			break;
		}
		if (dir == PP_COUNTERS_HW && !strcmp(e->d_name, "lifespan") &&
		    !read_value(dirfd(d), e->d_name, &c.value))
			snap->lifespan_ms = c.value > UINT_MAX ?
						    UINT_MAX :
						    (unsigned int)c.value;
		if (!is_counter(dir, e->d_name))
			continue;
		n = strlen(e->d_name);
		if (!name_ok(e->d_name, n, PP_COUNTERS_NAME_MAX)) {
			snap->skipped++;
			continue;
		}
		memcpy(c.name, e->d_name, n + 1);
		c.err = read_value(dirfd(d), e->d_name, &c.value);
		c.readable = !c.err;
		if (c.err)
			c.value = 0;
		keep(snap, &c);
	}
	closedir(d);
	return ret;
}

int pp_counters_read(const char *sysfs_root, const char *dev, unsigned int port,
		     struct pp_counters *snap)
{
	char path[4096];
	bool hw = false, pma = false;
	int fd, n, ret;

	if (!snap)
		return EINVAL;
	memset(snap, 0, sizeof(*snap));
	if (!sysfs_root || !dev || !dev_ok(dev) || port < 1 || port > 255)
		return EINVAL;
	snprintf(snap->dev, sizeof(snap->dev), "%s", dev);
	snap->port = port;
	n = snprintf(path, sizeof(path), "%s/%s/ports/%u", sysfs_root, dev,
		     port);
	if (n < 0 || (size_t)n >= sizeof(path))
		return ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errno;
	ret = read_dir(fd, PP_COUNTERS_HW, snap, &hw);
	if (!ret)
		ret = read_dir(fd, PP_COUNTERS_PMA, snap, &pma);
	close(fd);
	if (ret)
		return ret;
	snap->no_dirs = !hw && !pma;
	qsort(snap->c, snap->n, sizeof(snap->c[0]), cmp_counter);
	return 0;
}

/* The all-ones value of a PMA counter of known width; 0: not known. */
static uint64_t pma_max(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_LEN(pma_widths); i++)
		if (!strcmp(pma_widths[i].name, name))
			return (UINT64_C(1) << pma_widths[i].bits) - 1;
	return 0;
}

/* The change of a counter in both snapshots. */
static void change(const struct pp_counter *b, const struct pp_counter *a,
		   struct pp_counter_delta *cd)
{
	uint64_t max;

	if (!a->readable || !b->readable) {
		cd->flags = PP_CTR_UNREADABLE;
		cd->err = a->readable ? b->err : a->err;
		return;
	}
	if (a->value >= b->value) {
		cd->delta = a->value - b->value;
	} else if (b->dir == PP_COUNTERS_HW && b->value <= UINT32_MAX) {
		cd->delta = a->value + (UINT64_C(1) << 32) - b->value;
		cd->flags = PP_CTR_WRAPPED;
	} else {
		cd->delta = a->value;
		cd->flags = PP_CTR_RESET;
	}
	if (a->dir == PP_COUNTERS_PMA) {
		max = pma_max(a->name);
		if (max && a->value == max)
			cd->flags |= PP_CTR_SATURATED;
	}
}

/* A counter in only one snapshot. */
static void lone(const struct pp_counter *c, uint8_t flag,
		 struct pp_counter_delta *cd)
{
	cd->flags = flag;
	if (!c->readable) {
		cd->flags |= PP_CTR_UNREADABLE;
		cd->err = c->err;
	}
}

int pp_counters_delta(const struct pp_counters *before,
		      const struct pp_counters *after,
		      struct pp_counters_delta *out)
{
	unsigned int i = 0, k = 0, extra = 0;

	memset(out, 0, sizeof(*out));
	if (before->n > PP_COUNTERS_MAX || after->n > PP_COUNTERS_MAX ||
	    before->port != after->port || strcmp(before->dev, after->dev))
		return EINVAL;
	snprintf(out->dev, sizeof(out->dev), "%s", after->dev);
	out->port = after->port;
	out->no_dirs = before->no_dirs && after->no_dirs;
	while (i < before->n || k < after->n) {
		const struct pp_counter *b = i < before->n ? &before->c[i] :
							     NULL;
		const struct pp_counter *a = k < after->n ? &after->c[k] : NULL;
		struct pp_counter_delta cd = { .err = 0 };
		int c;

		if (!b)
			c = 1;
		else if (!a)
			c = -1;
		else
			c = cmp_counter(b, a);
		if (c < 0) {
			memcpy(cd.name, b->name, sizeof(cd.name));
			cd.dir = b->dir;
			lone(b, PP_CTR_DISAPPEARED, &cd);
			i++;
		} else if (c > 0) {
			memcpy(cd.name, a->name, sizeof(cd.name));
			cd.dir = a->dir;
			lone(a, PP_CTR_APPEARED, &cd);
			k++;
		} else {
			memcpy(cd.name, a->name, sizeof(cd.name));
			cd.dir = a->dir;
			change(b, a, &cd);
			i++;
			k++;
		}
		if (out->n < PP_COUNTERS_MAX)
			out->d[out->n++] = cd;
		else
			extra++;
	}
	out->skipped = (before->skipped > after->skipped ? before->skipped :
							   after->skipped) +
		       extra;
	return 0;
}

bool pp_counters_moved(const struct pp_counter_delta *cd)
{
	if (cd->flags & PP_CTR_UNREADABLE)
		return false;
	return cd->delta || (cd->flags & PP_CTR_ALL);
}

/* The counters of @d, never more than there is room for (a set built by
 * hand may say otherwise). */
static unsigned int nkept(const struct pp_counters_delta *d)
{
	return d->n < PP_COUNTERS_MAX ? d->n : PP_COUNTERS_MAX;
}

/* The name of d->d[i] as shown: with its directory when the same name is
 * in both (the list is sorted, so such a pair is adjacent). */
static const char *shown_name(const struct pp_counters_delta *d, unsigned int i,
			      char *buf, size_t len)
{
	const char *name = d->d[i].name;
	bool twin = (i > 0 && !strcmp(d->d[i - 1].name, name)) ||
		    (i + 1 < nkept(d) && !strcmp(d->d[i + 1].name, name));

	if (!twin)
		return name;
	snprintf(buf, len, "%s/%s", pp_counters_dir_name(d->d[i].dir), name);
	return buf;
}

static const char *err_text(int err)
{
	return err == PP_COUNTERS_ENOTNUM ? "not a number" : strerror(err);
}

/* The words for the flags of a counter that moved. */
static void flag_words(uint8_t flags, char *buf, size_t len)
{
	static const struct {
		uint8_t bit;
		const char *word;
	} words[] = {
		{ PP_CTR_WRAPPED, "wrapped" },
		{ PP_CTR_RESET, "reset" },
		{ PP_CTR_SATURATED, "saturated" },
	};
	size_t i, used = 0;

	buf[0] = '\0';
	for (i = 0; i < ARRAY_LEN(words); i++) {
		if (!(flags & words[i].bit))
			continue;
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 used ? ", " : " (", words[i].word);
	}
	if (used)
		snprintf(buf + used, len - used, ")");
}

/* Walks the items of the line, each with its separator. */
struct item_iter {
	const struct pp_counters_delta *d;
	int phase; /* 0 moved, 1 unreadable, 2 skipped, 3 done */
	unsigned int i;
	unsigned int shown; /* items of the phase so far */
	unsigned int moved; /* moved items in all */
};

/* The next item into @out; false when there is none. */
static bool next_item(struct item_iter *it, char *out, size_t len)
{
	const struct pp_counters_delta *d = it->d;
	const struct pp_counter_delta *cd;
	char name[PP_COUNTERS_NAME_MAX + 16], flags[48];
	const char *shown;

	while (it->phase < 3) {
		if (it->i >= nkept(d)) {
			bool none = it->phase == 0 && !it->moved;

			it->phase++;
			it->i = 0;
			it->shown = 0;
			if (none) {
				snprintf(out, len, "none moved");
				return true;
			}
			if (it->phase == 2 && d->skipped) {
				it->phase = 3;
				snprintf(
					out, len,
					"; %u more not read (more than %u counters, or names not printable or over %u characters)",
					d->skipped, PP_COUNTERS_MAX,
					PP_COUNTERS_NAME_MAX);
				return true;
			}
			if (it->phase == 2)
				it->phase = 3;
			continue;
		}
		cd = &d->d[it->i];
		shown = shown_name(d, it->i, name, sizeof(name));

		it->i++;
		if (it->phase == 0 && pp_counters_moved(cd)) {
			const char *sep = it->shown++ ? ", " : "";

			it->moved++;
			flag_words(cd->flags, flags, sizeof(flags));
			if (cd->flags & (PP_CTR_APPEARED | PP_CTR_DISAPPEARED))
				snprintf(out, len, "%s%s (%s)", sep, shown,
					 cd->flags & PP_CTR_APPEARED ?
						 "appeared" :
						 "disappeared");
			else
				snprintf(out, len, "%s%s +%" PRIu64 "%s", sep,
					 shown, cd->delta, flags);
			return true;
		}
		if (it->phase == 1 && (cd->flags & PP_CTR_UNREADABLE)) {
			const char *sep = it->shown++ ? ", " : "; unreadable: ";

			snprintf(out, len, "%s%s (%s)", sep, shown,
				 err_text(cd->err));
			return true;
		}
	}
	return false;
}

char *pp_counters_format(const struct pp_counters_delta *d, char *buf,
			 size_t len)
{
	struct item_iter it = { .d = d };
	char items[2][256];
	size_t used, need;
	int cur = 0, n;
	bool have, have_next;

	if (!len)
		return buf;
	if (d->no_dirs) {
		snprintf(
			buf, len,
			"port counters %s:%u: none (no hw_counters/ or counters/ directory)",
			d->dev, d->port);
		return buf;
	}
	n = snprintf(buf, len, "port counters %s:%u (" SCOPE "): ", d->dev,
		     d->port);
	if (n < 0 || (size_t)n >= len)
		return buf;
	used = (size_t)n;
	have = next_item(&it, items[cur], sizeof(items[cur]));
	while (have) {
		have_next = next_item(&it, items[!cur], sizeof(items[!cur]));
		need = strlen(items[cur]) + (have_next ? strlen(MARK) : 0);
		if (used + need >= len) {
			/* after the prefix alone, "..." without a comma */
			const char *mark = used == (size_t)n ? "..." : MARK;

			if (used + strlen(mark) < len)
				memcpy(buf + used, mark, strlen(mark) + 1);
			break;
		}
		memcpy(buf + used, items[cur], strlen(items[cur]) + 1);
		used += strlen(items[cur]);
		cur = !cur;
		have = have_next;
	}
	return buf;
}

/* A list of the names whose flags have @bit, as a JSON array. */
static int json_names(struct pp_json *j, const struct pp_counters_delta *d,
		      const char *key, uint8_t bit)
{
	char name[PP_COUNTERS_NAME_MAX + 16];
	unsigned int i;

	pp_json_key(j, key);
	pp_json_begin_array(j);
	for (i = 0; i < nkept(d); i++)
		if ((d->d[i].flags & bit) &&
		    !(d->d[i].flags & PP_CTR_UNREADABLE))
			pp_json_string(j, shown_name(d, i, name, sizeof(name)));
	return pp_json_end_array(j);
}

int pp_counters_json(struct pp_json *j, const struct pp_counters_delta *d)
{
	char name[PP_COUNTERS_NAME_MAX + 16];
	unsigned int i;

	pp_json_begin_object(j);
	pp_json_key_string(j, "device", d->dev);
	pp_json_key_uint(j, "port", d->port);
	pp_json_key_string(j, "scope", "port");
	pp_json_key_bool(j, "directories", !d->no_dirs);
	pp_json_key(j, "counters");
	pp_json_begin_object(j);
	for (i = 0; i < nkept(d); i++)
		if (!(d->d[i].flags & (PP_CTR_UNREADABLE | PP_CTR_APPEARED |
				       PP_CTR_DISAPPEARED)))
			pp_json_key_uint(j,
					 shown_name(d, i, name, sizeof(name)),
					 d->d[i].delta);
	pp_json_end_object(j);
	pp_json_key(j, "unreadable");
	pp_json_begin_array(j);
	for (i = 0; i < nkept(d); i++) {
		if (!(d->d[i].flags & PP_CTR_UNREADABLE))
			continue;
		pp_json_begin_object(j);
		pp_json_key_string(j, "name",
				   shown_name(d, i, name, sizeof(name)));
		pp_json_key_string(j, "error", err_text(d->d[i].err));
		pp_json_end_object(j);
	}
	pp_json_end_array(j);
	json_names(j, d, "resets", PP_CTR_RESET);
	json_names(j, d, "wrapped", PP_CTR_WRAPPED);
	json_names(j, d, "saturated", PP_CTR_SATURATED);
	json_names(j, d, "appeared", PP_CTR_APPEARED);
	json_names(j, d, "disappeared", PP_CTR_DISAPPEARED);
	pp_json_key_uint(j, "skipped", d->skipped);
	return pp_json_end_object(j);
}

/* Why one record is refused; NULL when it is good. */
static const char *check_record(const struct pp_counter_delta *cd,
				const struct pp_counter_delta *prev)
{
	uint8_t f = cd->flags;

	if (!name_ok(cd->name, strnlen(cd->name, sizeof(cd->name)),
		     PP_COUNTERS_NAME_MAX))
		return "counters: counter name not printable or of a bad length";
	if (cd->dir > PP_COUNTERS_PMA)
		return "counters: counter directory unknown";
	if (f & ~PP_CTR_ALL)
		return "counters: counter flags unknown";
	if ((f & PP_CTR_WRAPPED) && (f & PP_CTR_RESET))
		return "counters: counter both wrapped and reset";
	if ((f & PP_CTR_APPEARED) && (f & PP_CTR_DISAPPEARED))
		return "counters: counter both appeared and disappeared";
	if (!(f & PP_CTR_UNREADABLE) != !cd->err)
		return "counters: counter error without the unreadable flag, or the reverse";
	if (cd->err < 0 || cd->err > UINT16_MAX)
		return "counters: counter error out of range";
	if ((f & (PP_CTR_UNREADABLE | PP_CTR_APPEARED | PP_CTR_DISAPPEARED)) &&
	    cd->delta)
		return "counters: counter delta where none can be";
	if (prev && cmp_key(prev->name, prev->dir, cd->name, cd->dir) >= 0)
		return "counters: counters out of order or repeated";
	return NULL;
}

int pp_counters_encode(const struct pp_counters_delta *d, uint8_t *buf,
		       size_t len, size_t *out_len)
{
	size_t dev_len, need, off;
	unsigned int i;

	*out_len = 0;
	dev_len = strnlen(d->dev, sizeof(d->dev));
	if (d->n > PP_COUNTERS_MAX ||
	    !name_ok(d->dev, dev_len, PP_COUNTERS_DEV_MAX) || d->port < 1 ||
	    d->port > 255 || (d->no_dirs && d->n))
		return EINVAL;
	need = PP_COUNTERS_WIRE_HDR + dev_len;
	for (i = 0; i < d->n; i++) {
		if (check_record(&d->d[i], i ? &d->d[i - 1] : NULL))
			return EINVAL;
		need += PP_COUNTERS_WIRE_REC + strlen(d->d[i].name);
	}
	if (need > len)
		return ENOSPC;
	buf[0] = PP_COUNTERS_WIRE_VERSION;
	buf[1] = d->no_dirs ? 1 : 0;
	pp_put_be16(buf + 2, (uint16_t)d->n);
	pp_put_be32(buf + 4, d->port);
	pp_put_be32(buf + 8, (uint32_t)d->skipped);
	buf[12] = (uint8_t)dev_len;
	memcpy(buf + 13, d->dev, dev_len);
	off = PP_COUNTERS_WIRE_HDR + dev_len;
	for (i = 0; i < d->n; i++) {
		const struct pp_counter_delta *cd = &d->d[i];
		size_t n = strlen(cd->name);

		buf[off] = cd->dir;
		buf[off + 1] = cd->flags;
		pp_put_be16(buf + off + 2, (uint16_t)cd->err);
		pp_put_be64(buf + off + 4, cd->delta);
		buf[off + 12] = (uint8_t)n;
		memcpy(buf + off + 13, cd->name, n);
		off += PP_COUNTERS_WIRE_REC + n;
	}
	*out_len = off;
	return 0;
}

static int bad(const char **why, const char *what)
{
	if (why)
		*why = what;
	return EPROTO;
}

int pp_counters_decode(const uint8_t *buf, size_t len,
		       struct pp_counters_delta *d, const char **why)
{
	size_t off, dev_len;
	unsigned int i, count;
	const char *w;

	memset(d, 0, sizeof(*d));
	if (len < PP_COUNTERS_WIRE_HDR)
		return bad(why, "counters: shorter than their header");
	if (buf[0] != PP_COUNTERS_WIRE_VERSION)
		return bad(why, "counters: another version");
	if (buf[1] & ~1U)
		return bad(why, "counters: unknown flags");
	count = pp_get_be16(buf + 2);
	if (count > PP_COUNTERS_MAX)
		return bad(why, "counters: too many");
	d->port = pp_get_be32(buf + 4);
	if (d->port < 1 || d->port > 255)
		return bad(why, "counters: port out of range");
	d->skipped = pp_get_be32(buf + 8);
	d->no_dirs = buf[1] & 1;
	dev_len = buf[12];
	if (dev_len > len - PP_COUNTERS_WIRE_HDR)
		return bad(why, "counters: device name cut short");
	if (!name_ok((const char *)buf + 13, dev_len, PP_COUNTERS_DEV_MAX))
		return bad(
			why,
			"counters: device name not printable or of a bad length");
	memcpy(d->dev, buf + 13, dev_len);
	if (d->no_dirs && count)
		return bad(why, "counters: counters without a directory");
	off = PP_COUNTERS_WIRE_HDR + dev_len;
	for (i = 0; i < count; i++) {
		struct pp_counter_delta *cd = &d->d[i];
		size_t n;

		if (len - off < PP_COUNTERS_WIRE_REC)
			return bad(why, "counters: record cut short");
		n = buf[off + 12];
		if (n > len - off - PP_COUNTERS_WIRE_REC)
			return bad(why, "counters: name cut short");
		if (!name_ok((const char *)buf + off + 13, n,
			     PP_COUNTERS_NAME_MAX))
			return bad(
				why,
				"counters: counter name not printable or of a bad length");
		memcpy(cd->name, buf + off + 13, n);
		cd->dir = buf[off];
		cd->flags = buf[off + 1];
		cd->err = pp_get_be16(buf + off + 2);
		cd->delta = pp_get_be64(buf + off + 4);
		w = check_record(cd, i ? &d->d[i - 1] : NULL);
		if (w)
			return bad(why, w);
		off += PP_COUNTERS_WIRE_REC + n;
		d->n = i + 1;
	}
	if (off != len)
		return bad(why, "counters: bytes after the last record");
	return 0;
}
