// SmallVector: inline up to N, then contiguous on the heap; copies are deep, moves steal, and
// clear() keeps the heap storage for reuse. Checked against std::vector doing the same.

#include "simulator/small_vector.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

namespace topotune::sim {
namespace {

template <class V>
std::vector<int> items(const V& v) {
  return std::vector<int>(v.begin(), v.end());
}

TEST(SmallVector, GrowsPastInlineAndKeepsOrder) {
  SmallVector<int, 2> v;
  std::vector<int> want;
  for (int i = 0; i < 37; ++i) {
    v.push_back(i * 3);
    want.push_back(i * 3);
    ASSERT_EQ(items(v), want) << "after " << i + 1;
  }
  v[5] = -1;
  want[5] = -1;
  v.pop_back();
  want.pop_back();
  EXPECT_EQ(items(v), want);
  EXPECT_EQ(v.back(), want.back());
}

TEST(SmallVector, CopiesAreDeepAndMovesSteal) {
  for (int n : {1, 2, 3, 9}) {  // inline and spilled
    SmallVector<int, 2> a;
    for (int i = 0; i < n; ++i) a.push_back(i + 1);
    SmallVector<int, 2> b(a);
    b[0] = 100;
    EXPECT_EQ(a[0], 1) << n;
    SmallVector<int, 2> c(std::move(b));
    EXPECT_TRUE(b.empty()) << n;
    EXPECT_EQ(c[0], 100) << n;
    EXPECT_EQ(c.size(), static_cast<std::size_t>(n));
    b = c;  // copy-assign into a moved-from vector
    a = std::move(c);
    EXPECT_EQ(items(a), items(b)) << n;
    b.push_back(7);  // the copy has its own storage
    EXPECT_EQ(a.size() + 1, b.size()) << n;
  }
}

TEST(SmallVector, ClearThenReuse) {
  SmallVector<int, 2> v;
  for (int i = 0; i < 10; ++i) v.push_back(i);
  v.clear();
  EXPECT_TRUE(v.empty());
  for (int i = 0; i < 3; ++i) v.push_back(10 + i);
  EXPECT_EQ(items(v), (std::vector<int>{10, 11, 12}));
}

}  // namespace
}  // namespace topotune::sim
