#ifndef CNCURSESW_H
#define CNCURSESW_H

// Wide-character ncurses for Swift. The defines come from Package.swift's cSettings too, but
// SwiftPM does not pass them to Swift's importer, so the header sets them itself.
#ifndef _XOPEN_SOURCE_EXTENDED
#define _XOPEN_SOURCE_EXTENDED 1
#endif
#ifndef NCURSES_WIDECHAR
#define NCURSES_WIDECHAR 1
#endif

#include <locale.h>
#include <wchar.h>
#include <ncursesw/curses.h>

// Globals Swift 6 refuses (shared mutable state) and macros it cannot import.

static inline WINDOW *cnc_stdscr(void) { return stdscr; }
static inline int cnc_lines(void) { return LINES; }
static inline int cnc_cols(void) { return COLS; }
static inline int cnc_colors(void) { return COLORS; }
static inline int cnc_color_pairs(void) { return COLOR_PAIRS; }

static inline int cnc_getmaxx(WINDOW *win) { return getmaxx(win); }
static inline int cnc_getmaxy(WINDOW *win) { return getmaxy(win); }

static inline attr_t cnc_a_normal(void) { return A_NORMAL; }
static inline attr_t cnc_a_bold(void) { return A_BOLD; }
static inline attr_t cnc_a_dim(void) { return A_DIM; }
static inline attr_t cnc_a_italic(void) { return A_ITALIC; }
static inline attr_t cnc_a_underline(void) { return A_UNDERLINE; }
static inline attr_t cnc_a_reverse(void) { return A_REVERSE; }

static inline int cnc_key_code_yes(void) { return KEY_CODE_YES; }
static inline int cnc_key_resize(void) { return KEY_RESIZE; }
static inline int cnc_key_f0(void) { return KEY_F0; }
static inline int cnc_key_f(int n) { return KEY_F(n); }

/// Reads one key: returns OK (a character in *ch), KEY_CODE_YES (a KEY_* code) or ERR.
static inline int cnc_get_wch(WINDOW *win, unsigned int *ch) {
    wint_t value = 0;
    int status = wget_wch(win, &value);
    *ch = (unsigned int)value;
    return status;
}

/// Fills a cchar_t from up to CCHARW_MAX - 1 code points, with attributes and an
/// extended colour pair (pairs above 32767 need the opts argument).
int cnc_setcchar(cchar_t *cell, const unsigned int *codepoints, int count, attr_t attrs, int pair);

/// The size of a cchar_t, so Swift can allocate arrays of them.
static inline int cnc_cchar_size(void) { return (int)sizeof(cchar_t); }

/// Draws `count` cells from (y, x) with mvwadd_wchnstr.
static inline int cnc_add_cells(WINDOW *win, int y, int x, const cchar_t *cells, int count) {
    return mvwadd_wchnstr(win, y, x, cells, count);
}

/// Starts curses on stdin/stdout like initscr, but returns 0 instead of exiting when the
/// terminal cannot be used (unknown TERM, not a tty); returns 1 on success.
int cnc_start(void);

/// Restores the terminal once: endwin() unless already done. Safe to call from atexit and
/// from the signal handlers installed by cnc_install_exit_handlers.
void cnc_shutdown(void);

/// Marks curses as running (after initscr) so cnc_shutdown has work to do.
void cnc_mark_active(void);

/// Registers cnc_shutdown with atexit and installs handlers for SIGINT, SIGTERM, SIGHUP,
/// SIGQUIT and SIGSEGV that restore the terminal and then re-raise the signal.
void cnc_install_exit_handlers(void);

#endif
