#include "ui/map_view.h"

#include <QAction>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QCoreApplication>
#include <QFutureWatcher>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QLocale>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QResizeEvent>
#include <QTransform>
#include <QWheelEvent>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>

#include "core/util/error.h"
#include "core/util/statistics.h"

namespace skytrace::ui {
namespace {

constexpr int kLoadDebounceMs = 40;  // at most one read (and repaint) per 40 ms

// A "nice" scale bar length (1, 2 or 5 x 10^k metres) close to `target_m`.
double niceLengthM(double target_m) {
  const double magnitude = std::pow(10.0, std::floor(std::log10(target_m)));
  for (double step : {5.0, 2.0, 1.0})
    if (step * magnitude <= target_m) return step * magnitude;
  return magnitude;
}

// One point marker (an overlay's or the legend's), radius r pixels, with a dark outline.
void drawMarker(QPainter& painter, MapView::Marker marker, const QPointF& at, double r, const QColor& colour) {
  switch (marker) {
    case MapView::Marker::Dot:
      painter.setPen(QPen(QColor(0, 0, 0, 180), 1.2));
      painter.setBrush(colour);
      painter.drawEllipse(at, r, r);
      break;
    case MapView::Marker::Ring:
      painter.setBrush(Qt::NoBrush);
      painter.setPen(QPen(QColor(0, 0, 0, 180), 3.5));
      painter.drawEllipse(at, r, r);
      painter.setPen(QPen(colour, 2));
      painter.drawEllipse(at, r, r);
      break;
    case MapView::Marker::Cross:
      for (int pass = 0; pass < 2; ++pass) {
        painter.setPen(pass == 0 ? QPen(QColor(0, 0, 0, 180), 4) : QPen(colour, 2));
        painter.drawLine(at + QPointF(-r, -r), at + QPointF(r, r));
        painter.drawLine(at + QPointF(-r, r), at + QPointF(r, -r));
      }
      break;
    case MapView::Marker::None:
      break;
  }
}

// Text with a dark halo, legible on any imagery; `at` is the baseline's left end.
void drawHaloText(QPainter& painter, const QPointF& at, const QFont& font, const QString& text) {
  QPainterPath path;
  path.addText(at, font, text);
  painter.strokePath(path, QPen(QColor(0, 0, 0, 200), 3));
  painter.fillPath(path, Qt::white);
}

constexpr double kSeekRadiusPx = 30.0;  // Seek Here: the nearest track point this close

// A round length (a scale bar's, a grid's: 1, 2 or 5 x 10^k m) as drawn: "50 m", "2 km".
QString roundLengthText(double length_m) {
  return length_m >= 1000.0
             ? QCoreApplication::translate("skytrace::ui::MapView", "%1 km").arg(QLocale().toString(length_m / 1000.0))
             : QCoreApplication::translate("skytrace::ui::MapView", "%1 m").arg(QLocale().toString(length_m));
}

}  // namespace

double trackSplitGapS(const std::vector<double>& t_s) {
  std::vector<double> steps;
  for (std::size_t k = 1; k < t_s.size(); ++k)
    if (t_s[k] > t_s[k - 1]) steps.push_back(t_s[k] - t_s[k - 1]);
  return steps.empty() ? 2.0 : std::max(2.0, 3.0 * median(std::move(steps)));
}

QString lengthText(double length_m) {
  const QLocale locale;
  return length_m < 1000.0 ? QCoreApplication::translate("skytrace::ui::MapView", "%1 m").arg(locale.toString(length_m, 'f', 1))
                           : QCoreApplication::translate("skytrace::ui::MapView", "%1 km").arg(locale.toString(length_m / 1000.0, 'f', 3));
}

QString areaText(double area_m2) {
  const QLocale locale;
  if (area_m2 < 10000.0) return QCoreApplication::translate("skytrace::ui::MapView", "%1 m²").arg(locale.toString(area_m2, 'f', 0));
  if (area_m2 < 1e6) return QCoreApplication::translate("skytrace::ui::MapView", "%1 ha").arg(locale.toString(area_m2 / 1e4, 'f', 2));
  return QCoreApplication::translate("skytrace::ui::MapView", "%1 km²").arg(locale.toString(area_m2 / 1e6, 'f', 2));
}

MapView::MapView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setCursor(Qt::OpenHandCursor);
  setMinimumSize(200, 150);
  setFocusPolicy(Qt::StrongFocus);
  pool_.setMaxThreadCount(1);  // one GDAL reader; requests never pile up (see startLoad)
  load_timer_.setSingleShot(true);
  load_timer_.setInterval(kLoadDebounceMs);
  connect(&load_timer_, &QTimer::timeout, this, &MapView::startLoad);
  watcher_ = new QFutureWatcher<MapReadResult>(this);
  connect(watcher_, &QFutureWatcher<MapReadResult>::finished, this, &MapView::onLoadFinished);
}

