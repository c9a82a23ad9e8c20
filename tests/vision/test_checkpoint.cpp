// Weight loading on synthetic files built byte by byte here (a minimal ZIP writer and
// pickle emitter following the torch.save layout): nested state dicts, prefixes,
// storage sharing and strides, float16, safetensors round trips, and every error case
// with the message a user needs (file, key, expected vs found shape).
#include <ATen/ATen.h>

#include <QTemporaryDir>
#include <QtTest>

#include "tests/test_support.h"

#include <cstring>
#include <fstream>

#include "core/util/error.h"
#include "core/vision/checkpoint_impl.h"
#include "core/vision/checkpoint_zip.h"

using namespace skytrace::vision;

namespace {

void putLE(std::string& out, uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>((value >> (8 * i)) & 0xFF));
}

// STORED entries, as torch.save writes them. method != 0 only to test refusal.
std::string makeZip(const std::vector<std::pair<std::string, std::string>>& entries,
                    uint16_t method = 0) {
  std::string out, central;
  for (const auto& [name, data] : entries) {
    const uint32_t offset = static_cast<uint32_t>(out.size());
    const uint32_t crc = crc32(data);
    putLE(out, 0x04034b50, 4);
    putLE(out, 20, 2);
    putLE(out, 0, 2);
    putLE(out, method, 2);
    putLE(out, 0, 4);  // time, date
    putLE(out, crc, 4);
    putLE(out, data.size(), 4);
    putLE(out, data.size(), 4);
    putLE(out, name.size(), 2);
    putLE(out, 0, 2);
    out += name + data;
    putLE(central, 0x02014b50, 4);
    putLE(central, 20, 2);
    putLE(central, 20, 2);
    putLE(central, 0, 2);
    putLE(central, method, 2);
    putLE(central, 0, 4);
    putLE(central, crc, 4);
    putLE(central, data.size(), 4);
    putLE(central, data.size(), 4);
    putLE(central, name.size(), 2);
    putLE(central, 0, 2);   // extra
    putLE(central, 0, 2);   // comment
    putLE(central, 0, 2);   // disk
    putLE(central, 0, 2);   // internal attributes
    putLE(central, 0, 4);   // external attributes
    putLE(central, offset, 4);
    central += name;
  }
  const uint32_t central_offset = static_cast<uint32_t>(out.size());
  out += central;
  putLE(out, 0x06054b50, 4);
  putLE(out, 0, 4);
  putLE(out, entries.size(), 2);
  putLE(out, entries.size(), 2);
  putLE(out, central.size(), 4);
  putLE(out, central_offset, 4);
  putLE(out, 0, 2);
  return out;
}

// Pickle protocol-2 emitter for the objects torch.save uses.
struct Pickle {
  std::string p = "\x80\x02";
  Pickle& op(const std::string& code) { p += code; return *this; }
  Pickle& global(const std::string& module, const std::string& name) {
    p += "c" + module + "\n" + name + "\n";
    return *this;
  }
  Pickle& str(const std::string& s) {
    p += "X";
    putLE(p, s.size(), 4);
    p += s;
    return *this;
  }
  Pickle& integer(int64_t v) {
    if (v >= 0 && v < 256) {
      p += "K";
      p.push_back(static_cast<char>(v));
    } else {
      p += "J";
      putLE(p, static_cast<uint64_t>(v), 4);
    }
    return *this;
  }
  Pickle& ints(const std::vector<int64_t>& values) {
    op("(");
    for (int64_t v : values) integer(v);
    return op("t");
  }
  // _rebuild_tensor_v2(persistent storage, offset, size, stride, False, OrderedDict())
  Pickle& tensor(const std::string& storage_type, const std::string& key, int64_t numel,
                 int64_t offset, const std::vector<int64_t>& size,
                 const std::vector<int64_t>& stride) {
    global("torch._utils", "_rebuild_tensor_v2").op("(");
    op("(").str("storage").global("torch", storage_type).str(key).str("cpu").integer(numel).op("t");
    op("Q").integer(offset).ints(size).ints(stride).op("\x89");
    global("collections", "OrderedDict").op(")R");
    return op("tR");
  }
};

