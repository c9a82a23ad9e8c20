// ALIKED's fused CUDA kernels (contracts in aliked_cuda_kernels.h and aliked_fused_ops.h).
// Each replaces a chain of ATen operators whose intermediate tensors would otherwise make
// full-resolution round trips through device memory, or dozens of tiny kernels whose
// launch gaps dominate (DKD, SDDH's gathers, deformable sampling). Arithmetic is float32
// in the order of the ATen/torchvision operators it replaces, up to FMA contraction.
#include "core/vision/aliked_cuda_kernels.h"

#include <algorithm>
#include <cfloat>

namespace skytrace::vision::aliked::cuda {
namespace {

// torch.nn.SELU constants; the negative branch as ATen's elu kernel:
// (exp(x) - 1) * (alpha * scale) with the coefficient product in float.
constexpr float kSeluScale = 1.0507009873554804934193349852946f;
constexpr float kSeluAlpha = 1.6732632423543772848170429916717f;

__device__ __forceinline__ float selu(float x) {
  return x <= 0.f ? (expf(x) - 1.f) * (kSeluAlpha * kSeluScale) : x * kSeluScale;
}

int blocksFor(int64_t work, int threads, int64_t cap = 65535) {
  return static_cast<int>(std::max<int64_t>(1, std::min<int64_t>((work + threads - 1) / threads, cap)));
}

// ---- BatchNorm (as scale/shift) + SELU, optionally with the residual of a ResBlock ----

__global__ void scaleShiftSeluKernel(const float* __restrict__ x, const float* __restrict__ scale,
                                     const float* __restrict__ shift, const float* __restrict__ residual,
                                     float* __restrict__ y, int64_t plane, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = i / plane;
    float v = shift[c] + x[i] * scale[c];  // addcmul(shift, x, scale)
    if (residual) v += residual[i];
    y[i] = selu(v);
  }
}

// The same over float4 (plane % 4 == 0: a vector never straddles two channels).
__global__ void scaleShiftSeluKernel4(const float4* __restrict__ x, const float* __restrict__ scale,
                                      const float* __restrict__ shift, const float4* __restrict__ residual,
                                      float4* __restrict__ y, int64_t plane4, int64_t total4) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total4;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = i / plane4;
    const float a = scale[c], b = shift[c];
    float4 v = x[i];
    v.x = b + v.x * a;
    v.y = b + v.y * a;
    v.z = b + v.z * a;
    v.w = b + v.w * a;
    if (residual) {
      const float4 r = residual[i];
      v.x += r.x;
      v.y += r.y;
      v.z += r.z;
      v.w += r.w;
    }
    y[i] = make_float4(selu(v.x), selu(v.y), selu(v.z), selu(v.w));
  }
}

// ---- SELU gate of a level, transposed to channels-last (32x32 tiles) ----

__global__ void seluChannelsLastKernel(const float* __restrict__ x, float* __restrict__ y, int channels,
                                       int64_t plane) {
  __shared__ float tile[32][33];
  const int64_t p0 = static_cast<int64_t>(blockIdx.x) * 32;
  const int c0 = blockIdx.y * 32;
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const int c = c0 + k;
    const int64_t p = p0 + threadIdx.x;
    if (c < channels && p < plane) tile[k][threadIdx.x] = selu(x[c * plane + p]);
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += blockDim.y) {
    const int64_t p = p0 + k;
    const int c = c0 + threadIdx.x;
    if (c < channels && p < plane) y[p * channels + c] = tile[threadIdx.x][k];
  }
}

// ---- Aggregated levels ----

