#include "CNcursesW.h"