MapView::~MapView() {
  watcher_->disconnect(this);
  pool_.waitForDone();  // a read is one window of about the widget's size: short
}

void MapView::addBasemap(std::shared_ptr<const geo::Basemap> basemap) {
  MapLayer layer;
  layer.basemap = std::move(basemap);
  if (layers_.empty()) {
    // The first basemap defines the view (replacing a grid view).
    auto frame = std::make_shared<ViewFrame>();
    frame->converter = std::shared_ptr<const geo::MapGeoConverter>(layer.basemap, &layer.basemap->converter());
    frame->crs_wkt = layer.basemap->crsWkt();
    frame->crs_name = layer.basemap->crsName();
    const double unit_px = layer.basemap->mapFromPixel().pixelWidth();
    frame->metres_per_unit = unit_px > 0 ? layer.basemap->pixelSizeXM() / unit_px : 1.0;
    frame->finest_units_per_px = unit_px / 16.0;  // up to 16x magnification
    layer.bounds_in_view = layer.basemap->mapBounds();
    layers_.push_back(std::move(layer));
    setFrame(std::move(frame));
    zoomToFit();
    return;
  }
  if (layer.basemap->crsWkt() != frame_->crs_wkt) {
    layer.layer_from_view = std::make_shared<const geo::CrsTransform>(frame_->crs_wkt, layer.basemap->crsWkt());
    layer.view_from_layer = std::make_shared<const geo::CrsTransform>(layer.basemap->crsWkt(), frame_->crs_wkt);
    layer.bounds_in_view =
        geo::envelopeOf(layer.view_from_layer->transform(borderSamples(layer.basemap->mapBounds())));
  } else {
    layer.bounds_in_view = layer.basemap->mapBounds();
  }
  layers_.push_back(std::move(layer));
  clampScale();
  scheduleLoad();
}

void MapView::clearBasemaps() {
  layers_.clear();
  frame_.reset();
  overlay_points_in_view_.assign(overlays_.size(), {});
  camera_in_view_.clear();
  images_.clear();
  ++requested_generation_;
  shown_generation_ = requested_generation_;
  accept_from_generation_ = requested_generation_;
  load_timer_.stop();
  setUpGridViewIfNeeded();  // the overlays stay on screen, on a grid
  update();
  Q_EMIT viewChanged();
}

void MapView::setFrame(std::shared_ptr<const ViewFrame> frame) {
  frame_ = std::move(frame);
  projectOverlays();
  projectCamera();
}

void MapView::setUpGridViewIfNeeded() {
  if (frame_) return;
  const auto with_points = std::find_if(overlays_.begin(), overlays_.end(),
                                        [](const TrackOverlay& o) { return !o.points.empty(); });
  if (with_points == overlays_.end()) return;
  try {
    auto frame = std::make_shared<ViewFrame>();
    const std::string utm = geo::utmCrsFor(with_points->points.front());
    frame->converter = std::make_shared<const geo::MapGeoConverter>(utm);
    frame->crs_wkt = utm;
    frame->crs_name = geo::describeCrs(utm).shortName();
    frame->metres_per_unit = 1.0;
    frame->finest_units_per_px = 0.01;  // 1 cm per pixel
    setFrame(std::move(frame));
  } catch (const std::exception& e) {  // a point outside every zone's domain (bad data)
    Q_EMIT loadFailed(tr("Cannot place track %1 on the map: %2")
                          .arg(with_points->name, QString::fromStdString(e.what())));
    return;
  }
  zoomToFit();
}

void MapView::setTrackOverlay(const TrackOverlay& overlay) {
  auto same_name = [&](const TrackOverlay& o) { return o.name == overlay.name; };
  overlays_.erase(std::remove_if(overlays_.begin(), overlays_.end(), same_name), overlays_.end());
  overlays_.push_back(overlay);
  if (frame_) {
    projectOverlays();
  } else {
    setUpGridViewIfNeeded();
  }
  update();
}

void MapView::removeTrackOverlay(const QString& name) {
  const auto same_name = [&](const TrackOverlay& o) { return o.name == name; };
  overlays_.erase(std::remove_if(overlays_.begin(), overlays_.end(), same_name), overlays_.end());
  projectOverlays();
  update();
}

void MapView::removeTrackOverlaysWithPrefix(const QString& prefix) {
  if (prefix.isEmpty()) return;
  const auto matches = [&](const TrackOverlay& o) { return o.name.startsWith(prefix); };
  overlays_.erase(std::remove_if(overlays_.begin(), overlays_.end(), matches), overlays_.end());
  projectOverlays();
  update();
}

void MapView::clearTrackOverlays() {
  overlays_.clear();
  overlay_points_in_view_.clear();
  if (isGridView()) {
    frame_.reset();  // nothing left to show on the grid
    camera_in_view_.clear();
    Q_EMIT viewChanged();
  }
  update();
}

