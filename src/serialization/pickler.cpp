// ember's pickler: writes a checkpoint tree as Python's pickle.Pickler writes the same objects
// under torch.save, opcode for opcode at protocol 2 (PyTorch's default): the memo (BINPUT after
// each str, tuple, list, dict, reduce), TUPLE1-3 for short tuples, batches of 1000 in APPENDS /
// SETITEMS, OrderedDict's reduce with its _metadata as BUILD state, bytes as _codecs.encode,
// tensors as _rebuild_tensor_v2 / _rebuild_parameter / _rebuild_qtensor over persistent ids
// ('storage', torch.<Type>Storage, key, 'cpu', numel). Node identity plays the part of Python's
// object identity: a node reached twice is written once and fetched from the memo after.
#include <cstring>
#include <unordered_map>

#include "ember/quantized/tensor.h"
#include "ember/tensor_impl.h"
#include "serialization/pickle.h"

namespace ember::serialization::detail {
namespace {

using Kind = Node::Kind;

class Pickler {
 public:
  Pickler(int protocol, const std::function<void(const StorageRef&)>& on_storage)
      : proto_(protocol), on_storage_(on_storage) {
    EMBER_CHECK_VALUE(protocol >= 2 && protocol <= 5, "pickle_protocol must be 2 to 5 (protocol 0 "
                      "and 1 cannot hold storages' persistent ids), got ", protocol);
  }

  std::string dump(const NodePtr& obj) {
    out_ += '\x80';
    out_ += char(proto_);
    size_t frame_start = out_.size();
    save(*obj);
    out_ += '.';
    if (proto_ >= 4 && out_.size() - frame_start >= 4) {
      // One frame for the whole body (frames are a read-ahead hint; Python reads any size).
      std::string hdr = "\x95";
      uint64_t len = out_.size() - frame_start;
      for (int i = 0; i < 8; ++i) hdr += char((len >> (8 * i)) & 0xFF);
      out_.insert(frame_start, hdr);
    }
    return std::move(out_);
  }