// upsample_bilinear2d(align_corners=True) of level i at padded pixel (yp, xp), channel c:
// ATen's order (source index = scale * dst, truncation, lambdas, nested blend).
__device__ __forceinline__ float upsampledAt(const LevelsView& L, int i, int yp, int xp, int c) {
  const int h = L.h[i], w = L.w[i], channels = L.channels;
  const float sy = L.scale_h[i] * static_cast<float>(yp);
  const float sx = L.scale_w[i] * static_cast<float>(xp);
  const int y0 = static_cast<int>(sy), x0 = static_cast<int>(sx);
  const int y1 = y0 + (y0 < h - 1 ? 1 : 0), x1 = x0 + (x0 < w - 1 ? 1 : 0);
  const float ly1 = sy - static_cast<float>(y0), lx1 = sx - static_cast<float>(x0);
  const float ly0 = 1.f - ly1, lx0 = 1.f - lx1;
  const float* d = L.data[i];
  return ly0 * (lx0 * d[(y0 * w + x0) * channels + c] + lx1 * d[(y0 * w + x1) * channels + c]) +
         ly1 * (lx0 * d[(y1 * w + x0) * channels + c] + lx1 * d[(y1 * w + x1) * channels + c]);
}

// ---- Score head ----

constexpr int kHeadChannels = 8;  // score_head.0's outputs
constexpr int kMaxDim = 128;

// Levels 1-3 projected by their slices of the head's 1x1 weight, before upsampling (both
// linear: the ATen scoreMap's order), so that the score head upsamples 8 channels per
// level instead of `channels`: projected[p, o] over the levels' pixels back to back.
__global__ void projectLevelsKernel(LevelsView L, const float* __restrict__ w0, float* __restrict__ projected,
                                    int64_t pixels1, int64_t pixels2, int64_t pixels3) {
  __shared__ float sw0[kHeadChannels * kMaxDim];
  const int channels = L.channels, dim = 4 * channels;
  for (int k = threadIdx.x; k < kHeadChannels * dim; k += blockDim.x) sw0[k] = w0[k];
  __syncthreads();
  const int64_t p = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (p >= pixels1 + pixels2 + pixels3) return;
  const int level = p < pixels1 ? 1 : p < pixels1 + pixels2 ? 2 : 3;
  const int64_t q = level == 1 ? p : level == 2 ? p - pixels1 : p - pixels1 - pixels2;
  const float* v = (level == 1 ? L.data[1] : level == 2 ? L.data[2] : L.data[3]) + q * channels;
  float acc[kHeadChannels] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int c = 0; c < channels; ++c) {
    const float x = v[c];
#pragma unroll
    for (int o = 0; o < kHeadChannels; ++o) acc[o] += sw0[o * dim + level * channels + c] * x;
  }
  float4* out = reinterpret_cast<float4*>(projected + p * kHeadChannels);
  out[0] = make_float4(acc[0], acc[1], acc[2], acc[3]);
  out[1] = make_float4(acc[4], acc[5], acc[6], acc[7]);
}

// upsampledAt() for an 8-channel channels-last map [h * w, 8], all channels at once.
__device__ __forceinline__ void upsampled8At(const float* map, int h, int w, float scale_h, float scale_w, int yp,
                                             int xp, float out[kHeadChannels]) {
  const float sy = scale_h * static_cast<float>(yp), sx = scale_w * static_cast<float>(xp);
  const int y0 = static_cast<int>(sy), x0 = static_cast<int>(sx);
  const int y1 = y0 + (y0 < h - 1 ? 1 : 0), x1 = x0 + (x0 < w - 1 ? 1 : 0);
  const float ly1 = sy - static_cast<float>(y0), lx1 = sx - static_cast<float>(x0);
  const float ly0 = 1.f - ly1, lx0 = 1.f - lx1;
  const float4* m = reinterpret_cast<const float4*>(map);
  for (int half = 0; half < 2; ++half) {
    const float4 a = m[(y0 * w + x0) * 2 + half], b = m[(y0 * w + x1) * 2 + half];
    const float4 c = m[(y1 * w + x0) * 2 + half], d = m[(y1 * w + x1) * 2 + half];
    out[4 * half + 0] = ly0 * (lx0 * a.x + lx1 * b.x) + ly1 * (lx0 * c.x + lx1 * d.x);
    out[4 * half + 1] = ly0 * (lx0 * a.y + lx1 * b.y) + ly1 * (lx0 * c.y + lx1 * d.y);
    out[4 * half + 2] = ly0 * (lx0 * a.z + lx1 * b.z) + ly1 * (lx0 * c.z + lx1 * d.z);
    out[4 * half + 3] = ly0 * (lx0 * a.w + lx1 * b.w) + ly1 * (lx0 * c.w + lx1 * d.w);
  }
}

