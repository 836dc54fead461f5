// The archive codec's C side is zstd itself; this file only gives SwiftPM a C target to build.
#include "CZstd.h"
