// ember::save / ember::load in C++: the zip layer, the unpickler's allowlist and checks, state
// dicts of modules and optimizers through paths and streams, mmap, CRC checks.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "../testing.h"
#include "ember/ember.h"
#include "ember/nn/modules/linear.h"
#include "ember/nn/state_dict.h"
#include "ember/optim/sgd.h"
#include "ember/serialization.h"
#include "serialization/pickle.h"
#include "serialization/zip.h"

namespace ember {
namespace {

namespace ser = serialization;
using ser::detail::ByteSink;
using ser::detail::ByteSource;
using ser::detail::ZipReader;
using ser::detail::ZipWriter;

struct StringSink : ByteSink {
  std::string bytes;
  void write(const void* p, size_t n) override { bytes.append(static_cast<const char*>(p), n); }
};

// A string literal with its embedded NULs (hex escapes split before hex-digit letters).
#define BYTES(lit) std::string(lit, sizeof(lit) - 1)

std::string temp_path(const std::string& name) {
  return ::testing::TempDir() + "ember_ser_" + std::to_string(::getpid()) + "_" + name;
}

TEST(SerializationZip, RecordsAreAlignedAndReadBack) {
  StringSink sink;
  ZipWriter w(sink);
  std::string a = "hello", b(1000, 'x');
  w.write_record("archive/data.pkl", a.data(), a.size());
  w.write_record("archive/data/0", b.data(), b.size());
  w.write_record("archive/empty", "", 0);
  testing::expect_error([&] { w.write_record("archive/data/0", "", 0); }, "duplicate record");
  w.finish();
  ZipReader r(ByteSource::from_buffer(sink.bytes));
  ASSERT_EQ(r.entries().size(), 3u);
  for (const auto& e : r.entries()) EXPECT_EQ(e.data_offset % 64, 0u) << e.name;
  EXPECT_EQ(r.read("archive/data.pkl"), a);
  EXPECT_EQ(r.read("archive/data/0"), b);
  EXPECT_EQ(r.read("archive/empty"), "");
  testing::expect_error([&] { r.entry("archive/nope"); }, "file not found");
}

TEST(SerializationZip, Zip64FieldsRoundTrip) {
  // A low threshold makes every size and offset take the ZIP64 path.
  StringSink sink;
  ZipWriter w(sink, /*zip64_threshold=*/16);
  std::string big(200, 'b');
  w.write_record("a/x", "small", 5);
  w.write_record("a/y", big.data(), big.size());
  w.finish();
  ZipReader r(ByteSource::from_buffer(sink.bytes));
  EXPECT_EQ(r.read("a/x"), "small");
  EXPECT_EQ(r.read("a/y"), big);
  EXPECT_EQ(r.entry("a/y").data_offset % 64, 0u);
}

TEST(SerializationZip, MalformedArchivesFailClearly) {
  StringSink sink;
  ZipWriter w(sink);
  std::string d(100, 'd');
  w.write_record("archive/data/0", d.data(), d.size());
  w.finish();
  const std::string good = sink.bytes;
  testing::expect_error([] { ZipReader r(ByteSource::from_buffer("")); }, "zero-length");
  testing::expect_error([] { ZipReader r(ByteSource::from_buffer(std::string(100, 'z'))); },
                        "failed finding central directory");
  for (size_t cut : {size_t(10), good.size() / 2, good.size() - 10}) {
    EXPECT_THROW(ZipReader r(ByteSource::from_buffer(good.substr(0, cut))), Error) << cut;
  }
  std::string bad = good;
  bad[bad.find("dddd") + 3] = 'X';
  ZipReader r(ByteSource::from_buffer(bad));
  testing::expect_error([&] { r.read("archive/data/0"); }, "CRC-32");
}

TEST(SerializationUnpickler, AllowlistRefusesEverythingElse) {
  auto no_pid = [](const ser::Node&) -> ser::NodePtr { ADD_FAILURE() << "no pid expected"; return nullptr; };
  const std::string payload = BYTES("\x80\x02" "cposix\nsystem\nq\x00X\x05\x00\x00\x00touch\x85R.");
  try {
    ser::detail::unpickle(payload.data(), payload.size(), no_pid, "data.pkl");
    ADD_FAILURE() << "expected UnpicklingError";
  } catch (const ser::UnpicklingError& e) {
    EXPECT_NE(std::string(e.what()).find("posix.system"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at byte 2 of data.pkl"), std::string::npos) << e.what();
  }
  // Plain containers and scalars come through.
  const std::string ok = BYTES("\x80\x02}q\x00(X\x01\x00\x00\x00" "a]q\x01(K\x01G?\xf8\x00\x00\x00\x00\x00\x00\x88NeX\x01\x00\x00\x00" "b\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80u.");
  auto n = ser::detail::unpickle(ok.data(), ok.size(), no_pid, "data.pkl");
  ASSERT_TRUE(n->is(ser::Node::Kind::Dict));
  const auto& l = n->at("a");
  ASSERT_EQ(l->items.size(), 4u);
  EXPECT_EQ(l->items[0]->integer, 1);
  EXPECT_EQ(l->items[1]->real, 1.5);
  EXPECT_TRUE(l->items[2]->boolean);
  EXPECT_TRUE(l->items[3]->is(ser::Node::Kind::None));
  EXPECT_EQ(n->at("b")->integer, INT64_MIN);
}

TEST(SerializationSaveLoad, StateDictThroughPathsAndStreams) {
  auto lin = std::make_shared<nn::Linear>(3, 2);
  nn::StateDict sd = lin->state_dict();
  const std::string path = temp_path("lin.pt");
  save(sd, path);
  nn::StateDict back = load_state_dict(path);
  ASSERT_EQ(back.keys(), sd.keys());
  EXPECT_TRUE(back.metadata.has_value());
  for (const auto& k : sd.keys()) {
    EXPECT_TRUE(equal(back.at(k).to_tensor(), sd.at(k).to_tensor())) << k;
    // state_dict() holds detached tensors (keep_vars=false), as PyTorch: saved as plain tensors.
    EXPECT_EQ(back.at(k).to_tensor().is_parameter(), sd.at(k).to_tensor().is_parameter()) << k;
  }
  auto lin2 = std::make_shared<nn::Linear>(3, 2);
  lin2->load_state_dict(back);
  EXPECT_TRUE(equal(lin2->weight(), lin->weight()));

  std::stringstream ss;
  save(sd, ss);
  nn::StateDict again = load_state_dict(ss);
  EXPECT_TRUE(equal(again.at("bias").to_tensor(), sd.at("bias").to_tensor()));
  std::remove(path.c_str());
}

TEST(SerializationSaveLoad, TensorsViewsAndSharing) {
  Tensor base = testing::iota({4, 5});
  auto d = ser::Node::dict();
  d->set("base", ser::Node::of(base));
  d->set("t", ser::Node::of(base.t()));
  d->set("slice", ser::Node::of(base.slice(0, 1, 3).slice(1, 2, 5)));
  d->set("dt", ser::Node::of(kBFloat16));
  d->set("size", ser::Node::size({2, 3}));
  std::stringstream ss;
  save(d, ss);
  auto back = load(ss);
  const Tensor& b = back->at("base")->tensor;
  const Tensor& t = back->at("t")->tensor;
  const Tensor& s = back->at("slice")->tensor;
  EXPECT_EQ(t.impl()->storage().get(), b.impl()->storage().get());
  EXPECT_EQ(s.impl()->storage().get(), b.impl()->storage().get());
  EXPECT_EQ(s.storage_offset(), 7);
  EXPECT_EQ(t.strides().vec(), (std::vector<int64_t>{1, 5}));
  EXPECT_TRUE(equal(s, base.slice(0, 1, 3).slice(1, 2, 5)));
  EXPECT_EQ(back->at("dt")->dtype, kBFloat16);
  EXPECT_EQ(to_value(*back->at("size")).to_int_list(), (std::vector<int64_t>{2, 3}));
}

TEST(SerializationSaveLoad, OptimizerStateDictRoundTrip) {
  auto lin = std::make_shared<nn::Linear>(2, 2);
  optim::SGDOptions o;
  o.lr = 0.1;
  o.momentum = 0.9;
  optim::SGD opt(lin->parameters(), o);
  (lin->forward(ones({3, 2})).sum()).backward();
  opt.step();
  std::stringstream ss;
  save(ser::to_node(opt.state_dict()), ss);
  auto sd = ser::to_optimizer_state_dict(*load(ss));
  ASSERT_EQ(sd.param_groups.size(), 1u);
  EXPECT_EQ(sd.param_groups[0].at("momentum").to_double(), 0.9);
  EXPECT_EQ(sd.param_groups[0].at("params").to_int_list(), (std::vector<int64_t>{0, 1}));
  optim::SGD opt2(std::make_shared<nn::Linear>(2, 2)->parameters(), o);
  opt2.load_state_dict(sd);
  EXPECT_EQ(opt2.state_dict().state.size(), 2u);
}

TEST(SerializationSaveLoad, MmapViewsTheFileAndCrcOnRequest) {
  auto d = ser::Node::dict(true);
  d->set("w", ser::Node::of(testing::iota({64, 64})));
  const std::string path = temp_path("mm.pt");
  save(d, path);
  ser::LoadOptions mm;
  mm.mmap = true;
  auto back = load(path, mm);
  EXPECT_TRUE(equal(back->at("w")->tensor, testing::iota({64, 64})));
  // Meta: shapes, no data.
  ser::LoadOptions meta;
  meta.map_location = [](const std::string&) { return kMeta; };
  EXPECT_TRUE(load(path, meta)->at("w")->tensor.device().is_meta());
  // Corrupt one byte of the storage record: a CRC-checking load refuses it.
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    std::string all((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    size_t at = all.find("archive") == std::string::npos ? all.find("/data/0") : all.find("/data/0");
    ASSERT_NE(at, std::string::npos);
    ZipReader r(ByteSource::from_buffer(all));
    const auto& e = r.entries()[2];  // data.pkl, byteorder, data/0
    ASSERT_NE(e.name.find("data/0"), std::string::npos);
    f.seekp(static_cast<std::streamoff>(e.data_offset + 100));
    f.put('\x7f');
  }
  ser::LoadOptions crc;
  crc.check_crc = true;
  testing::expect_error([&] { load(path, crc); }, "CRC-32");
  std::remove(path.c_str());
}

TEST(SerializationSaveLoad, CraftedTensorArgumentsAreRefused) {
  // A storage of 4 floats viewed as 100 elements.
  std::string pkl = BYTES("\x80\x02" "ctorch._utils\n_rebuild_tensor_v2\n(" "(X\x07\x00\x00\x00storage"
                          "ctorch\nFloatStorage\nX\x01\x00\x00\x00" "0X\x03\x00\x00\x00" "cpuK\x04tQ"
                          "K\x00K\x64\x85K\x01\x85\x89" "ccollections\nOrderedDict\n)RtR.");
  StringSink sink;
  ZipWriter w(sink);
  w.write_record("archive/data.pkl", pkl.data(), pkl.size());
  std::string data(16, '\0');
  w.write_record("archive/data/0", data.data(), data.size());
  w.write_record("archive/version", "3\n", 2);
  w.finish();
  try {
    ser::load_bytes(sink.bytes);
    ADD_FAILURE() << "expected UnpicklingError";
  } catch (const ser::UnpicklingError& e) {
    EXPECT_NE(std::string(e.what()).find("does not fit in its storage of 4 elements"),
              std::string::npos) << e.what();
  }
}

TEST(SerializationSaveLoad, TensorsAndQuantizedModulesThroughValues) {
  std::stringstream ss;
  Tensor t = testing::iota({2, 3}, kBFloat16);
  save(Value(t), ss);
  Tensor back = load(ss)->tensor;
  EXPECT_EQ(back.dtype(), kBFloat16);
  EXPECT_TRUE(equal(back, t));
  // A quantized Linear's state_dict: its (weight, bias) tuple and qparams survive.
  Tensor w = quantize_per_tensor(testing::iota({3, 4}, kFloat32, -5.0), 0.5, 0, kQInt8);
  auto sd = ser::Node::dict(true);
  auto packed = ser::Node::tuple({ser::Node::of(w), ser::Node::of(ones({3}))});
  sd->set("_packed_params._packed_params", packed);
  sd->set("_packed_params.dtype", ser::Node::of(kQInt8));
  std::stringstream qs;
  save(sd, qs);
  nn::StateDict got = ser::to_state_dict(*load(qs));
  const auto& wb = got.at("_packed_params._packed_params").to_tensor_list();
  ASSERT_EQ(wb.size(), 2u);
  EXPECT_EQ(wb[0].dtype(), kQInt8);
  EXPECT_EQ(q_scale(wb[0]), 0.5);
  EXPECT_TRUE(equal(int_repr(wb[0]), int_repr(w)));
  EXPECT_EQ(got.at("_packed_params.dtype").to_dtype(), kQInt8);
}

}  // namespace
}  // namespace ember