// Projections of levels 1-3 ([h_i * w_i, 8] each, back to back in one scratch buffer).
struct LevelProjections {
  const float* data[4];  // data[0] unused
};

// One 3x3 convolution (kIn -> 4 channels, zero padding at the padded frame's border) +
// SELU over a kOutH x kOutW region of shared memory whose top-left is padded pixel
// (y0, x0); `in` holds kIn channels of the region grown by one pixel on every side. Output
// outside the frame is 0: the next convolution's padding.
template <int kIn, int kOutH, int kOutW>
__device__ void conv3x3SeluStage(const float* w, const float* in, float* out, int y0, int x0, int hp, int wp) {
  constexpr int kInH = kOutH + 2, kInW = kOutW + 2;
  for (int k = threadIdx.x; k < kOutH * kOutW; k += blockDim.x) {
    const int ry = k / kOutW, rx = k % kOutW;
    const int yp = y0 + ry, xp = x0 + rx;
    const bool inside = yp >= 0 && yp < hp && xp >= 0 && xp < wp;
    for (int o = 0; o < 4; ++o) {
      float acc = 0.f;
      if (inside)
        for (int c = 0; c < kIn; ++c)
#pragma unroll
          for (int dy = 0; dy < 3; ++dy)
#pragma unroll
            for (int dx = 0; dx < 3; ++dx)
              acc += w[((o * kIn + c) * 3 + dy) * 3 + dx] * in[(c * kInH + ry + dy) * kInW + rx + dx];
      out[(o * kOutH + ry) * kOutW + rx] = inside ? selu(acc) : 0.f;
    }
  }
}

// One block computes a kTileW x kTileH tile of the score map.

constexpr int kTileW = 32, kTileH = 16;
constexpr int kHalo = 3;  // three 3x3 convolutions
constexpr int kIn0W = kTileW + 2 * kHalo, kIn0H = kTileH + 2 * kHalo;  // head0 output region
constexpr int kIn1W = kTileW + 4, kIn1H = kTileH + 4;                  // after conv 1
constexpr int kIn2W = kTileW + 2, kIn2H = kTileH + 2;                  // after conv 2

