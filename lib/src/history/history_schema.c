/* SPDX-License-Identifier: MIT */
/*
 * The history's schema, versioned: a `meta` table holds the version, each version is the
 * list of statements that bring the one before it forward, and pbench runs them in one
 * transaction when it opens an older store. A store from a newer pbench is refused and left
 * as it is (never rewritten backward: an older pbench does not know what the newer columns
 * mean). The SQL is the backends' common subset, so that PostgreSQL runs it as SQLite does
 * (history_pg.c translates the two phrases SQLite spells its own way: INTEGER PRIMARY KEY,
 * its 64-bit rowid, and INTEGER NOT NULL REFERENCES to one).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "history/history.h"

/* Version 1: machines (fingerprints), series (name, metric, machine), records, their runs;
 * version 2: the documents, once each. A new version is a new entry at the end, never an edit of one before it. */
static const char *const steps[] = {
	[1] =
	"CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
	"CREATE TABLE machines (id INTEGER PRIMARY KEY, fingerprint TEXT NOT NULL UNIQUE,"
	" cpu_model TEXT NOT NULL, microcode TEXT NOT NULL, kernel TEXT NOT NULL,"
	" governor TEXT NOT NULL, smt TEXT NOT NULL, isolation TEXT NOT NULL,"
	" virt TEXT NOT NULL, pbench_version TEXT NOT NULL);"
	"CREATE TABLE series (id INTEGER PRIMARY KEY, name TEXT NOT NULL, metric TEXT NOT NULL,"
	" machine_id INTEGER NOT NULL REFERENCES machines(id), UNIQUE (name, metric, machine_id));"
	"CREATE TABLE records (id INTEGER PRIMARY KEY,"
	" series_id INTEGER NOT NULL REFERENCES series(id), time_ns BIGINT NOT NULL,"
	" rev TEXT NOT NULL, dirty INTEGER NOT NULL, branch TEXT NOT NULL, unit TEXT NOT NULL,"
	" value DOUBLE PRECISION, lo DOUBLE PRECISION, hi DOUBLE PRECISION,"
	" n_runs INTEGER NOT NULL, json TEXT);"
	"CREATE INDEX records_series ON records (series_id, time_ns, id);"
	"CREATE TABLE runs (record_id INTEGER NOT NULL REFERENCES records(id),"
	" idx INTEGER NOT NULL, value DOUBLE PRECISION NOT NULL, noisy INTEGER NOT NULL,"
	" PRIMARY KEY (record_id, idx));"
	"INSERT INTO meta (key, value) VALUES ('schema_version', '0');",
	/* Version 2 (issue 34): a document is stored once, in documents, and its records refer
	 * to it (a 324 KB Google Benchmark file of 2,000 benchmarks made 649 MB of copies in
	 * records.json). hash is the FNV-1a of the text and its length, for finding the same
	 * document again (then compared whole). The records of version 1 keep their json as
	 * it is (moving it would not shrink the file: SQLite reuses the pages, it does not
	 * give them back), and are read as they are: the document's, else the record's own. */
	[2] =
	"CREATE TABLE documents (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, json TEXT NOT NULL);"
	"CREATE INDEX documents_hash ON documents (hash);"
	"ALTER TABLE records ADD COLUMN document_id BIGINT REFERENCES documents(id);",
};

_Static_assert(sizeof(steps) / sizeof(steps[0]) == PBENCH_HISTORY_SCHEMA + 1,
	       "PBENCH_HISTORY_SCHEMA is the last step of the schema");

static int version_row(const struct pb_hv *col, int ncol, void *arg)
{
	char *end;
	long v;

	if (ncol < 1 || col[0].type != PB_HV_TEXT)
		return -PBENCH_ECORRUPT;
	errno = 0;
	v = strtol(col[0].s, &end, 10);
	if (end == col[0].s || *end || v < 0)
		return -PBENCH_ECORRUPT;
	if (v > 1000000 || errno == ERANGE)	/* a version no pbench will reach */
		return pb_fail(-PBENCH_ENEWER_SCHEMA, "history: the store's schema version is "
			       "%.24s, out of range (this pbench knows up to %d): left untouched",
			       col[0].s, PBENCH_HISTORY_SCHEMA);
	*(int *)arg = (int)v;
	return 0;
}

/* The store's version: 0 for a new file, -PBENCH_ECORRUPT for a database that is not
 * pbench's. */
static int read_version(struct pbench_history *h)
{
	int v = -1, rc = h->be->empty(h->db);

	if (rc < 0 || rc == 1)
		return rc < 0 ? rc : 0;
	rc = h->be->query(h->db, "SELECT value FROM meta WHERE key = 'schema_version'", NULL, 0,
			  version_row, &v);
	if (rc == -PBENCH_ECORRUPT || (!rc && v < 0))
		return pb_fail(-PBENCH_ECORRUPT, "history: the file is a database but not a pbench "
			       "history (no schema version in its meta table)");
	if (rc == -EIO)	/* no meta table: another program's database */
		return pb_fail(-PBENCH_ECORRUPT, "history: the file is a database but not a pbench "
			       "history (no meta table)");
	return rc < 0 ? rc : v;
}

static int refuse_newer(int v)
{
	return pb_fail(-PBENCH_ENEWER_SCHEMA, "history: the store's schema is version %d, from a "
		       "newer pbench (this one knows up to %d): left untouched, use that pbench",
		       v, PBENCH_HISTORY_SCHEMA);
}

/* Under the write lock: read the version again (another pbench may have migrated it
 * meanwhile) and run the steps after it. */
static int migrate_locked(struct pbench_history *h)
{
	char ver[16];
	int v = read_version(h), rc = 0;

	if (v < 0)
		return v;
	if (v > PBENCH_HISTORY_SCHEMA)
		return refuse_newer(v);
	for (int s = v + 1; s <= PBENCH_HISTORY_SCHEMA && !rc; s++)
		rc = h->be->exec(h->db, steps[s]);
	if (rc || v == PBENCH_HISTORY_SCHEMA)
		return rc;
	snprintf(ver, sizeof(ver), "%d", PBENCH_HISTORY_SCHEMA);
	rc = h->be->query(h->db, "UPDATE meta SET value = $1 WHERE key = 'schema_version'",
			  &PB_HV_S(ver), 1, NULL, NULL);
	pb_log(PBENCH_LOG_INFO, "history: schema %d -> %d", v, PBENCH_HISTORY_SCHEMA);
	return rc;
}

int pb_history_schema(struct pbench_history *h)
{
	int v = read_version(h), rc;

	if (v < 0)
		return v;
	if (v > PBENCH_HISTORY_SCHEMA)
		return refuse_newer(v);
	if (v == PBENCH_HISTORY_SCHEMA) {
		h->schema = v;
		return 0;
	}
	if (h->read_only)
		return pb_fail(-EROFS, "history: the store's schema is version %d, older than %d, "
			       "and it was opened read-only: open it to write once to migrate it",
			       v, PBENCH_HISTORY_SCHEMA);
	rc = h->be->begin(h->db);
	if (!rc && h->be->lock_schema)
		rc = h->be->lock_schema(h->db);
	if (!rc)
		rc = migrate_locked(h);
	if (!rc)
		rc = h->be->commit(h->db);
	if (rc) {
		h->be->rollback(h->db);
		return rc;
	}
	h->schema = PBENCH_HISTORY_SCHEMA;
	return 0;
}
