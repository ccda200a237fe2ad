/* SPDX-License-Identifier: MIT */
/* pbench/history.h - part of pbench.h (include <pbench.h>; the parts come in data-flow order,
 * each including the one before it). */
#ifndef PBENCH_H_HISTORY
#define PBENCH_H_HISTORY

#include "contest.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------------------------
 * The history (history*.c): every measurement kept with the commit and the machine it was
 * measured on, in one SQLite file or on a PostgreSQL server, and the change points of a series
 * (issue 24)
 */
struct pbench_history;

/* The default store, relative to the current directory. */
#define PBENCH_HISTORY_DEFAULT_PATH ".pbench/history.db"
/* The longest name, metric or unit of a record, in bytes (PostgreSQL's index on a series'
 * key holds ~2.7 KB a row; SQLite is held to the same). */
#define PBENCH_HISTORY_NAME_MAX 1024
/* The schema version this library writes; a store of a newer one is refused. 2: each
 * document stored once, shared by its records. */
#define PBENCH_HISTORY_SCHEMA 2

struct pbench_history_opts {
	size_t size;
	double busy_timeout_s;		/* how long a write waits for another writer's lock
					 * before -EBUSY; 0: 5 s */
	int read_only;			/* 1: never create, migrate or write (an error where the
					 * file is missing or older) */
};
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_HISTORY_OPTS_INIT \
	([] { struct pbench_history_opts pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_HISTORY_OPTS_INIT { .size = sizeof(struct pbench_history_opts) }
#endif

/*
 * Open (or create) the store at path (NULL: $PBENCH_HISTORY when set and not empty, else
 * PBENCH_HISTORY_DEFAULT_PATH; its directory is created when missing, nothing else is), in WAL mode, and bring its schema up to
 * PBENCH_HISTORY_SCHEMA (forward only; never backward). Errors, each with its one-line reason
 * (pbench_strerror()): -PBENCH_ENEWER_SCHEMA (written by a newer pbench: left untouched),
 * -PBENCH_ECORRUPT (corrupt, truncated or not a pbench store), -EBUSY (locked past the
 * timeout), -ENOSPC, -EACCES, -ENOENT (read_only and missing), -EINVAL, -ENOMEM. One history
 * is used by one thread at a time; processes may share the file (each its own history): that
 * is what WAL and the busy timeout are for.
 * A path that starts with postgresql:// or postgres:// is a libpq URI: the store is that
 * database on a PostgreSQL server (its tables in the first schema of the search path), the
 * same schema and versions, for many runners appending at once. busy_timeout_s is then the
 * server's lock_timeout; connecting waits 10 s (the URI's connect_timeout), a statement 60 s
 * (the server's or the URI's statement_timeout when set) and the answer 5 s more. Its errors
 * besides: -EINVAL (a URI libpq cannot read), -ECONNREFUSED (cannot connect, or not within
 * the timeout), -ECONNRESET (the connection was lost: open it again), -ETIMEDOUT (no answer
 * in time), -ENOTSUP (a pbench built without libpq). Errors never show the URI's password.
 */
PBENCH_API int pbench_history_open(struct pbench_history **out, const char *path,
				   const struct pbench_history_opts *opts);

/*
 * Whether path (NULL: as pbench_history_open() takes it) can be the store a writer opens,
 * checked before anything is measured and without making or opening anything: a
 * postgresql:// URI is taken as it is (opening it connects); a file's path is followed as
 * pbench_history_open() follows it (never through another user's link in a sticky
 * world-writable directory), a link where SQLite's -wal, -shm or -journal file goes is
 * refused, what is there must be a regular file, and a store not there yet needs its directory
 * or that directory's parent (the directory is made, one level). Returns 0, or -EACCES, -ELOOP,
 * -EISDIR, -EINVAL, -ENOENT, -EROFS, each with its one-line reason (pbench_strerror()).
 */
PBENCH_API int pbench_history_path_check(const char *path);
/* Close the store (the file stays). NULL is a no-op. */
PBENCH_API void pbench_history_close(struct pbench_history *h);
/* The schema version of the open store. */
PBENCH_API int pbench_history_schema(const struct pbench_history *h);

/*
 * One measurement, in (pbench_history_add()) and out (pbench_history_point_get()). Out, the
 * strings are the history's, valid until the next pbench_history_points() or the close.
 */
struct pbench_history_record {
	size_t size;
	/* The series key: the benchmark's name and its metric ("time_ns", "cycles"); and the
	 * machine's fingerprint below. */
	const char *name;
	const char *metric;
	const char *unit;		/* of value, e.g. "ns" (NULL: "") */
	/* The commit (NULL: ""): the revision, whether the tree had changes, the branch. */
	const char *rev;
	int dirty;
	const char *branch;
	int64_t time_ns;		/* when, ns since the epoch; in: 0 is now */
	/* The summary: the value the series is made of, its interval (NaN, or in: both 0, not
	 * known). */
	double value;
	double lo, hi;
	/* Every run: its value (the unit of value) and its noise verdict (1: pbench judged it
	 * noisy, 0: clean, -1: not judged). In: n_runs values, run_noisy NULL for all -1. */
	size_t n_runs;
	const double *run_values;
	const int *run_noisy;
	const char *json;		/* the whole document it came from, kept byte for byte,
					 * once for all the records that give the same text
					 * (NULL: none) */
	/* The machine's fingerprint. In: a field left NULL is the machine's own (host and,
	 * with env, its findings; pbench_version() for the version). */
	const struct pbench_check *env;
	const char *cpu_model;
	const char *microcode;
	const char *kernel;
	const char *governor;
	const char *smt;
	const char *isolation;
	const char *virt;
	const char *pbench_version;
	/* Out only: the fingerprint's stable hash (16 hex digits) and the record's id. */
	const char *fingerprint;
	int64_t id;
	int64_t series_id;
};
/* Start from this, in and out (a struct with .size 0 is refused): every other field 0 or
 * NULL. */
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_HISTORY_RECORD_INIT \
	([] { struct pbench_history_record pbench_o_ = {}; pbench_o_.size = sizeof(pbench_o_); \
	      return pbench_o_; }())
#else
#define PBENCH_HISTORY_RECORD_INIT { .size = sizeof(struct pbench_history_record) }
#endif

/*
 * Append one record, in one transaction: either all of it is stored or nothing (a writer
 * killed meanwhile leaves no trace). The series (name, metric, fingerprint) is made when new.
 * Returns the record's id (> 0), or: -EINVAL (no name or metric, NaN value without runs,
 * runs without values; a name, metric or unit longer than PBENCH_HISTORY_NAME_MAX; a name,
 * metric, unit, rev or branch that is not UTF-8 or holds a control character), -EBUSY (locked past the timeout), -ENOSPC (a full disk), -EFBIG (the
 * file size limit, ulimit -f), -EIO, -PBENCH_ECORRUPT, -EROFS (opened read_only), -ENOMEM;
 * on PostgreSQL also -ECONNRESET and -ETIMEDOUT (pbench_history_open()).
 */
PBENCH_API int64_t pbench_history_add(struct pbench_history *h,
				      const struct pbench_history_record *rec);

/* One series: a name, a metric and a machine. Strings: the history's, valid until close. */
struct pbench_history_series {
	size_t size;
	int64_t id;
	const char *name;
	const char *metric;
	const char *fingerprint;	/* 16 hex digits */
	const char *cpu_model;
	const char *microcode;
	const char *kernel;
	const char *governor;
	const char *smt;
	const char *isolation;
	const char *virt;
	const char *pbench_version;
	size_t points;
	int64_t first_ns, last_ns;	/* its oldest and newest point's time */
};

/* The number of series (reads the store again), or a negative error. */
PBENCH_API int pbench_history_series_count(struct pbench_history *h);
/* Series i (< count, in order of name, metric, then first point) into out. Errors: -EINVAL
 * (out, or i out of range: call pbench_history_series_count() first). */
PBENCH_API int pbench_history_series_get(struct pbench_history *h, int i,
					 struct pbench_history_series *out);

/* Read the points of series series_id, oldest first (by time, then by id): their number, or
 * -ENOENT (no such series), a negative error. pbench_history_point_get() gives them one at a
 * time; this replaces the points read before. */
PBENCH_API int pbench_history_points(struct pbench_history *h, int64_t series_id);
/* Point i of those (< the count) into out (every field of the record it was added as).
 * Errors: -EINVAL. */
PBENCH_API int pbench_history_point_get(struct pbench_history *h, int i,
					struct pbench_history_record *out);

/* The options of pbench_history_changes() (stats/changepoint.c): a field left 0 takes its
 * default. */
struct pbench_history_changes_opts {
	size_t size;
	double p;			/* significance of a change, in (0, 0.5): the chance
					 * that a series with no change gets one; 0: 0.001 */
	double min_rel;			/* smallest |relative change| reported; 0: any */
	size_t window;			/* checked (>= 4 * min_segment, at most
					 * PBENCH_HISTORY_CHANGES_MAX_WINDOW) and unused since
					 * issue 37; 0: 50 */
	size_t min_segment;		/* points each side of a change, >= 2; 0: 3 */
};
/* Those defaults (a field left 0), and the most points per window. */
#define PBENCH_HISTORY_CHANGES_DEFAULT_P 0.001
#define PBENCH_HISTORY_CHANGES_DEFAULT_WINDOW 50
#define PBENCH_HISTORY_CHANGES_DEFAULT_MIN_SEGMENT 3
#define PBENCH_HISTORY_CHANGES_MAX_WINDOW 1000
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_HISTORY_CHANGES_OPTS_INIT \
	([] { struct pbench_history_changes_opts pbench_o_ = {}; \
	      pbench_o_.size = sizeof(pbench_o_); return pbench_o_; }())
#else
#define PBENCH_HISTORY_CHANGES_OPTS_INIT { .size = sizeof(struct pbench_history_changes_opts) }
#endif

/* One change point: the level moved between two commits. Strings: the history's, valid until
 * the next pbench_history_changes() or the close. */
struct pbench_history_change {
	size_t size;
	int index;			/* the first point of the new level, among the points of
					 * pbench_history_changes() (its name and metric) */
	int64_t id_before, id_after;	/* the records each side of the change */
	const char *rev_before;		/* the last commit of the old level */
	const char *rev_after;		/* the first commit of the new level */
	int64_t time_ns;		/* of the first point of the new level */
	double mean_before, mean_after;
	double rel;			/* the step: the Hodges-Lehmann shift of the levels'
					 * logs as a relative change; NaN when mean_before is
					 * not above 0 (no relative size: the means say it) */
	double rel_lo, rel_hi;		/* its Mann-Whitney interval at confidence 1 - p (NaN:
					 * not known) */
	double p;			/* of the permutation test that found it */
	int direction;			/* +1: up, -1: down */
};

/*
 * How far the same code's value moves between occasions on this machine: of the series named
 * name whose machine has this machine's fingerprint (its wall-clock time's metric, time_ns or
 * real_time_ns, before another), the points of a clean tree (not dirty) grouped by commit,
 * and of every commit with 2 points or more, each point's log level (the median of its runs
 * where it kept 3 or more, else its value) around its commit's mean:
 * sd is their pooled standard deviation (occasions - commits degrees of freedom). It includes
 * each point's own sampling error, so it is not less than the drift. A gate against a stored
 * baseline takes it as its allowance for another moment (pbench_contest_opts.occasion_sd).
 * Returns 0, or -ENOENT (no such series on this machine, or no commit with 2 clean points:
 * out->occasions and out->commits say what there was, sd NaN), -EINVAL, -ENOMEM.
 */
struct pbench_history_drift {
	size_t size;
	double sd;			/* of the log value between occasions of one commit */
	int occasions;			/* clean points of commits with 2 or more */
	int commits;			/* those commits */
	int64_t series_id;		/* the series read (0: none found) */
};
PBENCH_API int pbench_history_drift(struct pbench_history *h, const char *name,
				    struct pbench_history_drift *out);

/*
 * The change points of a series: binary segmentation with a permutation test of the largest
 * robust (Huber) CUSUM (a series with no change gets one with probability p, whatever its
 * length; one wild point neither hides a step nor makes one), over the points of every
 * series with series_id's name and metric, oldest first, where a change of the machine's
 * fingerprint starts a new segment (nothing is compared across it). Where every point has
 * runs, a point's value is their mean. Returns their number (read them with
 * pbench_history_change_get()), or -ENOENT, -EINVAL (an option out of range), -ENOMEM. The
 * points analyzed replace those of pbench_history_points(): point i of
 * pbench_history_point_get() is then the change's index's.
 * segments, when not NULL, gets the number of segments (fingerprint changes + 1).
 */
PBENCH_API int pbench_history_changes(struct pbench_history *h, int64_t series_id,
				      const struct pbench_history_changes_opts *opts,
				      int *segments);
/* Change point i (< count) into out. Errors: -EINVAL. */
PBENCH_API int pbench_history_change_get(struct pbench_history *h, int i,
					 struct pbench_history_change *out);

/*
 * The commit of the git tree at dir (NULL: the current directory), read through the child
 * API: `git rev-parse HEAD` into rev, `git rev-parse --abbrev-ref HEAD` into branch, and
 * `git status --porcelain` (any output: *dirty 1). Errors: -PBENCH_ENOT_FOUND (no git),
 * -ENOENT (not a git tree, or no commit yet), -ENAMETOOLONG (a buffer too small).
 */
PBENCH_API int pbench_history_git(const char *dir, char *rev, size_t rev_len, char *branch,
				  size_t branch_len, int *dirty);


/* ---- importing documents and recording measurements (history_import.c) -------------------- */

/* The options of pbench_history_import(): a field left 0 or NULL takes its default. */
struct pbench_history_import_opts {
	size_t size;
	/* The commit of every record (a CSV line's own commit wins): NULL, the git tree of the
	 * current directory (pbench_history_git(); none: ""). */
	const char *rev;
	const char *branch;
	int dirty;
	int64_t time_ns;		/* 0: the document's own date (pbench's host.date, Google
					 * Benchmark's context.date), else now */
	int cpu_time;			/* Google Benchmark: 1 the cpu_time, 0 the real_time */
	/* Set by the caller's signal handler (its number; NULL: never): the import under way
	 * ends with -EINTR, rolled back whole (checked between records and before the commit),
	 * and so does the read of a file a signal interrupts. */
	const volatile int *stop;
};
#ifdef __cplusplus	/* see PBENCH_MEASURE_OPTS_INIT */
#define PBENCH_HISTORY_IMPORT_OPTS_INIT \
	([] { struct pbench_history_import_opts pbench_o_ = {}; \
	      pbench_o_.size = sizeof(pbench_o_); return pbench_o_; }())
#else
#define PBENCH_HISTORY_IMPORT_OPTS_INIT { .size = sizeof(struct pbench_history_import_opts) }
#endif

/*
 * Store the document text (len bytes) under the name name, one record per series it holds,
 * all in one transaction: either every record is stored or none (a line or an entry that
 * cannot be read, a full disk, a lost server, a signal leave the store as it was):
 *  - pbench stat's JSON: one series, metric time_ns (NAME/mode for each mode of a contrast),
 *    every run's ns with its noise verdict (an outlier: noisy), the mean and its interval, the
 *    CPU model, kernel and version of the document's host block (the rest of the
 *    fingerprint, as for every format, this machine's);
 *  - pbench compare's JSON: one series per entrant, NAME/entrant, its times_ns;
 *  - hyperfine's JSON (--export-json): NAME (NAME/command for several commands), its times;
 *  - Google Benchmark's JSON (--benchmark_format=json): NAME/benchmark, its iterations'
 *    real_time (cpu_time with opts->cpu_time) in ns, metric real_time_ns (cpu_time_ns);
 *  - CSV, one record per line: "commit,time,value", "commit,value" or "value" (a header line
 *    and # comments are skipped; time as seconds since the epoch or ISO 8601), the metric of
 *    the series of that name when there is one (its unit ns when it ends in _ns), else value.
 * The document itself is kept once, shared by the records it made (a CSV line: none); a CSV
 * line without a commit takes opts->rev. Every value is read by pbench analyze's rule: a
 * number as pbench_format_parse() reads one (no hex, inf or nan), finite, not subnormal, a
 * time not negative; a JSON key twice, a time that is not a number, an empty array of
 * results or a NUL byte is refused; a date (host.date, context.date, a CSV time) is ISO 8601
 * within 1970-01-01 (after it) to 2262-04-11 (what int64 ns hold), month, day, hour, minute,
 * second and zone (+-18:00) in range, a CSV time in seconds too. Returns the number of
 * records added (> 0), or -EINVAL (not a document of these, one with nothing to add, or a
 * value refused, said in one line through pbench_strerror()), -EINTR (opts->stop was set: the
 * import is rolled back, as `pbench history add` does on a Ctrl-C), or an error of
 * pbench_history_add().
 */
PBENCH_API int pbench_history_import(struct pbench_history *h, const char *name,
				     const char *text, size_t len,
				     const struct pbench_history_import_opts *opts);
/* pbench_history_import() of the file at path ("-": stdin), read as pbench analyze reads a file
 * (pbench_samples_add_file()): -EINVAL for a directory, more than 64 MiB (/dev/zero), a FIFO
 * no program writes to within a second, a NUL byte. Errors: also -errno of the read. */
PBENCH_API int pbench_history_import_file(struct pbench_history *h, const char *name,
					  const char *path,
					  const struct pbench_history_import_opts *opts);
/*
 * Record a report: the JSON that write(arg, PBENCH_REPORT_FORMAT_JSON, f) writes (e.g. a
 * pbench_runs_write() of pbench stat's report) imported under name (pbench_history_import())
 * into the store at path, opened for this and closed (NULL: as pbench_history_open()). A
 * writer that fails records nothing and the store is not opened. Returns the number of
 * records added (> 0), or the writer's error (a positive one: -EIO), or an error of
 * pbench_history_open() or pbench_history_import().
 */
PBENCH_API int pbench_history_import_writer(const char *path, const char *name,
					    int (*write)(void *arg, int fmt, FILE *f), void *arg,
					    const struct pbench_history_import_opts *opts);

/* ---- the reports of a series, the gate and the export (history_report.c, history_plot.c) -- */

/* The series, one line each: name, metric, points, machine, newest point. Errors: those of
 * pbench_history_series_count(), a write's. */
PBENCH_API int pbench_history_write_list(struct pbench_history *h, FILE *f);
/*
 * The series named name (every machine's points of its first metric, oldest first): each
 * point with its commit, value, interval and noise (the share of its runs pbench judged
 * noisy: a point is noisy when a fifth or more are), the change points (opts as for
 * pbench_history_changes(), NULL the defaults) and each new segment where the machine's
 * fingerprint changed, as text, JSON (schema/history.schema.json), Markdown (a pull-request
 * comment), CSV (a line per point), or an SVG plot. Errors: -ENOENT (no series of that name),
 * those of pbench_history_changes(), a write's (-ENOSPC, -EIO).
 */
PBENCH_API int pbench_history_write_text(struct pbench_history *h, const char *name,
					 const struct pbench_history_changes_opts *opts, FILE *f);
PBENCH_API int pbench_history_write_json(struct pbench_history *h, const char *name,
					 const struct pbench_history_changes_opts *opts, FILE *f);
PBENCH_API int pbench_history_write_markdown(struct pbench_history *h, const char *name,
					     const struct pbench_history_changes_opts *opts,
					     FILE *f);
PBENCH_API int pbench_history_write_csv(struct pbench_history *h, const char *name,
					const struct pbench_history_changes_opts *opts, FILE *f);
PBENCH_API int pbench_history_plot_svg(struct pbench_history *h, const char *name,
				       const struct pbench_history_changes_opts *opts, FILE *f);
/* Series name in format fmt (enum pbench_report_format): the writer of that name. Its
 * errors, or -EINVAL for another fmt. */
PBENCH_API int pbench_history_write(struct pbench_history *h, const char *name,
				    const struct pbench_history_changes_opts *opts, int fmt,
				    FILE *f);

/* The gate's defaults: a regression is a change slower by more than 5% that starts among
 * the newest 10 points. */
#define PBENCH_HISTORY_THRESHOLD_PCT 5.0
#define PBENCH_HISTORY_GATE_LAST 10

/* The gate's verdict on a series (pbench_history_check()). Strings: the history's, valid
 * until the next pbench_history_check(), pbench_history_changes() or the close. */
struct pbench_history_verdict {
	size_t size;
	int regression;			/* 1: the newest points start a significant change slower
					 * by more than the threshold */
	int found;			/* 1: a change starts among the newest points (slower or
					 * not, above the threshold or not): the fields below */
	double rel, rel_lo, rel_hi;	/* its relative change and interval (NaN: none) */
	double p;
	const char *rev_before, *rev_after;	/* the commit range it lies in */
	int points_after;		/* points of the new level */
	int noisy_after;		/* of them, those pbench judged noisy */
	int segments;			/* fingerprints' stretches; only the newest is judged */
	const char *line;		/* the verdict in one line */
};

/*
 * The gate: whether the newest points of series name start a change that is significant
 * (opts->p) and slower (higher) by more than threshold_pct percent, a change starting among
 * the newest last points (0: PBENCH_HISTORY_GATE_LAST) of the newest machine's segment
 * (threshold_pct 0: PBENCH_HISTORY_THRESHOLD_PCT). A rise from a level not above 0 has no
 * relative size (rel NaN): it is a regression whatever the threshold, its line says why. A regression of points pbench judged
 * noisy says so in its line. Errors: -ENOENT, -EINVAL, those of pbench_history_changes().
 */
PBENCH_API int pbench_history_check(struct pbench_history *h, const char *name,
				    const struct pbench_history_changes_opts *opts,
				    double threshold_pct, int last,
				    struct pbench_history_verdict *out);

/* The newest point of every series in the OpenMetrics text format (1.0.0): gauges
 * pbench_history_seconds (a metric in ns, in seconds) and pbench_history_value (any other),
 * labelled by series, metric, machine and commit, with the point's time, and # EOF. */
PBENCH_API int pbench_history_write_openmetrics(struct pbench_history *h, FILE *f);

#ifdef __cplusplus
}
#endif
#endif /* PBENCH_H_HISTORY */