__global__ void __launch_bounds__(256) scoreHeadKernel(LevelsView L, const float* __restrict__ w0,
                                                      LevelProjections projected,
                                                      const float* __restrict__ w1,
                                                      const float* __restrict__ w2,
                                                      const float* __restrict__ w3,
                                                      float* __restrict__ score) {
  // s0: head0 (8 channels) over the tile + 3 px; later reused for conv 2's output.
  __shared__ float s0[8 * kIn0H * kIn0W];
  __shared__ float s1[4 * kIn1H * kIn1W];
  __shared__ float sw0[8 * kMaxDim];
  __shared__ float sw1[4 * 8 * 9], sw2[4 * 4 * 9], sw3[4 * 9];
  const int tid = threadIdx.x, threads = blockDim.x;
  const int channels = L.channels, dim = 4 * channels;
  for (int k = tid; k < 8 * dim; k += threads) sw0[k] = w0[k];
  for (int k = tid; k < 4 * 8 * 9; k += threads) sw1[k] = w1[k];
  for (int k = tid; k < 4 * 4 * 9; k += threads) sw2[k] = w2[k];
  for (int k = tid; k < 4 * 9; k += threads) sw3[k] = w3[k];
  __syncthreads();

  const int hp = L.h[0], wp = L.w[0];
  const int ty0 = blockIdx.y * kTileH, tx0 = blockIdx.x * kTileW;  // padded frame
  // head0 = SELU(W0 . level 0 + sum of the upsampled projections of levels 1-3), zero
  // outside the padded frame (conv 1's padding).
  for (int k = tid; k < kIn0H * kIn0W; k += threads) {
    const int ry = k / kIn0W, rx = k % kIn0W;
    const int yp = ty0 - kHalo + ry, xp = tx0 - kHalo + rx;
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    if (yp >= 0 && yp < hp && xp >= 0 && xp < wp) {
      const float* l0 = L.data[0] + (static_cast<int64_t>(yp) * wp + xp) * channels;
      for (int c = 0; c < channels; ++c) {
        const float v = l0[c];
#pragma unroll
        for (int o = 0; o < 8; ++o) acc[o] += sw0[o * dim + c] * v;
      }
#pragma unroll
      for (int i = 1; i < 4; ++i) {
        float up[kHeadChannels];
        upsampled8At(projected.data[i], L.h[i], L.w[i], L.scale_h[i], L.scale_w[i], yp, xp, up);
#pragma unroll
        for (int o = 0; o < 8; ++o) acc[o] += up[o];
      }
#pragma unroll
      for (int o = 0; o < 8; ++o) acc[o] = selu(acc[o]);
    }
#pragma unroll
    for (int o = 0; o < 8; ++o) s0[(o * kIn0H + ry) * kIn0W + rx] = acc[o];
  }
  __syncthreads();
  // conv 1 (8 -> 4) + SELU over the tile + 2 px, then conv 2 (4 -> 4) + SELU over the tile
  // + 1 px into s0's storage.
  conv3x3SeluStage<8, kIn1H, kIn1W>(sw1, s0, s1, ty0 - 2, tx0 - 2, hp, wp);
  __syncthreads();
  float* s2 = s0;
  conv3x3SeluStage<4, kIn2H, kIn2W>(sw2, s1, s2, ty0 - 1, tx0 - 1, hp, wp);
  __syncthreads();
  // conv 3 (4 -> 1), sigmoid, cropped to the unpadded frame.
  for (int k = tid; k < kTileH * kTileW; k += threads) {
    const int ry = k / kTileW, rx = k % kTileW;
    const int y = ty0 + ry - L.pad_top, x = tx0 + rx - L.pad_left;
    if (y < 0 || y >= L.height || x < 0 || x >= L.width) continue;
    float acc = 0.f;
    for (int c = 0; c < 4; ++c)
#pragma unroll
      for (int dy = 0; dy < 3; ++dy)
#pragma unroll
        for (int dx = 0; dx < 3; ++dx)
          acc += sw3[(c * 3 + dy) * 3 + dx] * s2[(c * kIn2H + ry + dy) * kIn2W + rx + dx];
    score[static_cast<int64_t>(y) * L.width + x] = 1.f / (1.f + expf(-acc));
  }
}

// ---- DKD: the soft-argmax refinement (its simple_nms: fused_cuda_kernels.cu) ----

// grid_sample(bilinear, zeros, align_corners=True) of a [h, w] map at normalised (gx, gy).
__device__ float sampleScore(const float* s, int h, int w, float gx, float gy) {
  const float ix = ((gx + 1.f) / 2.f) * static_cast<float>(w - 1);
  const float iy = ((gy + 1.f) / 2.f) * static_cast<float>(h - 1);
  const float fx = floorf(ix), fy = floorf(iy);
  const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
  const float nw = (fx + 1.f - ix) * (fy + 1.f - iy), ne = (ix - fx) * (fy + 1.f - iy);
  const float sw = (fx + 1.f - ix) * (iy - fy), se = (ix - fx) * (iy - fy);
  const auto at = [&](int y, int x) { return (y >= 0 && y < h && x >= 0 && x < w) ? s[y * w + x] : 0.f; };
  float out = 0.f;
  out += at(y0, x0) * nw;
  out += at(y0, x0 + 1) * ne;
  out += at(y0 + 1, x0) * sw;
  out += at(y0 + 1, x0 + 1) * se;
  return out;
}

