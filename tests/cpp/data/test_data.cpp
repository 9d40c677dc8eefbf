// ember::data: data sets, transforms, samplers and the loader (with and without worker threads).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <set>
#include <stdexcept>

#include "ember/data.h"
#include "ember/ember.h"
#include "testing.h"

namespace data = ember::data;
using ember::Tensor;

namespace {

/// x[i] = [i, i, i] (float), y[i] = i (int64), n rows.
data::TensorDataset rows(int64_t n) {
  Tensor y = ember::arange(n);
  Tensor x = y.to(ember::kFloat32).unsqueeze(1).expand({n, 3}).contiguous();
  return data::TensorDataset(x, y);
}

std::vector<int64_t> targets_of(const Tensor& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) v[static_cast<size_t>(i)] = t[i].item<int64_t>();
  return v;
}

template <class Loader>
std::vector<std::vector<int64_t>> epoch_targets(Loader& loader) {
  std::vector<std::vector<int64_t>> out;
  for (auto& batch : loader) out.push_back(targets_of(batch.target));
  return out;
}

/// A data set that counts concurrent get_batch calls and can fail on one index.
struct Probe : data::Dataset<Probe> {
  explicit Probe(size_t n, size_t bad = SIZE_MAX) : n(n), bad(bad) {}
  Probe(Probe&& o) noexcept : n(o.n), bad(o.bad) {}
  data::Example<> get(size_t i) override {
    if (i == bad) throw std::runtime_error("Probe: bad index " + std::to_string(i));
    return {ember::full({2}, static_cast<double>(i)), ember::scalar_tensor(static_cast<int64_t>(i))};
  }
  std::optional<size_t> size() const override { return n; }
  size_t n, bad;
};

}  // namespace

TEST(DataTensorDataset, GetAndSize) {
  auto ds = rows(5);
  EXPECT_EQ(ds.size(), 5u);
  data::Example<> e = ds.get(3);
  EXPECT_EQ(e.data.sizes().vec(), (std::vector<int64_t>{3}));
  EXPECT_EQ(e.data[2].item<float>(), 3.0f);
  EXPECT_EQ(e.target.item<int64_t>(), 3);
  auto batch = ds.get_batch(std::vector<size_t>{4, 0});
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[0].target.item<int64_t>(), 4);
  EXPECT_EQ(batch[1].target.item<int64_t>(), 0);
}

TEST(DataTensorDataset, Errors) {
  ember::testing::expect_error([] { data::TensorDataset(ember::zeros({3, 2}), ember::zeros({4})); },
                               "Size mismatch between tensors", ember::ErrorKind::Value);
  auto ds = rows(2);
  ember::testing::expect_error([&] { ds.get(2); }, "index 2 is out of range", ember::ErrorKind::Index);
}

