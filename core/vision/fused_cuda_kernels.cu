// The shared fused CUDA kernels (contracts in fused_cuda_kernels.h and fused_ops.h). Each
// replaces a chain of ATen operators whose intermediate tensors would otherwise make round
// trips through device memory. Arithmetic follows the operators it replaces: comparisons
// only for the NMS (exact), float accumulation with float16 rounding where ATen rounds for
// LightGlue's steps, float32 for LiteSAM's matching (its dual softmaxes and argmaxes).
#include "core/vision/fused_cuda_kernels.h"

#include <algorithm>
#include <cfloat>

namespace skytrace::vision::fused::cuda {
namespace {

int blocksFor(int64_t work, int threads) {
  return static_cast<int>(std::max<int64_t>(1, (work + threads - 1) / threads));
}

// ---- simple_nms ---------------------------------------------------------------------

// Output pixels per block; the block reads the tile and an r-pixel halo into shared
// memory and takes the (2r+1)^2 window maximum as a row pass and a column pass (a maximum
// is separable): 2(2r+1) shared reads per pixel.
constexpr int kTileW = 32, kTileH = 16, kNmsThreads = 256;

int nmsSharedBytes(int r) {
  return static_cast<int>(sizeof(float)) * (kTileH + 2 * r) * (2 * kTileW + 2 * r);
}

enum class NmsStep {
  kInit,    // mask = score == max_pool(score)
  kDilate,  // suppressed = max_pool(mask) > 0
  kRound,   // mask |= (supp == max_pool(supp)) & ~suppressed, supp = where(suppressed, 0, score)
};

// One step of simple_nms over a tile. The window is clipped to the map (max_pool2d's
// -inf padding never wins). kRound with `out` set is the last round: it writes
// where(mask | new maximum, score, 0) with the border zeroed instead of updating mask.
template <NmsStep kStep>
__global__ void nmsWindowKernel(const float* __restrict__ s, const uint8_t* __restrict__ flags, int h, int w,
                                int r, uint8_t* mask, int border, float* __restrict__ out) {
  extern __shared__ float shared[];
  const int tile_w = kTileW + 2 * r, tile_h = kTileH + 2 * r;
  float* tile = shared;                       // [tile_h, tile_w] window sources
  float* row_max = shared + tile_h * tile_w;  // [tile_h, kTileW]
  const int x0 = blockIdx.x * kTileW, y0 = blockIdx.y * kTileH;
  for (int i = threadIdx.x; i < tile_h * tile_w; i += blockDim.x) {
    const int y = y0 - r + i / tile_w, x = x0 - r + i % tile_w;
    float v = -FLT_MAX;
    if (y >= 0 && y < h && x >= 0 && x < w) {
      const int64_t q = static_cast<int64_t>(y) * w + x;
      if (kStep == NmsStep::kInit) v = s[q];
      else if (kStep == NmsStep::kDilate) v = flags[q];
      else v = flags[q] ? 0.f : s[q];
    }
    tile[i] = v;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < tile_h * kTileW; i += blockDim.x) {
    const float* row = tile + (i / kTileW) * tile_w + i % kTileW;
    float m = row[0];
    for (int k = 1; k <= 2 * r; ++k) m = fmaxf(m, row[k]);
    row_max[i] = m;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kTileH * kTileW; i += blockDim.x) {
    const int ty = i / kTileW, tx = i % kTileW;
    const int y = y0 + ty, x = x0 + tx;
    if (y >= h || x >= w) continue;
    const float* column = row_max + ty * kTileW + tx;
    float m = column[0];
    for (int k = 1; k <= 2 * r; ++k) m = fmaxf(m, column[k * kTileW]);
    const int64_t p = static_cast<int64_t>(y) * w + x;
    if (kStep == NmsStep::kInit) {
      mask[p] = s[p] == m;
    } else if (kStep == NmsStep::kDilate) {
      mask[p] = m > 0.f;
    } else {
      const bool new_max = !flags[p] && s[p] == m;
      if (out) {
        const bool inner = y >= border && y < h - border && x >= border && x < w - border;
        out[p] = inner && (mask[p] || new_max) ? s[p] : 0.f;
      } else if (new_max) {
        mask[p] = 1;
      }
    }
  }
}

// ---- LightGlue: LayerNorm + GELU, rotary encoding -----------------------------------

__device__ __forceinline__ float warpSum(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

__device__ __forceinline__ float roundToHalf(float v) { return __half2float(__float2half(v)); }

constexpr int kChunk = 8;           // float16 values per 16-byte load
constexpr int kMaxChunksPerLane = 4;  // 32 lanes x 4 x 8 = 1024 channels

// One warp per row: the row's values stay in registers between the mean, the variance
// (two passes, float) and the output.
__global__ void layerNormGeluKernel(const __half* __restrict__ x, const __half* __restrict__ weight,
                                    const __half* __restrict__ bias, float eps, __half* __restrict__ y,
                                    int64_t rows, int channels) {
  const int64_t row = static_cast<int64_t>(blockIdx.x) * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  const int chunks = channels / kChunk;
  const uint4* in = reinterpret_cast<const uint4*>(x + row * channels);
  float v[kMaxChunksPerLane][kChunk];
  float sum = 0.f;
#pragma unroll
  for (int c = 0; c < kMaxChunksPerLane; ++c) {
    const int chunk = lane + 32 * c;
    if (chunk >= chunks) continue;
    const uint4 raw = in[chunk];
    const __half2* pairs = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
    for (int k = 0; k < kChunk / 2; ++k) {
      const float2 f = __half22float2(pairs[k]);
      v[c][2 * k] = f.x;
      v[c][2 * k + 1] = f.y;
      sum += f.x + f.y;
    }
  }
  const float mean = warpSum(sum) / static_cast<float>(channels);
  float squares = 0.f;
#pragma unroll
  for (int c = 0; c < kMaxChunksPerLane; ++c) {
    if (lane + 32 * c >= chunks) continue;
#pragma unroll
    for (int k = 0; k < kChunk; ++k) {
      const float d = v[c][k] - mean;
      squares += d * d;
    }
  }
  const float rstd = rsqrtf(warpSum(squares) / static_cast<float>(channels) + eps);
  uint4* dst = reinterpret_cast<uint4*>(y + row * channels);
  const uint4* gamma = reinterpret_cast<const uint4*>(weight);
  const uint4* beta = reinterpret_cast<const uint4*>(bias);
#pragma unroll
  for (int c = 0; c < kMaxChunksPerLane; ++c) {
    const int chunk = lane + 32 * c;
    if (chunk >= chunks) continue;
    const uint4 g_raw = gamma[chunk], b_raw = beta[chunk];
    const __half2* g = reinterpret_cast<const __half2*>(&g_raw);
    const __half2* b = reinterpret_cast<const __half2*>(&b_raw);
    uint4 result;
    __half2* r = reinterpret_cast<__half2*>(&result);
#pragma unroll
    for (int k = 0; k < kChunk / 2; ++k) {
      const float2 gk = __half22float2(g[k]), bk = __half22float2(b[k]);
      float pair[2];
      for (int e = 0; e < 2; ++e) {
        const float normed = roundToHalf((v[c][2 * k + e] - mean) * rstd * (e ? gk.y : gk.x) + (e ? bk.y : bk.x));
        pair[e] = 0.5f * normed * (1.f + erff(normed * static_cast<float>(M_SQRT1_2)));
      }
      r[k] = __floats2half2_rn(pair[0], pair[1]);
    }
    dst[chunk] = result;
  }
}

// One thread per feature pair (2i, 2i+1) of q or k; `pair` enumerates out's pairs in
// memory order [2, batch, n, heads, head_dim / 2] (fewer than 2^31: 32-bit index
// arithmetic, checked by the launcher).
__global__ void rotaryQkKernel(const __half2* __restrict__ qkv, const __half2* __restrict__ tables,
                               __half2* __restrict__ out, int batch, int n, int heads, int half_dim) {
  const int pairs = 2 * batch * heads * n * half_dim;
  for (int pair = blockIdx.x * blockDim.x + threadIdx.x; pair < pairs; pair += gridDim.x * blockDim.x) {
    int rest = pair;
    const int d = rest % half_dim;
    rest /= half_dim;
    const int h = rest % heads;
    rest /= heads;
    const int i = rest % n;
    rest /= n;
    const int b = rest % batch;
    const int j = rest / batch;  // 0: q, 1: k
    const float2 t = __half22float2(qkv[((b * n + i) * 3 + j) * heads * half_dim + h * half_dim + d]);
    const int row = (b * 2 * n + i) * half_dim + d;
    const float2 c = __half22float2(tables[row]);
    const float2 s = __half22float2(tables[row + n * half_dim]);
    // addcmul(t * cos, swap_pairs(t), signed_sin): the product rounded to float16 first.
    out[pair] = __floats2half2_rn(roundToHalf(t.x * c.x) + t.y * s.x, roundToHalf(t.y * c.y) + t.x * s.y);
  }
}

// ---- 2x2 max pooling, channels-last float16 ----------------------------------------

// One thread per output pixel and 8 channels: four 16-byte reads, one 16-byte write.
// max_pool2d's NaN rule (a NaN wins) through __hmax2_nan.
__global__ void maxPool2x2Kernel(const uint4* __restrict__ x, uint4* __restrict__ y, int height, int width,
                                 int chunks, int64_t outputs) {
  const int out_w = width / 2, out_h = height / 2;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < outputs;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int chunk = static_cast<int>(i % chunks);
    const int64_t pixel = i / chunks;
    const int ox = static_cast<int>(pixel % out_w);
    const int64_t rest = pixel / out_w;
    const int oy = static_cast<int>(rest % out_h);
    const int64_t image = rest / out_h;
    const int64_t top = ((image * height + 2 * oy) * width + 2 * ox) * chunks + chunk;
    const int64_t bottom = top + static_cast<int64_t>(width) * chunks;
    uint4 v[4] = {x[top], x[top + chunks], x[bottom], x[bottom + chunks]};
    uint4 result;
    __half2* r = reinterpret_cast<__half2*>(&result);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const __half2 a = __hmax2_nan(reinterpret_cast<const __half2*>(&v[0])[k], reinterpret_cast<const __half2*>(&v[1])[k]);
      const __half2 b = __hmax2_nan(reinterpret_cast<const __half2*>(&v[2])[k], reinterpret_cast<const __half2*>(&v[3])[k]);
      r[k] = __hmax2_nan(a, b);
    }
    y[i] = result;
  }
}

// ---- LiteSAM: the coarse dual softmax ------------------------------------------------
//
// conf = softmax(x, dim 0) * softmax(x, dim 1) for x = sim * inv_temperature, reduced to
// its row maxima (with their first column) and column maxima without ever writing conf:
// softmax statistics per row and per column (maximum, 1 / sum of exp(x - maximum)), then
// one pass per direction recomputing conf from them. Both passes evaluate dualSoftmax() on
// the same operands, so where a row's maximum is also its column's, the two values are
// equal bit for bit (the mutual-nearest test compares them).

__device__ __forceinline__ float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// x = sim * inv_temperature rounded once (never contracted into a later subtraction), so
// that every pass sees the same x.
__device__ __forceinline__ float scaled(float sim, float inv_temperature) { return __fmul_rn(sim, inv_temperature); }

// The dual softmax from the statistics of x's row and column, float2 (max, 1 / sum):
// exp(x - row max) exp(x - column max) / (row sum column sum) as one exponential and one
// product (ATen's chain: two exponentials and two divisions; the same up to float
// rounding).
__device__ __forceinline__ float dualSoftmax(float x, float2 row, float2 col) {
  return expf((x - row.x) + (x - col.x)) * (row.y * col.y);
}

// Two softmax statistics (max, sum) of disjoint parts merged.
__device__ __forceinline__ float2 mergeSoftmaxStats(float2 a, float2 b) {
  const float m = fmaxf(a.x, b.x);
  if (m == -INFINITY) return make_float2(m, 0.f);
  return make_float2(m, a.y * expf(a.x - m) + b.y * expf(b.x - m));
}

// The larger value; the smaller index among equal values (the first maximum).
__device__ __forceinline__ void warpArgMax(float& value, int& index) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, value, offset);
    const int other_index = __shfl_xor_sync(0xffffffffu, index, offset);
    if (other > value || (other == value && other_index < index)) {
      value = other;
      index = other_index;
    }
  }
}

