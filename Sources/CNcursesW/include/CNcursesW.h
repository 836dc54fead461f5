#ifndef CNCURSESW_H
#define CNCURSESW_H
#include <ncursesw/curses.h>
#endif