TEST(DataTransforms, StackCollatesAndLambdaMaps) {
  auto ds = rows(4)
                .map(data::transforms::Lambda<data::Example<>>([](data::Example<> e) {
                  e.data = e.data * 2;
                  return e;
                }))
                .map(data::transforms::Stack<>());
  EXPECT_EQ(ds.size(), 4u);
  data::Example<> b = ds.get_batch(std::vector<size_t>{1, 3});
  EXPECT_EQ(b.data.sizes().vec(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(b.target.sizes().vec(), (std::vector<int64_t>{2}));
  EXPECT_EQ(b.data[1][0].item<float>(), 6.0f);
  EXPECT_EQ(targets_of(b.target), (std::vector<int64_t>{1, 3}));
}

TEST(DataTransforms, NormalizePerChannel) {
  data::transforms::Normalize<> norm({1.0, 2.0}, {2.0, 4.0});
  data::Example<> e{ember::ones({2, 2}) * 3, ember::scalar_tensor(0)};
  Tensor out = norm.apply(e).data;
  EXPECT_FLOAT_EQ(out[0][1].item<float>(), 1.0f);   // (3 - 1) / 2
  EXPECT_FLOAT_EQ(out[1][0].item<float>(), 0.25f);  // (3 - 2) / 4
}

TEST(DataSamplers, SequentialAndRandom) {
  data::SequentialSampler seq(5);
  EXPECT_EQ(*seq.next(2), (std::vector<size_t>{0, 1}));
  EXPECT_EQ(*seq.next(2), (std::vector<size_t>{2, 3}));
  EXPECT_EQ(*seq.next(2), (std::vector<size_t>{4}));
  EXPECT_FALSE(seq.next(2).has_value());
  seq.reset(3);
  EXPECT_EQ(*seq.next(10), (std::vector<size_t>{0, 1, 2}));

  ember::Generator g1(7), g2(7);
  data::RandomSampler a(10, &g1), b(10, &g2);
  std::vector<size_t> ea = *a.next(10), eb = *b.next(10);
  EXPECT_EQ(ea, eb);  // same seed, same order
  std::vector<size_t> sorted = ea;
  std::sort(sorted.begin(), sorted.end());
  std::vector<size_t> iota(10);
  std::iota(iota.begin(), iota.end(), 0);
  EXPECT_EQ(sorted, iota);  // a permutation
  a.reset();
  EXPECT_NE(*a.next(10), ea);  // a new permutation each epoch
  ember::testing::expect_error([&] { a.next(0); }, "batch_size should be a positive", ember::ErrorKind::Value);
}

TEST(DataSamplers, DistributedSplitsLikeTorch) {
  // 10 indices over 3 replicas: padded to 12 (allow_duplicates) or cut to 9, strided by rank.
  std::vector<std::vector<size_t>> seen;
  for (size_t rank = 0; rank < 3; ++rank) {
    data::DistributedSequentialSampler s(10, 3, rank);
    EXPECT_EQ(s.local_sample_count(), 4u);
    seen.push_back(*s.next(100));
  }
  EXPECT_EQ(seen[0], (std::vector<size_t>{0, 3, 6, 9}));
  EXPECT_EQ(seen[1], (std::vector<size_t>{1, 4, 7, 0}));
  EXPECT_EQ(seen[2], (std::vector<size_t>{2, 5, 8, 1}));
  data::DistributedSequentialSampler cut(10, 3, 2, /*allow_duplicates=*/false);
  EXPECT_EQ(*cut.next(100), (std::vector<size_t>{2, 5, 8}));

  // Random: the replicas share one permutation per epoch and split it.
  std::multiset<size_t> all;
  for (size_t rank = 0; rank < 2; ++rank) {
    data::DistributedRandomSampler s(8, 2, rank);
    s.set_epoch(3);
    s.reset();
    const std::vector<size_t> share = *s.next(100);
    all.insert(share.begin(), share.end());
  }
  EXPECT_EQ(all.size(), 8u);
  EXPECT_EQ(std::set<size_t>(all.begin(), all.end()).size(), 8u);
  data::DistributedRandomSampler e0(8, 2, 0), e1(8, 2, 0);
  e1.set_epoch(1);
  e0.reset();
  e1.reset();
  EXPECT_NE(*e0.next(100), *e1.next(100));
  ember::testing::expect_error([] { data::DistributedSequentialSampler(4, 2, 2); }, "Invalid rank 2, rank should be in the interval [0, 1]",
                               ember::ErrorKind::Value);
}

TEST(DataLoader, SequentialBatchesAndDropLast) {
  for (size_t workers : {0u, 1u, 3u}) {
    auto loader = data::make_data_loader(rows(10).map(data::transforms::Stack<>()), data::SequentialSampler(10),
                                         data::DataLoaderOptions().batch_size(4).workers(workers));
    auto epoch = epoch_targets(*loader);
    ASSERT_EQ(epoch.size(), 3u) << workers;
    EXPECT_EQ(epoch[0], (std::vector<int64_t>{0, 1, 2, 3}));
    EXPECT_EQ(epoch[2], (std::vector<int64_t>{8, 9}));
    EXPECT_EQ(epoch_targets(*loader), epoch);  // a second epoch, the same order

    auto dropping = data::make_data_loader(rows(10).map(data::transforms::Stack<>()), data::SequentialSampler(10),
                                           data::DataLoaderOptions(4).workers(workers).drop_last(true));
    EXPECT_EQ(epoch_targets(*dropping).size(), 2u);
  }
}

TEST(DataLoader, WorkersGiveTheSameBatchesInOrder) {
  ember::Generator g0(3), g1(3);
  auto serial = data::make_data_loader(rows(100).map(data::transforms::Stack<>()), data::RandomSampler(100, &g0),
                                       data::DataLoaderOptions(7));
  auto parallel = data::make_data_loader(rows(100).map(data::transforms::Stack<>()), data::RandomSampler(100, &g1),
                                         data::DataLoaderOptions(7).workers(2).max_jobs(3));
  for (int epoch = 0; epoch < 3; ++epoch) EXPECT_EQ(epoch_targets(*serial), epoch_targets(*parallel));

  // Unordered delivery still gives every example once.
  auto unordered = data::make_data_loader(rows(50).map(data::transforms::Stack<>()),
                                          data::DataLoaderOptions(8).workers(3).enforce_ordering(false));
  std::multiset<int64_t> seen;
  for (auto& b : *unordered)
    for (int64_t t : targets_of(b.target)) seen.insert(t);
  EXPECT_EQ(seen.size(), 50u);
  EXPECT_EQ(std::set<int64_t>(seen.begin(), seen.end()).size(), 50u);
}

TEST(DataLoader, EarlyBreakThenNewEpoch) {
  auto loader = data::make_data_loader(rows(40).map(data::transforms::Stack<>()), data::SequentialSampler(40),
                                       data::DataLoaderOptions(4).workers(2));
  for (auto& b : *loader) {
    EXPECT_EQ(targets_of(b.target)[0], 0);
    break;  // batches in flight belong to the abandoned epoch
  }
  auto epoch = epoch_targets(*loader);
  ASSERT_EQ(epoch.size(), 10u);
  EXPECT_EQ(epoch[0][0], 0);
  EXPECT_EQ(epoch[9][3], 39);
}

TEST(DataLoader, ExceptionReachesTheConsumerAtItsBatch) {
  for (size_t workers : {0u, 2u}) {
    auto loader = data::make_data_loader(Probe(12, /*bad=*/5).map(data::transforms::Stack<>()),
                                         data::SequentialSampler(12), data::DataLoaderOptions(2).workers(workers));
    size_t batches = 0;
    try {
      for (auto& b : *loader) {
        (void)b;
        ++batches;
      }
      FAIL() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "Probe: bad index 5");
    }
    EXPECT_EQ(batches, 2u) << workers;  // batches 0 and 1 came, batch 2 held index 5
  }
}

TEST(DataLoader, EmptyDatasetAndBadOptions) {
  auto loader = data::make_data_loader(rows(0).map(data::transforms::Stack<>()), data::DataLoaderOptions(4).workers(1));
  EXPECT_TRUE(epoch_targets(*loader).empty());
  ember::testing::expect_error(
      [] { data::make_data_loader(rows(3).map(data::transforms::Stack<>()), data::DataLoaderOptions(0)); },
      "batch_size should be a positive integer", ember::ErrorKind::Value);
}

TEST(DataLoader, VectorBatchesWithoutStack) {
  auto loader = data::make_data_loader(rows(5), data::SequentialSampler(5), data::DataLoaderOptions(2).workers(1));
  size_t examples = 0;
  for (std::vector<data::Example<>>& batch : *loader) examples += batch.size();
  EXPECT_EQ(examples, 5u);
}
