// MapView: a pan/zoom view over georeferenced basemaps.
//
// The view lives in one map CRS and is described by the map point at the widget centre
// and the map units per widget pixel; y grows north (the widget's y grows down). The
// view CRS is the first basemap's; without a basemap, the overlays are drawn on a plain
// metre grid in the UTM zone of the first overlay point (a log reviewed on its own), and
// the first basemap added later takes the view over. Whenever the view changes, the visible window of every layer
// is read again through geo::Basemap::readWindow at the view's ground resolution, on a
// private worker thread, debounced to one read per 40 ms; until it arrives the previous
// images stay drawn at their map positions, so panning and zooming stay smooth. Layers in
// another CRS are read in their own CRS and placed through the CRS transform of their
// corners. Nodata pixels are transparent.
//
// Above the map: track overlays, the camera, a legend (top right) saying what each
// drawn style means, the scale bar, and a distance/area measurement the analyst clicks
// out. A right click opens a context menu (copy coordinates, seek here, centre here,
// measure from here).
//
// Thread: GUI thread only (the reads run on an internal pool and come back queued).
#pragma once

#include <QThreadPool>
#include <QTimer>
#include <QColor>
#include <QWidget>

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/geo/basemap.h"
#include "ui/map_layer_reader.h"
#include "core/geo/geo_transform.h"
#include "core/geo/geodesy.h"

template <typename T>
class QFutureWatcher;
class QMenu;
class QPainter;

namespace skytrace::ui {

class MapView : public QWidget {
  Q_OBJECT

 public:
  explicit MapView(QWidget* parent = nullptr);
  // Waits for a read in flight (bounded by one window read) before returning.
  ~MapView() override;

  // Adds a layer drawn above the earlier ones. The first layer sets the view CRS (also
  // over a grid view without basemaps) and fits the view to it. Throws skytrace::GeoreferenceError when the layer's CRS cannot
  // be transformed to the view's.
  void addBasemap(std::shared_ptr<const geo::Basemap> basemap);
  void clearBasemaps();
  int basemapCount() const { return static_cast<int>(layers_.size()); }

  // The view: centre map point (view CRS units) and map units per widget pixel. There
  // is a view once a basemap or an overlay with points is there.
  bool hasView() const { return frame_ != nullptr; }
  // True while the view is the plain grid of a view without basemaps.
  bool isGridView() const { return frame_ && layers_.empty(); }
  geo::MapRect visibleMapRect() const;
  geo::MapPoint centre() const { return centre_; }
  double unitsPerPixel() const { return units_per_px_; }
  // Ground metres covered by one widget pixel (what the reads request).
  double metresPerPixel() const { return units_per_px_ * (frame_ ? frame_->metres_per_unit : 1.0); }
  std::string viewCrsName() const;

  geo::MapPoint mapFromWidget(const QPointF& p_in_widget) const;
  QPointF widgetFromMap(const geo::MapPoint& p_in_map) const;
  // WGS84 of a widget point; empty without a view or outside the CRS's domain.
  std::optional<geo::GeoPoint> geoFromWidget(const QPointF& p_in_widget) const;

  void setView(const geo::MapPoint& centre, double units_per_px);
  // factor > 1 zooms in; the map point under `anchor_in_widget` stays where it is.
  void zoomBy(double factor, const QPointF& anchor_in_widget);
  void zoomBy(double factor) { zoomBy(factor, QPointF(width() / 2.0, height() / 2.0)); }
  // Moves the map content by `delta_in_widget` pixels (a drag).
  void panByPixels(const QPointF& delta_in_widget);
  // Shows all layers (without basemaps: all overlays).
  void zoomToFit();
  // Shows these WGS84 points with a margin (fraction of the extent on each side); no-op
  // without a view or points.
  void zoomToGeoPoints(const std::vector<geo::GeoPoint>& points, double margin = 0.15);