constexpr int kSoftmaxWarps = 8;                       // rows per block of the row passes
constexpr int kColumnTile = 32, kColumnGroups = 8;     // column passes: 32 columns x 8 row groups
constexpr int kColumnChunks = 16;                      // ... over 16 chunks of rows (more blocks)

// One warp per row: the maximum, then the sum (two passes, as ATen's row softmax); stats
// [rows] (max, 1 / sum).
__global__ void rowSoftmaxStatsKernel(const float* __restrict__ sim, int rows, int cols, float inv_temperature,
                                      float2* __restrict__ stats) {
  const int row = blockIdx.x * kSoftmaxWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* x = sim + static_cast<int64_t>(row) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, scaled(x[c], inv_temperature));
  m = warpMax(m);
  float sum = 0.f;
  for (int c = lane; c < cols; c += 32) sum += expf(scaled(x[c], inv_temperature) - m);
  sum = warpSum(sum);
  if (lane == 0) stats[row] = make_float2(m, 1.f / sum);
}

// Block (kColumnTile columns, kColumnGroups row groups) over chunk blockIdx.y of the rows:
// an online maximum and sum per thread, merged over the groups: partial[chunk][col] (max,
// sum).
__global__ void columnSoftmaxStatsKernel(const float* __restrict__ sim, int rows, int cols, float inv_temperature,
                                         float2* __restrict__ partial) {
  __shared__ float2 groups[kColumnGroups][kColumnTile];
  const int col = blockIdx.x * kColumnTile + threadIdx.x;
  const int chunk_rows = (rows + kColumnChunks - 1) / kColumnChunks;
  const int end = min(rows, (blockIdx.y + 1) * chunk_rows);
  float2 s = make_float2(-INFINITY, 0.f);
  if (col < cols) {
#pragma unroll 4
    for (int r = blockIdx.y * chunk_rows + threadIdx.y; r < end; r += kColumnGroups) {
      const float x = scaled(sim[static_cast<int64_t>(r) * cols + col], inv_temperature);
      if (x > s.x) {
        s.y = s.y * expf(s.x - x) + 1.f;
        s.x = x;
      } else {
        s.y += expf(x - s.x);
      }
    }
  }
  groups[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y != 0 || col >= cols) return;
  for (int g = 1; g < kColumnGroups; ++g) s = mergeSoftmaxStats(s, groups[g][threadIdx.x]);
  partial[static_cast<int64_t>(blockIdx.y) * cols + col] = s;
}

