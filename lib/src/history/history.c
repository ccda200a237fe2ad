/* SPDX-License-Identifier: MIT */
/*
 * The history's public calls (issue 24): open a store (its directory made when missing, its
 * schema brought forward), append a record in one transaction with the fingerprint of the
 * machine it was measured on (or many in the caller's, pb_history_add_in(): an import is one
 * transaction, issue 34; its document stored once, in documents, and shared), close. The backend is chosen here, by the path: a postgresql://
 * or postgres:// URI is a PostgreSQL server (history_pg.c), anything else a SQLite file
 * (history_sqlite.c); the rest of the module speaks only their interface (history/history.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "base/base.h"
#include "history/history.h"

static const struct pbench_history_opts history_defaults = PBENCH_HISTORY_OPTS_INIT;

/* The directory of path, made when missing (that one level only: never a tree). */
static int make_dir(const char *path)
{
	char dir[4096];
	const char *slash = strrchr(path, '/');
	size_t n;

	if (!slash || slash == path)
		return 0;
	n = (size_t)(slash - path);
	if (n >= sizeof(dir))
		return pb_fail(-ENAMETOOLONG, "history '%s': the path is too long", path);
	memcpy(dir, path, n);
	dir[n] = 0;
	if (mkdir(dir, 0777) == 0) {
		pb_log(PBENCH_LOG_INFO, "history: made the directory '%s'", dir);
		return 0;
	}
	if (errno == EEXIST)
		return 0;
	return pb_fail(-errno, "history '%s': cannot make its directory '%s': %s", path, dir,
		       strerror(errno));
}

/* A SQLite store's path with its links followed as the kernel's protected_symlinks rule
 * allows (pb_path_resolve(): never where another user's link in /tmp points), its directory
 * made for a writer; what is there already must be a regular file (a FIFO would hold the
 * open, a directory says "I/O error"). *real is malloc'd. */
enum { STORE_WRITE, STORE_READ, STORE_CHECK };

/* STORE_CHECK, for a writer before it runs anything: the directory make_dir() would make, or
 * the directory it would make it in, is there; nothing is made. */
static int dir_there(const char *path, const char *real)
{
	char dir[4096], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", real);
	for (int up = 0; up < 2; up++) {
		if (!(slash = strrchr(dir, '/')) || slash == dir)
			return 0;
		*slash = 0;
		if (!stat(dir, &st))
			return 0;
	}
	return pb_fail(-ENOENT, "history '%s': no directory '%s' to make the store's in", path,
		       dir);
}

static int store_file(const char *path, int mode, char **real)
{
	struct stat st = { 0 };
	int rc = pb_path_resolve(path, real), exists, read_only = mode == STORE_READ;

	if (rc)	/* a link refused and a loop said by pb_path_resolve() */
		return rc == -EACCES || rc == -ELOOP || rc == -ENOMEM ? rc :
		       pb_fail(rc, "history '%s': %s", path, strerror(-rc));
	rc = mode == STORE_WRITE ? make_dir(*real) : mode == STORE_CHECK ? dir_there(path, *real) : 0;
	if (rc)
		goto out;
	for (int i = 0; i < 3 && !rc; i++) {	/* SQLite's files beside it: opened O_NOFOLLOW */
		static const char *const ext[] = { "-wal", "-shm", "-journal" };
		char side[4096];

		snprintf(side, sizeof(side), "%s%s", *real, ext[i]);
		if (!lstat(side, &st) && S_ISLNK(st.st_mode))
			rc = pb_fail(-EACCES, "history '%s': '%s' is a symbolic link (owned by uid %u),"
				     " which SQLite does not follow: remove it", path, side,
				     (unsigned)st.st_uid);
	}
	if (rc)
		goto out;
	exists = stat(*real, &st) == 0;
	if (!exists || S_ISREG(st.st_mode)) {
		/* A writer on a read-only mount: SQLite says "unable to open" (ENOENT). */
		const char *slash = strrchr(*real, '/');
		char dir[4096];

		snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - *real + 1) : 1,
			 slash ? *real : ".");
		if (read_only || access(exists ? *real : dir, W_OK) == 0 ||
		    errno != EROFS)
			return 0;
		rc = pb_fail(-EROFS, "history '%s' is on a read-only file system: nothing can be "
			     "added to it there", path);
	} else if (S_ISDIR(st.st_mode)) {
		rc = pb_fail(-EISDIR, "history '%s' is a directory: give the path of a file in "
			     "it (as '%s/history.db')", path, path);
	} else {
		rc = pb_fail(-EINVAL, "history '%s' is %s, not a regular file: the store is a "
			     "SQLite file", path, S_ISFIFO(st.st_mode) ? "a FIFO" :
			     S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device" :
			     S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
	}
out:
	free(*real);
	*real = NULL;
	return rc;
}

