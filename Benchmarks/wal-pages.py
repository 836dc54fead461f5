#!/usr/bin/env python3
"""Which tables and indexes a stream of commits wrote: the frames of a store's WAL, by page.

usage: wal-pages.py STORE-WAL STORE NOTIFICATIONS

STORE-WAL is a write-ahead log kept whole (no checkpoint ran while it was written) and STORE a
copy of the store with that WAL beside it, whose pages `dbstat` names (open it with the copied
WAL as STORE-wal: SQLite folds it in on open). NOTIFICATIONS is how many notifications the commits
stored. Prints the frames a notification and a commit cost, by structure, split into the facts
a notification writes (its document, notification, transaction, renewal facts, pending mark,
customer) and what its derivation writes; then what they would cost had K commits been one (the
pages several commits share are written once). docs/performance.md, "What bounds the listener,
measured again", has a run and how its WAL was kept.
"""
import collections
import sqlite3
import struct
import sys

FACTS = {"document", "notification", "transaction", "renewalFact", "pendingSubscription",
         "unverifiedDocument", "customer", "sqlite_schema"}


def kind(name):
    if name.startswith("sqlite_autoindex_"):
        name = name[len("sqlite_autoindex_"):].rsplit("_", 1)[0]
    return "facts" if name.split("_")[0] in FACTS else "derivation"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    wal, store, notifications = sys.argv[1], sys.argv[2], int(sys.argv[3])
    names = dict(sqlite3.connect(store).execute("SELECT pageno, name FROM dbstat"))
    commits, current = [], []
    with open(wal, "rb") as f:
        page_size = struct.unpack(">III", f.read(32)[:12])[2]
        while len(header := f.read(24)) == 24:
            page, commit_size = struct.unpack(">II", header[:8])
            f.seek(page_size, 1)
            current.append(page)
            if commit_size:
                commits.append(current)
                current = []
    frames = sum(len(c) for c in commits)
    sizes = sorted(len(c) for c in commits)
    print(f"page size {page_size}, {frames} frames in {len(commits)} commits: "
          f"{frames / notifications:.1f} a notification "
          f"({frames * (page_size + 24) / notifications / 1024:.1f} KiB), "
          f"{frames / len(commits):.1f} a commit (p50 {sizes[len(sizes) // 2]}, p90 {sizes[len(sizes) * 9 // 10]})")
    by_name = collections.Counter(names.get(p, "(freed since)") for c in commits for p in c)
    print("\n| structure | frames a notification | share |\n|---|---|---|")
    for name, count in by_name.most_common(25):
        print(f"| {name} | {count / notifications:.2f} | {100 * count / frames:.1f}% |")
    print("\n| commits as one | frames a notification | facts | derivation |\n|---|---|---|---|")
    for k in (1, 2, 4, 8, 16, 32):
        kinds = collections.Counter()
        for i in range(0, len(commits), k):
            for page in set().union(*commits[i:i + k]):
                kinds[kind(names.get(page, ""))] += 1
        total = kinds["facts"] + kinds["derivation"]
        print(f"| {k} | {total / notifications:.2f} | {kinds['facts'] / notifications:.2f} "
              f"| {kinds['derivation'] / notifications:.2f} |")


if __name__ == "__main__":
    main()