// stats[col] = (max, 1 / sum) of the chunks' partial statistics.
__global__ void mergeColumnStatsKernel(const float2* __restrict__ partial, int cols, float2* __restrict__ stats) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  if (col >= cols) return;
  float2 s = partial[col];
  for (int chunk = 1; chunk < kColumnChunks; ++chunk) s = mergeSoftmaxStats(s, partial[chunk * cols + col]);
  stats[col] = make_float2(s.x, 1.f / s.y);
}

// One warp per row: the row's largest conf and its first column.
__global__ void rowConfMaxKernel(const float* __restrict__ sim, int rows, int cols, float inv_temperature,
                                 const float2* __restrict__ row_stats, const float2* __restrict__ col_stats,
                                 float* __restrict__ row_max, int64_t* __restrict__ row_arg) {
  const int row = blockIdx.x * kSoftmaxWarps + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const float* x = sim + static_cast<int64_t>(row) * cols;
  const float2 stats = row_stats[row];
  float best = -1.f;  // conf >= 0
  int arg = cols;
#pragma unroll 4
  for (int c = lane; c < cols; c += 32) {
    const float v = dualSoftmax(scaled(x[c], inv_temperature), stats, col_stats[c]);
    if (v > best) {
      best = v;
      arg = c;
    }
  }
  warpArgMax(best, arg);
  if (lane == 0) {
    row_max[row] = best;
    row_arg[row] = arg < cols ? arg : 0;
  }
}