std::string floatBytes(const std::vector<float>& values) {
  return std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float));
}

// {'epoch': 3, 'state_dict': OrderedDict(module.a, module.b (view of a's storage),
//  module.h (float16)) with _metadata set by BUILD, 'note': 'text'}
std::string nestedCheckpoint() {
  Pickle k;
  k.op("}(").str("epoch").integer(3).str("state_dict");
  k.global("collections", "OrderedDict").op(")R(");
  k.str("module.a").tensor("FloatStorage", "0", 6, 0, {2, 3}, {3, 1});
  k.str("module.b").tensor("FloatStorage", "0", 6, 1, {2}, {3});
  k.str("module.h").tensor("HalfStorage", "1", 4, 0, {2, 2}, {2, 1});
  k.op("u");
  k.op("}").str("_metadata").op("}s").op("b");  // OrderedDict attributes
  k.str("note").str("text").op("u.");
  const std::vector<uint16_t> half = {0x3C00, 0x4000, 0xC200, 0x3800};  // 1, 2, -3, 0.5
  return makeZip({{"archive/data.pkl", k.p},
                  {"archive/data/0", floatBytes({0, 1, 2, 3, 4, 5})},
                  {"archive/data/1", std::string(reinterpret_cast<const char*>(half.data()), 8)},
                  {"archive/version", "3\n"}});
}

template <typename Fn>
QString errorOf(Fn&& fn) {
  return skytrace::test::errorMessageOf<skytrace::ModelError>(std::forward<Fn>(fn));
}

}  // namespace

class TestCheckpoint : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void nestedStateDictWithSharingAndHalf() {
    const StateDict dict = loadTorchCheckpointBytes(nestedCheckpoint(), "nested.pth");
    QCOMPARE(int(dict.tensors.size()), 3);
    const at::Tensor a = dict.at("module.a"), b = dict.at("module.b"), h = dict.at("module.h");
    QCOMPARE(a.sizes().vec(), (std::vector<int64_t>{2, 3}));
    QVERIFY(at::equal(a, at::arange(6, at::kFloat).view({2, 3})));
    // b = storage[1], storage[4]: a view into the same storage as a.
    QCOMPARE(b[0].item<float>(), 1.f);
    QCOMPARE(b[1].item<float>(), 4.f);
    QCOMPARE(static_cast<const float*>(b.data_ptr()), static_cast<const float*>(a.data_ptr()) + 1);
    QCOMPARE(h.scalar_type(), at::kHalf);
    QVERIFY(at::equal(h.to(at::kFloat), at::tensor({1.f, 2.f, -3.f, 0.5f}).view({2, 2})));

    CheckpointOptions strip;
    strip.strip_prefix = "module.";
    const StateDict stripped = loadTorchCheckpointBytes(nestedCheckpoint(), "nested.pth", strip);
    QVERIFY(stripped.contains("a") && stripped.contains("b") && stripped.contains("h"));

