#!/usr/bin/env python3
"""The importer a user would write instead of `subdash import`, as a speed baseline.

Loads App Store server notifications v1 (NDJSON, plain or .gz) into a SQLite file with orjson and
the sqlite3 module, in one transaction: each line into `raw_document` (its SHA-256 and bytes) and
each transaction of its receipt into `period` (the last copy of a transaction wins). It verifies,
derives and compresses nothing, so subdash matching its time is a fair bar.

Usage: load_periods.py STORE.sqlite FILE_OR_DIRECTORY...
Prints one line: `documents=… periods=… seconds=…`.
"""
import gzip
import hashlib
import os
import sqlite3
import sys
import time

import orjson

SCHEMA = """
CREATE TABLE IF NOT EXISTS raw_document (sha256 TEXT PRIMARY KEY, body BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS period (
    transaction_id TEXT PRIMARY KEY,
    subscription TEXT NOT NULL,
    product TEXT,
    start_ms INTEGER NOT NULL,
    end_ms INTEGER,
    trial INTEGER NOT NULL,
    intro INTEGER NOT NULL,
    cancelled_ms INTEGER,
    upgraded INTEGER NOT NULL
);
"""

FLUSH_ROWS = 4096


def input_files(arguments):
    for argument in arguments:
        if os.path.isdir(argument):
            for root, directories, names in os.walk(argument):
                directories.sort()
                for name in sorted(names):
                    if name.endswith((".ndjson", ".ndjson.gz")):
                        yield os.path.join(root, name)
        else:
            yield argument


def lines(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as handle:
        for line in handle:
            line = line.strip()
            if line:
                yield line


def milliseconds(value):
    return int(value) if value not in (None, "") else None


def period_row(item):
    return (
        item["transaction_id"],
        item["original_transaction_id"],
        item.get("product_id"),
        int(item["purchase_date_ms"]),
        milliseconds(item.get("expires_date_ms")),
        item.get("is_trial_period") == "true",
        item.get("is_in_intro_offer_period") == "true",
        milliseconds(item.get("cancellation_date_ms")),
        item.get("is_upgraded") == "true",
    )


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    started = time.perf_counter()
    connection = sqlite3.connect(sys.argv[1])
    connection.execute("PRAGMA journal_mode = WAL")
    connection.executescript(SCHEMA)
    documents = periods = 0
    raw, rows = [], []

    def flush():
        nonlocal periods
        connection.executemany("INSERT OR IGNORE INTO raw_document VALUES (?, ?)", raw)
        connection.executemany("INSERT OR REPLACE INTO period VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)
        periods += len(rows)
        raw.clear()
        rows.clear()

    with connection:
        for path in input_files(sys.argv[2:]):
            for line in lines(path):
                document = orjson.loads(line)
                documents += 1
                raw.append((hashlib.sha256(line).hexdigest(), line))
                receipt = document.get("unified_receipt") or {}
                rows.extend(period_row(item) for item in receipt.get("latest_receipt_info") or [])
                if len(rows) >= FLUSH_ROWS:
                    flush()
        flush()
    connection.execute("CREATE INDEX IF NOT EXISTS period_subscription ON period(subscription, start_ms)")
    connection.close()
    print(f"documents={documents} periods={periods} seconds={time.perf_counter() - started:.3f}")


if __name__ == "__main__":
    main()