void MapView::setCameraMarker(const std::optional<CameraMarker>& marker) {
  camera_ = marker;
  projectCamera();
  update();
}

void MapView::projectCamera() {
  camera_in_view_.clear();
  if (!camera_ || !frame_) return;
  std::vector<geo::GeoPoint> points;
  points.reserve(camera_->footprint.size() + 1);
  points.push_back(camera_->position);
  points.insert(points.end(), camera_->footprint.begin(), camera_->footprint.end());
  try {
    camera_in_view_ = frame_->converter->mapFromGeo(points);
  } catch (const std::exception&) {
    camera_in_view_.clear();  // outside the CRS's domain: not drawn
  }
}

std::optional<QPointF> MapView::widgetFromGeo(const geo::GeoPoint& point) const {
  if (!frame_) return std::nullopt;
  try {
    return widgetFromMap(frame_->converter->mapFromGeo(point));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

void MapView::keepInView(const geo::GeoPoint& point) {
  const std::optional<QPointF> p = widgetFromGeo(point);
  if (!p) return;
  const QRectF inner = QRectF(rect()).adjusted(0.1 * width(), 0.1 * height(), -0.1 * width(), -0.1 * height());
  if (inner.contains(*p)) return;
  centre_ = mapFromWidget(*p);
  scheduleLoad();
}

std::optional<double> MapView::timeNearWidgetPoint(const QPointF& p_in_widget, double radius_px) const {
  std::optional<double> best_t;
  double best_d2 = radius_px * radius_px;
  for (std::size_t i = 0; i < overlays_.size() && i < overlay_points_in_view_.size(); ++i) {
    const TrackOverlay& overlay = overlays_[i];
    if (overlay.t_s.size() != overlay.points.size()) continue;
    const std::vector<geo::MapPoint>& points = overlay_points_in_view_[i];
    for (std::size_t k = 0; k < points.size(); ++k) {
      const QPointF d = widgetFromMap(points[k]) - p_in_widget;
      const double d2 = d.x() * d.x() + d.y() * d.y();
      if (d2 <= best_d2) {
        best_d2 = d2;
        best_t = overlay.t_s[k];
      }
    }
  }
  return best_t;
}

void MapView::projectOverlays() {
  overlay_points_in_view_.assign(overlays_.size(), {});
  if (!frame_) return;  // no view CRS yet; projected when the view is set up
  const geo::MapGeoConverter& view_converter = *frame_->converter;
  for (std::size_t i = 0; i < overlays_.size(); ++i) {
    try {
      overlay_points_in_view_[i] = view_converter.mapFromGeo(overlays_[i].points);
    } catch (const std::exception& e) {
      Q_EMIT loadFailed(tr("Cannot place track %1 on the map: %2")
                            .arg(overlays_[i].name, QString::fromStdString(e.what())));
    }
  }
}

geo::MapRect MapView::contentBounds() const {
  std::vector<geo::MapPoint> corners;
  for (const MapLayer& layer : layers_) {
    corners.push_back({layer.bounds_in_view.min_x, layer.bounds_in_view.min_y});
    corners.push_back({layer.bounds_in_view.max_x, layer.bounds_in_view.max_y});
  }
  if (!corners.empty()) return geo::envelopeOf(corners);
  for (const std::vector<geo::MapPoint>& points : overlay_points_in_view_)
    for (const geo::MapPoint& p : points)
      if (std::isfinite(p.x) && std::isfinite(p.y)) corners.push_back(p);
  if (corners.empty()) return {centre_.x, centre_.y, centre_.x, centre_.y};
  const geo::MapRect r = geo::envelopeOf(corners);
  // A single point (or a track standing still) still gets a 100 m wide grid view.
  const double min_extent_units = 100.0 / (frame_ ? frame_->metres_per_unit : 1.0);
  const double grow_x = 0.5 * std::max(0.0, min_extent_units - r.width());
  const double grow_y = 0.5 * std::max(0.0, min_extent_units - r.height());
  return {r.min_x - grow_x, r.min_y - grow_y, r.max_x + grow_x, r.max_y + grow_y};
}

std::string MapView::viewCrsName() const {
  return frame_ ? frame_->crs_name : std::string();
}

geo::MapRect MapView::visibleMapRect() const {
  const double half_w = 0.5 * width() * units_per_px_;
  const double half_h = 0.5 * height() * units_per_px_;
  return {centre_.x - half_w, centre_.y - half_h, centre_.x + half_w, centre_.y + half_h};
}

geo::MapPoint MapView::mapFromWidget(const QPointF& p) const {
  return {centre_.x + (p.x() - 0.5 * width()) * units_per_px_,
          centre_.y - (p.y() - 0.5 * height()) * units_per_px_};
}

QPointF MapView::widgetFromMap(const geo::MapPoint& p) const {
  return {(p.x - centre_.x) / units_per_px_ + 0.5 * width(),
          0.5 * height() - (p.y - centre_.y) / units_per_px_};
}

std::optional<geo::GeoPoint> MapView::geoFromWidget(const QPointF& p_in_widget) const {
  if (!frame_) return std::nullopt;
  try {
    return frame_->converter->geoFromMap(mapFromWidget(p_in_widget));
  } catch (const Error&) {
    return std::nullopt;
  }
}

void MapView::setView(const geo::MapPoint& centre, double units_per_px) {
  centre_ = centre;
  units_per_px_ = units_per_px;
  clampScale();
  scheduleLoad();
}

void MapView::clampScale() {
  if (!frame_) return;
  min_units_per_px_ = frame_->finest_units_per_px;
  const geo::MapRect bounds = contentBounds();
  const double extent = std::max(bounds.width(), bounds.height());
  max_units_per_px_ = std::max(min_units_per_px_, 16.0 * extent / std::max(1, std::min(width(), height())));
  units_per_px_ = std::clamp(units_per_px_, min_units_per_px_, max_units_per_px_);
}

void MapView::zoomBy(double factor, const QPointF& anchor) {
  if (!frame_ || !(factor > 0.0)) return;
  const geo::MapPoint fixed = mapFromWidget(anchor);
  units_per_px_ /= factor;
  clampScale();
  centre_.x = fixed.x - (anchor.x() - 0.5 * width()) * units_per_px_;
  centre_.y = fixed.y + (anchor.y() - 0.5 * height()) * units_per_px_;
  scheduleLoad();
}

void MapView::panByPixels(const QPointF& delta) {
  if (!frame_) return;
  centre_.x -= delta.x() * units_per_px_;
  centre_.y += delta.y() * units_per_px_;
  scheduleLoad();
}

void MapView::zoomToFit() {
  if (!frame_) return;
  pending_geo_fit_.reset();
  if (width() <= 1 || height() <= 1 || !isVisible()) fit_on_resize_ = true;
  const geo::MapRect bounds = contentBounds();
  centre_ = {0.5 * (bounds.min_x + bounds.max_x), 0.5 * (bounds.min_y + bounds.max_y)};
  units_per_px_ = 1.05 * std::max(bounds.width() / std::max(1, width()),
                                  bounds.height() / std::max(1, height()));
  clampScale();
  scheduleLoad();
}

void MapView::zoomToGeoPoints(const std::vector<geo::GeoPoint>& points, double margin) {
  if (!frame_ || points.empty()) return;
  // Hidden or not laid out yet: fit again once the widget has its size.
  if (width() <= 1 || height() <= 1 || !isVisible()) {
    pending_geo_fit_ = std::make_pair(points, margin);
  } else {
    pending_geo_fit_.reset();
  }
  std::vector<geo::MapPoint> in_view;
  try {
    in_view = frame_->converter->mapFromGeo(points);
  } catch (const std::exception&) {
    return;
  }
  const geo::MapRect box = geo::envelopeOf(in_view);
  const double w = std::max(box.width(), 1e-9), h = std::max(box.height(), 1e-9);
  centre_ = {0.5 * (box.min_x + box.max_x), 0.5 * (box.min_y + box.max_y)};
  units_per_px_ = (1.0 + 2.0 * margin) * std::max(w / std::max(1, width()), h / std::max(1, height()));
  fit_on_resize_ = false;
  clampScale();
  scheduleLoad();
}

bool MapView::isIdle() const {
  if (layers_.empty()) return true;
  return !load_timer_.isActive() && !load_in_flight_ && shown_generation_ == requested_generation_;
}

void MapView::scheduleLoad() {
  ++requested_generation_;
  if (!load_timer_.isActive()) load_timer_.start();  // throttle, not postpone, during drags
  update();
  Q_EMIT viewChanged();
}

void MapView::startLoad() {
  if (layers_.empty() || load_in_flight_) return;  // onLoadFinished() starts the next one
  load_in_flight_ = true;
  watcher_->setFuture(QtConcurrent::run(&pool_, readMapLayers, layers_, visibleMapRect(),
                                        metresPerPixel(), requested_generation_));
}

void MapView::onLoadFinished() {
  load_in_flight_ = false;
  const MapReadResult result = watcher_->result();
  if (result.generation >= accept_from_generation_ && result.generation >= shown_generation_) {
    images_ = result.images;
    shown_generation_ = result.generation;
    update();
    if (!result.error.isEmpty()) Q_EMIT loadFailed(result.error);
  }
  if (shown_generation_ != requested_generation_) {
    if (!load_timer_.isActive()) load_timer_.start();
  } else if (isIdle()) {
    Q_EMIT idle();
  }
}

void MapView::drawOverlay(QPainter& painter, const TrackOverlay& overlay,
                          const std::vector<geo::MapPoint>& points) const {
  const bool coloured = overlay.point_colors.size() == points.size();
  const bool timed = overlay.t_s.size() == points.size();
  const QRectF visible = QRectF(rect()).adjusted(-50, -50, 50, 50);
  std::vector<QPointF> p(points.size());
  std::vector<bool> valid(points.size());
  for (std::size_t k = 0; k < points.size(); ++k) {
    valid[k] = std::isfinite(points[k].x) && std::isfinite(points[k].y);
    if (valid[k]) p[k] = widgetFromMap(points[k]);
  }
  auto connected = [&](std::size_t k) {  // is there a line from k-1 to k?
    if (!valid[k] || !valid[k - 1]) return false;
    return !(timed && overlay.split_gap_s > 0 && overlay.t_s[k] - overlay.t_s[k - 1] > overlay.split_gap_s);
  };
  if (overlay.line_style != Qt::NoPen && points.size() > 1) {
    // Runs of connected points become one polyline (one colour unless coloured).
    for (int pass = overlay.casing ? 0 : 1; pass < 2; ++pass) {
      QPen pen = pass == 0 ? QPen(QColor(0, 0, 0, 150), overlay.width_px + 2.5)
                           : QPen(overlay.color, overlay.width_px);
      pen.setStyle(pass == 0 ? Qt::SolidLine : overlay.line_style);
      pen.setCapStyle(Qt::RoundCap);
      pen.setJoinStyle(Qt::RoundJoin);
      if (pass == 1 && coloured) {
        for (std::size_t k = 1; k < points.size(); ++k) {
          if (!connected(k)) continue;
          pen.setColor(overlay.point_colors[k]);
          painter.setPen(pen);
          painter.drawLine(p[k - 1], p[k]);
        }
        continue;
      }
      painter.setPen(pen);
      QPolygonF line;
      for (std::size_t k = 0; k < points.size(); ++k) {
        if (k > 0 && !connected(k) && !line.isEmpty()) {
          painter.drawPolyline(line);
          line.clear();
        }
        if (valid[k]) line << p[k];
      }
      if (line.size() > 1) painter.drawPolyline(line);
    }
  }
  if (overlay.marker == Marker::None) return;
  const double r = 0.5 * overlay.marker_px;
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!valid[k] || !visible.contains(p[k])) continue;
    drawMarker(painter, overlay.marker, p[k], r, coloured ? overlay.point_colors[k] : overlay.color);
  }
  painter.setBrush(Qt::NoBrush);
}

