#include "runtime/nccl/element_codec.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstring>

namespace topotune::rt {
namespace {

template <class T, class ToT>
void encode_as(std::span<const float> values, std::byte* out, ToT to) {
  for (std::size_t i = 0; i < values.size(); ++i) {
    const T e = to(values[i]);
    std::memcpy(out + i * sizeof(T), &e, sizeof(T));
  }
}

template <class T, class FromT>
void decode_as(std::span<const std::byte> bytes, float* out, FromT from) {
  for (std::size_t i = 0; i < bytes.size() / sizeof(T); ++i) {
    T e;
    std::memcpy(&e, bytes.data() + i * sizeof(T), sizeof(T));
    out[i] = from(e);
  }
}

}  // namespace

std::vector<std::byte> encode_elements(std::span<const float> values, sched::DataType dtype) {
  std::vector<std::byte> out(values.size() * static_cast<std::size_t>(sched::dtype_size(dtype)));
  switch (dtype) {
    case sched::DataType::F32:
      if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
      break;
    case sched::DataType::F16:
      encode_as<__half>(values, out.data(), [](float v) { return __float2half_rn(v); });
      break;
    case sched::DataType::BF16:
      encode_as<__nv_bfloat16>(values, out.data(), [](float v) { return __float2bfloat16_rn(v); });
      break;
  }
  return out;
}

std::vector<float> decode_elements(std::span<const std::byte> bytes, sched::DataType dtype) {
  std::vector<float> out(bytes.size() / static_cast<std::size_t>(sched::dtype_size(dtype)));
  switch (dtype) {
    case sched::DataType::F32:
      if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(float));
      break;
    case sched::DataType::F16:
      decode_as<__half>(bytes, out.data(), [](__half e) { return __half2float(e); });
      break;
    case sched::DataType::BF16:
      decode_as<__nv_bfloat16>(bytes, out.data(),
                               [](__nv_bfloat16 e) { return __bfloat162float(e); });
      break;
  }
  return out;
}

float add_rounded(float a, float b, sched::DataType dtype) {
  const float sum = a + b;
  switch (dtype) {
    case sched::DataType::F32:
      return sum;
    case sched::DataType::F16:
      return __half2float(__float2half_rn(sum));
    case sched::DataType::BF16:
      return __bfloat162float(__float2bfloat16_rn(sum));
  }
  return sum;
}

}  // namespace topotune::rt
