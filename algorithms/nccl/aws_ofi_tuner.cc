#include "algorithms/nccl/aws_ofi_tuner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <vector>

#include "algorithms/nccl/aws_ofi_regions.h"

// aws/aws-ofi-nccl v1.21.1 src/tuner/nccl_ofi_regions.cpp: extend_region, is_inside_region,
// intersect, distance, region_get_coll_info_internal_v3 (the node rule and the first region
// wins); include/tuner/nccl_ofi_tuner_region.h TUNER_MAX_SIZE, TUNER_MAX_RANKS,
// transform_log2; include/tuner/nccl_ofi_tuner_process_config.h (the platforms). The tables
// themselves are aws_ofi_regions.cc.
namespace topotune::algo {
namespace {

constexpr double kMaxSize = 100.0 * 1024 * 1024 * 1024;
constexpr double kMaxRanks = 1024.0 * 1024;
constexpr double kEps = 1e-10;

AwsPoint sub(AwsPoint a, AwsPoint b) { return {a.x - b.x, a.y - b.y}; }
double cross(AwsPoint a, AwsPoint b) { return a.x * b.y - a.y * b.x; }

// intersect(): 1 when segment x0-x1 crosses y0-y1, -1 when not, 0 at an end of y0-y1.
int intersect(AwsPoint x0, AwsPoint x1, AwsPoint y0, AwsPoint y1, AwsPoint* at) {
  const AwsPoint dx = sub(x1, x0), dy = sub(y1, y0);
  const double d = cross(dy, dx);
  if (std::fabs(d) < kEps) return 0;
  const double a = (cross(x0, dx) - cross(y0, dx)) / d;
  if (at != nullptr) *at = {y0.x + a * dy.x, y0.y + a * dy.y};
  if (a < -kEps || a > 1 + kEps) return -1;
  if (a < kEps || a > 1 - kEps) return 0;
  const double b = (cross(x0, dy) - cross(y0, dy)) / d;
  return b < 0 || b > 1 ? -1 : 1;
}

double distance(AwsPoint x, AwsPoint y0, AwsPoint y1) {
  const AwsPoint dy = sub(y1, y0);
  AwsPoint s{0, 0};
  if (intersect(x, {x.x + dy.y, x.y - dy.x}, y0, y1, &s) == -1) return HUGE_VAL;
  const AwsPoint v = sub(s, x);
  return std::sqrt(v.x * v.x + v.y * v.y);
}

// is_inside_region(): 1 inside, 0 on an edge, -1 outside (ray casting).
int inside(AwsPoint p, const std::vector<AwsPoint>& v) {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (distance(p, v[i], v[(i + 1) % n]) < kEps) return 0;
  }
  double lox = v[0].x, hix = v[0].x, loy = v[0].y, hiy = v[0].y;
  for (const AwsPoint& q : v) {
    lox = std::min(lox, q.x), hix = std::max(hix, q.x);
    loy = std::min(loy, q.y), hiy = std::max(hiy, q.y);
  }
  if (p.x < lox || p.x > hix || p.y < loy || p.y > hiy) return -1;
  const AwsPoint far = aws_log2({2.0 * kMaxSize, 2.0 * kMaxRanks});
  int crosses = 0;
  for (std::size_t i = 0; i < n; ++i)
    crosses += intersect(p, far, v[i], v[(i + 1) % n], nullptr) == 1;
  return crosses & 1 ? 1 : -1;
}

// calculateChunkSizeTreeLL128 (nccl_ofi_regions.cpp, with include/internal/tuner/
// nccl_defaults.h): NCCL's LL128 tree chunk for 8 GPUs per node, as bytes on the wire. Integer
// arithmetic as the source has it.
std::uint64_t tree_ll128_chunk(std::uint64_t bytes, std::uint64_t channels, int log2_nodes) {
  constexpr std::uint64_t kSteps = 8, kWarp = 32, kElemsPerThread = 120, kThreads = 640;
  constexpr std::uint64_t kShmemElems = 8, kLineElems = 128 / 8, kDataElems = kLineElems - 1;
  const double ppn = 8;
  std::uint64_t chunk = kElemsPerThread * kThreads * kSteps * 8 / kSteps;
  chunk = chunk / kLineElems * kDataElems;
  const double steps = 1 + log2_nodes + 0.1 * ppn;
  while (static_cast<double>(bytes / (channels * chunk)) < steps * 64 / ppn && chunk > 131072)
    chunk /= 2;
  while (static_cast<double>(bytes / (channels * chunk)) < steps * 16 / ppn && chunk > 32768)
    chunk /= 2;
  const std::uint64_t grain = kWarp * kShmemElems / kLineElems * kDataElems * 8;
  chunk = chunk / grain * grain;
  const std::uint64_t nelem = chunk / grain * (grain / 4);
  const std::uint64_t wire_words = kWarp * kShmemElems;
  const std::uint64_t data_per_slice = (wire_words - wire_words / kLineElems) * 2;
  return static_cast<std::uint64_t>(
             std::ceil(static_cast<double>(nelem) / static_cast<double>(data_per_slice))) *
         wire_words * 8;
}

}  // namespace

