<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en_US">
<context>
    <name>skytrace</name>
    <message>
        <source>timed out waiting for the map to load</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>cannot write the screenshot %1</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace: review UAV flights against georeferenced basemaps.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a basemap raster (repeat for several).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>User interface language: en or de.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Render the window to a PNG file after loading, then quit (no dialogs).</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>unexpected argument %1 (see --help)</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MainWindow</name>
    <message>
        <source>Cannot read basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Skytrace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Recent &amp;Files</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Basemap...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open &amp;Video...</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;Fit Basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;About Skytrace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Trajectory</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Ready</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Basemap %1: %2 x %3 px, %4 m/px, %5</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Video %1: %2 frames, %3 fps, %4 x %5 px</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Cannot open video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 - frame %2 of %3, t = %4 s</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Basemap</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Open Video</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>About Skytrace</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&lt;h3&gt;Skytrace %1&lt;/h3&gt;&lt;p&gt;Visual geolocalisation of UAV flight video against georeferenced basemaps.&lt;/p&gt;&lt;p&gt;Qt %2&lt;/p&gt;</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;%1 %2 (video)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>&amp;%1 %2 (basemap)</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>No map</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Scale %1 m/px</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lat -, Lon -</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Lat %1°, Lon %2°</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MapView</name>
    <message>
        <source>No basemap. Use File &gt; Open Basemap... to show one.</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 km</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>%1 m</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TrajectoryPlot</name>
    <message>
        <source>East [m]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>North [m]</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>Visual track</source>
        <translation type="unfinished"></translation>
    </message>
    <message>
        <source>GNSS track</source>
        <translation type="unfinished"></translation>
    </message>
</context>
<context>
    <name>skytrace::ui::VideoPanel</name>
    <message>
        <source>No video. Use File &gt; Open Video... to show one.</source>
        <translation type="unfinished"></translation>
    </message>
</context>
</TS>