 private:
  void op(char c) { out_ += c; }
  void le(uint64_t v, int n) {
    for (int i = 0; i < n; ++i) out_ += char((v >> (8 * i)) & 0xFF);
  }
  // Python's memoize(): every new memo entry is announced with BINPUT / LONG_BINPUT / MEMOIZE.
  void memoize(const void* key) {
    uint64_t idx = memo_.size();
    memo_.emplace(key, idx);
    if (proto_ >= 4) {
      op('\x94');
    } else if (idx < 256) {
      op('q');
      le(idx, 1);
    } else {
      op('r');
      le(idx, 4);
    }
  }
  bool from_memo(const void* key) {
    auto it = memo_.find(key);
    if (it == memo_.end()) return false;
    if (it->second < 256) {
      op('h');
      le(it->second, 1);
    } else {
      op('j');
      le(it->second, 4);
    }
    return true;
  }
  // Strings Python shares between calls (literals, interned names) are memoized by value.
  const void* shared_key(const std::string& s) {
    auto it = shared_.find(s);
    if (it != shared_.end()) return it->second.get();
    auto p = std::make_shared<char>();
    shared_.emplace(s, p);
    return p.get();
  }
  void write_str(const std::string& s) {
    if (proto_ >= 4 && s.size() < 256) {
      op('\x8c');
      le(s.size(), 1);
    } else if (s.size() > 0xFFFFFFFFu) {
      EMBER_CHECK(proto_ >= 4, "a str of ", s.size(), " bytes needs pickle protocol 4");
      op('\x8d');
      le(s.size(), 8);
    } else {
      op('X');
      le(s.size(), 4);
    }
    out_ += s;
  }
  void save_str(const std::string& s, const void* key) {
    if (from_memo(key)) return;
    write_str(s);
    memoize(key);
  }
  void save_shared_str(const std::string& s) { save_str(s, shared_key(s)); }
  void save_global(const std::string& module, const std::string& name) {
    const void* key = shared_key("\x01global:" + module + "." + name);
    if (from_memo(key)) return;
    if (proto_ >= 4) {
      save_shared_str(module);
      save_shared_str(name);
      op('\x93');
    } else {
      op('c');
      out_ += module + "\n" + name + "\n";
    }
    memoize(key);
  }
  void save_int(int64_t v) {
    if (v >= 0 && v <= 0xFF) {
      op('K');
      le(uint64_t(v), 1);
    } else if (v >= 0 && v <= 0xFFFF) {
      op('M');
      le(uint64_t(v), 2);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      op('J');
      le(uint64_t(uint32_t(int32_t(v))), 4);
    } else {
      // LONG1: the shortest little-endian two's complement.
      std::string b;
      uint64_t u = uint64_t(v);
      for (int i = 0; i < 8; ++i) b += char((u >> (8 * i)) & 0xFF);
      while (b.size() > 1) {
        auto last = uint8_t(b.back()), prev = uint8_t(b[b.size() - 2]);
        if ((last == 0x00 && !(prev & 0x80)) || (last == 0xFF && (prev & 0x80))) b.pop_back();
        else break;
      }
      op('\x8a');
      le(b.size(), 1);
      out_ += b;
    }
  }
  void save_float(double d) {
    op('G');
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    for (int i = 7; i >= 0; --i) out_ += char((bits >> (8 * i)) & 0xFF);
  }
  // save_tuple's shape: () alone; TUPLE1-3 after the items; MARK ... TUPLE beyond; memoized.
  template <class F>
  void save_tuple_of(size_t n, const void* key, F&& items) {
    if (n == 0) {
      op(')');
      return;
    }
    if (key && from_memo(key)) return;
    if (n <= 3) {
      items();
      op(n == 1 ? '\x85' : n == 2 ? '\x86' : '\x87');
    } else {
      op('(');
      items();
      op('t');
    }
    memoize(key ? key : fresh_key());
  }
  const void* fresh_key() {
    fresh_.push_back(std::make_shared<char>());
    return fresh_.back().get();
  }
  void save_ints_tuple(IntArrayRef v) {
    save_tuple_of(v.size(), nullptr, [&] {
      for (int64_t x : v) save_int(x);
    });
  }
  void empty_ordered_dict() {  // the backward_hooks argument: OrderedDict()
    save_global("collections", "OrderedDict");
    op(')');
    op('R');
    memoize(fresh_key());
  }
  template <class It>
  void batch_appends(It begin, It end) {
    size_t n = size_t(end - begin);
    for (size_t i = 0; i < n; i += 1000) {
      size_t m = std::min<size_t>(1000, n - i);
      if (m == 1) {
        save(**(begin + ptrdiff_t(i)));
        op('a');
      } else {
        op('(');
        for (size_t j = 0; j < m; ++j) save(**(begin + ptrdiff_t(i + j)));
        op('e');
      }
    }
  }
  void batch_setitems(const std::vector<std::pair<NodePtr, NodePtr>>& entries) {
    size_t n = entries.size();
    for (size_t i = 0; i < n; i += 1000) {
      size_t m = std::min<size_t>(1000, n - i);
      if (m == 1) {
        save(*entries[i].first);
        save(*entries[i].second);
        op('s');
      } else {
        op('(');
        for (size_t j = 0; j < m; ++j) {
          save(*entries[i + j].first);
          save(*entries[i + j].second);
        }
        op('u');
      }
    }
  }
  void save_storage(const Tensor& t) {
    // persistent_id: ('storage', torch.<Type>Storage, key, location, numel)
    const intrusive_ptr<Storage>& s = t.impl()->storage();
    auto it = keys_.find(s.get());
    if (it == keys_.end()) {
      it = keys_.emplace(s.get(), Key{std::to_string(keys_.size()), t.dtype()}).first;
      StorageRef ref{it->second.key, s, t.dtype(),
                     int64_t(s->nbytes() / element_size(t.dtype())), "cpu"};
      on_storage_(ref);
    } else {
      EMBER_CHECK(it->second.dtype == t.dtype(), "Cannot save multiple tensors or storages that "
                  "view the same data as different types");
    }
    size_t numel = s->nbytes() / element_size(t.dtype());
    save_tuple_of(5, nullptr, [&] {
      save_shared_str("storage");
      save_global("torch", storage_type_name(t.dtype()));
      save_str(it->second.key, &it->second);
      save_shared_str("cpu");
      save_int(int64_t(numel));
    });
    op('Q');
  }
  void save_tensor_reduce(const Tensor& t, bool as_data = false) {
    if (t.device().is_meta()) {
      save_global("torch._utils", "_rebuild_meta_tensor_no_storage");
      save_tuple_of(4, nullptr, [&] {
        save_global("torch", dtype_name(t.dtype()));
        save_ints_tuple(t.sizes());
        save_ints_tuple(t.strides());
        save(*Node::of(t.requires_grad() && !as_data));
      });
      op('R');
      return;
    }
    if (t.is_quantized()) {
      save_global("torch._utils", "_rebuild_qtensor");
      save_tuple_of(7, nullptr, [&] {
        save_storage(t);
        save_int(t.storage_offset());
        save_ints_tuple(t.sizes());
        save_ints_tuple(t.strides());
        QScheme qs = qscheme(t);
        if (qs == QScheme::PerTensorAffine) {
          save_tuple_of(3, nullptr, [&] {
            save_global("torch", qscheme_name(qs));
            save_float(q_scale(t));
            save_int(q_zero_point(t));
          });
        } else {
          // PyTorch writes per_channel_affine (float-qparams included) with tensors.
          Tensor scales = q_per_channel_scales(t), zps = q_per_channel_zero_points(t);
          save_tuple_of(4, nullptr, [&] {
            save_global("torch", qscheme_name(QScheme::PerChannelAffine));
            save_tensor(scales);
            save_tensor(zps);
            save_int(q_per_channel_axis(t));
          });
        }
        save(*Node::of(false));
        empty_ordered_dict();
      });
      op('R');
      return;
    }
    save_global("torch._utils", "_rebuild_tensor_v2");
    save_tuple_of(6, nullptr, [&] {
      save_storage(t);
      save_int(t.storage_offset());
      save_ints_tuple(t.sizes());
      save_ints_tuple(t.strides());
      op(t.requires_grad() && !as_data ? '\x88' : '\x89');
      empty_ordered_dict();
    });
    op('R');
  }
  void save_tensor(const Tensor& t, const void* key = nullptr) {
    EMBER_CHECK(t.defined(), "cannot save an undefined tensor");
    if (key && from_memo(key)) return;
    if (t.is_parameter()) {
      // Parameter.__reduce_ex__: _rebuild_parameter(self.data, requires_grad, OrderedDict()).
      save_global("torch._utils", "_rebuild_parameter");
      save_tuple_of(3, nullptr, [&] {
        save_tensor_reduce(t, /*as_data=*/true);
        memoize(fresh_key());  // self.data: a new tensor object, detached
        op(t.requires_grad() ? '\x88' : '\x89');
        empty_ordered_dict();
      });
      op('R');
    } else {
      save_tensor_reduce(t);
    }
    memoize(key ? key : fresh_key());
  }