// Blocks as columnSoftmaxStatsKernel: each column's largest conf over a chunk of rows,
// merged into col_max (zeroed before) with an integer atomicMax: conf >= 0, where the
// float's bits order as integers.
__global__ void columnConfMaxKernel(const float* __restrict__ sim, int rows, int cols, float inv_temperature,
                                    const float2* __restrict__ row_stats, const float2* __restrict__ col_stats,
                                    float* __restrict__ col_max) {
  __shared__ float groups[kColumnGroups][kColumnTile];
  const int col = blockIdx.x * kColumnTile + threadIdx.x;
  const int chunk_rows = (rows + kColumnChunks - 1) / kColumnChunks;
  const int end = min(rows, (blockIdx.y + 1) * chunk_rows);
  float best = 0.f;
  if (col < cols) {
    const float2 stats = col_stats[col];
#pragma unroll 4
    for (int r = blockIdx.y * chunk_rows + threadIdx.y; r < end; r += kColumnGroups)
      best = fmaxf(best, dualSoftmax(scaled(sim[static_cast<int64_t>(r) * cols + col], inv_temperature),
                                      row_stats[r], stats));
  }
  groups[threadIdx.y][threadIdx.x] = best;
  __syncthreads();
  if (threadIdx.y != 0 || col >= cols) return;
  for (int g = 1; g < kColumnGroups; ++g) best = fmaxf(best, groups[g][threadIdx.x]);
  atomicMax(reinterpret_cast<int*>(col_max + col), __float_as_int(best));
}