constexpr int kMaxRefineWindow = 9;  // radius <= 4

__global__ void refinePeaksKernel(const float* __restrict__ s, int h, int w, const int64_t* __restrict__ indices,
                                  int count, int r, float inverse_temperature, float* __restrict__ keypoints,
                                  float* __restrict__ keypoints_px, float* __restrict__ scores,
                                  float* __restrict__ dispersity) {
  const int n = blockIdx.x * blockDim.x + threadIdx.x;
  if (n >= count) return;
  const int64_t index = indices[n];
  const int px = static_cast<int>(index % w), py = static_cast<int>(index / w);
  const int window = 2 * r + 1;
  float patch[kMaxRefineWindow * kMaxRefineWindow];
  float max_v = -FLT_MAX;
  for (int i = 0; i < window; ++i)
    for (int j = 0; j < window; ++j) {
      const int y = py - r + i, x = px - r + j;
      const float v = (y >= 0 && y < h && x >= 0 && x < w) ? s[y * w + x] : 0.f;  // nn.Unfold's zeros
      patch[i * window + j] = v;
      max_v = fmaxf(max_v, v);
    }
  float sum = 0.f, sx = 0.f, sy = 0.f;
  for (int k = 0; k < window * window; ++k) {
    const float e = expf((patch[k] - max_v) * inverse_temperature);
    patch[k] = e;
    sum += e;
    sx += e * static_cast<float>(k % window - r);
    sy += e * static_cast<float>(k / window - r);
  }
  const float rx = sx / sum, ry = sy / sum;
  float spread = 0.f;
  const float inv_r = 1.f / static_cast<float>(r);
  for (int k = 0; k < window * window; ++k) {
    const float dx = (static_cast<float>(k % window - r) - rx) * inv_r;
    const float dy = (static_cast<float>(k / window - r) - ry) * inv_r;
    spread += patch[k] * (dx * dx + dy * dy);
  }
  dispersity[n] = spread / sum;
  const float wm1 = static_cast<float>(w - 1), hm1 = static_cast<float>(h - 1);
  const float kx = (static_cast<float>(px) + rx) / wm1 * 2.f - 1.f;
  const float ky = (static_cast<float>(py) + ry) / hm1 * 2.f - 1.f;
  keypoints[2 * n] = kx;
  keypoints[2 * n + 1] = ky;
  keypoints_px[2 * n] = wm1 * (kx + 1.f) / 2.f;
  keypoints_px[2 * n + 1] = hm1 * (ky + 1.f) / 2.f;
  scores[n] = sampleScore(s, h, w, kx, ky);
}

// ---- Deformable convolution columns ----