void MapView::drawCamera(QPainter& painter) const {
  if (!camera_ || camera_in_view_.empty()) return;
  const QPointF centre = widgetFromMap(camera_in_view_.front());
  if (camera_in_view_.size() >= 4) {
    QPolygonF footprint;
    for (std::size_t k = 1; k < camera_in_view_.size(); ++k) footprint << widgetFromMap(camera_in_view_[k]);
    painter.setPen(QPen(QColor(255, 255, 255, 230), 2, Qt::DashLine));
    painter.setBrush(QColor(255, 255, 255, 40));
    painter.drawPolygon(footprint);
  }
  // A heading arrow (triangle) at the position; a circle when the heading is unknown.
  painter.setPen(QPen(Qt::black, 1.5));
  painter.setBrush(QColor(255, 64, 200));
  if (std::isfinite(camera_->yaw_deg)) {
    QTransform rotation;
    rotation.translate(centre.x(), centre.y());
    rotation.rotate(camera_->yaw_deg);  // widget y points down: clockwise = positive
    QPolygonF arrow;
    arrow << QPointF(0, -12) << QPointF(8, 9) << QPointF(0, 4) << QPointF(-8, 9);
    painter.drawPolygon(rotation.map(arrow));
  } else {
    painter.drawEllipse(centre, 7, 7);
  }
  painter.setBrush(Qt::NoBrush);
}