// ---- LiteSAM: the fine stage's windows ------------------------------------------------
//
// One block per match: both windows from the fine maps into shared memory as float,
// conf_f = (f0 / 8)(f1 / 8)^T over the 56 matching channels ([64, 100], a register-tiled
// product), its dual softmax, the argmax over image 1's inner 8x8, then the nine dot
// products of the regression channels around it.

constexpr int kFineChannels = 64, kRegressChannels = 8, kMatchChannels = kFineChannels - kRegressChannels;
constexpr int kWindow0 = 8, kWindow1 = 10;  // image 1's window: 8 + one pixel of padding each side
constexpr int kPixels0 = kWindow0 * kWindow0, kPixels1 = kWindow1 * kWindow1;
constexpr int kPixels1Padded = 112;  // 7 column groups of 16 in the product
constexpr int kFineThreads = 256;    // 16 row groups (4 rows each) x 16 column groups

struct alignas(16) FineWindowShared {
  union {
    struct {
      float f0[kMatchChannels][kPixels0];        // channel-major
      float f1[kMatchChannels][kPixels1Padded];  // zero beyond kPixels1
    } windows;
    float conf[kPixels0][kPixels1 + 1];  // after the product; +1 staggers the rows' banks
  };
  float ff0[kRegressChannels][kPixels0];
  float ff1[kRegressChannels][kPixels1];  // already / sqrt(8)
  float2 row_stats[kPixels0], col_stats[kPixels1];  // (max, 1 / sum)
  float best_value[kFineThreads / 32];
  int best_index[kFineThreads / 32];
};

__device__ __forceinline__ float toFloat(float v) { return v; }
__device__ __forceinline__ float toFloat(__half v) { return __half2float(v); }

