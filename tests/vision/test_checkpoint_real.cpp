// The loader on every real file in ../shared: the parity fixtures' .pt files give
// bit-identical tensors to LibTorch's own torch::jit::pickle_load, and the published ALIKE /
// ALIKED checkpoints (OrderedDicts with _metadata, which pickle_load rejects) load
// completely, with the layer shapes of the published architectures.
#include <ATen/ATen.h>
#include <torch/csrc/jit/serialization/pickle.h>

#include <QDirIterator>
#include <QtTest>

#include "core/util/atomic_file.h"
#include "core/vision/checkpoint_impl.h"
#include "tests/test_support.h"

using namespace skytrace::vision;

class TestCheckpointReal : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void initTestCase() { SKYTRACE_REQUIRE_SHARED(); }

  void fixturesMatchPickleLoad() {
    QDirIterator it(skytrace::test::sharedPath("fixtures/parity"), {"*.pt"}, QDir::Files,
                    QDirIterator::Subdirectories);
    int files = 0, tensors = 0;
    while (it.hasNext()) {
      const std::string path = it.next().toStdString();
      const std::string bytes = skytrace::readFileBytes(path);
      const StateDict ours = loadTorchCheckpointBytes(bytes, path);
      const c10::IValue reference = torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
      const auto dict = reference.toGenericDict();
      QCOMPARE(ours.tensors.size(), dict.size());
      for (const auto& entry : dict) {
        const std::string key = entry.key().toStringRef();
        const at::Tensor expected = entry.value().toTensor();
        const at::Tensor& got = ours.at(key);
        QVERIFY2(got.scalar_type() == expected.scalar_type(), (path + ": " + key).c_str());
        QVERIFY2(got.sizes() == expected.sizes(), (path + ": " + key).c_str());
        QVERIFY2(got.strides() == expected.strides(), (path + ": " + key).c_str());
        // Bit-identical: compare the raw bytes (NaN-safe).
        const at::Tensor a = got.contiguous(), b = expected.contiguous();
        QVERIFY2(std::memcmp(a.data_ptr(), b.data_ptr(), a.numel() * a.element_size()) == 0,
                 (path + ": " + key).c_str());
        ++tensors;
      }
      ++files;
    }
    qInfo("%d fixture files, %d tensors bit-identical to torch::jit::pickle_load", files, tensors);
    QVERIFY(files >= 14);
  }

  void publishedCheckpointsLoad_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("c1");
    for (const auto& [name, c1] : std::vector<std::pair<const char*, int>>{
             {"aliked/aliked-t16.pth", 8}, {"aliked/aliked-n16.pth", 16},
             {"aliked/aliked-n16rot.pth", 16}, {"aliked/aliked-n32.pth", 16},
             {"alike/alike-t.pth", 8}, {"alike/alike-s.pth", 8},
             {"alike/alike-n.pth", 16}, {"alike/alike-l.pth", 32}})
      QTest::newRow(name) << QString(name) << c1;
  }

  void publishedCheckpointsLoad() {
    QFETCH(QString, file);
    QFETCH(int, c1);
    const std::string path = skytrace::test::sharedPath("models/" + file).toStdString();
    const StateDict dict = loadStateDict(path);
    QVERIFY(dict.tensors.size() > 30);
    QCOMPARE(dict.at("block1.conv1.weight").sizes().vec(), (std::vector<int64_t>{c1, 3, 3, 3}));
    QCOMPARE(dict.at("block1.bn1.num_batches_tracked").scalar_type(), at::kLong);
    for (const auto& [key, tensor] : dict.tensors)
      if (at::isFloatingType(tensor.scalar_type()))
        QVERIFY2(at::isfinite(tensor).all().item<bool>(), key.c_str());
    // pickle_load cannot read these (OrderedDict with _metadata): that is why we have ours.
    const std::string bytes = skytrace::readFileBytes(path);
    bool pickle_load_fails = false;
    try {
      torch::jit::pickle_load(std::vector<char>(bytes.begin(), bytes.end()));
    } catch (const std::exception&) {
      pickle_load_fails = true;
    }
    if (!pickle_load_fails) qInfo("note: torch::jit::pickle_load also reads %s", qPrintable(file));
  }
};

QTEST_GUILESS_MAIN(TestCheckpointReal)
#include "test_checkpoint_real.moc"
