#include "runtime/mpi_transport.h"

#include <climits>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/schedule/collective_spec.h"
#include "runtime/host_reducer.h"

namespace topotune::rt {

Error mpi_error(int code, const char* call) {
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) {
    return Error(Errc::Transport, std::string(call) + ": MPI error " + std::to_string(code));
  }
  return Error(Errc::Transport,
               std::string(call) + ": " + std::string(text, static_cast<std::size_t>(len)));
}

namespace {

// MPI user-defined sums for the 16-bit float types (Open MPI 4.1 has no fp16/bf16 reduction).
void sum_f16(void* in, void* inout, int* len, MPI_Datatype*) {
  HostReducer r;
  const auto bytes = static_cast<std::size_t>(*len) * 2;
  (void)r.sum(BufferView{static_cast<std::byte*>(inout), bytes},
              ConstBufferView(static_cast<const std::byte*>(in), bytes), sched::DataType::F16);
}
void sum_bf16(void* in, void* inout, int* len, MPI_Datatype*) {
  HostReducer r;
  const auto bytes = static_cast<std::size_t>(*len) * 2;
  (void)r.sum(BufferView{static_cast<std::byte*>(inout), bytes},
              ConstBufferView(static_cast<const std::byte*>(in), bytes), sched::DataType::BF16);
}

Expected<int> checked_count(std::size_t bytes) {
  if (bytes > static_cast<std::size_t>(INT_MAX)) {
    return fail(Errc::Unsupported, "message of " + std::to_string(bytes) +
                                       " bytes exceeds the MPI transport's INT_MAX limit");
  }
  return static_cast<int>(bytes);
}

}  // namespace

Expected<MpiSession> MpiSession::start(int* argc, char*** argv) {
  int initialized = 0;
  TT_MPI(MPI_Initialized(&initialized));
  MpiSession s;
  if (!initialized) {
    int provided = 0;
    TT_MPI(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided));
    s.active_ = true;
  }
  return s;
}

MpiSession::~MpiSession() {
  if (active_) MPI_Finalize();
}