// Three blocks per SM (80 registers per thread): room for a thread's 41 loads in flight at once.
template <typename T>
__global__ void __launch_bounds__(kFineThreads, 3)
    fineWindowMatchKernel(const T* __restrict__ fine0, int height0, int width0, const T* __restrict__ fine1,
                          int height1, int width1, const int64_t* __restrict__ cells0,
                          const int64_t* __restrict__ cells1, int64_t* __restrict__ best,
                          float* __restrict__ heatmap) {
  __shared__ FineWindowShared sh;
  const int match = blockIdx.x, tid = threadIdx.x;
  const int grid_w0 = width0 / kWindow0, grid_w1 = width1 / kWindow0;
  const int64_t plane0 = static_cast<int64_t>(height0) * width0, plane1 = static_cast<int64_t>(height1) * width1;
  const int64_t cell0 = cells0[match], cell1 = cells1[match];
  if (cell0 < 0 || cell0 >= plane0 / (kWindow0 * kWindow0) || cell1 < 0 ||
      cell1 >= plane1 / (kWindow0 * kWindow0)) {  // outside the contract: no read
    if (tid < 9) heatmap[match * 9 + tid] = 0.f;
    if (tid == 0) best[match] = 0;
    return;
  }
  // Image 0: the 8x8 pixels of the cell. Image 1: 10x10 from one pixel up and left of its
  // cell, zero outside the map (unfold's padding).
  // All of a thread's loads are issued before its first store (they do not depend on
  // each other), so that their latencies overlap.
  const int top0 = static_cast<int>(cell0 / grid_w0) * kWindow0, left0 = static_cast<int>(cell0 % grid_w0) * kWindow0;
  constexpr int kLoads0 = kFineChannels * kPixels0 / kFineThreads, kLoads1 = kFineChannels * kPixels1 / kFineThreads;
  static_assert(kLoads0 * kFineThreads == kFineChannels * kPixels0 && kLoads1 * kFineThreads == kFineChannels * kPixels1,
                "whole loads per thread");
  float v0[kLoads0];
#pragma unroll
  for (int i = 0; i < kLoads0; ++i) {
    const int e = tid + i * kFineThreads, ch = e / kPixels0, p = e % kPixels0;
    v0[i] = toFloat(fine0[ch * plane0 + static_cast<int64_t>(top0 + p / kWindow0) * width0 + left0 + p % kWindow0]);
  }
  const int top1 = static_cast<int>(cell1 / grid_w1) * kWindow0 - 1;
  const int left1 = static_cast<int>(cell1 % grid_w1) * kWindow0 - 1;
  float v1[kLoads1];
#pragma unroll
  for (int i = 0; i < kLoads1; ++i) {
    const int e = tid + i * kFineThreads, ch = e / kPixels1, p = e % kPixels1;
    const int y = top1 + p / kWindow1, x = left1 + p % kWindow1;
    const bool inside = y >= 0 && y < height1 && x >= 0 && x < width1;
    v1[i] = inside ? toFloat(fine1[ch * plane1 + static_cast<int64_t>(y) * width1 + x]) : 0.f;
  }
#pragma unroll
  for (int i = 0; i < kLoads0; ++i) {
    const int e = tid + i * kFineThreads, ch = e / kPixels0, p = e % kPixels0;
    if (ch < kMatchChannels)
      sh.windows.f0[ch][p] = v0[i];
    else
      sh.ff0[ch - kMatchChannels][p] = v0[i];
  }
  const float inv_sqrt_regress = 1.f / sqrtf(static_cast<float>(kRegressChannels));  // as ATen: * (1 / sqrt(8))
#pragma unroll
  for (int i = 0; i < kLoads1; ++i) {
    const int e = tid + i * kFineThreads, ch = e / kPixels1, p = e % kPixels1;
    if (ch < kMatchChannels)
      sh.windows.f1[ch][p] = v1[i];
    else
      sh.ff1[ch - kMatchChannels][p] = v1[i] * inv_sqrt_regress;
  }
  constexpr int kPadding1 = kPixels1Padded - kPixels1;  // the product's zero columns
  for (int e = tid; e < kMatchChannels * kPadding1; e += kFineThreads)
    sh.windows.f1[e / kPadding1][kPixels1 + e % kPadding1] = 0.f;
  __syncthreads();

  // conf_f: thread (rows 4 * rg .. +3, columns cg + 16 t). Both factors / sqrt(64) = / 8
  // are exact, so the sum is scaled by 1/64 once.
  const int rg = tid / 16, cg = tid % 16;
  float acc[4][7] = {};
#pragma unroll 4
  for (int k = 0; k < kMatchChannels; ++k) {
    const float4 a = *reinterpret_cast<const float4*>(&sh.windows.f0[k][rg * 4]);
#pragma unroll
    for (int t = 0; t < 7; ++t) {
      const float b = sh.windows.f1[k][cg + 16 * t];
      acc[0][t] += a.x * b;
      acc[1][t] += a.y * b;
      acc[2][t] += a.z * b;
      acc[3][t] += a.w * b;
    }
  }
  __syncthreads();  // the windows' memory becomes conf
#pragma unroll
  for (int i = 0; i < 4; ++i)
#pragma unroll
    for (int t = 0; t < 7; ++t)
      if (cg + 16 * t < kPixels1) sh.conf[rg * 4 + i][cg + 16 * t] = acc[i][t] * (1.f / kFineChannels);
  __syncthreads();

  // Softmax statistics: per row of conf (over image 1's 100 pixels, a warp each) and per
  // column (over image 0's 64, a thread each).
  const int warp = tid / 32, lane = tid % 32;
  for (int l = warp; l < kPixels0; l += kFineThreads / 32) {
    float m = -INFINITY;
    for (int s = lane; s < kPixels1; s += 32) m = fmaxf(m, sh.conf[l][s]);
    m = warpMax(m);
    float sum = 0.f;
    for (int s = lane; s < kPixels1; s += 32) sum += expf(sh.conf[l][s] - m);
    sum = warpSum(sum);
    if (lane == 0) sh.row_stats[l] = make_float2(m, 1.f / sum);
  }
  if (tid < kPixels1) {
    float m = -INFINITY;
    for (int l = 0; l < kPixels0; ++l) m = fmaxf(m, sh.conf[l][tid]);
    float sum = 0.f;
    for (int l = 0; l < kPixels0; ++l) sum += expf(sh.conf[l][tid] - m);
    sh.col_stats[tid] = make_float2(m, 1.f / sum);
  }
  __syncthreads();

  // The argmax of the dual softmax over (image-0 pixel l, inner image-1 pixel k): index
  // l * 64 + k, the first on ties.
  float value = -1.f;
  int index = kPixels0 * kPixels0;
  for (int e = tid; e < kPixels0 * kPixels0; e += kFineThreads) {
    const int l = e / kPixels0, k = e % kPixels0;
    const int s = (k / kWindow0 + 1) * kWindow1 + k % kWindow0 + 1;
    const float v = dualSoftmax(sh.conf[l][s], sh.row_stats[l], sh.col_stats[s]);
    if (v > value) {
      value = v;
      index = e;
    }
  }
  warpArgMax(value, index);
  if (lane == 0) {
    sh.best_value[warp] = value;
    sh.best_index[warp] = index;
  }
  __syncthreads();
  if (warp == 0) {
    value = lane < kFineThreads / 32 ? sh.best_value[lane] : -1.f;
    index = lane < kFineThreads / 32 ? sh.best_index[lane] : kPixels0 * kPixels0;
    warpArgMax(value, index);
    if (lane == 0) sh.best_index[0] = index < kPixels0 * kPixels0 ? index : 0;
  }
  __syncthreads();

  // The 3x3 heatmap: conf_ff at image-0 pixel l and image 1's padded-window positions
  // (r + dy, c + dx) around the inner position (r, c) taken as a padded one; -1 wraps to 9
  // (PyTorch's negative index).
  const int chosen = sh.best_index[0];
  if (tid < 9) {
    const int l = chosen / kPixels0, k = chosen % kPixels0;
    const int r = (k / kWindow0 + tid / 3 - 1 + kWindow1) % kWindow1;
    const int c = (k % kWindow0 + tid % 3 - 1 + kWindow1) % kWindow1;
    float h = 0.f;
#pragma unroll
    for (int ch = 0; ch < kRegressChannels; ++ch) h += sh.ff0[ch][l] * sh.ff1[ch][r * kWindow1 + c];
    heatmap[match * 9 + tid] = h;
  }
  if (tid == 0) best[match] = chosen;
}

}  // namespace

