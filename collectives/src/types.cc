#include "elastic/collectives/types.h"

namespace elastic::coll {

std::string_view dtype_name(DataType t) {
  switch (t) {
    case DataType::kFloat32:
      return "float32";
    case DataType::kFloat64:
      return "float64";
    case DataType::kBFloat16:
      return "bfloat16";
    case DataType::kFloat16:
      return "float16";
  }
  return "unknown";
}

}  // namespace elastic::coll