  // A polyline and/or point markers drawn above the basemaps (a track, registration
  // fixes, highlighted segments), WGS84 degrees. Replaces an overlay of the same name.
  // Drawn in increasing `z`. The first overlay with points sets up a grid view when
  // there is no view yet.
  enum class Marker { None, Dot, Ring, Cross };
  struct TrackOverlay {
    QString name;
    std::vector<geo::GeoPoint> points;
    QColor color;
    // Optional, parallel to `points`: the colour of the line ending at / marker of each
    // point (e.g. by uncertainty); empty = `color` everywhere.
    std::vector<QColor> point_colors;
    // Optional, parallel to `points`: their video times; makes them clickable
    // (timeClicked). Empty = not clickable.
    std::vector<double> t_s;
    Qt::PenStyle line_style = Qt::SolidLine;  // Qt::NoPen: markers only
    double width_px = 3.0;
    bool casing = true;  // a dark outline under the line keeps it legible on imagery
    Marker marker = Marker::None;
    double marker_px = 7.0;
    int z = 0;
    // Drawn as separate polylines where consecutive points are further apart in t_s than
    // this (gaps in a track); <= 0: never split.
    double split_gap_s = 0.0;
  };
  void setTrackOverlay(const TrackOverlay& overlay);
  void removeTrackOverlay(const QString& name);
  void removeTrackOverlaysWithPrefix(const QString& prefix);
  void clearTrackOverlays();
  const std::vector<TrackOverlay>& trackOverlays() const { return overlays_; }

  // The camera at the current time: its ground position, heading (deg, clockwise from
  // north; NaN = unknown) and ground footprint polygon (may be empty). nullopt hides it.
  struct CameraMarker {
    geo::GeoPoint position;
    double yaw_deg = 0.0;
    std::vector<geo::GeoPoint> footprint;
  };
  void setCameraMarker(const std::optional<CameraMarker>& marker);
  const std::optional<CameraMarker>& cameraMarker() const { return camera_; }
  // Centres the view on a point when it left the inner 80 % of the widget.
  void keepInView(const geo::GeoPoint& point);

  // Widget position of a WGS84 point; nullopt without a view.
  std::optional<QPointF> widgetFromGeo(const geo::GeoPoint& point) const;
  // The clickable overlay point nearest to `p_in_widget` within `radius_px`: its time.
  std::optional<double> timeNearWidgetPoint(const QPointF& p_in_widget, double radius_px) const;

  // The legend, drawn top right while visible: one row per entry (a line and/or marker
  // in its overlay's style) and, for a track coloured by a value, the colour ramp.
  struct LegendEntry {
    QString label;
    QColor color;
    Qt::PenStyle line_style = Qt::SolidLine;  // Qt::NoPen: a marker only
    double width_px = 3.0;
    Marker marker = Marker::None;
  };
  struct LegendRamp {
    QString title;                  // what the colour shows, e.g. "Uncertainty (1 sigma)"
    QString low_label, high_label;  // the values at its ends, e.g. "0 m", "12 m"
    std::vector<QColor> stops;      // colours from low to high, evenly spaced
  };
  // Replaces the legend; no entries and no ramp: nothing is drawn.
  void setLegend(std::vector<LegendEntry> entries, std::optional<LegendRamp> ramp = std::nullopt);
  const std::vector<LegendEntry>& legendEntries() const { return legend_entries_; }
  const std::optional<LegendRamp>& legendRamp() const { return legend_ramp_; }
  void setLegendVisible(bool visible);
  bool isLegendVisible() const { return legend_visible_; }
  // Where the legend is drawn (widget pixels); empty when it is not.
  QRectF legendRect() const;

  // Measuring: while on, a click adds a point to the measured path instead of seeking
  // (dragging still pans); Backspace removes the last point, Escape ends measuring.
  // The path is drawn with each segment's length and the total, and from three points
  // the area it encloses. Lengths are geodesic (geo::horizontalDistanceM); the area is
  // geo::ringAreaM2's. Turning measuring off clears the path.
  void setMeasuring(bool on);
  bool isMeasuring() const { return measuring_; }
  void addMeasurePoint(const geo::GeoPoint& point);
  void removeLastMeasurePoint();
  const std::vector<geo::GeoPoint>& measurePoints() const { return measure_points_; }
  double measuredLengthM() const;  // along the path, metres
  double measuredAreaM2() const;   // enclosed by the closed path, m^2; 0 below 3 points

  // The context menu for a widget point: Copy Coordinates (lat, lon in decimal degrees,
  // WGS84), Seek Here (the time of the nearest clickable track point within 30 px),
  // Centre Map Here, Measure From Here. Actions are named copyCoordinates, seekHere,
  // centreHere, measureFromHere; the caller owns the menu (right clicks show it).
  QMenu* createContextMenu(const QPointF& p_in_widget, QWidget* parent);

