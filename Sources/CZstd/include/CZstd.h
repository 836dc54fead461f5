#ifndef CZSTD_H
#define CZSTD_H
#include <zstd.h>
#endif