  void save(const Node& n) {
    // Python's pickler stops at its recursion limit; so does this one, before the stack does.
    struct Depth {
      int& d;
      explicit Depth(int& x) : d(x) { ++d; }
      ~Depth() { --d; }
    } guard(depth_);
    EMBER_CHECK(depth_ <= 1000, "ember.save: the object nests more than 1000 levels deep");
    switch (n.kind) {
      case Kind::None: op('N'); return;
      case Kind::Bool: op(n.boolean ? '\x88' : '\x89'); return;
      case Kind::Int: save_int(n.integer); return;
      case Kind::Float: save_float(n.real); return;
      case Kind::String: save_str(n.str, &n); return;
      case Kind::Bytes: {
        if (from_memo(&n)) return;
        if (proto_ >= 3) {
          if (n.str.size() < 256) {
            op('C');
            le(n.str.size(), 1);
          } else if (n.str.size() <= 0xFFFFFFFFu) {
            op('B');
            le(n.str.size(), 4);
          } else {
            op('\x8e');
            le(n.str.size(), 8);
          }
          out_ += n.str;
        } else if (n.str.empty()) {
          save_global("__builtin__", "bytes");
          op(')');
          op('R');
        } else {
          // Protocol 2: _codecs.encode(str(b, 'latin1'), 'latin1').
          save_global("_codecs", "encode");
          std::string u;
          for (unsigned char c : n.str) {
            if (c < 0x80) {
              u += char(c);
            } else {
              u += char(0xC0 | (c >> 6));
              u += char(0x80 | (c & 0x3F));
            }
          }
          save_tuple_of(2, nullptr, [&] {
            write_str(u);
            memoize(fresh_key());
            save_shared_str("latin1");
          });
          op('R');
        }
        memoize(&n);
        return;
      }
      case Kind::Tensor: save_tensor(n.tensor, &n); return;
      case Kind::Tuple:
        save_tuple_of(n.items.size(), &n, [&] {
          for (const auto& x : n.items) save(*x);
        });
        return;
      case Kind::List:
        if (from_memo(&n)) return;
        op(']');
        memoize(&n);
        batch_appends(n.items.begin(), n.items.end());
        return;
      case Kind::Dict:
        if (from_memo(&n)) return;
        if (n.ordered) {
          save_global("collections", "OrderedDict");
          op(')');
          op('R');
          memoize(&n);
          batch_setitems(n.entries);
          if (n.metadata) {  // vars(od): {'_metadata': ...}, set by BUILD
            op('}');
            memoize(fresh_key());
            save_shared_str("_metadata");
            save(*n.metadata);
            op('s');
            op('b');
          }
        } else {
          op('}');
          memoize(&n);
          batch_setitems(n.entries);
        }
        return;
      case Kind::Set:
      case Kind::FrozenSet: {
        if (from_memo(&n)) return;
        bool frozen = n.kind == Kind::FrozenSet;
        if (proto_ < 4) {
          save_global(proto_ >= 3 ? "builtins" : "__builtin__", frozen ? "frozenset" : "set");
          save_tuple_of(1, nullptr, [&] {
            op(']');
            memoize(fresh_key());
            batch_appends(n.items.begin(), n.items.end());
          });
          op('R');
        } else if (frozen) {
          op('(');
          for (const auto& x : n.items) save(*x);
          op('\x91');
        } else {
          op('\x8f');
          memoize(&n);
          for (size_t i = 0; i < n.items.size(); i += 1000) {
            op('(');
            for (size_t j = i; j < std::min(n.items.size(), i + 1000); ++j) save(*n.items[j]);
            op('\x90');
          }
          return;
        }
        memoize(&n);
        return;
      }
      case Kind::Complex:
        if (from_memo(&n)) return;
        // complex.__reduce_ex__(2): (complex, (re, im)).
        save_global(proto_ >= 3 ? "builtins" : "__builtin__", "complex");
        save_tuple_of(2, nullptr, [&] {
          save_float(n.real);
          save_float(n.imag);
        });
        op('R');
        memoize(&n);
        return;
      case Kind::Size: {
        if (from_memo(&n)) return;
        save_global("torch", "Size");
        save_tuple_of(1, nullptr, [&] {
          save_tuple_of(n.items.size(), nullptr, [&] {
            for (const auto& x : n.items) save(*x);
          });
        });
        op('R');
        memoize(&n);
        return;
      }
      case Kind::DType: save_global("torch", dtype_name(n.dtype)); return;
      case Kind::QScheme: save_global("torch", qscheme_name(n.qscheme)); return;
      case Kind::Device: {
        if (from_memo(&n)) return;
        save_global("torch", "device");
        std::string spec = n.str.empty() ? n.device.str() : n.str;
        // torch.device.__reduce__: (device, (type,)) or (device, (type, index)); a fresh str.
        size_t colon = spec.find(':');
        save_tuple_of(colon == std::string::npos ? 1 : 2, nullptr, [&] {
          write_str(spec.substr(0, colon));
          memoize(fresh_key());
          if (colon != std::string::npos) save_int(std::stoll(spec.substr(colon + 1)));
        });
        op('R');
        memoize(&n);
        return;
      }
      case Kind::Storage:
      case Kind::Global:
        break;
    }
    EMBER_FAIL_KIND(ErrorKind::Type, "cannot save a ", n.type_name());
  }

  struct Key {
    std::string key;
    ScalarType dtype;
  };
  int proto_;
  int depth_ = 0;
  const std::function<void(const StorageRef&)>& on_storage_;
  std::string out_;
  std::unordered_map<const void*, uint64_t> memo_;
  std::unordered_map<std::string, std::shared_ptr<char>> shared_;
  std::vector<std::shared_ptr<char>> fresh_;
  std::unordered_map<const Storage*, Key> keys_;
};

}  // namespace

std::string pickle_node(const NodePtr& obj, int protocol,
                        const std::function<void(const StorageRef&)>& on_storage) {
  return Pickler(protocol, on_storage).dump(obj);
}

}  // namespace ember::serialization::detail