  // True when what is drawn was read for the current view and no read is pending.
  bool isIdle() const;

 Q_SIGNALS:
  void viewChanged();
  // The cursor moved over the widget; `over_map` false when no position is known.
  void cursorMoved(bool over_map, double lat_deg, double lon_deg);
  // The images for the current view are on screen (see isIdle()).
  void idle();
  // A read failed (one message per failed read, naming the file).
  void loadFailed(const QString& message);
  // A click (press and release without dragging) near a clickable overlay point, or
  // Seek Here in the context menu.
  void timeClicked(double t_s);
  // The measured path changed (a point added or removed, or cleared).
  void measurementChanged();
  // Measuring was turned on or off (setMeasuring, Escape, Measure From Here).
  void measuringChanged(bool on);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void showEvent(QShowEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void leaveEvent(QEvent* event) override;
  void changeEvent(QEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;

 private:
  // The view CRS: how WGS84 maps to view units and what a unit is on the ground.
  struct ViewFrame {
    std::shared_ptr<const geo::MapGeoConverter> converter;
    std::string crs_wkt;   // as the layers' transforms need it
    std::string crs_name;  // "WGS 84 / UTM zone 30N (EPSG:32630)"
    double metres_per_unit = 1.0;
    double finest_units_per_px = 1e-9;  // the closest zoom
  };
  void setFrame(std::shared_ptr<const ViewFrame> frame);  // re-projects overlays and camera
  void setUpGridViewIfNeeded();  // a UTM grid view for the overlays when there is no view
  geo::MapRect contentBounds() const;  // the layers, or without them the overlays
  void drawGrid(QPainter& painter) const;

  void scheduleLoad();
  void startLoad();
  void onLoadFinished();
  void clampScale();
  void applyPendingGeoFit();

  void projectOverlays();  // overlays_ -> overlay_points_in_view_ (view CRS)
  void projectCamera();    // camera_ -> camera_in_view_
  void drawOverlay(QPainter& painter, const TrackOverlay& overlay,
                   const std::vector<geo::MapPoint>& points) const;
  void drawCamera(QPainter& painter) const;
  void drawMeasurement(QPainter& painter) const;
  void drawLegend(QPainter& painter) const;
  QSizeF legendSize() const;

  std::shared_ptr<const ViewFrame> frame_;  // null: no view yet
  std::vector<MapLayer> layers_;
  std::vector<TrackOverlay> overlays_;
  std::vector<std::vector<geo::MapPoint>> overlay_points_in_view_;  // parallel to overlays_
  std::optional<CameraMarker> camera_;
  std::vector<geo::MapPoint> camera_in_view_;  // position, then the footprint
  std::vector<MapLayerImage> images_;
  geo::MapPoint centre_;
  double units_per_px_ = 1.0;
  double min_units_per_px_ = 1e-9;
  double max_units_per_px_ = 1e9;
  bool fit_on_resize_ = false;
  // A zoomToGeoPoints asked for before the widget had its size: done on the next resize.
  std::optional<std::pair<std::vector<geo::GeoPoint>, double>> pending_geo_fit_;

  QTimer load_timer_;
  QThreadPool pool_;
  QFutureWatcher<MapReadResult>* watcher_ = nullptr;
  quint64 requested_generation_ = 0;  // bumped by every view change
  quint64 shown_generation_ = 0;      // of the images on screen
  quint64 accept_from_generation_ = 0;  // older results belong to removed layers
  bool load_in_flight_ = false;

  std::vector<LegendEntry> legend_entries_;
  std::optional<LegendRamp> legend_ramp_;
  bool legend_visible_ = true;
  bool measuring_ = false;
  std::vector<geo::GeoPoint> measure_points_;

  bool dragging_ = false;
  QPointF last_drag_pos_;
  QPointF press_pos_;
};

// The gap in time beyond which a track's line is split (TrackOverlay::split_gap_s): 2 s,
// or 3x the track's median sample interval where that is longer (photos seconds apart
// are one line; a video's frames without a pose are a gap). `t_s` in increasing order.
double trackSplitGapS(const std::vector<double>& t_s);

// "12.3 m", "1.235 km" (a length for the analyst).
QString lengthText(double length_m);
// "850 m²", "1.25 ha", "3.40 km²" (an area for the analyst).
QString areaText(double area_m2);

}  // namespace skytrace::ui