cudaError_t launchMaxPool2x2(const __half* x, __half* y, int images, int height, int width, int channels,
                             cudaStream_t stream) {
  if (channels % kChunk != 0) return cudaErrorInvalidValue;
  const int chunks = channels / kChunk;
  const int64_t outputs = static_cast<int64_t>(images) * (height / 2) * (width / 2) * chunks;
  if (outputs == 0) return cudaSuccess;
  const int blocks = static_cast<int>(std::min<int64_t>(blocksFor(outputs, 256), 132 * 64));
  maxPool2x2Kernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const uint4*>(x), reinterpret_cast<uint4*>(y), height,
                                               width, chunks, outputs);
  return cudaGetLastError();
}

cudaError_t launchNmsScores(const float* score, int height, int width, int nms_radius, int border, uint8_t* mask,
                            uint8_t* suppressed, float* out, cudaStream_t stream) {
  if (nms_radius < 0 || nms_radius > kMaxNmsRadius) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>((width + kTileW - 1) / kTileW),
                  static_cast<unsigned>((height + kTileH - 1) / kTileH));
  const int shared = nmsSharedBytes(nms_radius);
  const int r = nms_radius;
  nmsWindowKernel<NmsStep::kInit><<<grid, kNmsThreads, shared, stream>>>(score, nullptr, height, width, r, mask, 0,
                                                                         nullptr);
  for (int round = 0; round < 2; ++round) {
    nmsWindowKernel<NmsStep::kDilate><<<grid, kNmsThreads, shared, stream>>>(nullptr, mask, height, width, r,
                                                                             suppressed, 0, nullptr);
    nmsWindowKernel<NmsStep::kRound><<<grid, kNmsThreads, shared, stream>>>(score, suppressed, height, width, r,
                                                                            mask, border, round == 1 ? out : nullptr);
  }
  return cudaGetLastError();
}

cudaError_t launchLayerNormGelu(const __half* x, const __half* weight, const __half* bias, float eps, __half* y,
                                int64_t rows, int channels, cudaStream_t stream) {
  if (channels % kChunk != 0 || channels > 32 * kMaxChunksPerLane * kChunk) return cudaErrorInvalidValue;
  constexpr int kWarps = 8;
  layerNormGeluKernel<<<blocksFor(rows, kWarps), kWarps * 32, 0, stream>>>(x, weight, bias, eps, y, rows, channels);
  return cudaGetLastError();
}

