// An LD_PRELOAD library for subdash (which links the system libsqlite3): adds up SQLite's
// virtual-machine steps, full-scan steps and sorts over every statement the process runs and
// prints them to stderr at exit, as "VMSTEPS total N fullscan N sorts N statements N". With
// VMSTEPS_DETAIL set, every statement above 1,000 steps is printed too, with its values.
// Steps do not depend on the machine's load or the build (debug or release): they show which
// reads grow with the store. Build: cc -shared -fPIC -O2 -o vmsteps.so vmsteps.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>

static long long steps, fullscan, sorts, statements;
static int detail = -1;

// The counters of `s` since its last reset, added to the totals and zeroed.
static void account(sqlite3_stmt *s) {
    if (!s) return;
    int v = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
    int f = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);
    sorts += sqlite3_stmt_status(s, SQLITE_STMTSTATUS_SORT, 1);
    steps += v;
    fullscan += f;
    if (v) statements++;
    if (detail < 0) detail = getenv("VMSTEPS_DETAIL") != NULL;
    if (detail && v > 1000) {
        char *sql = sqlite3_expanded_sql(s);
        fprintf(stderr, "VMSTEP %d fullscan %d: %s\n", v, f, sql ? sql : "");
        sqlite3_free(sql);
    }
}

int sqlite3_reset(sqlite3_stmt *s) {
    static int (*real)(sqlite3_stmt *);
    if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_reset");
    account(s);
    return real(s);
}

int sqlite3_finalize(sqlite3_stmt *s) {
    static int (*real)(sqlite3_stmt *);
    if (!real) real = (int (*)(sqlite3_stmt *))dlsym(RTLD_NEXT, "sqlite3_finalize");
    account(s);
    return real(s);
}

__attribute__((destructor)) static void report(void) {
    fprintf(stderr, "VMSTEPS total %lld fullscan %lld sorts %lld statements %lld\n", steps, fullscan, sorts, statements);
}
