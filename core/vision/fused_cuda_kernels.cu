// The shared fused CUDA kernels (contracts in fused_cuda_kernels.h and fused_ops.h). Each
// replaces a chain of ATen operators whose intermediate tensors would otherwise make round
// trips through device memory. Arithmetic follows the operators it replaces: comparisons
// only for the NMS (exact), float accumulation with float16 rounding where ATen rounds for
// LightGlue's steps.
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

}  // namespace skytrace::vision::fused::cuda
