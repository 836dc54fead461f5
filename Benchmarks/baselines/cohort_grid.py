#!/usr/bin/env python3
"""The query an analyst would run instead of `subdash report cohorts`, as a speed baseline.

Copies the `period` table that load_periods.py wrote into an in-memory DuckDB (not timed), then
times a cohort grid (best of three): periods of a subscription chained into runs where each starts
within a day of the previous one's end; a run's cohort is the month of its first paid period
(trials and refunded periods are not paid; a refunded period cut by an upgrade is, but does not
count towards retention); the grid gives, for each cohort and k = 1…12, how many runs went on to
at least k + 1 counted paid periods. Its rules are simpler than docs/metrics.md: it is a speed
baseline, not a second implementation.

Usage: cohort_grid.py STORE.sqlite
Prints one line: `periods=… cohorts=… seconds=…`.
"""
import csv
import os
import sqlite3
import sys
import tempfile
import time

import duckdb

GRID = """
WITH ordered AS (
    SELECT subscription, start_ms,
           CASE WHEN cancelled_ms IS NOT NULL AND cancelled_ms < end_ms THEN cancelled_ms ELSE end_ms END AS stop_ms,
           NOT trial AND (cancelled_ms IS NULL OR upgraded) AS paid,
           upgraded
    FROM period
),
chained AS (
    SELECT *, start_ms - lag(stop_ms) OVER (PARTITION BY subscription ORDER BY start_ms) AS gap_ms
    FROM ordered
),
numbered AS (
    SELECT *, count(*) FILTER (WHERE gap_ms IS NULL OR gap_ms > 86400000)
              OVER (PARTITION BY subscription ORDER BY start_ms ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) AS run
    FROM chained
),
runs AS (
    SELECT subscription, run,
           min(start_ms) FILTER (WHERE paid) AS first_paid_ms,
           count(*) FILTER (WHERE paid AND NOT upgraded) AS counted
    FROM numbered GROUP BY subscription, run
),
cells AS (
    SELECT strftime(make_timestamp(first_paid_ms * 1000), '%Y-%m') AS cohort, k,
           count(*) AS started, count(*) FILTER (WHERE counted > k) AS kept
    FROM runs, range(1, 13) AS ks(k)
    WHERE first_paid_ms IS NOT NULL
    GROUP BY cohort, k
)
SELECT cohort, max(started) AS started, list(kept ORDER BY k) AS retained
FROM cells GROUP BY cohort ORDER BY cohort
"""


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    source = sqlite3.connect(sys.argv[1])
    duck = duckdb.connect()
    with tempfile.TemporaryDirectory() as directory:
        # DuckDB reads a CSV fastest without pandas or pyarrow; the copy is not timed.
        copy = os.path.join(directory, "period.csv")
        with open(copy, "w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["subscription", "start_ms", "end_ms", "trial", "cancelled_ms", "upgraded"])
            writer.writerows(source.execute(
                "SELECT subscription, start_ms, end_ms, trial, cancelled_ms, upgraded FROM period"))
        duck.execute(f"""CREATE TABLE period AS SELECT * FROM read_csv('{copy}', header = true, columns = {{
            'subscription': 'VARCHAR', 'start_ms': 'BIGINT', 'end_ms': 'BIGINT', 'trial': 'BOOLEAN',
            'cancelled_ms': 'BIGINT', 'upgraded': 'BOOLEAN'}})""")
    periods = duck.execute("SELECT count(*) FROM period").fetchone()[0]
    best = float("inf")
    grid = []
    for _ in range(3):
        started = time.perf_counter()
        grid = duck.execute(GRID).fetchall()
        best = min(best, time.perf_counter() - started)
    print(f"periods={periods} cohorts={len(grid)} seconds={best:.3f}")


if __name__ == "__main__":
    main()