void MapView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  painter.fillRect(rect(), QColor(38, 42, 48));
  if (!frame_) {
    painter.setPen(QColor(190, 196, 204));
    painter.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap,
                     tr("No basemap. Use File > Open Basemap... to show one."));
    return;
  }
  if (isGridView()) drawGrid(painter);
  painter.setRenderHint(QPainter::SmoothPixmapTransform);
  for (const MapLayerImage& layer_image : images_) {
    const QImage& image = layer_image.image;
    QPolygonF source;
    source << QPointF(0, 0) << QPointF(image.width(), 0) << QPointF(image.width(), image.height())
           << QPointF(0, image.height());
    QPolygonF target;
    for (const QPointF& c : layer_image.corners_in_view) target << widgetFromMap({c.x(), c.y()});
    QTransform widget_from_image;
    if (!QTransform::quadToQuad(source, target, widget_from_image)) continue;
    painter.setTransform(widget_from_image);
    painter.drawImage(QPointF(0, 0), image);
  }
  painter.resetTransform();

  // Overlays in z order, then the camera at the current time.
  painter.setRenderHint(QPainter::Antialiasing);
  std::vector<std::size_t> order(std::min(overlays_.size(), overlay_points_in_view_.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [this](std::size_t a, std::size_t b) { return overlays_[a].z < overlays_[b].z; });
  for (std::size_t i : order) drawOverlay(painter, overlays_[i], overlay_points_in_view_[i]);
  drawCamera(painter);
  drawMeasurement(painter);
  drawLegend(painter);

  // Scale bar, bottom left.
  const double metres_per_px = metresPerPixel();
  if (metres_per_px > 0.0 && std::isfinite(metres_per_px)) {
    const double length_m = niceLengthM(120.0 * metres_per_px);
    const double length_px = length_m / metres_per_px;
    const QString label = roundLengthText(length_m);
    const QPointF origin(12, height() - 14);
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setPen(QPen(Qt::black, 5, Qt::SolidLine, Qt::FlatCap));
    painter.drawLine(origin, origin + QPointF(length_px, 0));
    painter.setPen(QPen(Qt::white, 3, Qt::SolidLine, Qt::FlatCap));
    painter.drawLine(origin, origin + QPointF(length_px, 0));
    drawHaloText(painter, origin + QPointF(0, -8), font(), label);
  }
}

