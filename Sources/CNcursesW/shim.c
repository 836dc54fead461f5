#include "CNcursesW.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int cnc_setcchar(cchar_t *cell, const unsigned int *codepoints, int count, attr_t attrs, int pair) {
    wchar_t text[CCHARW_MAX + 1];
    int n = count < CCHARW_MAX ? count : CCHARW_MAX - 1;
    if (n < 1) { text[0] = L' '; n = 1; } else { for (int i = 0; i < n; i++) text[i] = (wchar_t)codepoints[i]; }
    text[n] = L'\0';
    int extended = pair;
    return setcchar(cell, text, attrs, (short)(pair > 0x7fff ? 0 : pair), &extended);
}

static volatile sig_atomic_t cnc_active = 0;
static int cnc_handlers_installed = 0;

int cnc_start(void) {
    SCREEN *screen = newterm(NULL, stdout, stdin);
    if (screen == NULL) return 0;
    set_term(screen);
    return 1;
}

void cnc_mark_active(void) { cnc_active = 1; }

void cnc_shutdown(void) {
    if (!cnc_active) return;
    cnc_active = 0;
    curs_set(1);
    endwin();
}

static void cnc_on_signal(int sig) {
    cnc_shutdown();
    signal(sig, SIG_DFL);
    raise(sig);
}

void cnc_install_exit_handlers(void) {
    if (cnc_handlers_installed) return;
    cnc_handlers_installed = 1;
    atexit(cnc_shutdown);
    const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV };
    for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++) {
        struct sigaction action;
        memset(&action, 0, sizeof action);
        action.sa_handler = cnc_on_signal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESETHAND;
        sigaction(signals[i], &action, NULL);
    }
}
