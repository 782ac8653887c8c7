// The gzip-aware line reader lives in the public header (the replay reuses it for SWF logs and
// node-state CSVs); this forwarding header keeps `#include "gz_line_reader.h"` working in src/.
#pragma once

#include "elastic/allocator/gz_line_reader.h"
