#include "algorithms/nccl/aws_ofi_tuner.h"

#include <algorithm>
#include <cmath>
#include <vector>

// aws/aws-ofi-nccl v1.21.1 src/tuner/nccl_ofi_regions.cpp: region_init_internal_p5_p5e,
// region_init_internal_p5en (allreduce, allgather, reduce-scatter with 8 GPUs per node),
// extend_region, is_inside_region, intersect, distance; include/tuner/nccl_ofi_tuner_region.h
// TUNER_MAX_SIZE, TUNER_MAX_RANKS, transform_log2.
namespace topotune::algo {
namespace {

struct Point {
  double x, y;
};

constexpr double kMaxSize = 100.0 * 1024 * 1024 * 1024;
constexpr double kMaxRanks = 1024.0 * 1024;
constexpr double kEps = 1e-10;

Point lg(Point p) { return {std::log2(p.x == 0 ? 1e-6 : p.x), std::log2(p.y)}; }
Point sub(Point a, Point b) { return {a.x - b.x, a.y - b.y}; }
double cross(Point a, Point b) { return a.x * b.y - a.y * b.x; }

// extend_region: the point of line ab with z's x or y, whichever is reached first (log2 space).
Point extend(Point a, Point b, Point z) {
  a = lg(a), b = lg(b), z = lg(z);
  Point r;
  if (a.x == b.x) {
    r = {a.x, z.y};
  } else if (a.y == b.y) {
    r = {z.x, a.y};
  } else {
    const double m = (a.y - b.y) / (a.x - b.x), c = b.y - m * b.x, pz = m * z.x + c;
    r = pz < z.y ? Point{z.x, pz} : Point{(z.y - c) / m, z.y};
  }
  return {std::pow(2.0, r.x), std::pow(2.0, r.y)};
}

// intersect(): 1 when segment x0-x1 crosses y0-y1, -1 when not, 0 at an end of y0-y1.
int intersect(Point x0, Point x1, Point y0, Point y1, Point* at) {
  const Point dx = sub(x1, x0), dy = sub(y1, y0);
  const double d = cross(dy, dx);
  if (std::fabs(d) < kEps) return 0;
  const double a = (cross(x0, dx) - cross(y0, dx)) / d;
  if (at != nullptr) *at = {y0.x + a * dy.x, y0.y + a * dy.y};
  if (a < -kEps || a > 1 + kEps) return -1;
  if (a < kEps || a > 1 - kEps) return 0;
  const double b = (cross(x0, dy) - cross(y0, dy)) / d;
  return b < 0 || b > 1 ? -1 : 1;
}

double distance(Point x, Point y0, Point y1) {
  const Point dy = sub(y1, y0);
  Point s{0, 0};
  if (intersect(x, {x.x + dy.y, x.y - dy.x}, y0, y1, &s) == -1) return HUGE_VAL;
  const Point v = sub(s, x);
  return std::sqrt(v.x * v.x + v.y * v.y);
}

// is_inside_region(): 1 inside, 0 on an edge, -1 outside (ray casting).
int inside(Point p, const std::vector<Point>& v) {
  const std::size_t n = v.size();
  for (std::size_t i = 0; i < n; ++i) {
    if (distance(p, v[i], v[(i + 1) % n]) < kEps) return 0;
  }
  double lox = v[0].x, hix = v[0].x, loy = v[0].y, hiy = v[0].y;
  for (const Point& q : v) {
    lox = std::min(lox, q.x), hix = std::max(hix, q.x);
    loy = std::min(loy, q.y), hiy = std::max(hiy, q.y);
  }
  if (p.x < lox || p.x > hix || p.y < loy || p.y > hiy) return -1;
  const Point far = lg({2.0 * kMaxSize, 2.0 * kMaxRanks});
  int crosses = 0;
  for (std::size_t i = 0; i < n; ++i)
    crosses += intersect(p, far, v[i], v[(i + 1) % n], nullptr) == 1;
  return crosses & 1 ? 1 : -1;
}

struct Region {
  NcclAlgo algo;
  NcclProto proto;
  std::vector<Point> vertices;  // log2 space
};

Region region(NcclAlgo a, NcclProto p, std::vector<Point> v) {
  for (Point& q : v) q = lg(q);
  return {a, p, std::move(v)};
}

std::vector<Region> p5_regions() {
  const Point max{kMaxSize, kMaxRanks};
  const Point tree = extend({402653184, 2048}, {402653184, 4096}, max);
  const Point nvls1 = extend({8053063680, 160}, {9663676416, 192}, max);
  using A = NcclAlgo;
  using P = NcclProto;
  return {
      region(A::Tree, P::LL128,
             {{0, 16},
              {31457280, 16},
              {37748736, 32},
              {117440512, 64},
              {301989888, 128},
              {301989888, 256},
              {335544320, 512},
              {536870912, 1024},
              {402653184, 2048},
              {402653184, 4096},
              tree,
              {0, tree.y}}),
      region(A::NvlsTree, P::Simple, {{31457281, 16}, {kMaxSize, 16}, {31457281, 16}}),
      region(A::Ring, P::LL128,
             {{31457280, 17},
              {1073741824, 17},
              {2147483648, 64},
              {2147483648, 128},
              {1342177280, 160},
              {2147483648, 256},
              {1074790400, 256},
              {444596224, 160},
              {301989888, 128},
              {117440512, 64},
              {37748736, 32}}),
      region(A::NvlsTree, P::Simple,
             {{2147483648, 128},
              {6442450944, 128},
              {8053063680, 160},
              {9663676416, 192},
              nvls1,
              tree,
              {402653184, 4096},
              {402653184, 2048},
              {536870912, 1024},
              {335544320, 512},
              {301989888, 256},
              {310378496, 160},
              {444596224, 160},
              {1074790400, 256},
              {2684354560, 256},
              {2147483648, 224},
              {1342177280, 160}}),
      region(A::Ring, P::Simple,
             {{1073741824, 17},
              {nvls1.x, 17},
              nvls1,
              {9663676416, 192},
              {8053063680, 160},
              {2684354560, 64},
              {1610612736, 32}}),
  };
}

std::vector<Region> p5en_regions() {
  const Point max{kMaxSize, kMaxRanks};
  const Point ll = extend({196608, 192}, {196608, 1024}, max);
  const Point ll128 = extend({129499136, 127}, {218103808, 1024}, max);
  const Point nvls = extend({7516192768, 256}, {17179869184, 448}, max);
  using A = NcclAlgo;
  using P = NcclProto;
  return {
      region(A::Tree, P::LL, {{0, 16}, {196608, 16}, {196608, 1024}, ll, {0, kMaxRanks}}),
      region(A::Tree, P::LL128,
             {ll,
              {196608, 1024},
              {196608, 16},
              {13107200, 16},
              {129499136, 127},
              {218103808, 1024},
              ll128}),
      region(A::Ring, P::LL128,
             {{129499136, 127},
              {13107200, 16},
              {29884416, 16},
              {293601280, 32},
              {589299712, 64},
              {549453824, 128}}),
      region(A::NvlsTree, P::Simple,
             {ll128,
              {218103808, 1024},
              {129499136, 127},
              {549453824, 128},
              {589299712, 64},
              {293601280, 32},
              {29884416, 16},
              {kMaxSize, 16},
              {509607936, 32},
              {7516192768, 256},
              {17179869184, 448},
              nvls}),
      region(A::Ring, P::Simple,
             {nvls, {17179869184, 448}, {7516192768, 256}, {509607936, 32}, {kMaxSize, 16}}),
  };
}

// P5en, 8 GPUs per node: all-gather and reduce-scatter run Ring, the protocol by region.
std::vector<Region> p5en_allgather_regions() {
  const Point max{kMaxSize, kMaxRanks};
  const Point ll = extend({28305408, 768}, {33554432, 1024}, max);
  const Point ll128 = extend({7247754240, 384}, {17179865088, 896}, max);
  using A = NcclAlgo;
  using P = NcclProto;
  return {
      region(A::Ring, P::LL,
             {{0, 16},
              {786432, 16},
              {4718592, 128},
              {13630464, 384},
              {19922944, 512},
              {28305408, 768},
              {33554432, 1024},
              ll,
              {0, kMaxRanks}}),
      region(A::Ring, P::LL128,
             {ll,
              {33554432, 1024},
              {28305408, 768},
              {19922944, 512},
              {13630464, 384},
              {4718592, 128},
              {786432, 16},
              {236978176, 16},
              {956301312, 64},
              {7247754240, 384},
              {17179865088, 896},
              ll128}),
      region(A::Ring, P::Simple,
             {ll128,
              {17179865088, 896},
              {7247754240, 384},
              {956301312, 64},
              {494927872, 32},
              {236978176, 16},
              {kMaxSize, 16}}),
  };
}

std::vector<Region> p5en_reduce_scatter_regions() {
  const Point max{kMaxSize, kMaxRanks};
  const Point ll = extend({7340032, 256}, {18874368, 512}, max);
  const Point ll128 = extend({7247757312, 256}, {17179869184, 640}, max);
  using A = NcclAlgo;
  using P = NcclProto;
  return {
      region(A::Ring, P::LL,
             {{0, 16},
              {786432, 16},
              {4718592, 128},
              {7340032, 256},
              {18874368, 512},
              ll,
              {0, kMaxRanks}}),
      region(A::Ring, P::LL128,
             {ll,
              {18874368, 512},
              {7340032, 256},
              {4718592, 128},
              {786432, 16},
              {291504128, 16},
              {589299712, 32},
              {2415919104, 128},
              {7247757312, 256},
              {17179869184, 640},
              ll128}),
      region(A::Ring, P::Simple,
             {ll128,
              {17179869184, 640},
              {7247757312, 256},
              {2415919104, 128},
              {589299712, 32},
              {291504128, 16},
              {kMaxSize, 16}}),
  };
}

const std::vector<Region>& regions_of(AwsTunerPlatform platform, sched::Collective c) {
  static const std::vector<Region> kNone;
  static const std::vector<Region> kP5 = p5_regions();
  static const std::vector<Region> kP5en = p5en_regions();
  static const std::vector<Region> kP5enAllgather = p5en_allgather_regions();
  static const std::vector<Region> kP5enReduceScatter = p5en_reduce_scatter_regions();
  switch (c) {
    case sched::Collective::Allreduce:
      return platform == AwsTunerPlatform::P5 ? kP5 : kP5en;
    case sched::Collective::Allgather:  // P5/P5e: regions for one GPU per node only
      return platform == AwsTunerPlatform::P5en ? kP5enAllgather : kNone;
    case sched::Collective::ReduceScatter:
      return platform == AwsTunerPlatform::P5en ? kP5enReduceScatter : kNone;
    case sched::Collective::Broadcast:
      break;
  }
  return kNone;
}

}  // namespace

AwsTunerPlatform aws_tuner_platform(const std::string& instance) {
  // platform-aws.cpp: "p5.48xlarge" / "p5e.48xlarge" -> P5_P5E, "p5en.48xlarge" -> P5EN.
  if (instance == "p5.48xlarge" || instance == "p5e.48xlarge") return AwsTunerPlatform::P5;
  if (instance == "p5en.48xlarge") return AwsTunerPlatform::P5en;
  return AwsTunerPlatform::None;
}

std::optional<std::pair<NcclAlgo, NcclProto>> aws_region_tuner_choice(
    AwsTunerPlatform platform, sched::Collective collective, int ranks, int nodes, double bytes,
    const std::function<bool(NcclAlgo, NcclProto)>& enabled) {
  if (platform == AwsTunerPlatform::None || nodes <= 2 || ranks != 8 * nodes) return std::nullopt;
  const Point p = lg({bytes, static_cast<double>(ranks)});
  for (const Region& r : regions_of(platform, collective)) {
    if (!enabled(r.algo, r.proto)) continue;
    if (inside(p, r.vertices) >= 0) return std::make_pair(r.algo, r.proto);
  }
  return std::nullopt;
}

}  // namespace topotune::algo