/* path, or $PBENCH_HISTORY when set and not empty, or the default. */
static const char *store_path(const char *path)
{
	const char *env = getenv("PBENCH_HISTORY");

	return path ? path : env && *env ? env : PBENCH_HISTORY_DEFAULT_PATH;
}

int pbench_history_path_check(const char *path)
{
	char *real = NULL;
	int rc;

	path = store_path(path);
	if (!*path)
		return pb_fail(-EINVAL, "%s(): path is empty", __func__);
	if (pb_history_is_pg(path))
		return 0;	/* a server: opening it connects */
	rc = store_file(path, STORE_CHECK, &real);
	free(real);
	return rc;
}

int pbench_history_open(struct pbench_history **out, const char *path,
			const struct pbench_history_opts *opts)
{
	struct pbench_history_opts o = history_defaults;
	struct pbench_history *h;
	char *real = NULL;
	int rc;

	if (!out)
		return pb_fail(-EINVAL, "%s(): out is NULL", __func__);
	*out = NULL;
	if (opts && (rc = PB_CHECK_STRUCT(opts, pbench_history_opts, 0,
					  "PBENCH_HISTORY_OPTS_INIT")))
		return rc;
	if (opts)
		pb_copy_in(&o, sizeof(o), opts);
	path = store_path(path);
	if (!*path || !(o.busy_timeout_s >= 0))
		return pb_fail(-EINVAL, "%s(): %s", __func__, *path ? "opts->busy_timeout_s is "
			       "negative" : "path is empty");
	if (!pb_history_is_pg(path) &&
	    (rc = store_file(path, o.read_only ? STORE_READ : STORE_WRITE, &real)))
		return rc;
	h = calloc(1, sizeof(*h));
	if (!h) {
		free(real);
		return -ENOMEM;
	}
	h->be = pb_history_is_pg(path) ? &pb_history_pg : &pb_history_sqlite;
	h->read_only = o.read_only;
	rc = h->be->open(&h->db, real ? real : path, &o);
	free(real);
	if (!rc)
		rc = pb_history_schema(h);
	if (rc) {
		pbench_history_close(h);
		return rc;
	}
	*out = h;
	return 0;
}

void pbench_history_close(struct pbench_history *h)
{
	if (!h)
		return;
	pb_history_changes_free(h);
	pb_history_points_free(h);
	pb_history_series_free(h);
	if (h->db)
		h->be->close(h->db);
	free(h);
}

int pbench_history_schema(const struct pbench_history *h)
{
	return h ? h->schema : pb_fail(-EINVAL, "%s(): h is NULL", __func__);
}

static const char *const fp_names[8] = { "cpu_model", "microcode", "kernel", "governor", "smt",
					 "isolation", "virt", "pbench_version" };

/* The value of the env's first finding id, or of the file, into buf. */
static const char *machine_fact(const struct pbench_check *env, const char *id, const char *file,
				char *buf, size_t len)
{
	int n = env ? pbench_check_nr(env) : 0;

	for (int i = 0; i < n; i++) {
		const struct pbench_check_finding *c = pbench_check_get(env, i);

		if (c && !strcmp(c->id, id)) {
			snprintf(buf, len, "%s", c->value);
			return buf;
		}
	}
	if (!file || pb_read_file(file, buf, len) < 0)
		buf[0] = 0;
	return buf;
}