__global__ void deformableColumnsKernel(const float* __restrict__ input, const float* __restrict__ offset,
                                        float* __restrict__ columns, int channels, int h, int w,
                                        float max_offset) {
  const int64_t plane = static_cast<int64_t>(h) * w;
  const int64_t column_plane = 9 * plane;
  const int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (t >= column_plane) return;
  const int row = static_cast<int>(t / (3 * w)), col = static_cast<int>(t % (3 * w));
  const int oy = row / 3, i = row % 3, ox = col / 3, j = col % 3;
  const int k = i * 3 + j;
  const int64_t o = static_cast<int64_t>(oy) * w + ox;
  const float dy = fminf(fmaxf(offset[(2 * k) * plane + o], -max_offset), max_offset);
  const float dx = fminf(fmaxf(offset[(2 * k + 1) * plane + o], -max_offset), max_offset);
  const float y = static_cast<float>(oy - 1 + i) + dy;
  const float x = static_cast<float>(ox - 1 + j) + dx;
  // torchvision's bilinear_interpolate: zero when the point is a pixel or more outside,
  // each corner outside the image contributes 0.
  if (y <= -1.f || y >= static_cast<float>(h) || x <= -1.f || x >= static_cast<float>(w)) {
    for (int c = 0; c < channels; ++c) columns[c * column_plane + t] = 0.f;
    return;
  }
  const float fy = floorf(y), fx = floorf(x);
  const int y0 = static_cast<int>(fy), x0 = static_cast<int>(fx), y1 = y0 + 1, x1 = x0 + 1;
  const float ly = y - fy, lx = x - fx, hy = 1.f - ly, hx = 1.f - lx;
  const bool v1 = y0 >= 0 && x0 >= 0, v2 = y0 >= 0 && x1 <= w - 1;
  const bool v3 = y1 <= h - 1 && x0 >= 0, v4 = y1 <= h - 1 && x1 <= w - 1;
  const float w1 = hy * hx, w2 = hy * lx, w3 = ly * hx, w4 = ly * lx;
  const int64_t i1 = static_cast<int64_t>(y0) * w + x0;
  for (int c = 0; c < channels; ++c) {
    const float* plane_c = input + c * plane;
    const float a = v1 ? plane_c[i1] : 0.f;
    const float b = v2 ? plane_c[i1 + 1] : 0.f;
    const float d = v3 ? plane_c[i1 + w] : 0.f;
    const float e = v4 ? plane_c[i1 + w + 1] : 0.f;
    columns[c * column_plane + t] = w1 * a + w2 * b + w3 * d + w4 * e;
  }
}

// ---- SDDH reads of the normalised aggregated map: one warp per read point ----

// The lane's four channels (one per level; lanes >= channels hold zeros) of the
// L2-normalised aggregated vector at unpadded pixel (y, x), zero outside the frame.
__device__ void normalisedAggregateAt(const LevelsView& L, int y, int x, float v[4]) {
  const int lane = threadIdx.x & 31;
  const bool inside = y >= 0 && y < L.height && x >= 0 && x < L.width;  // warp-uniform
  v[0] = v[1] = v[2] = v[3] = 0.f;
  if (!inside) return;
  const int yp = y + L.pad_top, xp = x + L.pad_left;
  if (lane < L.channels) {
    v[0] = L.data[0][(static_cast<int64_t>(yp) * L.w[0] + xp) * L.channels + lane];
    for (int i = 1; i < 4; ++i) v[i] = upsampledAt(L, i, yp, xp, lane);
  }
  float squares = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
  for (int step = 16; step > 0; step >>= 1) squares += __shfl_xor_sync(0xffffffffu, squares, step);
  const float norm = fmaxf(sqrtf(squares), 1e-12f);
  for (int i = 0; i < 4; ++i) v[i] = v[i] / norm;
}

__device__ __forceinline__ float keypointPixel(float k, int size) {
  return (k * 0.5f + 0.5f) * static_cast<float>(size - 1);  // (k / 2 + 0.5) * (size - 1)
}

__global__ void descriptorPatchesKernel(LevelsView L, const float* __restrict__ keypoints, int count,
                                        int kernel_size, float* __restrict__ out) {
  const int taps = kernel_size * kernel_size;
  const int64_t query = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32;
  if (query >= static_cast<int64_t>(count) * taps) return;  // warp-uniform
  const int n = static_cast<int>(query / taps), t = static_cast<int>(query % taps);
  const int lane = threadIdx.x & 31;
  const int before = (kernel_size - 1) / 2;
  const int px = static_cast<int>(keypointPixel(keypoints[2 * n], L.width));  // truncation
  const int py = static_cast<int>(keypointPixel(keypoints[2 * n + 1], L.height));
  float v[4];
  normalisedAggregateAt(L, py + t / kernel_size - before, px + t % kernel_size - before, v);
  if (lane >= L.channels) return;
  const int dim = 4 * L.channels;
  for (int i = 0; i < 4; ++i)
    out[(static_cast<int64_t>(n) * dim + i * L.channels + lane) * taps + t] = v[i];
}

