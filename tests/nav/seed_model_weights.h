// Test helper: weights of the satellite stage's seed models in their PUBLISHED layouts,
// made from the parity fixtures' random weights (real checkpoints are not on this machine).
// LiteSAM's fixture already has the published layout; DINOv2's fixture is a depth-4
// ViT-S/14, so the published depth-12 layout is made by repeating its blocks 0-3 as
// blocks 4-11 (same key names and shapes as dinov2_vits14_pretrain.pth). Random weights
// give wrong fixes: tests built on these check the pipeline, not its accuracy.
#pragma once

#include <ATen/ATen.h>

#include <QDir>
#include <QString>

#include <fstream>
#include <map>
#include <string>

#include "core/vision/checkpoint_impl.h"
#include "tests/test_support.h"

namespace skytrace::test {

inline QString liteSamFixtureWeights() { return sharedPath("fixtures/parity/litesam/weights.pt"); }

// Writes <directory>/dinov2_vits14_pretrain.safetensors and returns its path.
inline QString writeDinov2VitS14Weights(const QString& directory) {
  constexpr int kFixtureDepth = 4, kPublishedDepth = 12;
  const vision::StateDict fixture =
      vision::loadStateDict(sharedPath("fixtures/parity/dinov2_vits14/weights.pt").toStdString());
  std::map<std::string, at::Tensor> published;
  const std::string block = "blocks.";
  for (const auto& [key, tensor] : fixture.tensors) {
    const at::Tensor value = tensor.to(at::kFloat);  // the fixture stores float16
    if (key.rfind(block, 0) != 0) {
      published[key] = value;
      continue;
    }
    const std::size_t dot = key.find('.', block.size());
    const int index = std::stoi(key.substr(block.size(), dot - block.size()));
    for (int copy = index; copy < kPublishedDepth; copy += kFixtureDepth)
      published[block + std::to_string(copy) + key.substr(dot)] = value;
  }
  const QString path = QDir(directory).filePath("dinov2_vits14_pretrain.safetensors");
  std::ofstream out(path.toStdString(), std::ios::binary);
  const std::string bytes = vision::saveSafetensorsBytes(published);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  return path;
}

}  // namespace skytrace::test