/* Field i of the machine's own fingerprint (only those the caller left NULL are read: a
 * read of /proc/cpuinfo costs more than the append). */
static const char *machine_field(const struct pbench_history_record *r, struct pb_hfp *fp, int i)
{
	static const char *const sys[8] = {
		[1] = "/sys/devices/system/cpu/cpu0/microcode/version",
		[3] = "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
		[4] = "/sys/devices/system/cpu/smt/active",
		[5] = "/sys/devices/system/cpu/isolated",
	};
	static const char *const ids[8] = { [3] = "cpufreq.governor", [4] = "smt.active",
					   [5] = "isolation.isolcpus", [6] = "virt.hypervisor" };
	struct pbench_host host = { .size = sizeof(host) };
	int b = i == 1 ? 0 : i - 2;	/* its buffer: microcode 0, governor..virt 1..4 */

	if (i == 0 || i == 2) {
		pbench_host_info(&host);
		return i ? host.kernel : host.cpu_model;
	}
	if (i == 7)
		return pbench_version();
	return machine_fact(i == 1 ? NULL : r->env, ids[i] ? ids[i] : "", sys[i], fp->buf[b],
			    sizeof(fp->buf[b]));
}

static void fingerprint(const struct pbench_history_record *r, struct pb_hfp *fp)
{
	const char *const given[8] = { r->cpu_model, r->microcode, r->kernel, r->governor, r->smt,
				       r->isolation, r->virt, r->pbench_version };
	uint64_t x = 0xcbf29ce484222325ull;	/* FNV-1a, 64 bits: stable across builds */

	for (int i = 0; i < 8; i++) {
		const char *s;

		fp->f[i] = given[i] ? given[i] : machine_field(r, fp, i);
		if (!fp->f[i])
			fp->f[i] = "";
		for (s = fp_names[i]; *s; s++)
			x = (x ^ (unsigned char)*s) * 0x100000001b3ull;
		x = (x ^ '=') * 0x100000001b3ull;
		for (s = fp->f[i]; *s; s++)
			x = (x ^ (unsigned char)*s) * 0x100000001b3ull;
		x = (x ^ '\n') * 0x100000001b3ull;
	}
	snprintf(fp->hash, sizeof(fp->hash), "%016" PRIx64, x);
}

void pb_history_fingerprint_here(char hash[17])
{
	struct pbench_history_record r = { .size = sizeof(r) };
	struct pb_hfp fp;

	memset(&fp, 0, sizeof(fp));
	fingerprint(&r, &fp);
	memcpy(hash, fp.hash, sizeof(fp.hash));
}

static int id_row(const struct pb_hv *col, int ncol, void *arg)
{
	*(int64_t *)arg = ncol && col[0].type == PB_HV_INT ? col[0].i : -1;
	return 0;
}

/* The machine's id, its row made when new (inside the transaction). */
static int machine_id(struct pbench_history *h, const struct pb_hfp *fp, int64_t *mid)
{
	struct pb_hv a[9];
	int rc;

	a[0] = PB_HV_S(fp->hash);
	for (int i = 0; i < 8; i++)
		a[i + 1] = PB_HV_S(fp->f[i]);
	rc = h->be->query(h->db, "INSERT INTO machines (fingerprint, cpu_model, microcode, kernel,"
			  " governor, smt, isolation, virt, pbench_version) VALUES ($1, $2, $3,"
			  " $4, $5, $6, $7, $8, $9) ON CONFLICT (fingerprint) DO NOTHING",
			  a, 9, NULL, NULL);
	*mid = -1;
	if (!rc)
		rc = h->be->query(h->db, "SELECT id FROM machines WHERE fingerprint = $1", a, 1,
				  id_row, mid);
	if (!rc && *mid < 0)
		rc = pb_fail(-PBENCH_ECORRUPT, "history: the machine %s was not made", fp->hash);
	return rc;
}