void MapView::drawGrid(QPainter& painter) const {
  // Grid lines every "nice" distance (about 100 px apart) in the UTM zone, and a note
  // saying what the analyst is looking at (a tooltip-free way to tell it is no imagery).
  const double spacing_m = niceLengthM(100.0 * metresPerPixel());
  const double spacing_units = spacing_m / frame_->metres_per_unit;
  const geo::MapRect visible = visibleMapRect();
  if (spacing_units > 0.0 && visible.width() / spacing_units < 400.0 && visible.height() / spacing_units < 400.0) {
    painter.setPen(QPen(QColor(255, 255, 255, 28), 1));
    for (double x = std::ceil(visible.min_x / spacing_units) * spacing_units; x <= visible.max_x; x += spacing_units) {
      const double px = widgetFromMap({x, 0.0}).x();
      painter.drawLine(QPointF(px, 0), QPointF(px, height()));
    }
    for (double y = std::ceil(visible.min_y / spacing_units) * spacing_units; y <= visible.max_y; y += spacing_units) {
      const double py = widgetFromMap({0.0, y}).y();
      painter.drawLine(QPointF(0, py), QPointF(width(), py));
    }
  }
  // Bottom right, clear of the legend (top right) and the scale bar (bottom left).
  const QString note =
      tr("No basemap: %1 grid, %2").arg(roundLengthText(spacing_m), QString::fromStdString(frame_->crs_name));
  const QFontMetricsF metrics(font());
  const QString shown = metrics.elidedText(note, Qt::ElideRight, std::max(0.0, width() - 200.0));
  drawHaloText(painter, QPointF(width() - metrics.horizontalAdvance(shown) - 12.0, height() - 10.0), font(), shown);
}

