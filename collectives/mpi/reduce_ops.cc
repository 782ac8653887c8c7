#include "mpi/reduce_ops.h"

#include <cstdint>
#include <mutex>

#include "elastic/collectives/half.h"

namespace elastic::coll::mpi {
namespace {

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void sum16(void* in, void* inout, int* len, MPI_Datatype* /*type*/) {
  const auto* a = static_cast<const std::uint16_t*>(in);
  auto* b = static_cast<std::uint16_t*>(inout);
  for (int i = 0; i < *len; ++i) b[i] = FromFloat(ToFloat(a[i]) + ToFloat(b[i]));
}

struct Ops {
  MPI_Op bf16 = MPI_OP_NULL;
  MPI_Op fp16 = MPI_OP_NULL;
};

const Ops& ops() {
  static Ops o;
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Op_create(&sum16<bf16_to_float, float_to_bf16>, 1, &o.bf16);
    MPI_Op_create(&sum16<fp16_to_float, float_to_fp16>, 1, &o.fp16);
  });
  return o;
}

template <typename T>
void divide(T* p, std::size_t n, T d) {
  for (std::size_t i = 0; i < n; ++i) p[i] /= d;
}

template <float (*ToFloat)(std::uint16_t), std::uint16_t (*FromFloat)(float)>
void divide16(std::uint16_t* p, std::size_t n, float d) {
  for (std::size_t i = 0; i < n; ++i) p[i] = FromFloat(ToFloat(p[i]) / d);
}

}  // namespace

MPI_Datatype datatype(DataType t) {
  switch (t) {
    case DataType::kFloat32: return MPI_FLOAT;
    case DataType::kFloat64: return MPI_DOUBLE;
    case DataType::kBFloat16:
    case DataType::kFloat16: return MPI_UINT16_T;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op sum_op(DataType t) {
  switch (t) {
    case DataType::kFloat32:
    case DataType::kFloat64: return MPI_SUM;
    case DataType::kBFloat16: return ops().bf16;
    case DataType::kFloat16: return ops().fp16;
  }
  return MPI_OP_NULL;
}

void scale_down(void* data, std::size_t count, DataType t, int divisor) {
  switch (t) {
    case DataType::kFloat32:
      divide(static_cast<float*>(data), count, static_cast<float>(divisor));
      break;
    case DataType::kFloat64:
      divide(static_cast<double*>(data), count, static_cast<double>(divisor));
      break;
    case DataType::kBFloat16:
      divide16<bf16_to_float, float_to_bf16>(static_cast<std::uint16_t*>(data), count,
                                             static_cast<float>(divisor));
      break;
    case DataType::kFloat16:
      divide16<fp16_to_float, float_to_fp16>(static_cast<std::uint16_t*>(data), count,
                                             static_cast<float>(divisor));
      break;
  }
}

}  // namespace elastic::coll::mpi