    CheckpointOptions named;
    named.nested_key = "state_dict";
    QCOMPARE(int(loadTorchCheckpointBytes(nestedCheckpoint(), "nested.pth", named).tensors.size()), 3);
    named.nested_key = "model";
    const QString missing = errorOf([&] { loadTorchCheckpointBytes(nestedCheckpoint(), "nested.pth", named); });
    QVERIFY2(missing.contains("nested.pth") && missing.contains("'model'") &&
                 missing.contains("'state_dict'"),
             qPrintable(missing));
  }

  void binderConvertsAndChecks() {
    CheckpointOptions strip;
    strip.strip_prefix = "module.";
    const StateDict dict = loadTorchCheckpointBytes(nestedCheckpoint(), "nested.pth", strip);
    at::Tensor a, b, h;
    StateDictBinder binder(dict, "toy", at::TensorOptions().dtype(at::kFloat));
    binder.bind("a", {2, 3}, &a);
    binder.bind("b", {2}, &b);
    binder.bind("h", {2, 2}, &h);
    binder.finish();
    QCOMPARE(h.scalar_type(), at::kFloat);
    QVERIFY(b.is_contiguous());
    QCOMPARE(h[1][0].item<float>(), -3.f);

    // Every problem at once: shape mismatch, missing key, unexpected key.
    at::Tensor x;
    StateDictBinder wrong(dict, "toy", at::TensorOptions().dtype(at::kFloat));
    wrong.bind("a", {3, 2}, &x);
    wrong.bind("c", {4}, &x);
    wrong.bind("h", {2, 2}, &x);
    const QString message = errorOf([&] { wrong.finish(); });
    QVERIFY2(message.contains("nested.pth") && message.contains("model toy"), qPrintable(message));
    QVERIFY2(message.contains("a: expected [3, 2], found [2, 3]"), qPrintable(message));
    QVERIFY2(message.contains("missing keys: c [4]"), qPrintable(message));
    QVERIFY2(message.contains("unexpected keys: b"), qPrintable(message));
  }

  void damagedFilesAreNamed() {
    const std::string good = nestedCheckpoint();
    const QString truncated =
        errorOf([&] { loadTorchCheckpointBytes(good.substr(0, good.size() / 2), "cut.pth"); });
    QVERIFY2(truncated.contains("cut.pth") && truncated.contains("truncated"), qPrintable(truncated));

    std::string flipped = good;
    flipped[good.find("archive/data/0") + 14 + 2] ^= 0x40;  // a byte of storage 0's data
    const QString crc = errorOf([&] { loadTorchCheckpointBytes(flipped, "flip.pth"); });
    QVERIFY2(crc.contains("flip.pth") && crc.contains("CRC-32"), qPrintable(crc));

    const std::string deflated = makeZip({{"archive/data.pkl", "x"}}, /*method=*/8);
    const QString compressed = errorOf([&] { loadTorchCheckpointBytes(deflated, "zipped.pth"); });
    QVERIFY2(compressed.contains("zipped.pth") && compressed.contains("compressed"),
             qPrintable(compressed));

    const std::string no_pickle = makeZip({{"readme.txt", "hello"}});
    QVERIFY(errorOf([&] { loadTorchCheckpointBytes(no_pickle, "other.zip"); }).contains("no data.pkl"));

    Pickle text_int;
    text_int.op("I42\n.");  // protocol-0 INT: never written by torch.save
    const QString opcode = errorOf([&] {
      loadTorchCheckpointBytes(makeZip({{"a/data.pkl", text_int.p}}), "old.pth");
    });
    QVERIFY2(opcode.contains("old.pth") && opcode.contains("opcode 0x49"), qPrintable(opcode));

    Pickle missing_storage;
    missing_storage.op("}").str("w").tensor("FloatStorage", "7", 2, 0, {2}, {1}).op("s.");
    const QString storage = errorOf([&] {
      loadTorchCheckpointBytes(makeZip({{"a/data.pkl", missing_storage.p}}), "lost.pth");
    });
    QVERIFY2(storage.contains("lost.pth") && storage.contains("a/data/7"), qPrintable(storage));

    Pickle too_big;  // a view larger than its storage
    too_big.op("}").str("w").tensor("FloatStorage", "0", 2, 0, {3}, {1}).op("s.");
    QVERIFY(errorOf([&] {
              loadTorchCheckpointBytes(makeZip({{"a/data.pkl", too_big.p}, {"a/data/0", floatBytes({1, 2})}}),
                                       "big.pth");
            }).contains("exceeds its storage"));
  }

  void fileFormatsAreRecognised() {
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const auto write = [&](const QString& name, const std::string& bytes) {
      const std::string path = dir.filePath(name).toStdString();
      std::ofstream(path, std::ios::binary) << bytes;
      return path;
    };
    const std::string pth = write("w.pth", nestedCheckpoint());
    QCOMPARE(int(loadStateDict(pth).tensors.size()), 3);

    const std::string png = write("image.pth", std::string("\x89PNG\r\n\x1a\n0000000000", 18));
    const QString not_weights = errorOf([&] { loadStateDict(png); });
    QVERIFY2(not_weights.contains("image.pth") && not_weights.contains("a PNG image"),
             qPrintable(not_weights));
    const QString absent = errorOf([&] { loadStateDict(dir.filePath("none.pth").toStdString()); });
    QVERIFY2(absent.contains("none.pth") && absent.contains("not found"), qPrintable(absent));
  }

  void safetensorsRoundTrip() {
    std::map<std::string, at::Tensor> tensors;
    tensors["conv.weight"] = at::randn({4, 3, 3, 3});
    tensors["bn.num_batches_tracked"] = at::tensor(int64_t{7});
    tensors["half"] = at::randn({5}).to(at::kHalf);
    tensors["strided"] = at::arange(12, at::kFloat).view({3, 4}).t();  // non-contiguous
    const std::string bytes = saveSafetensorsBytes(tensors);

    QTemporaryDir dir;
    const std::string path = dir.filePath("w.safetensors").toStdString();
    std::ofstream(path, std::ios::binary) << bytes;
    const StateDict dict = loadStateDict(path);
    QCOMPARE(int(dict.tensors.size()), 4);
    for (const auto& [name, tensor] : tensors) {
      QCOMPARE(dict.at(name).scalar_type(), tensor.scalar_type());
      QVERIFY2(at::equal(dict.at(name), tensor), name.c_str());
    }

    const QString truncated =
        errorOf([&] { loadSafetensorsBytes(bytes.substr(0, bytes.size() - 3), "cut.safetensors"); });
    QVERIFY2(truncated.contains("cut.safetensors") && truncated.contains("truncated"),
             qPrintable(truncated));
    std::string header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[0,12]}}";
    std::string wrong(8, '\0');
    wrong[0] = static_cast<char>(header.size());
    wrong += header + std::string(12, '\0');
    const QString shape = errorOf([&] { loadSafetensorsBytes(wrong, "bad.safetensors"); });
    QVERIFY2(shape.contains("bad.safetensors") && shape.contains("'w'") && shape.contains("[2, 2]"),
             qPrintable(shape));
    // A shape whose element count overflows 64 bits (2^96 elements: 0 modulo 2^64, so
    // "0 bytes" matched empty data_offsets) is refused before any allocation.
    header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,4294967296],"
             "\"data_offsets\":[0,0]}}";
    std::string overflow(8, '\0');
    overflow[0] = static_cast<char>(header.size());
    overflow += header;
    const QString huge = errorOf([&] { loadSafetensorsBytes(overflow, "huge.safetensors"); });
    QVERIFY2(huge.contains("huge.safetensors") && huge.contains("'w'") && huge.contains("larger than"),
             qPrintable(huge));
    // Found by fuzz_checkpoint: floating data_offsets (2.222e23) were converted to
    // uint64 by a plain cast (undefined behaviour); offsets must be integers that fit.
    header = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,2222e20]}}";
    std::string floating(8, '\0');
    floating[0] = static_cast<char>(header.size());
    floating += header + std::string(4, '\0');
    const QString offsets = errorOf([&] { loadSafetensorsBytes(floating, "float.safetensors"); });
    QVERIFY2(offsets.contains("float.safetensors") && offsets.contains("data_offsets"), qPrintable(offsets));
  }
};

QTEST_GUILESS_MAIN(TestCheckpoint)
#include "test_checkpoint.moc"
