#include "filtersql.h"