cudaError_t launchRotaryQk(const __half* qkv, const __half* tables, __half* out, int batch, int n, int heads,
                           int head_dim, cudaStream_t stream) {
  // Every index below 2^31 (3 * batch * n * heads * head_dim halves of qkv, as pairs).
  if (head_dim % 2 != 0 || 3LL * batch * n * heads * head_dim >= (1LL << 31)) return cudaErrorInvalidValue;
  const int64_t pairs = 2LL * batch * heads * n * (head_dim / 2);
  const int blocks = static_cast<int>(std::min<int64_t>(blocksFor(pairs, 256), 132 * 32));
  rotaryQkKernel<<<blocks, 256, 0, stream>>>(reinterpret_cast<const __half2*>(qkv),
                                             reinterpret_cast<const __half2*>(tables),
                                             reinterpret_cast<__half2*>(out), batch, n, heads, head_dim / 2);
  return cudaGetLastError();
}

cudaError_t launchDualSoftmaxMaxima(const float* sim, int rows, int cols, float inv_temperature, float2* row_stats,
                                    float2* col_stats, float2* col_partial, float* row_max, int64_t* row_arg,
                                    float* col_max, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return cudaErrorInvalidValue;
  const int row_blocks = blocksFor(rows, kSoftmaxWarps);
  const dim3 column_grid(blocksFor(cols, kColumnTile), kColumnChunks), column_block(kColumnTile, kColumnGroups);
  rowSoftmaxStatsKernel<<<row_blocks, kSoftmaxWarps * 32, 0, stream>>>(sim, rows, cols, inv_temperature, row_stats);
  columnSoftmaxStatsKernel<<<column_grid, column_block, 0, stream>>>(sim, rows, cols, inv_temperature, col_partial);
  mergeColumnStatsKernel<<<blocksFor(cols, 256), 256, 0, stream>>>(col_partial, cols, col_stats);
  rowConfMaxKernel<<<row_blocks, kSoftmaxWarps * 32, 0, stream>>>(sim, rows, cols, inv_temperature, row_stats,
                                                                  col_stats, row_max, row_arg);
  const cudaError_t zeroed = cudaMemsetAsync(col_max, 0, sizeof(float) * cols, stream);
  if (zeroed != cudaSuccess) return zeroed;
  columnConfMaxKernel<<<column_grid, column_block, 0, stream>>>(sim, rows, cols, inv_temperature, row_stats,
                                                                col_stats, col_max);
  return cudaGetLastError();
}

namespace {

template <typename T>
cudaError_t launchFineWindowMatchT(const T* fine0, int height0, int width0, const T* fine1, int height1, int width1,
                                   const int64_t* cells0, const int64_t* cells1, int matches, int64_t* best,
                                   float* heatmap, cudaStream_t stream) {
  for (const int side : {height0, width0, height1, width1})
    if (side <= 0 || side % kWindow0 != 0) return cudaErrorInvalidValue;
  if (matches < 0) return cudaErrorInvalidValue;
  if (matches == 0) return cudaSuccess;
  fineWindowMatchKernel<T><<<matches, kFineThreads, 0, stream>>>(fine0, height0, width0, fine1, height1, width1,
                                                                 cells0, cells1, best, heatmap);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launchFineWindowMatch(const float* fine0, int height0, int width0, const float* fine1, int height1,
                                  int width1, const int64_t* cells0, const int64_t* cells1, int matches,
                                  int64_t* best, float* heatmap, cudaStream_t stream) {
  return launchFineWindowMatchT(fine0, height0, width0, fine1, height1, width1, cells0, cells1, matches, best, heatmap,
                                stream);
}

cudaError_t launchFineWindowMatch(const __half* fine0, int height0, int width0, const __half* fine1, int height1,
                                  int width1, const int64_t* cells0, const int64_t* cells1, int matches,
                                  int64_t* best, float* heatmap, cudaStream_t stream) {
  return launchFineWindowMatchT(fine0, height0, width0, fine1, height1, width1, cells0, cells1, matches, best, heatmap,
                                stream);
}

}  // namespace skytrace::vision::fused::cuda
