// Shared-memory storages (Note [Shared memory segments]) and the sampling ops behind
// ember.utils.data (randperm, multinomial).
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <vector>

#include "ember/shared_memory.h"
#include "testing.h"

namespace ember {
namespace {

TEST(SharedMemory, ShareMovesStorageInPlaceForEveryView) {
  Tensor t = arange(6).to(kFloat32);
  Tensor v = t.narrow(0, 2, 3);  // a view over the same storage
  EXPECT_FALSE(shared_memory::is_shared(*t.impl()->storage()));
  shared_memory::share_(t);
  EXPECT_TRUE(shared_memory::is_shared(*t.impl()->storage()));
  EXPECT_TRUE(shared_memory::is_shared(*v.impl()->storage()));
  EXPECT_EQ(v.data_ptr<float>()[0], 2.0f);
  EXPECT_EQ(t.data_ptr<float>() + 2, v.data_ptr<float>());
  const int fd = shared_memory::fd_of(*t.impl()->storage());
  EXPECT_GE(fd, 0);
  shared_memory::share_(t);  // already shared: nothing moves
  EXPECT_EQ(shared_memory::fd_of(*t.impl()->storage()), fd);
}

TEST(SharedMemory, ChildWritesAreSeenByTheParent) {
  Tensor t = shared_memory::empty_shared({4}, kInt32);
  std::fill_n(t.data_ptr<int32_t>(), 4, 0);
  const pid_t pid = fork();
  if (pid == 0) {
    t.data_ptr<int32_t>()[2] = 42;  // a MAP_SHARED mapping: the parent sees this write
    _exit(0);
  }
  ASSERT_GT(pid, 0);
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_EQ(t.data_ptr<int32_t>()[2], 42);
}

TEST(SharedMemory, MapFdSharesTheSegmentAndChecksItsSize) {
  Tensor t = shared_memory::empty_shared({3}, kFloat64);
  const int fd = shared_memory::fd_of(*t.impl()->storage());
  auto mapped = shared_memory::map_fd(dup(fd), 3 * sizeof(double));
  static_cast<double*>(mapped->data())[1] = 7.5;
  EXPECT_EQ(t.data_ptr<double>()[1], 7.5);
  EXPECT_TRUE(shared_memory::is_shared(*mapped));
  testing::expect_error([&] { shared_memory::map_fd(dup(fd), 1000); }, "expected at least 1000");
  Tensor empty = shared_memory::empty_shared({0}, kFloat32);  // zero bytes still shareable
  EXPECT_TRUE(shared_memory::is_shared(*empty.impl()->storage()));
}

TEST(SamplingOps, RandpermIsAPermutation) {
  manual_seed(3);
  Tensor p = randperm(100);
  EXPECT_EQ(p.dtype(), kInt64);
  std::vector<int64_t> v(p.data_ptr<int64_t>(), p.data_ptr<int64_t>() + 100);
  std::sort(v.begin(), v.end());
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(v[static_cast<size_t>(i)], i);
  Generator g(5), h(5);
  Tensor a = randperm(50, {}, &g), b = randperm(50, {}, &h);
  EXPECT_TRUE(equal(a, b));
  testing::expect_error([] { randperm(300, TensorOptions().dtype(kInt8)); }, "value cannot be converted to type int8_t without overflow");
}

TEST(SamplingOps, MultinomialNeverDrawsZeroWeights) {
  manual_seed(0);
  Tensor w = testing::from_values({0, 1, 0, 3}, {4}, kFloat64);
  Tensor s = multinomial(w, 200, true);
  for (int64_t i = 0; i < 200; ++i) {
    const int64_t c = s.data_ptr<int64_t>()[i];
    EXPECT_TRUE(c == 1 || c == 3);
  }
  Tensor d = multinomial(w, 4, false);  // every category once; the zero weights last
  std::vector<int64_t> v(d.data_ptr<int64_t>(), d.data_ptr<int64_t>() + 4);
  EXPECT_EQ(v[2], 0);
  EXPECT_EQ(v[3], 2);
  testing::expect_error([&] { multinomial(w, 5, false); },
                        "cannot sample n_sample > prob_dist.size(-1) samples without replacement");
}

}  // namespace
}  // namespace ember