__global__ void descriptorSamplesKernel(LevelsView L, const float* __restrict__ keypoints, int count,
                                        const float* __restrict__ raw_offsets, int samples, float max_offset,
                                        float* __restrict__ out, float* __restrict__ offsets) {
  const int64_t query = (blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x) / 32;
  if (query >= static_cast<int64_t>(count) * samples) return;  // warp-uniform
  const int n = static_cast<int>(query / samples), m = static_cast<int>(query % samples);
  const int lane = threadIdx.x & 31;
  const float ox = fminf(fmaxf(raw_offsets[static_cast<int64_t>(n) * 2 * samples + m], -max_offset), max_offset);
  const float oy =
      fminf(fmaxf(raw_offsets[static_cast<int64_t>(n) * 2 * samples + samples + m], -max_offset), max_offset);
  if (lane == 0) {
    offsets[2 * query] = ox;
    offsets[2 * query + 1] = oy;
  }
  // position = keypoint_px + offset -> 2 * position / (size - 1) - 1 -> grid_sample's
  // unnormalisation ((g + 1) / 2) * (size - 1), as the ATen path computes it.
  const float wm1 = static_cast<float>(L.width - 1), hm1 = static_cast<float>(L.height - 1);
  const float gx = 2.f * (keypointPixel(keypoints[2 * n], L.width) + ox) / wm1 - 1.f;
  const float gy = 2.f * (keypointPixel(keypoints[2 * n + 1], L.height) + oy) / hm1 - 1.f;
  const float ix = ((gx + 1.f) / 2.f) * wm1, iy = ((gy + 1.f) / 2.f) * hm1;
  const float fx = floorf(ix), fy = floorf(iy);
  const int x0 = static_cast<int>(fx), y0 = static_cast<int>(fy);
  const float weight[4] = {(fx + 1.f - ix) * (fy + 1.f - iy), (ix - fx) * (fy + 1.f - iy),
                           (fx + 1.f - ix) * (iy - fy), (ix - fx) * (iy - fy)};
  float acc[4] = {0.f, 0.f, 0.f, 0.f};
  for (int corner = 0; corner < 4; ++corner) {  // nw, ne, sw, se: grid_sampler's order
    float v[4];
    normalisedAggregateAt(L, y0 + corner / 2, x0 + corner % 2, v);
    for (int i = 0; i < 4; ++i) acc[i] += v[i] * weight[corner];
  }
  if (lane >= L.channels) return;
  const int dim = 4 * L.channels;
  for (int i = 0; i < 4; ++i) out[query * dim + i * L.channels + lane] = acc[i];
}

}  // namespace

cudaError_t launchScaleShiftSelu(const float* x, const float* scale, const float* shift, const float* residual,
                                 float* y, int channels, int64_t plane, cudaStream_t stream) {
  const int64_t total = plane * channels;
  const auto aligned = [](const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; };
  if (plane % 4 == 0 && aligned(x) && aligned(y) && (!residual || aligned(residual))) {
    scaleShiftSeluKernel4<<<blocksFor(total / 4, 256, 132 * 16), 256, 0, stream>>>(
        reinterpret_cast<const float4*>(x), scale, shift, reinterpret_cast<const float4*>(residual),
        reinterpret_cast<float4*>(y), plane / 4, total / 4);
  } else {
    scaleShiftSeluKernel<<<blocksFor(total, 256, 132 * 16), 256, 0, stream>>>(x, scale, shift, residual, y,
                                                                              plane, total);
  }
  return cudaGetLastError();
}

cudaError_t launchSeluChannelsLast(const float* x, float* y, int channels, int64_t plane, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((plane + 31) / 32), static_cast<unsigned>((channels + 31) / 32));
  seluChannelsLastKernel<<<grid, dim3(32, 8), 0, stream>>>(x, y, channels, plane);
  return cudaGetLastError();
}

