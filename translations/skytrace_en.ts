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
        <source>Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track.</source>
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
        <source>Trajectory</source>
        <translation>Trajectory</translation>
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
        <source>Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track on the map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source> (shown once a basemap is open)</source>
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
        <source>Flight logs (*.srt *.SRT *.ulg *.gpx *.csv);;All files (*)</source>
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
</context>
<context>
    <name>skytrace::ui::VideoPanel</name>
    <message>
        <source>No video. Use File &gt; Open Video... to show one.</source>
        <translation>No video. Use File &gt; Open Video... to show one.</translation>
    </message>
</context>
</TS>
