<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>skytrace</name>
    <message>
        <source>timed out waiting for the map to load</source>
        <translation>timed out waiting for the map to load</translation>
    </message>
    <message>
        <source>cannot write the screenshot %1</source>
        <translation>cannot write the screenshot %1</translation>
    </message>
    <message>
        <source>Skytrace: review UAV flights against georeferenced basemaps.</source>
        <translation>Skytrace: review UAV flights against georeferenced basemaps.</translation>
    </message>
    <message>
        <source>Open a basemap raster (repeat for several).</source>
        <translation>Open a basemap raster (repeat for several).</translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images.</source>
        <translation>Open a flight video or a folder of images.</translation>
    </message>
    <message>
        <source>User interface language: en or de.</source>
        <translation>User interface language: en or de.</translation>
    </message>
    <message>
        <source>Render the window to a PNG file after loading, then quit (no dialogs).</source>
        <translation>Render the window to a PNG file after loading, then quit (no dialogs).</translation>
    </message>
    <message>
        <source>unexpected argument %1 (see --help)</source>
        <translation>unexpected argument %1 (see --help)</translation>
    </message>
    <message>
        <source>Open a Skytrace project (.skytrace) and its results.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show a results folder written by skytrace-cli process.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Start at this video frame.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projects, results folders, videos, basemaps or logs to open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--frame needs a frame number &gt;= 0</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Process the opened flight right away (results into the project&apos;s results folder).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unknown --plot %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plots to show, comma-separated: trajectory, or time plots stacked on one time axis: altitude, heading, speed, discrepancy, latency, gpu.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the flight report (FILE.html and FILE.pdf) after loading, then quit (no dialogs).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>--screenshot and --report cannot be combined</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::DemoBuilder</name>
    <message>
        <source>The demo is already being built.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The demo is made by skytrace-cli, which was not found beside skytrace or on PATH (or set SKYTRACE_CLI to it).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>generating the map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>done</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building the demo stopped.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building the demo failed (exit code %1): %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::EventsPanel</name>
    <message>
        <source>too few matches agree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too small a share of the matches agree</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no clear correlation peak</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>low correlation</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ambiguous: several places fit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>implausible camera geometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>inconsistent with the odometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no basemap under the search area</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>too little texture</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the frame covers too few map pixels</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>map too large to search without a position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no reason recorded</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Odometry lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS dropout</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>up to %1 m from the visual track, for %2 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 attempt: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 attempts in a row: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>1 frame without a visual odometry measurement; the track coasts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 frames without a visual odometry measurement; the track coasts</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no GNSS position in the log for %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide the events of this kind, in the list and on the timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration set aside</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>accepted with %1 inliers, but the final track passes %2 m from it: the other registrations and the odometry disagree with it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Events of a processed flight appear here: flagged GNSS, rejected registrations, lost odometry, GNSS dropouts and registrations the track set aside.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No events: no GNSS flagged, no registration rejected, no odometry lost, no GNSS dropout and no registration set aside.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::FlightReport</name>
    <message>
        <source>Flight report: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video</source>
        <translation type="unfinished">Video</translation>
    </message>
    <message>
        <source>Flight log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>none</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight start (UTC)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Report made</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Software</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Summary</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frames processed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frames with a position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basemap registrations</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 accepted, %2 rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frames odometry lost</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logged GNSS against the visual track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Log clock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>measured offset %1 s (1 sigma %2 s; the run used %3 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No map: no basemap was open.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No plot was shown.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No stretch of the logged GNSS was flagged.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Largest distance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 m</source>
        <translation type="unfinished">%1 m</translation>
    </message>
    <message>
        <source>Events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No events.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Event</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Details</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual odometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Satellite stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Camera</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fallback</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Against a reference track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Alignment</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 fit of the track onto the reference before scoring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Reference frames with a position</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Horizontal error</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>RMSE %1, median %2, p90 %3, largest %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Within 5 / 10 / 20 m</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Vertical error (RMSE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heading error (RMSE)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 deg</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No reference track was scored: the figures below are the track&apos;s own estimate. To score it against a reference (an RTK log, a surveyed path), write the results folder&apos;s accuracy.json with: skytrace-cli eval --truth REFERENCE --track RESULTS/track.csv --out RESULTS/accuracy.json</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Estimated uncertainty (1 sigma)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frames with an estimate</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Median / p90 / largest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frames compared</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Distance: median / p90 / largest</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Beyond 3 sigma of the visual track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 of %2 frames</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flagged stretches</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sequential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>frame-parallel</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::FrameDecoder</name>
    <message>
        <source>Frame %1 could not be decoded</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::GpuMemoryPlot</name>
    <message>
        <source>Video time [s]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory (no GPU samples: CPU run)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory [MiB]</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::LatencyPlot</name>
    <message>
        <source>Video time [s]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No latency samples yet.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frame: p50 %1 ms, p99 %2 ms (%3 frames), slowest %4 ms (frame %5)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>frames above the axis: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: p50 %2 / p99 %3 ms</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency [ms]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Decode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Upload</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Features</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Matching</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pose</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Retrieval</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fine matching</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fusion</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::LogOffsetWidget</name>
    <message>
        <source>Log clock offset:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video time = flight log time + this offset. Changing it moves the logged position on the map at once; the next processing run uses it.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no flight log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>set by you</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the log runs on the video&apos;s clock</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>from the video&apos;s recording time</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>assumed: the log and the video start together</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Forget the offset set by hand and place the log as processing would (the video&apos;s recording time, else 0)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Use Measured</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Take the offset the images measured after the last run: %1 s (1-sigma %2 s)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>After a run with this log, the offset measured from the images can be taken here</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MainWindow</name>
    <message>
        <source>Cannot read basemap</source>
        <translation>Cannot read basemap</translation>
    </message>
    <message>
        <source>Skytrace</source>
        <translation>Skytrace</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;File</translation>
    </message>
    <message>
        <source>Recent &amp;Files</source>
        <translation>Recent &amp;Files</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;View</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Help</translation>
    </message>
    <message>
        <source>Open &amp;Basemap...</source>
        <translation>Open &amp;Basemap...</translation>
    </message>
    <message>
        <source>Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap</source>
        <translation>Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap</translation>
    </message>
    <message>
        <source>Open &amp;Video...</source>
        <translation>Open &amp;Video...</translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images</source>
        <translation>Open a flight video or a folder of images</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>&amp;Clear List</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>&amp;Quit</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>Zoom &amp;In</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Zoom &amp;Out</translation>
    </message>
    <message>
        <source>&amp;Fit Basemap</source>
        <translation>&amp;Fit Basemap</translation>
    </message>
    <message>
        <source>&amp;About Skytrace</source>
        <translation>&amp;About Skytrace</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>Video</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Ready</translation>
    </message>
    <message>
        <source>Basemap %1: %2 x %3 px, %4 m/px, %5</source>
        <translation>Basemap %1: %2 x %3 px, %4 m/px, %5</translation>
    </message>
    <message>
        <source>Cannot open basemap</source>
        <translation>Cannot open basemap</translation>
    </message>
    <message>
        <source>Video %1: %2 frames, %3 fps, %4 x %5 px</source>
        <translation>Video %1: %2 frames, %3 fps, %4 x %5 px</translation>
    </message>
    <message>
        <source>Cannot open video</source>
        <translation>Cannot open video</translation>
    </message>
    <message>
        <source>%1 - frame %2 of %3, t = %4 s</source>
        <translation>%1 - frame %2 of %3, t = %4 s</translation>
    </message>
    <message>
        <source>Open Basemap</source>
        <translation>Open Basemap</translation>
    </message>
    <message>
        <source>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</source>
        <translation>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</translation>
    </message>
    <message>
        <source>Open Video</source>
        <translation>Open Video</translation>
    </message>
    <message>
        <source>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</source>
        <translation>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</translation>
    </message>
    <message>
        <source>About Skytrace</source>
        <translation>About Skytrace</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Skytrace %1&lt;/h3&gt;&lt;p&gt;Visual geolocalisation of UAV flight video against georeferenced basemaps.&lt;/p&gt;&lt;p&gt;Qt %2&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Skytrace %1&lt;/h3&gt;&lt;p&gt;Visual geolocalisation of UAV flight video against georeferenced basemaps.&lt;/p&gt;&lt;p&gt;Qt %2&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (video)</source>
        <translation>&amp;%1 %2 (video)</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (basemap)</source>
        <translation>&amp;%1 %2 (basemap)</translation>
    </message>
    <message>
        <source>No map</source>
        <translation>No map</translation>
    </message>
    <message>
        <source>Scale %1 m/px</source>
        <translation>Scale %1 m/px</translation>
    </message>
    <message>
        <source>Lat -, Lon -</source>
        <translation>Lat -, Lon -</translation>
    </message>
    <message>
        <source>Lat %1°, Lon %2°</source>
        <translation>Lat %1°, Lon %2°</translation>
    </message>
    <message>
        <source>Open a folder of images (jpg/png/tif) as a video</source>
        <translation>Open a folder of images (jpg/png/tif) as a video</translation>
    </message>
    <message>
        <source>Open Image Folder</source>
        <translation>Open Image Folder</translation>
    </message>
    <message>
        <source>Open Image Fol&amp;der...</source>
        <translation>Open Image Fol&amp;der...</translation>
    </message>
    <message>
        <source>Open Flight &amp;Log...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight log %1: %2 GNSS positions over %3 s%4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open flight log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Flight Log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ETA -</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>ETA %1:%2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing finished: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing cancelled; partial results in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing failed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GeoJSON (*.geojson);;GPX (*.gpx);;KML (*.kml);;GeoPackage (*.gpkg);;CSV (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Map View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG image (*.png);;JPEG image (*.jpg)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Window</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 - Skytrace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Process</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Colour Track By</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play&amp;back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Flight...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose video, basemaps, flight log, camera and model for a new project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Open Project...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Save Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save Project &amp;As...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Results Folder...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show a folder written by skytrace-cli process</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Process Flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Compute the visual track of the open project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>P&amp;ause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Track...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Latency CSV...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Map View as Image...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Current &amp;Plot as Image...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Window as Image...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F&amp;ollow Camera</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Keypoints and Matches in Video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Plain</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Uncertainty (sigma)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;GNSS Discrepancy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Play/Pause</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step &amp;Back</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step &amp;Forward</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Slower</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>F&amp;aster</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Jump to Time...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Plots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing progress</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Project saved: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot save project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 is not a results folder (it holds neither track.csv nor report.json)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No camera footprint: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registered on the basemap (%1, %2 inliers)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration rejected: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot process</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing %1 with %2...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (fallback)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no visual track yet: process the flight or open its results</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: unknown track format (use .geojson, .gpx, .kml, .gpkg or .csv)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there is no report yet: process the flight first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there are no latency samples yet</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export image</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 could not be written</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace projects (*.skytrace);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save Project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace projects (*.skytrace)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Results Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1: unknown kind of file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;%1 %2 (project)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;%1 %2 (results)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom to &amp;Track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing &amp;Options...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose the models and devices of visual odometry and the satellite stage, and the mode</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>sequential</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>frame-parallel</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track on the map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds %2 of the %3 frames its container announces: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 - frame %2 of %3 (the file is cut short: its container announces %5), t = %4 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Flight Log as Track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Flight Log as Track...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write the open flight log&apos;s GNSS positions as a track, with their UTC times where the log has them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds no GNSS positions</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot export flight log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>no flight log is open: open one with File &gt; Open Flight Log...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Map &amp;Legend</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Measure Distance and Area</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Click points on the map to measure the path between them and the area they enclose</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Events</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual track: uncertainty (1 sigma)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual track: distance to GNSS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual track</source>
        <translation type="unfinished">Visual track</translation>
    </message>
    <message>
        <source>Raw visual odometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Logged GNSS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration accepted</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration rejected</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Measuring: click points on the map; Backspace removes the last one, Esc ends measuring</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Distance %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Path %1, enclosed area %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Shown without these inputs of the run, which no longer exist: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot build the demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building the demo flight in %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a flight first: File &gt; Open Flight chooses its video and basemaps.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Replace the Results?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 holds the results of an earlier run. Processing again replaces them.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The project could not be saved (%1); save it with File &gt; Save Project As</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Save the Project?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The flight %1 is not saved as a project. Save it before quitting?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 has changed. Save it before quitting?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>The flight log never passes over the basemaps: its nearest position is %1 from a basemap&apos;s centre. Is it the log of this flight, and the right map?</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>paused</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Export Flight Report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>HTML and PDF (*.html)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Report (report.json)...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Flight Report (HTML and PDF)...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Write a report to send: the map and plots as shown, summary, flagged GNSS, events and settings</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot write the flight report</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>there are no results yet: process the flight first</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results shown on a grid; open a basemap to see the imagery under them</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (on a grid: no basemap)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Device: %1
Visual odometry: %2
Satellite stage: %3
Mode: %4</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registered on the basemap (%1, %2 inliers), set aside: the track passes %3 m away</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Registration set aside by the track</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MapView</name>
    <message>
        <source>No basemap. Use File &gt; Open Basemap... to show one.</source>
        <translation>No basemap. Use File &gt; Open Basemap... to show one.</translation>
    </message>
    <message>
        <source>%1 km</source>
        <translation>%1 km</translation>
    </message>
    <message>
        <source>%1 m</source>
        <translation>%1 m</translation>
    </message>
    <message>
        <source>Cannot place track %1 on the map: %2</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 m²</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 ha</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 km²</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Total %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>, area %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Copy Coordinates</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Copy &quot;%1&quot; (latitude, longitude in degrees, WGS84)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Seek Here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>C&amp;entre Map Here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Measure From Here</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No basemap: %1 grid, %2</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::OpenFlightDialog</name>
    <message>
        <source>Flight Video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</source>
        <translation type="unfinished">Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</translation>
    </message>
    <message>
        <source>Image Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basemaps</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</source>
        <translation type="unfinished">Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</translation>
    </message>
    <message>
        <source>Flight Log</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Camera File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Camera JSON (*.json);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight video or folder of images</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>File...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Folder...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basemaps:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Georeferenced rasters, drawn in this order (drop files here)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Add...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Remove</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight log:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Camera:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing default</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From a camera file</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the horizontal field of view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>From the flight log&apos;s camera model</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Horizontal field of view</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Default: &lt;project name&gt;_results beside the project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Optional: DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV or a photo folder</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::PlotsPanel</name>
    <message>
        <source>Trajectory</source>
        <translation type="unfinished">Trajectory</translation>
    </message>
    <message>
        <source>Altitude</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heading</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS discrepancy</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Latency</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video time [s]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Altitude [m]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Heading [deg]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Raw visual odometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Distance</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>3 sigma</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>the flight being processed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time Plots</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed [m/s]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>To GNSS [m]</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingController</name>
    <message>
        <source>A flight is already being processed.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingOptionsDialog</name>
    <message>
        <source>Processing Options</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingOptionsWidget</name>
    <message>
        <source>Visual odometry</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Satellite stage</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual odometry:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FEATURES[+MATCHER], e.g. orb, aliked-n16rot, superpoint+lightglue</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Satellite stage:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>FEATURES, or RETRIEVAL+FINE, e.g. dinov2+litesam, vlad+litesam</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>auto, cpu or cuda:N</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Automatic (frame-parallel on two or more GPUs, overlapped on one, sequential on the CPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Overlapped (engine: decode, VO and satellite threads)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Sequential (one thread)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frame-parallel (engine over every GPU)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Register every keyframe (offline: VO waits for the satellite stage)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off (live use): visual odometry never waits; while the satellite stage is busy, only the newest keyframe is kept and older registration requests are dropped.
On (offline review): visual odometry waits until the satellite stage has room, so every keyframe is registered; processing then runs at the pace of the slower stage.
Overlapped mode only: the sequential mode always registers every keyframe.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model Folder</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing stops with this error: choose the Model folder that holds the file, or another model.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Processing uses ORB instead, or choose the Model folder that holds the file.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Model folder:</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Set by SKYTRACE_MODEL_DIR, which wins over this setting</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Where weight files are looked for (the folder and its sub-folders), for every project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Float16 on the GPU (faster, not exact)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>LightGlue: every layer on every point</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Off: LightGlue stops early on easy frame pairs and drops unmatchable points, as the original.
On: every layer runs on every point, one fixed-shape pass (a CUDA graph on a GPU): the same time for every frame.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>SuperPoint, LightGlue, DINOv2 and LiteSAM run in float16 on a GPU (ALIKED keeps its faster float32 kernels); keypoints and match scores deviate slightly from float32. No effect on the CPU.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimeModel</name>
    <message>
        <source>t = %1 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimePlot</name>
    <message>
        <source>t = %1 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 UTC</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Time [UTC]</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimePlotStack</name>
    <message>
        <source>Reset Zoom</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Fit every plot to its data and the whole flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show or hide this plot; all plots share one time axis</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimelineWidget</name>
    <message>
        <source>Step back one frame (Left)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Step forward one frame (Right)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Drag to scrub through the flight</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Jump to a time: seconds, m:ss or h:mm:ss</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Flight log time of the current frame</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 at %2 s</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TrajectoryPlot</name>
    <message>
        <source>East [m]</source>
        <translation>East [m]</translation>
    </message>
    <message>
        <source>North [m]</source>
        <translation>North [m]</translation>
    </message>
    <message>
        <source>Visual track</source>
        <translation>Visual track</translation>
    </message>
    <message>
        <source>GNSS track</source>
        <translation>GNSS track</translation>
    </message>
    <message>
        <source>Raw visual odometry</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::VideoPanel</name>
    <message>
        <source>No video. Use File &gt; Open Flight... to show one.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::WelcomePage</name>
    <message>
        <source>Project %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Results %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Building the demo: %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace</source>
        <translation type="unfinished">Skytrace</translation>
    </message>
    <message>
        <source>Where was the camera really? Open a flight video with its flight log and a georeferenced basemap; Skytrace computes the camera&apos;s track from the images, checks the logged GNSS against it and shows both beside the video.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Flight...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Choose a video, basemaps, a flight log and a camera for a new project</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Project...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Results Folder...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Show a folder written by skytrace-cli process</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open the Demo</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Build a demo flight over a generated map (a few seconds, no data needed) and process it</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Projects and results folders you open are listed here.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