int64_t scoreHeadScratchFloats(const LevelsView& levels) {
  int64_t pixels = 0;
  for (int i = 1; i < 4; ++i) pixels += static_cast<int64_t>(levels.h[i]) * levels.w[i];
  return pixels * kHeadChannels;
}

cudaError_t launchScoreHead(const LevelsView& levels, const float* w0, const float* w1, const float* w2,
                            const float* w3, float* scratch, float* score, cudaStream_t stream) {
  if (levels.channels > 32) return cudaErrorInvalidValue;
  const int64_t p1 = static_cast<int64_t>(levels.h[1]) * levels.w[1];
  const int64_t p2 = static_cast<int64_t>(levels.h[2]) * levels.w[2];
  const int64_t p3 = static_cast<int64_t>(levels.h[3]) * levels.w[3];
  projectLevelsKernel<<<blocksFor(p1 + p2 + p3, 256, int64_t{1} << 30), 256, 0, stream>>>(levels, w0, scratch, p1,
                                                                                           p2, p3);
  const dim3 grid(static_cast<unsigned>((levels.w[0] + kTileW - 1) / kTileW),
                  static_cast<unsigned>((levels.h[0] + kTileH - 1) / kTileH));
  const LevelProjections projected = {{nullptr, scratch, scratch + p1 * kHeadChannels,
                                        scratch + (p1 + p2) * kHeadChannels}};
  scoreHeadKernel<<<grid, 256, 0, stream>>>(levels, w0, projected, w1, w2, w3, score);
  return cudaGetLastError();
}

cudaError_t launchRefinePeaks(const float* score, int height, int width, const int64_t* indices, int count,
                              int radius, float inverse_temperature, float* keypoints, float* keypoints_px,
                              float* scores, float* dispersity, cudaStream_t stream) {
  if (2 * radius + 1 > kMaxRefineWindow || radius < 1) return cudaErrorInvalidValue;
  if (count == 0) return cudaSuccess;
  refinePeaksKernel<<<blocksFor(count, 128, int64_t{1} << 30), 128, 0, stream>>>(
      score, height, width, indices, count, radius, inverse_temperature, keypoints, keypoints_px, scores,
      dispersity);
  return cudaGetLastError();
}

cudaError_t launchDeformableColumns(const float* input, const float* offset, float* columns, int channels,
                                    int height, int width, float max_offset, cudaStream_t stream) {
  const int64_t positions = int64_t{9} * height * width;
  deformableColumnsKernel<<<blocksFor(positions, 256, int64_t{1} << 30), 256, 0, stream>>>(
      input, offset, columns, channels, height, width, max_offset);
  return cudaGetLastError();
}

cudaError_t launchDescriptorPatches(const LevelsView& levels, const float* keypoints, int count, int kernel_size,
                                    float* out, cudaStream_t stream) {
  if (levels.channels > 32) return cudaErrorInvalidValue;
  const int64_t threads = int64_t{32} * count * kernel_size * kernel_size;
  if (threads == 0) return cudaSuccess;
  descriptorPatchesKernel<<<blocksFor(threads, 256, int64_t{1} << 30), 256, 0, stream>>>(levels, keypoints, count,
                                                                                          kernel_size, out);
  return cudaGetLastError();
}

cudaError_t launchDescriptorSamples(const LevelsView& levels, const float* keypoints, int count,
                                    const float* raw_offsets, int samples, float max_offset, float* out,
                                    float* offsets, cudaStream_t stream) {
  if (levels.channels > 32) return cudaErrorInvalidValue;
  const int64_t threads = int64_t{32} * count * samples;
  if (threads == 0) return cudaSuccess;
  descriptorSamplesKernel<<<blocksFor(threads, 256, int64_t{1} << 30), 256, 0, stream>>>(
      levels, keypoints, count, raw_offsets, samples, max_offset, out, offsets);
  return cudaGetLastError();
}

}  // namespace skytrace::vision::aliked::cuda
