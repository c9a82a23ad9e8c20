<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="de_DE">
<context>
    <name>skytrace</name>
    <message>
        <source>timed out waiting for the map to load</source>
        <translation>Zeitüberschreitung beim Laden der Karte</translation>
    </message>
    <message>
        <source>cannot write the screenshot %1</source>
        <translation>Bildschirmfoto %1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Skytrace: review UAV flights against georeferenced basemaps.</source>
        <translation>Skytrace: UAV-Flüge mit georeferenzierten Basiskarten auswerten.</translation>
    </message>
    <message>
        <source>Open a basemap raster (repeat for several).</source>
        <translation>Ein Basiskarten-Raster öffnen (für mehrere wiederholen).</translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images.</source>
        <translation>Ein Flugvideo oder einen Bildordner öffnen.</translation>
    </message>
    <message>
        <source>User interface language: en or de.</source>
        <translation>Sprache der Oberfläche: en oder de.</translation>
    </message>
    <message>
        <source>Render the window to a PNG file after loading, then quit (no dialogs).</source>
        <translation>Das Fenster nach dem Laden als PNG-Datei speichern und beenden (ohne Dialoge).</translation>
    </message>
    <message>
        <source>unexpected argument %1 (see --help)</source>
        <translation>unerwartetes Argument %1 (siehe --help)</translation>
    </message>
    <message>
        <source>Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track.</source>
        <translation>Ein Fluglog (DJI SRT, PX4 ULog, GPX, CSV) öffnen und seinen GNSS-Track anzeigen.</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MainWindow</name>
    <message>
        <source>Cannot read basemap</source>
        <translation>Basiskarte kann nicht gelesen werden</translation>
    </message>
    <message>
        <source>Skytrace</source>
        <translation>Skytrace</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>&amp;Datei</translation>
    </message>
    <message>
        <source>Recent &amp;Files</source>
        <translation>&amp;Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>&amp;Ansicht</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>&amp;Hilfe</translation>
    </message>
    <message>
        <source>Open &amp;Basemap...</source>
        <translation>&amp;Basiskarte öffnen...</translation>
    </message>
    <message>
        <source>Open a georeferenced raster (GeoTIFF, VRT, MBTiles, ...) as a basemap</source>
        <translation>Ein georeferenziertes Raster (GeoTIFF, VRT, MBTiles, ...) als Basiskarte öffnen</translation>
    </message>
    <message>
        <source>Open &amp;Video...</source>
        <translation>&amp;Video öffnen...</translation>
    </message>
    <message>
        <source>Open a flight video or a folder of images</source>
        <translation>Ein Flugvideo oder einen Bildordner öffnen</translation>
    </message>
    <message>
        <source>&amp;Clear List</source>
        <translation>Liste &amp;leeren</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>B&amp;eenden</translation>
    </message>
    <message>
        <source>Zoom &amp;In</source>
        <translation>&amp;Vergrößern</translation>
    </message>
    <message>
        <source>Zoom &amp;Out</source>
        <translation>Ver&amp;kleinern</translation>
    </message>
    <message>
        <source>&amp;Fit Basemap</source>
        <translation>Basiskarte ein&amp;passen</translation>
    </message>
    <message>
        <source>&amp;About Skytrace</source>
        <translation>&amp;Über Skytrace</translation>
    </message>
    <message>
        <source>Trajectory</source>
        <translation>Flugbahn</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>Video</translation>
    </message>
    <message>
        <source>Ready</source>
        <translation>Bereit</translation>
    </message>
    <message>
        <source>Basemap %1: %2 x %3 px, %4 m/px, %5</source>
        <translation>Basiskarte %1: %2 x %3 px, %4 m/px, %5</translation>
    </message>
    <message>
        <source>Cannot open basemap</source>
        <translation>Basiskarte kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Video %1: %2 frames, %3 fps, %4 x %5 px</source>
        <translation>Video %1: %2 Bilder, %3 fps, %4 x %5 px</translation>
    </message>
    <message>
        <source>Cannot open video</source>
        <translation>Video kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>%1 - frame %2 of %3, t = %4 s</source>
        <translation>%1 - Bild %2 von %3, t = %4 s</translation>
    </message>
    <message>
        <source>Open Basemap</source>
        <translation>Basiskarte öffnen</translation>
    </message>
    <message>
        <source>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</source>
        <translation>Raster (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Open Video</source>
        <translation>Video öffnen</translation>
    </message>
    <message>
        <source>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</source>
        <translation>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>About Skytrace</source>
        <translation>Über Skytrace</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Skytrace %1&lt;/h3&gt;&lt;p&gt;Visual geolocalisation of UAV flight video against georeferenced basemaps.&lt;/p&gt;&lt;p&gt;Qt %2&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Skytrace %1&lt;/h3&gt;&lt;p&gt;Visuelle Geolokalisierung von UAV-Flugvideos auf georeferenzierten Basiskarten.&lt;/p&gt;&lt;p&gt;Qt %2&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (video)</source>
        <translation>&amp;%1 %2 (Video)</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (basemap)</source>
        <translation>&amp;%1 %2 (Basiskarte)</translation>
    </message>
    <message>
        <source>No map</source>
        <translation>Keine Karte</translation>
    </message>
    <message>
        <source>Scale %1 m/px</source>
        <translation>Maßstab %1 m/px</translation>
    </message>
    <message>
        <source>Lat -, Lon -</source>
        <translation>Breite -, Länge -</translation>
    </message>
    <message>
        <source>Lat %1°, Lon %2°</source>
        <translation>Breite %1°, Länge %2°</translation>
    </message>
    <message>
        <source>Open a folder of images (jpg/png/tif) as a video</source>
        <translation>Einen Ordner mit Bildern (jpg/png/tif) als Video öffnen</translation>
    </message>
    <message>
        <source>Open Image Folder</source>
        <translation>Bildordner öffnen</translation>
    </message>
    <message>
        <source>Open Image Fol&amp;der...</source>
        <translation>Bild&amp;ordner öffnen...</translation>
    </message>
    <message>
        <source>Open Flight &amp;Log...</source>
        <translation>F&amp;luglog öffnen...</translation>
    </message>
    <message>
        <source>Open a flight log (DJI SRT, PX4 ULog, GPX, CSV) and show its GNSS track on the map</source>
        <translation>Ein Fluglog (DJI SRT, PX4 ULog, GPX, CSV) öffnen und seinen GNSS-Track auf der Karte anzeigen</translation>
    </message>
    <message>
        <source> (shown once a basemap is open)</source>
        <translation> (wird angezeigt, sobald eine Basiskarte geöffnet ist)</translation>
    </message>
    <message>
        <source>Flight log %1: %2 GNSS positions over %3 s%4</source>
        <translation>Fluglog %1: %2 GNSS-Positionen über %3 s%4</translation>
    </message>
    <message>
        <source>Cannot open flight log</source>
        <translation>Fluglog kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Open Flight Log</source>
        <translation>Fluglog öffnen</translation>
    </message>
    <message>
        <source>Flight logs (*.srt *.SRT *.ulg *.gpx *.csv);;All files (*)</source>
        <translation>Fluglogs (*.srt *.SRT *.ulg *.gpx *.csv);;Alle Dateien (*)</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::MapView</name>
    <message>
        <source>No basemap. Use File &gt; Open Basemap... to show one.</source>
        <translation>Keine Basiskarte. Mit Datei &gt; Basiskarte öffnen... eine anzeigen.</translation>
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
        <translation>Track %1 kann nicht auf der Karte platziert werden: %2</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TrajectoryPlot</name>
    <message>
        <source>East [m]</source>
        <translation>Ost [m]</translation>
    </message>
    <message>
        <source>North [m]</source>
        <translation>Nord [m]</translation>
    </message>
    <message>
        <source>Visual track</source>
        <translation>Visuelle Spur</translation>
    </message>
    <message>
        <source>GNSS track</source>
        <translation>GNSS-Spur</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::VideoPanel</name>
    <message>
        <source>No video. Use File &gt; Open Video... to show one.</source>
        <translation>Kein Video. Mit Datei &gt; Video öffnen... eines anzeigen.</translation>
    </message>
</context>
</TS>
