// Plane-induced homographies between a camera's image and the ground, modelled as the
// horizontal plane up_m = ground_up_m of the flight's local ENU frame.
//   image_from_ground: (east_m, north_m, 1) -> undistorted pixel (homogeneous);
//   ground_from_image: its inverse.
// "Undistorted pixel" = the pixel the point would have through the same K without lens
// distortion (CameraModel::pixelFromNormalized with zero distortion): homographies are
// only exact there, so keypoints go through undistortPixel() first.
// Pure functions, thread-safe.
#pragma once

#include <vector>

#include <opencv2/core.hpp>

#include "core/nav/camera_model.h"
#include "core/nav/camera_pose.h"

namespace skytrace::nav {

// K [r1 r2 t] of the pose for the plane up_m = ground_up_m, normalised to H(2,2) = 1
// when possible.
cv::Matx33d imageFromGround(const CameraModel& camera, const CameraPose& pose,
                            double ground_up_m);
cv::Matx33d groundFromImage(const CameraModel& camera, const CameraPose& pose,
                            double ground_up_m);

// Recovers the camera pose (position incl. height above the plane, yaw, pitch, roll)
// from an image_from_ground homography with known intrinsics: the columns of K^-1 H
// are s r1, s r2, s t; the rotation is the nearest orthonormal matrix (SVD). Returns
// false when H is degenerate or puts the camera below the plane. `t_s` is copied into
// the pose.
bool poseFromImageFromGround(const CameraModel& camera, const cv::Matx33d& image_from_ground,
                             double ground_up_m, double t_s, CameraPose* pose);

// Near nadir (|pitch + 90| < 20 deg) yaw and roll turn the image about almost the same
// axis and their split is ill-conditioned; the heading of the image's top is what is
// measurable: this folds roll into yaw (yaw + roll, roll = 0), changing the rotation by
// less than roll x (1 - cos(pitch + 90)). Poses are kept exact internally and folded
// where angles are reported or blended (tracks, fixes.csv, fusion of a fix).
void foldRollIntoYawNearNadir(CameraPose* pose);

// The pose with the given pitch/roll (degrees; from a gimbal log) that keeps `pose`'s
// heading (yaw + roll near nadir), its height above the plane and the ground point seen
// at the image centre. Narrow lenses determine tilt poorly from images (1 deg of tilt is
// 1 m of position at 60 m); a logged attitude removes that ambiguity. Returns `pose`
// unchanged when the centre ray does not reach the ground.
CameraPose constrainAttitude(const CameraModel& camera, const CameraPose& pose, double pitch_deg,
                             double roll_deg, double ground_up_m);

// The nadir camera (pitch -90, roll 0) whose view of the ground plane is nearest to
// `ground_from_image` (undistorted frame pixels -> ENU ground, e.g. a registration's
// homography): it sees the same ground point at the principal point, and its heading
// and height are the least-squares rotation and scale between the two views over a 5x5
// grid of pixels spanning the frame. *max_deviation_m: the largest ground distance
// between the two views over that grid. `like` gives t_s. Returns false when the
// homography does not map the grid onto the ground (a pixel at or above the horizon).
bool nearestNadirPose(const CameraModel& camera, const cv::Matx33d& ground_from_image, double ground_up_m,
                      const CameraPose& like, CameraPose* nadir, double* max_deviation_m);

// Lens-distorted pixel -> undistorted pixel (identity for a camera without distortion).
cv::Point2d undistortPixel(const CameraModel& camera, const cv::Point2d& pixel);

// Ground points (E, N) of the image corners and centre (5 points, corners clockwise from
// top-left, then centre) for the pose; rays at or above the horizon are clipped to
// `max_range_m` from the camera. Used for footprints and search windows.
std::vector<cv::Point2d> groundFootprint(const CameraModel& camera, const CameraPose& pose,
                                         double ground_up_m, double max_range_m = 1000.0);

// Ground sampling distance (metres per pixel) at the image centre for the pose.
double groundSampleDistanceM(const CameraModel& camera, const CameraPose& pose,
                             double ground_up_m);

}  // namespace skytrace::nav