void MapView::drawMeasurement(QPainter& painter) const {
  if (measure_points_.empty()) return;
  std::vector<QPointF> p;
  for (const geo::GeoPoint& g : measure_points_) {
    const std::optional<QPointF> w = widgetFromGeo(g);
    if (!w) return;
    p.push_back(*w);
  }
  painter.setRenderHint(QPainter::Antialiasing);
  if (p.size() >= 3) {  // the enclosed area, with its closing side dashed
    QPolygonF ring;
    for (const QPointF& q : p) ring << q;
    painter.setPen(Qt::NoPen);
    painter.setBrush(QColor(255, 255, 255, 45));
    painter.drawPolygon(ring);
    QPen closing(QColor(255, 255, 255, 200), 1.5, Qt::DashLine);
    painter.setPen(closing);
    painter.drawLine(p.back(), p.front());
  }
  for (int pass = 0; pass < 2; ++pass) {
    painter.setPen(pass == 0 ? QPen(QColor(0, 0, 0, 180), 4.5, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin)
                             : QPen(Qt::white, 2.0, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
    for (std::size_t k = 1; k < p.size(); ++k) painter.drawLine(p[k - 1], p[k]);
  }
  for (const QPointF& q : p) drawMarker(painter, Marker::Dot, q, 3.5, Qt::white);
  for (std::size_t k = 1; k < p.size(); ++k) {
    const double segment_m = geo::horizontalDistanceM(measure_points_[k - 1], measure_points_[k]);
    drawHaloText(painter, (p[k - 1] + p[k]) / 2.0 + QPointF(6, -6), font(), lengthText(segment_m));
  }
  QString summary = tr("Total %1").arg(lengthText(measuredLengthM()));
  if (p.size() >= 3) summary += tr(", area %1").arg(areaText(measuredAreaM2()));
  QFont bold = font();
  bold.setBold(true);
  drawHaloText(painter, p.back() + QPointF(10, 18), bold, summary);
}

QSizeF MapView::legendSize() const {
  const QFontMetricsF metrics(font());
  double width = 0.0;
  for (const LegendEntry& entry : legend_entries_) width = std::max(width, metrics.horizontalAdvance(entry.label));
  double height = legend_entries_.size() * (metrics.height() + 4.0);
  if (legend_ramp_) {
    width = std::max({width, metrics.horizontalAdvance(legend_ramp_->title) - 34.0, 150.0 - 34.0});
    height += 2 * metrics.height() + 18.0;
  }
  return {width + 34.0 + 16.0, height + 12.0};
}

QRectF MapView::legendRect() const {
  if (!legend_visible_ || !frame_ || (legend_entries_.empty() && !legend_ramp_)) return {};
  const QSizeF size = legendSize();
  return QRectF(QPointF(width() - size.width() - 10.0, 10.0), size);
}

void MapView::drawLegend(QPainter& painter) const {
  const QRectF box = legendRect();
  if (box.isEmpty()) return;
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(QColor(255, 255, 255, 60));
  painter.setBrush(QColor(20, 22, 26, 200));
  painter.drawRoundedRect(box, 4, 4);
  const QFontMetricsF metrics(font());
  const double row_h = metrics.height() + 4.0;
  double y = box.top() + 6.0;
  for (const LegendEntry& entry : legend_entries_) {
    const double mid = y + row_h / 2.0;
    const QPointF left(box.left() + 8.0, mid), right(box.left() + 34.0, mid);
    if (entry.line_style != Qt::NoPen) {
      painter.setPen(QPen(QColor(0, 0, 0, 150), entry.width_px + 2.5, Qt::SolidLine, Qt::RoundCap));
      painter.drawLine(left, right);
      painter.setPen(QPen(entry.color, entry.width_px, entry.line_style, Qt::RoundCap));
      painter.drawLine(left, right);
    }
    if (entry.marker != Marker::None) drawMarker(painter, entry.marker, (left + right) / 2.0, 4.5, entry.color);
    painter.setPen(Qt::white);
    painter.drawText(QPointF(box.left() + 42.0, mid + metrics.ascent() / 2.0 - 1.0), entry.label);
    y += row_h;
  }
  if (legend_ramp_) {
    painter.setPen(Qt::white);
    y += 4.0;
    painter.drawText(QPointF(box.left() + 8.0, y + metrics.ascent()), legend_ramp_->title);
    y += metrics.height() + 2.0;
    const QRectF bar(box.left() + 8.0, y, box.width() - 16.0, 8.0);
    QLinearGradient gradient(bar.topLeft(), bar.topRight());
    const std::vector<QColor>& stops = legend_ramp_->stops;
    for (std::size_t i = 0; i < stops.size(); ++i)
      gradient.setColorAt(stops.size() > 1 ? double(i) / (stops.size() - 1) : 0.0, stops[i]);
    painter.setPen(QColor(0, 0, 0, 160));
    painter.setBrush(gradient);
    painter.drawRect(bar);
    y += 10.0;
    painter.setPen(Qt::white);
    painter.drawText(QPointF(bar.left(), y + metrics.ascent()), legend_ramp_->low_label);
    painter.drawText(QPointF(bar.right() - metrics.horizontalAdvance(legend_ramp_->high_label), y + metrics.ascent()),
                     legend_ramp_->high_label);
  }
  painter.setBrush(Qt::NoBrush);
}

void MapView::setLegend(std::vector<LegendEntry> entries, std::optional<LegendRamp> ramp) {
  legend_entries_ = std::move(entries);
  legend_ramp_ = std::move(ramp);
  update();
}

void MapView::setLegendVisible(bool visible) {
  legend_visible_ = visible;
  update();
}

void MapView::setMeasuring(bool on) {
  if (on == measuring_) return;
  measuring_ = on;
  setCursor(on ? Qt::CrossCursor : Qt::OpenHandCursor);
  if (!on && !measure_points_.empty()) {
    measure_points_.clear();
    Q_EMIT measurementChanged();
  }
  update();
  Q_EMIT measuringChanged(on);
}

void MapView::addMeasurePoint(const geo::GeoPoint& point) {
  measure_points_.push_back({point.lat_deg, point.lon_deg, 0.0});
  update();
  Q_EMIT measurementChanged();
}

void MapView::removeLastMeasurePoint() {
  if (measure_points_.empty()) return;
  measure_points_.pop_back();
  update();
  Q_EMIT measurementChanged();
}

double MapView::measuredLengthM() const {
  double length_m = 0.0;
  for (std::size_t k = 1; k < measure_points_.size(); ++k)
    length_m += geo::horizontalDistanceM(measure_points_[k - 1], measure_points_[k]);
  return length_m;
}

double MapView::measuredAreaM2() const { return geo::ringAreaM2(measure_points_); }

QMenu* MapView::createContextMenu(const QPointF& p_in_widget, QWidget* parent) {
  auto* menu = new QMenu(parent);
  const std::optional<geo::GeoPoint> here = geoFromWidget(p_in_widget);
  QAction* copy = menu->addAction(tr("&Copy Coordinates"));
  copy->setObjectName(QStringLiteral("copyCoordinates"));
  copy->setEnabled(here.has_value());
  if (here) {
    const QString text = QStringLiteral("%1, %2").arg(here->lat_deg, 0, 'f', 7).arg(here->lon_deg, 0, 'f', 7);
    copy->setStatusTip(tr("Copy \"%1\" (latitude, longitude in degrees, WGS84)").arg(text));
    connect(copy, &QAction::triggered, this, [text] { QGuiApplication::clipboard()->setText(text); });
  }
  QAction* seek = menu->addAction(tr("&Seek Here"));
  seek->setObjectName(QStringLiteral("seekHere"));
  const std::optional<double> t_s = timeNearWidgetPoint(p_in_widget, kSeekRadiusPx);
  seek->setEnabled(t_s.has_value());
  if (t_s) connect(seek, &QAction::triggered, this, [this, t = *t_s] { Q_EMIT timeClicked(t); });
  QAction* centre = menu->addAction(tr("C&entre Map Here"));
  centre->setObjectName(QStringLiteral("centreHere"));
  centre->setEnabled(hasView());
  connect(centre, &QAction::triggered, this, [this, m = mapFromWidget(p_in_widget)] { setView(m, units_per_px_); });
  menu->addSeparator();
  QAction* measure = menu->addAction(tr("&Measure From Here"));
  measure->setObjectName(QStringLiteral("measureFromHere"));
  measure->setEnabled(here.has_value());
  if (here) {
    connect(measure, &QAction::triggered, this, [this, point = *here] {
      setMeasuring(false);  // a new measurement
      setMeasuring(true);
      addMeasurePoint(point);
    });
  }
  return menu;
}

void MapView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu* menu = createContextMenu(event->pos(), this);
  menu->setAttribute(Qt::WA_DeleteOnClose);
  menu->popup(event->globalPos());
  event->accept();
}

void MapView::keyPressEvent(QKeyEvent* event) {
  if (measuring_ && event->key() == Qt::Key_Escape) {
    setMeasuring(false);
    event->accept();
    return;
  }
  if (measuring_ && event->key() == Qt::Key_Backspace) {
    removeLastMeasurePoint();
    event->accept();
    return;
  }
  QWidget::keyPressEvent(event);
}

void MapView::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (!frame_) return;
  if (pending_geo_fit_ && width() > 1 && height() > 1 && isVisible()) {
    applyPendingGeoFit();
    return;
  }
  if (fit_on_resize_ && width() > 1 && height() > 1) {
    fit_on_resize_ = false;
    zoomToFit();
    return;
  }
  clampScale();
  scheduleLoad();
}