/* The series' id on machine mid, made when new (inside the transaction). */
static int series_id(struct pbench_history *h, const struct pbench_history_record *r,
		     int64_t mid, int64_t *id)
{
	struct pb_hv a[3];
	int rc;

	a[0] = PB_HV_S(r->name);
	a[1] = PB_HV_S(r->metric);
	a[2] = PB_HV_I(mid);
	rc = h->be->query(h->db, "INSERT INTO series (name, metric, machine_id) VALUES ($1, $2,"
			  " $3) ON CONFLICT (name, metric, machine_id) DO NOTHING", a, 3, NULL,
			  NULL);
	*id = -1;
	if (!rc)
		rc = h->be->query(h->db, "SELECT id FROM series WHERE name = $1 AND metric = $2 "
				  "AND machine_id = $3", a, 3, id_row, id);
	if (!rc && *id < 0)
		rc = pb_fail(-PBENCH_ECORRUPT, "history: the series '%s' (%s) was not made",
			     r->name, r->metric);
	return rc;
}

/* The document's id, stored once (inside the transaction): a document already in the store,
 * byte for byte, is shared (found by its hash, then compared whole). */
static int document_id(struct pbench_history *h, const char *json, int64_t *id)
{
	uint64_t x = 0xcbf29ce484222325ull;	/* FNV-1a, 64 bits: stable across builds */
	size_t len = 0;
	char hash[40];
	struct pb_hv a[2];
	int rc;

	for (const char *s = json; *s; s++, len++)
		x = (x ^ (unsigned char)*s) * 0x100000001b3ull;
	snprintf(hash, sizeof(hash), "%016" PRIx64 "-%zu", x, len);
	a[0] = PB_HV_S(hash);
	a[1] = PB_HV_S(json);
	*id = -1;
	rc = h->be->query(h->db, "SELECT id FROM documents WHERE hash = $1 AND json = $2", a, 2,
			  id_row, id);
	if (!rc && *id < 0)
		rc = h->be->query(h->db, "INSERT INTO documents (hash, json) VALUES ($1, $2) "
				  "RETURNING id", a, 2, id_row, id);
	if (!rc && *id < 0)
		rc = pb_fail(-PBENCH_ECORRUPT, "history: the document of %zu bytes was not stored",
			     len);
	return rc;
}

/* Runs per INSERT: a statement each would be a round trip each on a server. */
#define RUNS_AT_ONCE 8

/* Runs from..from+RUNS_AT_ONCE of record id, in one statement. */
static int insert_runs(struct pbench_history *h, const struct pbench_history_record *r,
		       int64_t id, size_t from)
{
	size_t n = r->n_runs - from < RUNS_AT_ONCE ? r->n_runs - from : RUNS_AT_ONCE;
	struct pb_hv a[4 * RUNS_AT_ONCE];
	char sql[512];
	int len = snprintf(sql, sizeof(sql), "INSERT INTO runs (record_id, idx, value, noisy) "
			   "VALUES ");

	for (size_t k = 0; k < n; k++) {
		size_t i = from + k;
		int noisy = r->run_noisy ? (r->run_noisy[i] > 0 ? 1 : r->run_noisy[i] < 0 ? -1 : 0)
					 : -1;

		a[4 * k] = PB_HV_I(id);
		a[4 * k + 1] = PB_HV_I((int64_t)i);
		a[4 * k + 2] = PB_HV_D(r->run_values[i]);
		a[4 * k + 3] = PB_HV_I(noisy);
		len += snprintf(sql + len, sizeof(sql) - (size_t)len, "%s($%zu, $%zu, $%zu, $%zu)",
				k ? ", " : "", 4 * k + 1, 4 * k + 2, 4 * k + 3, 4 * k + 4);
	}
	return h->be->query(h->db, sql, a, (int)(4 * n), NULL, NULL);
}

/* The record's row (its document doc, -1: none) and its runs' rows (inside the
 * transaction). */