AwsPoint aws_log2(AwsPoint p) { return {std::log2(p.x == 0 ? 1e-6 : p.x), std::log2(p.y)}; }

AwsPoint aws_extend(AwsPoint a, AwsPoint b, AwsPoint z) {
  a = aws_log2(a), b = aws_log2(b), z = aws_log2(z);
  AwsPoint r;
  if (a.x == b.x) {
    r = {a.x, z.y};
  } else if (a.y == b.y) {
    r = {z.x, a.y};
  } else {
    const double m = (a.y - b.y) / (a.x - b.x), c = b.y - m * b.x, pz = m * z.x + c;
    r = pz < z.y ? AwsPoint{z.x, pz} : AwsPoint{(z.y - c) / m, z.y};
  }
  return {std::pow(2.0, r.x), std::pow(2.0, r.y)};
}

AwsTunerPlatform aws_tuner_platform(const std::string& instance) {
  // nccl_ofi_tuner_process_config.h: the EC2 product name picks the platform.
  if (instance == "p5.48xlarge" || instance == "p5e.48xlarge") return AwsTunerPlatform::P5;
  if (instance == "p5en.48xlarge") return AwsTunerPlatform::P5en;
  if (instance == "p6-b200.48xlarge") return AwsTunerPlatform::P6;
  if (instance == "p6-b300.48xlarge") return AwsTunerPlatform::P6B300;
  return AwsTunerPlatform::None;
}

std::optional<std::pair<NcclAlgo, NcclProto>> aws_region_tuner_choice(
    AwsTunerPlatform platform, sched::Collective collective, int ranks, int nodes, double bytes,
    const std::function<bool(NcclAlgo, NcclProto)>& enabled) {
  // Two nodes or fewer: "the regions are not well defined", NCCL's own tuning decides.
  if (platform == AwsTunerPlatform::None || nodes <= 2 || ranks % nodes != 0) return std::nullopt;
  const AwsPoint p = aws_log2({bytes, static_cast<double>(ranks)});
  for (const AwsRegion& r : aws_regions(platform, ranks / nodes, collective)) {
    if (!enabled(r.algo, r.proto)) continue;
    if (inside(p, r.vertices) >= 0) return std::make_pair(r.algo, r.proto);
  }
  return std::nullopt;
}

int aws_region_tuner_channels(AwsTunerPlatform platform, sched::Collective collective, int ranks,
                              int nodes, double bytes, NcclAlgo algo, NcclProto proto) {
  if (platform != AwsTunerPlatform::P6 || nodes <= 2) return 0;
  constexpr double MiB = 1024.0 * 1024;
  if (collective == sched::Collective::Allreduce && algo == NcclAlgo::Tree &&
      proto == NcclProto::LL128 && bytes >= 4 * MiB && bytes <= 32 * MiB && ranks == 8 * nodes) {
    int best = 0;
    std::uint64_t most = 0;
    for (const int ch : {16, 24, 32}) {
      const std::uint64_t c =
          tree_ll128_chunk(static_cast<std::uint64_t>(bytes), static_cast<std::uint64_t>(ch),
                           std::bit_width(static_cast<unsigned>(nodes)) - 1);
      if (c > most || (c == most && ch > best)) most = c, best = ch;
    }
    return best;
  }
  if (algo == NcclAlgo::Pat && proto == NcclProto::Simple && bytes <= 32 * MiB && ranks == nodes) {
    if (bytes <= nodes * 65536.0) return 1;
    if (bytes <= nodes * 65536.0 * 2) return 2;
  }
  return 0;
}

}  // namespace topotune::algo