void MapView::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (pending_geo_fit_ && width() > 1 && height() > 1) applyPendingGeoFit();
}

void MapView::applyPendingGeoFit() {
  const auto [points, margin] = std::move(*pending_geo_fit_);
  pending_geo_fit_.reset();
  zoomToGeoPoints(points, margin);
}

void MapView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    dragging_ = true;
    last_drag_pos_ = event->position();
    press_pos_ = event->position();
    setCursor(Qt::ClosedHandCursor);
  }
  QWidget::mousePressEvent(event);
}

void MapView::mouseMoveEvent(QMouseEvent* event) {
  if (dragging_) {
    panByPixels(event->position() - last_drag_pos_);
    last_drag_pos_ = event->position();
  }
  const std::optional<geo::GeoPoint> geo = geoFromWidget(event->position());
  Q_EMIT cursorMoved(geo.has_value(), geo ? geo->lat_deg : 0.0, geo ? geo->lon_deg : 0.0);
  QWidget::mouseMoveEvent(event);
}

void MapView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && dragging_) {
    dragging_ = false;
    setCursor(measuring_ ? Qt::CrossCursor : Qt::OpenHandCursor);
    const QPointF moved = event->position() - press_pos_;
    if (moved.manhattanLength() <= 4.0) {  // a click, not a drag
      if (measuring_) {
        if (const std::optional<geo::GeoPoint> point = geoFromWidget(event->position())) addMeasurePoint(*point);
      } else if (const std::optional<double> t_s = timeNearWidgetPoint(event->position(), 12.0)) {
        Q_EMIT timeClicked(*t_s);
      }
    }
  }
  QWidget::mouseReleaseEvent(event);
}

void MapView::wheelEvent(QWheelEvent* event) {
  // One wheel notch (120) zooms by sqrt(2); high-resolution wheels scroll smoothly.
  const double factor = std::pow(2.0, event->angleDelta().y() / 240.0);
  zoomBy(factor, event->position());
  event->accept();
}

void MapView::leaveEvent(QEvent* event) {
  Q_EMIT cursorMoved(false, 0.0, 0.0);
  QWidget::leaveEvent(event);
}

void MapView::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) update();
  QWidget::changeEvent(event);
}

}  // namespace skytrace::ui