int MpiSession::rank() const {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int MpiSession::size() const {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

std::string MpiSession::processor_name() const {
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  return std::string(name, static_cast<std::size_t>(len));
}

Expected<MpiTransport> MpiTransport::create() {
  MpiTransport t;
  TT_MPI(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  TT_MPI(MPI_Comm_dup(MPI_COMM_WORLD, &t.comm_));
  TT_MPI(MPI_Comm_set_errhandler(t.comm_, MPI_ERRORS_RETURN));
  TT_MPI(MPI_Comm_rank(t.comm_, &t.rank_));
  TT_MPI(MPI_Comm_size(t.comm_, &t.size_));
  int* tag_ub = nullptr;
  int flag = 0;
  TT_MPI(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  if (flag && tag_ub) t.max_tag_ = *tag_ub;
  return t;
}

MpiTransport::MpiTransport(MpiTransport&& o) noexcept
    : comm_(o.comm_),
      rank_(o.rank_),
      size_(o.size_),
      max_tag_(o.max_tag_),
      requests_(std::move(o.requests_)),
      free_(std::move(o.free_)),
      f16_op_(o.f16_op_),
      bf16_op_(o.bf16_op_) {
  o.comm_ = MPI_COMM_NULL;
  o.f16_op_ = MPI_OP_NULL;
  o.bf16_op_ = MPI_OP_NULL;
}

MpiTransport::~MpiTransport() {
  if (f16_op_ != MPI_OP_NULL) MPI_Op_free(&f16_op_);
  if (bf16_op_ != MPI_OP_NULL) MPI_Op_free(&bf16_op_);
  if (comm_ != MPI_COMM_NULL) MPI_Comm_free(&comm_);
}

Request MpiTransport::store(MPI_Request request) {
  if (!free_.empty()) {
    const std::int64_t h = free_.back();
    free_.pop_back();
    requests_[static_cast<std::size_t>(h)] = request;
    return Request{h};
  }
  requests_.push_back(request);
  return Request{static_cast<std::int64_t>(requests_.size() - 1)};
}

void MpiTransport::release(Request& request) {
  free_.push_back(request.handle);
  request.handle = -1;
}

Expected<Request> MpiTransport::isend(RankId to, ConstBufferView data, Tag tag) {
  TT_TRY(int count, checked_count(data.size));
  MPI_Request r = MPI_REQUEST_NULL;
  // MPI 3 takes a const buffer for sends.
  TT_MPI(MPI_Isend(data.data, count, MPI_BYTE, to.value, tag, comm_, &r));
  return store(r);
}

Expected<Request> MpiTransport::irecv(RankId from, BufferView data, Tag tag) {
  TT_TRY(int count, checked_count(data.size));
  MPI_Request r = MPI_REQUEST_NULL;
  TT_MPI(MPI_Irecv(data.data, count, MPI_BYTE, from.value, tag, comm_, &r));
  return store(r);
}

Expected<bool> MpiTransport::test(Request& request) {
  MPI_Request& r = requests_[static_cast<std::size_t>(request.handle)];
  int flag = 0;
  const int rc = MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  if (rc != MPI_SUCCESS) {
    release(request);
    return Unexpected(mpi_error(rc, "MPI_Test"));
  }
  if (!flag) return false;
  release(request);
  return true;
}

Expected<void> MpiTransport::wait_all(std::span<Request> requests) {
  std::vector<MPI_Request> reqs;
  for (const Request& q : requests) {
    if (q.valid()) reqs.push_back(requests_[static_cast<std::size_t>(q.handle)]);
  }
  const int rc = MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
  for (Request& q : requests) {
    if (q.valid()) release(q);
  }
  if (rc != MPI_SUCCESS) return Unexpected(mpi_error(rc, "MPI_Waitall"));
  return {};
}

Expected<void> MpiTransport::barrier() {
  TT_MPI(MPI_Barrier(comm_));
  return {};
}

Expected<std::pair<MPI_Datatype, MPI_Op>> MpiTransport::sum_of(sched::DataType dtype) {
  if (dtype == sched::DataType::F32) return std::make_pair(MPI_FLOAT, MPI_SUM);
  MPI_Op& user = dtype == sched::DataType::F16 ? f16_op_ : bf16_op_;
  if (user == MPI_OP_NULL) {
    TT_MPI(MPI_Op_create(dtype == sched::DataType::F16 ? sum_f16 : sum_bf16, 1, &user));
  }
  return std::make_pair(MPI_UINT16_T, user);
}

Expected<void> MpiTransport::allreduce(BufferView data, sched::DataType dtype) {
  TT_TRY(const auto sum, sum_of(dtype));
  const auto [type, op] = sum;
  TT_TRY(int bytes, checked_count(data.size));
  const int count = bytes / sched::dtype_size(dtype);
  TT_MPI(MPI_Allreduce(MPI_IN_PLACE, data.data, count, type, op, comm_));
  return {};
}

namespace {

/// Each rank's block of a `bytes` buffer of `dtype`, as counts and displacements in `unit`
/// bytes (the element for reductions, 1 for copies), within MPI's int limit.
Expected<void> block_counts(std::size_t bytes, sched::DataType dtype, int ranks, int unit,
                            std::vector<int>& counts, std::vector<int>& displs) {
  TT_TRY_VOID(checked_count(bytes));  // every block is smaller than the whole
  counts.resize(static_cast<std::size_t>(ranks));
  displs.resize(static_cast<std::size_t>(ranks));
  const sched::Slice whole{Bytes(0), Bytes(static_cast<std::int64_t>(bytes))};
  for (int r = 0; r < ranks; ++r) {
    const sched::Slice b = sched::block(whole, sched::dtype_size(dtype), r, ranks);
    counts[static_cast<std::size_t>(r)] = static_cast<int>(b.size.value / unit);
    displs[static_cast<std::size_t>(r)] = static_cast<int>(b.offset.value / unit);
  }
  return {};
}

}  // namespace

Expected<void> MpiTransport::reduce_scatter(BufferView data, sched::DataType dtype) {
  TT_TRY(const auto sum, sum_of(dtype));
  const auto [type, op] = sum;
  const int esize = sched::dtype_size(dtype);
  std::vector<int> counts, displs;
  TT_TRY_VOID(block_counts(data.size, dtype, size_, esize, counts, displs));
  TT_MPI(MPI_Reduce_scatter(MPI_IN_PLACE, data.data, counts.data(), type, op, comm_));
  const auto me = static_cast<std::size_t>(rank_);
  std::memmove(data.data + static_cast<std::size_t>(displs[me]) * esize, data.data,
               static_cast<std::size_t>(counts[me]) * esize);
  return {};
}

Expected<void> MpiTransport::allgather(BufferView data, sched::DataType dtype) {
  std::vector<int> counts, displs;
  TT_TRY_VOID(block_counts(data.size, dtype, size_, 1, counts, displs));
  TT_MPI(MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, data.data, counts.data(), displs.data(),
                        MPI_BYTE, comm_));
  return {};
}

Expected<double> MpiTransport::max_over_ranks(double value) {
  double result = 0;
  TT_MPI(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_MAX, comm_));
  return result;
}

Expected<double> MpiTransport::sum_over_ranks(double value) {
  double result = 0;
  TT_MPI(MPI_Allreduce(&value, &result, 1, MPI_DOUBLE, MPI_SUM, comm_));
  return result;
}

Expected<std::vector<std::string>> MpiTransport::processor_names() {
  char mine[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  TT_MPI(MPI_Get_processor_name(mine, &len));
  std::vector<char> all(static_cast<std::size_t>(size_) * MPI_MAX_PROCESSOR_NAME);
  TT_MPI(MPI_Allgather(mine, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, all.data(), MPI_MAX_PROCESSOR_NAME,
                       MPI_CHAR, comm_));
  std::vector<std::string> names;
  for (int r = 0; r < size_; ++r) {
    names.emplace_back(all.data() + static_cast<std::size_t>(r) * MPI_MAX_PROCESSOR_NAME);
  }
  return names;
}

}  // namespace topotune::rt
