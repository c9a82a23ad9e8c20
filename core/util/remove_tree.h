// Removing a folder with everything in it.
// Thread: any (the caller owns the path).
#pragma once

#include <filesystem>

namespace skytrace {

// Removes `path` (a file, a symbolic link or a folder with everything in it) without
// following symbolic links. Best effort: returns false when something could not be
// removed (what could be is gone), true when nothing is left (also when `path` did not
// exist).
// Why not std::filesystem::remove_all: in the CUDA build against PyTorch's LibTorch the
// process resolves it into the copy LibTorch's libraries bundle, and it crashed there
// (segmentation fault on the second `process` run into the same results folder). This
// uses the C library's nftw, which has no such twin.
bool removeTree(const std::filesystem::path& path);

}  // namespace skytrace