static int insert(struct pbench_history *h, const struct pbench_history_record *r,
		  int64_t sid, int64_t doc, int64_t *id)
{
	struct timespec ts;
	int64_t t = r->time_ns;
	int known = r->lo != 0 || r->hi != 0;	/* both 0: the caller left them */
	struct pb_hv a[12];
	int rc;

	if (!t) {
		clock_gettime(CLOCK_REALTIME, &ts);
		t = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	a[0] = PB_HV_I(sid), a[1] = PB_HV_I(t), a[2] = PB_HV_S(r->rev ? r->rev : "");
	a[3] = PB_HV_I(r->dirty != 0), a[4] = PB_HV_S(r->branch ? r->branch : "");
	a[5] = PB_HV_S(r->unit ? r->unit : ""), a[6] = PB_HV_D(r->value);
	a[7] = PB_HV_D(known ? r->lo : NAN), a[8] = PB_HV_D(known ? r->hi : NAN);
	a[9] = PB_HV_I((int64_t)r->n_runs);
	a[10] = doc >= 0 ? PB_HV_I(doc) : (struct pb_hv){ .type = PB_HV_NULL };
	*id = -1;
	/* The document is in the documents table (schema 2), shared by the records it made;
	 * records.json is left NULL (a schema-1 record's is read as it is). */
	rc = h->be->query(h->db, "INSERT INTO records (series_id, time_ns, rev, dirty, branch, "
			  "unit, value, lo, hi, n_runs, document_id) VALUES ($1, $2, $3, $4, $5,"
			  " $6, $7, $8, $9, $10, $11) RETURNING id", a, 11, id_row, id);
	for (size_t i = 0; !rc && i < r->n_runs; i += RUNS_AT_ONCE)
		rc = insert_runs(h, r, *id, i);
	return rc;
}

/* A string of the key or the commit: UTF-8 text without control characters (what would
 * forge a line or break a report's document), name and metric within
 * PBENCH_HISTORY_NAME_MAX bytes (PostgreSQL's unique index on them holds ~2.7 KB a row:
 * the same limit on both backends). */
static int check_text(const char *field, const char *s, size_t max)
{
	int bad = s ? pb_text_check(s, 1) : 0;
	char *shown;
	int rc;

	if (!bad && (!s || strlen(s) <= max))
		return 0;
	if (!bad)
		return pb_fail(-EINVAL, "pbench_history_add(): rec->%s is %zu bytes long, more than "
			       "%zu: give a shorter one", field, strlen(s), max);
	shown = pb_text_shown(s);
	rc = pb_fail(-EINVAL, "pbench_history_add(): rec->%s '%.200s' has %s at byte %d: give "
		     "UTF-8 text without control characters", field, shown ? shown : "",
		     pb_text_check(s, 0) ? "a byte that is not UTF-8" :
		     "a control character or bidi mark",
		     -bad);
	free(shown);
	return rc;
}

static int check_record(const struct pbench_history *h, const struct pbench_history_record *r)
{
	int rc;

	if (!h)
		return pb_fail(-EINVAL, "pbench_history_add(): h is NULL");
	if (h->read_only)
		return pb_fail(-EROFS, "pbench_history_add(): the history was opened read-only");
	if (!r->name || !*r->name || !r->metric || !*r->metric)
		return pb_fail(-EINVAL, "pbench_history_add(): rec->%s is empty",
			       !r->name || !*r->name ? "name" : "metric");
	if ((rc = check_text("name", r->name, PBENCH_HISTORY_NAME_MAX)) ||
	    (rc = check_text("metric", r->metric, PBENCH_HISTORY_NAME_MAX)) ||
	    (rc = check_text("unit", r->unit, PBENCH_HISTORY_NAME_MAX)) ||
	    (rc = check_text("rev", r->rev, SIZE_MAX)) ||
	    (rc = check_text("branch", r->branch, SIZE_MAX)))
		return rc;
	if (r->n_runs && !r->run_values)
		return pb_fail(-EINVAL, "pbench_history_add(): rec->n_runs is %zu and "
			       "rec->run_values NULL", r->n_runs);
	for (size_t i = 0; i < r->n_runs; i++)
		if (!isfinite(r->run_values[i]))
			return pb_fail(-EINVAL, "pbench_history_add(): rec->run_values[%zu] is %g",
				       i, r->run_values[i]);
	if (!isfinite(r->value) && !r->n_runs)
		return pb_fail(-EINVAL, "pbench_history_add(): rec->value is %g and there are no "
			       "runs", r->value);
	return 0;
}

static const struct pbench_history_record record_defaults = { .size = sizeof(record_defaults),
	.value = NAN, .lo = NAN, .hi = NAN };

int pb_history_begin(struct pbench_history *h, const char *fn)
{
	if (!h)
		return pb_fail(-EINVAL, "%s(): h is NULL", fn);
	if (h->read_only)
		return pb_fail(-EROFS, "%s(): the history was opened read-only", fn);
	return h->be->begin(h->db);
}

int pb_history_end(struct pbench_history *h, int rc)
{
	if (!rc)
		rc = h->be->commit(h->db);
	if (rc)
		h->be->rollback(h->db);
	return rc;
}

/* Whether r gives the same fingerprint fields as the batch's first record. */
static int same_machine(const struct pb_hbatch *b, const struct pbench_history_record *r)
{
	const char *const given[8] = { r->cpu_model, r->microcode, r->kernel, r->governor, r->smt,
				       r->isolation, r->virt, r->pbench_version };

	return b->have_fp && b->env == r->env && !memcmp(b->given, given, sizeof(given));
}

int64_t pb_history_add_in(struct pbench_history *h, const struct pbench_history_record *rec,
			  struct pb_hbatch *b)
{
	struct pbench_history_record r = record_defaults;
	int64_t sid = -1, id = -1;
	int rc = PB_CHECK_STRUCT(rec, pbench_history_record, 0, "PBENCH_HISTORY_RECORD_INIT");

	if (rc)
		return rc;
	pb_copy_in(&r, sizeof(r), rec);
	if ((rc = check_record(h, &r)))
		return rc;
	if (!same_machine(b, &r)) {
		const char *const given[8] = { r.cpu_model, r.microcode, r.kernel, r.governor,
					       r.smt, r.isolation, r.virt, r.pbench_version };

		fingerprint(&r, &b->fp);
		if ((rc = machine_id(h, &b->fp, &b->machine_id)))
			return rc;
		memcpy(b->given, given, sizeof(given));
		b->env = r.env;
		b->have_fp = 1;
		b->series_name[0] = 0;	/* its series are another machine's */
	}
	if (r.json && r.json != b->doc) {
		if ((rc = document_id(h, r.json, &b->doc_id)))
			return rc;
		b->doc = r.json;
	}
	if (b->series_name[0] && !strcmp(b->series_name, r.name) &&
	    !strcmp(b->series_metric, r.metric) && b->series_id >= 0) {
		sid = b->series_id;	/* the same machine too: a new one cleared it */
	} else if (!(rc = series_id(h, &r, b->machine_id, &sid)) &&
		   strlen(r.name) < sizeof(b->series_name) &&
		   strlen(r.metric) < sizeof(b->series_metric)) {
		strcpy(b->series_name, r.name);
		strcpy(b->series_metric, r.metric);
		b->series_id = sid;
	}
	if (!rc)
		rc = insert(h, &r, sid, r.json ? b->doc_id : -1, &id);
	/* Said at debug level inside the transaction: the tests stop a writer here (its log
	 * callback) and kill it, to see that no half record is left. */
	if (!rc)
		pb_log(PBENCH_LOG_DEBUG, "history: record %lld written, not committed yet",
		       (long long)id);
	return rc ? rc : id;
}

int64_t pbench_history_add(struct pbench_history *h,
			   const struct pbench_history_record *rec)
{
	struct pbench_history_record r = record_defaults;
	struct pb_hbatch b = { .doc_id = -1, .machine_id = -1 };
	int rc = PB_CHECK_STRUCT(rec, pbench_history_record, 0, "PBENCH_HISTORY_RECORD_INIT");
	int64_t id;

	if (rc)
		return rc;
	pb_copy_in(&r, sizeof(r), rec);
	if ((rc = check_record(h, &r)) || (rc = pb_history_begin(h, __func__)))	/* before the lock */
		return rc;
	id = pb_history_add_in(h, rec, &b);
	rc = pb_history_end(h, id < 0 ? (int)id : 0);
	return rc ? rc : id;
}
