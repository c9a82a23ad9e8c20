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
        <source>Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track.</source>
        <translation>Ein Fluglog (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) öffnen und seinen GNSS-Track anzeigen.</translation>
    </message>
    <message>
        <source>Open a Skytrace project (.skytrace) and its results.</source>
        <translation>Ein Skytrace-Projekt (.skytrace) mit seinen Ergebnissen öffnen.</translation>
    </message>
    <message>
        <source>Show a results folder written by skytrace-cli process.</source>
        <translation>Einen von skytrace-cli process geschriebenen Ergebnisordner anzeigen.</translation>
    </message>
    <message>
        <source>Start at this video frame.</source>
        <translation>Bei diesem Videobild beginnen.</translation>
    </message>
    <message>
        <source>Projects, results folders, videos, basemaps or logs to open.</source>
        <translation>Zu öffnende Projekte, Ergebnisordner, Videos, Basiskarten oder Flugprotokolle.</translation>
    </message>
    <message>
        <source>--frame needs a frame number &gt;= 0</source>
        <translation>--frame braucht eine Bildnummer &gt;= 0</translation>
    </message>
    <message>
        <source>Process the opened flight right away (results into the project&apos;s results folder).</source>
        <translation>Den geöffneten Flug sofort verarbeiten (Ergebnisse in den Ergebnisordner des Projekts).</translation>
    </message>
    <message>
        <source>unknown --plot %1</source>
        <translation>unbekanntes --plot %1</translation>
    </message>
    <message>
        <source>Plots to show, comma-separated: trajectory, or time plots stacked on one time axis: altitude, heading, speed, discrepancy, latency, gpu.</source>
        <translation>Anzuzeigende Diagramme, durch Kommas getrennt: trajectory, oder Zeitdiagramme übereinander auf einer Zeitachse: altitude, heading, speed, discrepancy, latency, gpu.</translation>
    </message>
    <message>
        <source>Write the flight report (FILE.html and FILE.pdf) after loading, then quit (no dialogs).</source>
        <translation>Nach dem Laden den Flugbericht (FILE.html und FILE.pdf) schreiben und beenden (ohne Dialoge).</translation>
    </message>
    <message>
        <source>--screenshot and --report cannot be combined</source>
        <translation>--screenshot und --report lassen sich nicht kombinieren</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::DemoBuilder</name>
    <message>
        <source>The demo is already being built.</source>
        <translation>Die Demo wird bereits erstellt.</translation>
    </message>
    <message>
        <source>The demo is made by skytrace-cli, which was not found beside skytrace or on PATH (or set SKYTRACE_CLI to it).</source>
        <translation>Die Demo erstellt skytrace-cli, das weder neben skytrace noch im PATH gefunden wurde (oder SKYTRACE_CLI darauf setzen).</translation>
    </message>
    <message>
        <source>Cannot start %1: %2</source>
        <translation>%1 kann nicht gestartet werden: %2</translation>
    </message>
    <message>
        <source>generating the map</source>
        <translation>Karte wird erzeugt</translation>
    </message>
    <message>
        <source>done</source>
        <translation>fertig</translation>
    </message>
    <message>
        <source>Building the demo stopped.</source>
        <translation>Das Erstellen der Demo wurde abgebrochen.</translation>
    </message>
    <message>
        <source>Building the demo failed (exit code %1): %2</source>
        <translation>Das Erstellen der Demo ist fehlgeschlagen (Exit-Code %1): %2</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::EventsPanel</name>
    <message>
        <source>too few matches agree</source>
        <translation>zu wenige Zuordnungen stimmen überein</translation>
    </message>
    <message>
        <source>too small a share of the matches agree</source>
        <translation>ein zu kleiner Anteil der Zuordnungen stimmt überein</translation>
    </message>
    <message>
        <source>no clear correlation peak</source>
        <translation>kein deutliches Korrelationsmaximum</translation>
    </message>
    <message>
        <source>low correlation</source>
        <translation>geringe Korrelation</translation>
    </message>
    <message>
        <source>ambiguous: several places fit</source>
        <translation>mehrdeutig: mehrere Orte passen</translation>
    </message>
    <message>
        <source>implausible camera geometry</source>
        <translation>unplausible Kamerageometrie</translation>
    </message>
    <message>
        <source>inconsistent with the odometry</source>
        <translation>widerspricht der Odometrie</translation>
    </message>
    <message>
        <source>no basemap under the search area</source>
        <translation>keine Basiskarte unter dem Suchbereich</translation>
    </message>
    <message>
        <source>too little texture</source>
        <translation>zu wenig Textur</translation>
    </message>
    <message>
        <source>the frame covers too few map pixels</source>
        <translation>das Bild deckt zu wenige Kartenpixel ab</translation>
    </message>
    <message>
        <source>map too large to search without a position</source>
        <translation>Karte zu groß für eine Suche ohne Position</translation>
    </message>
    <message>
        <source>no reason recorded</source>
        <translation>kein Grund vermerkt</translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation>GNSS markiert</translation>
    </message>
    <message>
        <source>Registration rejected</source>
        <translation>Registrierung abgelehnt</translation>
    </message>
    <message>
        <source>Odometry lost</source>
        <translation>Odometrie verloren</translation>
    </message>
    <message>
        <source>GNSS dropout</source>
        <translation>GNSS-Ausfall</translation>
    </message>
    <message>
        <source>up to %1 m from the visual track, for %2 s</source>
        <translation>bis zu %1 m von der visuellen Spur entfernt, %2 s lang</translation>
    </message>
    <message>
        <source>%1 (%2)</source>
        <translation>%1 (%2)</translation>
    </message>
    <message>
        <source>1 attempt: %1</source>
        <translation>1 Versuch: %1</translation>
    </message>
    <message>
        <source>%1 attempts in a row: %2</source>
        <translation>%1 Versuche in Folge: %2</translation>
    </message>
    <message>
        <source>1 frame without a visual odometry measurement; the track coasts</source>
        <translation>1 Bild ohne Messung der visuellen Odometrie; die Spur wird fortgeschrieben</translation>
    </message>
    <message>
        <source>%1 frames without a visual odometry measurement; the track coasts</source>
        <translation>%1 Bilder ohne Messung der visuellen Odometrie; die Spur wird fortgeschrieben</translation>
    </message>
    <message>
        <source>no GNSS position in the log for %1 s</source>
        <translation>%1 s lang keine GNSS-Position im Log</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Show or hide the events of this kind, in the list and on the timeline</source>
        <translation>Ereignisse dieser Art in der Liste und auf der Zeitleiste zeigen oder ausblenden</translation>
    </message>
    <message>
        <source>Registration set aside</source>
        <translation>Registrierung beiseitegelassen</translation>
    </message>
    <message>
        <source>accepted with %1 inliers, but the final track passes %2 m from it: the other registrations and the odometry disagree with it</source>
        <translation>mit %1 Inliern angenommen, aber die endgültige Spur verläuft %2 m davon entfernt: die übrigen Registrierungen und die Odometrie widersprechen ihr</translation>
    </message>
    <message>
        <source>Events of a processed flight appear here: flagged GNSS, rejected registrations, lost odometry, GNSS dropouts and registrations the track set aside.</source>
        <translation>Hier erscheinen die Ereignisse eines verarbeiteten Flugs: markiertes GNSS, abgelehnte Registrierungen, verlorene Odometrie, GNSS-Ausfälle und von der Spur beiseitegelassene Registrierungen.</translation>
    </message>
    <message>
        <source>No events: no GNSS flagged, no registration rejected, no odometry lost, no GNSS dropout and no registration set aside.</source>
        <translation>Keine Ereignisse: kein GNSS markiert, keine Registrierung abgelehnt, keine Odometrie verloren, kein GNSS-Ausfall und keine Registrierung beiseitegelassen.</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::FlightReport</name>
    <message>
        <source>Flight report: %1</source>
        <translation>Flugbericht: %1</translation>
    </message>
    <message>
        <source>Results folder</source>
        <translation>Ergebnisordner</translation>
    </message>
    <message>
        <source>Video</source>
        <translation>Video</translation>
    </message>
    <message>
        <source>Flight log</source>
        <translation>Fluglog</translation>
    </message>
    <message>
        <source>none</source>
        <translation>keines</translation>
    </message>
    <message>
        <source>Basemap</source>
        <translation>Basiskarte</translation>
    </message>
    <message>
        <source>Flight start (UTC)</source>
        <translation>Flugbeginn (UTC)</translation>
    </message>
    <message>
        <source>Report made</source>
        <translation>Bericht erstellt</translation>
    </message>
    <message>
        <source>Software</source>
        <translation>Software</translation>
    </message>
    <message>
        <source>Skytrace %1</source>
        <translation>Skytrace %1</translation>
    </message>
    <message>
        <source>Summary</source>
        <translation>Übersicht</translation>
    </message>
    <message>
        <source>Frames processed</source>
        <translation>Verarbeitete Bilder</translation>
    </message>
    <message>
        <source>%1 of %2</source>
        <translation>%1 von %2</translation>
    </message>
    <message>
        <source>Frames with a position</source>
        <translation>Bilder mit Position</translation>
    </message>
    <message>
        <source>%1 (%2 %)</source>
        <translation>%1 (%2 %)</translation>
    </message>
    <message>
        <source>Basemap registrations</source>
        <translation>Registrierungen auf der Basiskarte</translation>
    </message>
    <message>
        <source>%1 accepted, %2 rejected</source>
        <translation>%1 angenommen, %2 abgelehnt</translation>
    </message>
    <message>
        <source>Frames odometry lost</source>
        <translation>Bilder ohne Odometrie</translation>
    </message>
    <message>
        <source>Logged GNSS against the visual track</source>
        <translation>Aufgezeichnetes GNSS gegen die visuelle Spur</translation>
    </message>
    <message>
        <source>Log clock</source>
        <translation>Uhr des Logs</translation>
    </message>
    <message>
        <source>measured offset %1 s (1 sigma %2 s; the run used %3 s)</source>
        <translation>gemessener Versatz %1 s (1 Sigma %2 s; der Lauf nutzte %3 s)</translation>
    </message>
    <message>
        <source>Map</source>
        <translation>Karte</translation>
    </message>
    <message>
        <source>No map: no basemap was open.</source>
        <translation>Keine Karte: keine Basiskarte war geöffnet.</translation>
    </message>
    <message>
        <source>Plots</source>
        <translation>Diagramme</translation>
    </message>
    <message>
        <source>No plot was shown.</source>
        <translation>Kein Diagramm war sichtbar.</translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation>GNSS markiert</translation>
    </message>
    <message>
        <source>No stretch of the logged GNSS was flagged.</source>
        <translation>Kein Abschnitt des aufgezeichneten GNSS wurde markiert.</translation>
    </message>
    <message>
        <source>From</source>
        <translation>Von</translation>
    </message>
    <message>
        <source>To</source>
        <translation>Bis</translation>
    </message>
    <message>
        <source>Largest distance</source>
        <translation>Größter Abstand</translation>
    </message>
    <message>
        <source>%1 m</source>
        <translation>%1 m</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>No events.</source>
        <translation>Keine Ereignisse.</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>Zeit</translation>
    </message>
    <message>
        <source>Event</source>
        <translation>Ereignis</translation>
    </message>
    <message>
        <source>Details</source>
        <translation>Details</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>Einstellungen</translation>
    </message>
    <message>
        <source>Device</source>
        <translation>Gerät</translation>
    </message>
    <message>
        <source>Visual odometry</source>
        <translation>Visuelle Odometrie</translation>
    </message>
    <message>
        <source>Satellite stage</source>
        <translation>Satellitenstufe</translation>
    </message>
    <message>
        <source>Mode</source>
        <translation>Modus</translation>
    </message>
    <message>
        <source>Camera</source>
        <translation>Kamera</translation>
    </message>
    <message>
        <source>Fallback</source>
        <translation>Ausweichlösung</translation>
    </message>
    <message>
        <source>Flight report</source>
        <translation>Flugbericht</translation>
    </message>
    <message>
        <source>cannot write %1</source>
        <translation>%1 kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>%1 %</source>
        <translation>%1 %</translation>
    </message>
    <message>
        <source>Accuracy</source>
        <translation>Genauigkeit</translation>
    </message>
    <message>
        <source>Against a reference track</source>
        <translation>Gegen eine Referenzspur</translation>
    </message>
    <message>
        <source>Reference</source>
        <translation>Referenz</translation>
    </message>
    <message>
        <source>Alignment</source>
        <translation>Ausrichtung</translation>
    </message>
    <message>
        <source>%1 fit of the track onto the reference before scoring</source>
        <translation>%1-Anpassung der Spur an die Referenz vor der Bewertung</translation>
    </message>
    <message>
        <source>Reference frames with a position</source>
        <translation>Referenzbilder mit Position</translation>
    </message>
    <message>
        <source>Horizontal error</source>
        <translation>Horizontaler Fehler</translation>
    </message>
    <message>
        <source>RMSE %1, median %2, p90 %3, largest %4</source>
        <translation>RMSE %1, Median %2, p90 %3, größter %4</translation>
    </message>
    <message>
        <source>Within 5 / 10 / 20 m</source>
        <translation>Innerhalb 5 / 10 / 20 m</translation>
    </message>
    <message>
        <source>Vertical error (RMSE)</source>
        <translation>Vertikaler Fehler (RMSE)</translation>
    </message>
    <message>
        <source>Heading error (RMSE)</source>
        <translation>Kursfehler (RMSE)</translation>
    </message>
    <message>
        <source>%1 deg</source>
        <translation>%1 Grad</translation>
    </message>
    <message>
        <source>No reference track was scored: the figures below are the track&apos;s own estimate. To score it against a reference (an RTK log, a surveyed path), write the results folder&apos;s accuracy.json with: skytrace-cli eval --truth REFERENCE --track RESULTS/track.csv --out RESULTS/accuracy.json</source>
        <translation>Keine Referenzspur bewertet: die folgenden Werte sind die eigene Schätzung der Spur. Um sie gegen eine Referenz (ein RTK-Log, einen vermessenen Weg) zu bewerten, die Datei accuracy.json des Ergebnisordners schreiben mit: skytrace-cli eval --truth REFERENCE --track RESULTS/track.csv --out RESULTS/accuracy.json</translation>
    </message>
    <message>
        <source>Estimated uncertainty (1 sigma)</source>
        <translation>Geschätzte Unsicherheit (1 Sigma)</translation>
    </message>
    <message>
        <source>Frames with an estimate</source>
        <translation>Bilder mit Schätzung</translation>
    </message>
    <message>
        <source>Median / p90 / largest</source>
        <translation>Median / p90 / größte</translation>
    </message>
    <message>
        <source>Frames compared</source>
        <translation>Verglichene Bilder</translation>
    </message>
    <message>
        <source>Distance: median / p90 / largest</source>
        <translation>Abstand: Median / p90 / größter</translation>
    </message>
    <message>
        <source>Beyond 3 sigma of the visual track</source>
        <translation>Außerhalb von 3 Sigma der visuellen Spur</translation>
    </message>
    <message>
        <source>%1 of %2 frames</source>
        <translation>%1 von %2 Bildern</translation>
    </message>
    <message>
        <source>Flagged stretches</source>
        <translation>Markierte Abschnitte</translation>
    </message>
    <message>
        <source>sequential</source>
        <translation>sequenziell</translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation>überlappend</translation>
    </message>
    <message>
        <source>frame-parallel</source>
        <translation>bildparallel</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::FrameDecoder</name>
    <message>
        <source>Frame %1 could not be decoded</source>
        <translation>Bild %1 konnte nicht dekodiert werden</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::GpuMemoryPlot</name>
    <message>
        <source>Video time [s]</source>
        <translation>Videozeit [s]</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU-Speicher</translation>
    </message>
    <message>
        <source>GPU memory (no GPU samples: CPU run)</source>
        <translation>GPU-Speicher (keine GPU-Messwerte: Lauf auf der CPU)</translation>
    </message>
    <message>
        <source>GPU memory [MiB]</source>
        <translation>GPU-Speicher [MiB]</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::LatencyPlot</name>
    <message>
        <source>Video time [s]</source>
        <translation>Videozeit [s]</translation>
    </message>
    <message>
        <source>No latency samples yet.</source>
        <translation>Noch keine Latenzmesswerte.</translation>
    </message>
    <message>
        <source>Frame: p50 %1 ms, p99 %2 ms (%3 frames), slowest %4 ms (frame %5)</source>
        <translation>Bild: p50 %1 ms, p99 %2 ms (%3 Bilder), langsamstes %4 ms (Bild %5)</translation>
    </message>
    <message>
        <source>frames above the axis: %1</source>
        <translation>Bilder über der Achse: %1</translation>
    </message>
    <message>
        <source>%1: p50 %2 / p99 %3 ms</source>
        <translation>%1: p50 %2 / p99 %3 ms</translation>
    </message>
    <message>
        <source>Latency [ms]</source>
        <translation>Latenz [ms]</translation>
    </message>
    <message>
        <source>Decode</source>
        <translation>Dekodieren</translation>
    </message>
    <message>
        <source>Upload</source>
        <translation>Hochladen</translation>
    </message>
    <message>
        <source>Features</source>
        <translation>Merkmale</translation>
    </message>
    <message>
        <source>Matching</source>
        <translation>Zuordnung</translation>
    </message>
    <message>
        <source>Pose</source>
        <translation>Pose</translation>
    </message>
    <message>
        <source>Retrieval</source>
        <translation>Suche</translation>
    </message>
    <message>
        <source>Fine matching</source>
        <translation>Feinzuordnung</translation>
    </message>
    <message>
        <source>Fusion</source>
        <translation>Fusion</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::LogOffsetWidget</name>
    <message>
        <source>Log clock offset:</source>
        <translation>Uhrzeitversatz des Logs:</translation>
    </message>
    <message>
        <source> s</source>
        <translation> s</translation>
    </message>
    <message>
        <source>Video time = flight log time + this offset. Changing it moves the logged position on the map at once; the next processing run uses it.</source>
        <translation>Videozeit = Fluglogzeit + dieser Versatz. Eine Änderung verschiebt die geloggte Position auf der Karte sofort; die nächste Verarbeitung verwendet ihn.</translation>
    </message>
    <message>
        <source>no flight log</source>
        <translation>kein Fluglog</translation>
    </message>
    <message>
        <source>set by you</source>
        <translation>von Ihnen gesetzt</translation>
    </message>
    <message>
        <source>the log runs on the video&apos;s clock</source>
        <translation>das Log läuft auf der Uhr des Videos</translation>
    </message>
    <message>
        <source>from the video&apos;s recording time</source>
        <translation>aus der Aufnahmezeit des Videos</translation>
    </message>
    <message>
        <source>assumed: the log and the video start together</source>
        <translation>angenommen: Log und Video beginnen gleichzeitig</translation>
    </message>
    <message>
        <source>Automatic</source>
        <translation>Automatisch</translation>
    </message>
    <message>
        <source>Forget the offset set by hand and place the log as processing would (the video&apos;s recording time, else 0)</source>
        <translation>Den von Hand gesetzten Versatz verwerfen und das Log wie bei der Verarbeitung einordnen (Aufnahmezeit des Videos, sonst 0)</translation>
    </message>
    <message>
        <source>Use Measured</source>
        <translation>Gemessenen übernehmen</translation>
    </message>
    <message>
        <source>Take the offset the images measured after the last run: %1 s (1-sigma %2 s)</source>
        <translation>Den nach dem letzten Lauf aus den Bildern gemessenen Versatz übernehmen: %1 s (1 Sigma %2 s)</translation>
    </message>
    <message>
        <source>After a run with this log, the offset measured from the images can be taken here</source>
        <translation>Nach einem Lauf mit diesem Log lässt sich hier der aus den Bildern gemessene Versatz übernehmen</translation>
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
        <source>Open a flight log (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) and show its GNSS track on the map</source>
        <translation>Ein Fluglog (DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV) öffnen und seinen GNSS-Track auf der Karte anzeigen</translation>
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
        <source>Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)</source>
        <translation>Fluglogs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>ETA -</source>
        <translation>Restzeit -</translation>
    </message>
    <message>
        <source>ETA %1:%2</source>
        <translation>Restzeit %1:%2</translation>
    </message>
    <message>
        <source>Processing finished: %1</source>
        <translation>Verarbeitung abgeschlossen: %1</translation>
    </message>
    <message>
        <source>Processing cancelled; partial results in %1</source>
        <translation>Verarbeitung abgebrochen; Teilergebnisse in %1</translation>
    </message>
    <message>
        <source>Processing failed</source>
        <translation>Verarbeitung fehlgeschlagen</translation>
    </message>
    <message>
        <source>Exported %1</source>
        <translation>%1 exportiert</translation>
    </message>
    <message>
        <source>Export Track</source>
        <translation>Flugbahn exportieren</translation>
    </message>
    <message>
        <source>GeoJSON (*.geojson);;GPX (*.gpx);;KML (*.kml);;GeoPackage (*.gpkg);;CSV (*.csv)</source>
        <translation>GeoJSON (*.geojson);;GPX (*.gpx);;KML (*.kml);;GeoPackage (*.gpkg);;CSV (*.csv)</translation>
    </message>
    <message>
        <source>Export Report</source>
        <translation>Bericht exportieren</translation>
    </message>
    <message>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <source>Export Latency</source>
        <translation>Latenz exportieren</translation>
    </message>
    <message>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <source>Export Map View</source>
        <translation>Kartenansicht exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;JPEG image (*.jpg)</source>
        <translation>PNG-Bild (*.png);;JPEG-Bild (*.jpg)</translation>
    </message>
    <message>
        <source>Export Window</source>
        <translation>Fenster exportieren</translation>
    </message>
    <message>
        <source>Export Plot</source>
        <translation>Diagramm exportieren</translation>
    </message>
    <message>
        <source>PNG image (*.png);;PDF document (*.pdf)</source>
        <translation>PNG-Bild (*.png);;PDF-Dokument (*.pdf)</translation>
    </message>
    <message>
        <source>%1 - Skytrace</source>
        <translation>%1 - Skytrace</translation>
    </message>
    <message>
        <source>&amp;Process</source>
        <translation>&amp;Verarbeitung</translation>
    </message>
    <message>
        <source>E&amp;xport</source>
        <translation>E&amp;xport</translation>
    </message>
    <message>
        <source>&amp;Colour Track By</source>
        <translation>Flugbahn &amp;färben nach</translation>
    </message>
    <message>
        <source>Play&amp;back</source>
        <translation>&amp;Wiedergabe</translation>
    </message>
    <message>
        <source>Open &amp;Flight...</source>
        <translation>&amp;Flug öffnen...</translation>
    </message>
    <message>
        <source>Choose video, basemaps, flight log, camera and model for a new project</source>
        <translation>Video, Basiskarten, Flugprotokoll, Kamera und Modell für ein neues Projekt wählen</translation>
    </message>
    <message>
        <source>&amp;Open Project...</source>
        <translation>Projekt ö&amp;ffnen...</translation>
    </message>
    <message>
        <source>&amp;Save Project</source>
        <translation>Projekt &amp;speichern</translation>
    </message>
    <message>
        <source>Save Project &amp;As...</source>
        <translation>Projekt speichern &amp;unter...</translation>
    </message>
    <message>
        <source>Open &amp;Results Folder...</source>
        <translation>&amp;Ergebnisordner öffnen...</translation>
    </message>
    <message>
        <source>Show a folder written by skytrace-cli process</source>
        <translation>Einen von skytrace-cli process geschriebenen Ordner anzeigen</translation>
    </message>
    <message>
        <source>&amp;Process Flight</source>
        <translation>Flug &amp;verarbeiten</translation>
    </message>
    <message>
        <source>Compute the visual track of the open project</source>
        <translation>Die visuelle Flugbahn des geöffneten Projekts berechnen</translation>
    </message>
    <message>
        <source>P&amp;ause</source>
        <translation>P&amp;ause</translation>
    </message>
    <message>
        <source>&amp;Cancel</source>
        <translation>&amp;Abbrechen</translation>
    </message>
    <message>
        <source>&amp;Track...</source>
        <translation>&amp;Flugbahn...</translation>
    </message>
    <message>
        <source>&amp;Latency CSV...</source>
        <translation>&amp;Latenz-CSV...</translation>
    </message>
    <message>
        <source>&amp;Map View as Image...</source>
        <translation>&amp;Kartenansicht als Bild...</translation>
    </message>
    <message>
        <source>Current &amp;Plot as Image...</source>
        <translation>Aktuelles &amp;Diagramm als Bild...</translation>
    </message>
    <message>
        <source>&amp;Window as Image...</source>
        <translation>&amp;Fenster als Bild...</translation>
    </message>
    <message>
        <source>F&amp;ollow Camera</source>
        <translation>&amp;Kamera folgen</translation>
    </message>
    <message>
        <source>&amp;Keypoints and Matches in Video</source>
        <translation>&amp;Merkmalspunkte und Zuordnungen im Video</translation>
    </message>
    <message>
        <source>&amp;Plain</source>
        <translation>&amp;Einfarbig</translation>
    </message>
    <message>
        <source>&amp;Uncertainty (sigma)</source>
        <translation>&amp;Unsicherheit (Sigma)</translation>
    </message>
    <message>
        <source>&amp;GNSS Discrepancy</source>
        <translation>&amp;GNSS-Abweichung</translation>
    </message>
    <message>
        <source>&amp;Play/Pause</source>
        <translation>&amp;Abspielen/Pause</translation>
    </message>
    <message>
        <source>Step &amp;Back</source>
        <translation>Bild &amp;zurück</translation>
    </message>
    <message>
        <source>Step &amp;Forward</source>
        <translation>Bild &amp;vor</translation>
    </message>
    <message>
        <source>&amp;Slower</source>
        <translation>&amp;Langsamer</translation>
    </message>
    <message>
        <source>F&amp;aster</source>
        <translation>&amp;Schneller</translation>
    </message>
    <message>
        <source>&amp;Jump to Time...</source>
        <translation>Zu &amp;Zeitpunkt springen...</translation>
    </message>
    <message>
        <source>Plots</source>
        <translation>Diagramme</translation>
    </message>
    <message>
        <source>Timeline</source>
        <translation>Zeitleiste</translation>
    </message>
    <message>
        <source>Processing progress</source>
        <translation>Verarbeitungsfortschritt</translation>
    </message>
    <message>
        <source>Cannot open project</source>
        <translation>Projekt kann nicht geöffnet werden</translation>
    </message>
    <message>
        <source>Project saved: %1</source>
        <translation>Projekt gespeichert: %1</translation>
    </message>
    <message>
        <source>Cannot save project</source>
        <translation>Projekt kann nicht gespeichert werden</translation>
    </message>
    <message>
        <source>Cannot open results</source>
        <translation>Ergebnisse können nicht geöffnet werden</translation>
    </message>
    <message>
        <source>%1 is not a results folder (it holds neither track.csv nor report.json)</source>
        <translation>%1 ist kein Ergebnisordner (er enthält weder track.csv noch report.json)</translation>
    </message>
    <message>
        <source>No camera footprint: %1</source>
        <translation>Kein Kamera-Bodenabdruck: %1</translation>
    </message>
    <message>
        <source>Registered on the basemap (%1, %2 inliers)</source>
        <translation>Auf der Basiskarte registriert (%1, %2 Inlier)</translation>
    </message>
    <message>
        <source>Registration rejected: %1</source>
        <translation>Registrierung verworfen: %1</translation>
    </message>
    <message>
        <source>Cannot process</source>
        <translation>Verarbeitung nicht möglich</translation>
    </message>
    <message>
        <source>Processing %1 with %2...</source>
        <translation>Verarbeite %1 mit %2...</translation>
    </message>
    <message>
        <source>&amp;Resume</source>
        <translation>&amp;Fortsetzen</translation>
    </message>
    <message>
        <source> (fallback)</source>
        <translation> (Ersatz)</translation>
    </message>
    <message>
        <source>there is no visual track yet: process the flight or open its results</source>
        <translation>es gibt noch keine visuelle Flugbahn: den Flug verarbeiten oder seine Ergebnisse öffnen</translation>
    </message>
    <message>
        <source>%1: unknown track format (use .geojson, .gpx, .kml, .gpkg or .csv)</source>
        <translation>%1: unbekanntes Flugbahnformat (.geojson, .gpx, .kml, .gpkg oder .csv verwenden)</translation>
    </message>
    <message>
        <source>Cannot export track</source>
        <translation>Flugbahn kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>there is no report yet: process the flight first</source>
        <translation>es gibt noch keinen Bericht: zuerst den Flug verarbeiten</translation>
    </message>
    <message>
        <source>Cannot export report</source>
        <translation>Bericht kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>there are no latency samples yet</source>
        <translation>es gibt noch keine Latenzmesswerte</translation>
    </message>
    <message>
        <source>Cannot export latency</source>
        <translation>Latenz kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>Cannot export image</source>
        <translation>Bild kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>%1 could not be written</source>
        <translation>%1 konnte nicht geschrieben werden</translation>
    </message>
    <message>
        <source>Open Project</source>
        <translation>Projekt öffnen</translation>
    </message>
    <message>
        <source>Skytrace projects (*.skytrace);;All files (*)</source>
        <translation>Skytrace-Projekte (*.skytrace);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Save Project</source>
        <translation>Projekt speichern</translation>
    </message>
    <message>
        <source>Skytrace projects (*.skytrace)</source>
        <translation>Skytrace-Projekte (*.skytrace)</translation>
    </message>
    <message>
        <source>Open Results Folder</source>
        <translation>Ergebnisordner öffnen</translation>
    </message>
    <message>
        <source>Cannot open</source>
        <translation>Öffnen nicht möglich</translation>
    </message>
    <message>
        <source>%1: unknown kind of file</source>
        <translation>%1: unbekannte Dateiart</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (project)</source>
        <translation>&amp;%1 %2 (Projekt)</translation>
    </message>
    <message>
        <source>&amp;%1 %2 (results)</source>
        <translation>&amp;%1 %2 (Ergebnisse)</translation>
    </message>
    <message>
        <source>Zoom to &amp;Track</source>
        <translation>Auf &amp;Flugbahn zoomen</translation>
    </message>
    <message>
        <source>Processing &amp;Options...</source>
        <translation>Verarbeitungs&amp;optionen...</translation>
    </message>
    <message>
        <source>Choose the models and devices of visual odometry and the satellite stage, and the mode</source>
        <translation>Modelle und Geräte der visuellen Odometrie und der Satellitenstufe sowie den Modus wählen</translation>
    </message>
    <message>
        <source>sequential</source>
        <translation>sequenziell</translation>
    </message>
    <message>
        <source>overlapped</source>
        <translation>überlappend</translation>
    </message>
    <message>
        <source>frame-parallel</source>
        <translation>bildparallel</translation>
    </message>
    <message>
        <source>%1 holds %2 of the %3 frames its container announces: %4</source>
        <translation>%1 enthält %2 der %3 Bilder, die sein Container ankündigt: %4</translation>
    </message>
    <message>
        <source>%1 - frame %2 of %3 (the file is cut short: its container announces %5), t = %4 s</source>
        <translation>%1 - Bild %2 von %3 (die Datei ist abgeschnitten: ihr Container kündigt %5 an), t = %4 s</translation>
    </message>
    <message>
        <source>Export Flight Log as Track</source>
        <translation>Fluglog als Flugbahn exportieren</translation>
    </message>
    <message>
        <source>&amp;Flight Log as Track...</source>
        <translation>F&amp;luglog als Flugbahn...</translation>
    </message>
    <message>
        <source>Write the open flight log&apos;s GNSS positions as a track, with their UTC times where the log has them</source>
        <translation>Die GNSS-Positionen des offenen Fluglogs als Flugbahn schreiben, mit ihren UTC-Zeiten, wo das Log sie hat</translation>
    </message>
    <message>
        <source>%1 holds no GNSS positions</source>
        <translation>%1 enthält keine GNSS-Positionen</translation>
    </message>
    <message>
        <source>Cannot export flight log</source>
        <translation>Fluglog kann nicht exportiert werden</translation>
    </message>
    <message>
        <source>no flight log is open: open one with File &gt; Open Flight Log...</source>
        <translation>kein Fluglog geöffnet: eines mit Datei &gt; Fluglog öffnen... öffnen</translation>
    </message>
    <message>
        <source>Map &amp;Legend</source>
        <translation>Karten&amp;legende</translation>
    </message>
    <message>
        <source>&amp;Measure Distance and Area</source>
        <translation>Strecke und Fläche &amp;messen</translation>
    </message>
    <message>
        <source>Click points on the map to measure the path between them and the area they enclose</source>
        <translation>Punkte auf der Karte anklicken, um den Weg zwischen ihnen und die eingeschlossene Fläche zu messen</translation>
    </message>
    <message>
        <source>Events</source>
        <translation>Ereignisse</translation>
    </message>
    <message>
        <source>Visual track: uncertainty (1 sigma)</source>
        <translation>Visuelle Spur: Unsicherheit (1 Sigma)</translation>
    </message>
    <message>
        <source>Visual track: distance to GNSS</source>
        <translation>Visuelle Spur: Abstand zum GNSS</translation>
    </message>
    <message>
        <source>Visual track</source>
        <translation>Visuelle Spur</translation>
    </message>
    <message>
        <source>Raw visual odometry</source>
        <translation>Rohe visuelle Odometrie</translation>
    </message>
    <message>
        <source>Logged GNSS</source>
        <translation>Aufgezeichnetes GNSS</translation>
    </message>
    <message>
        <source>GNSS flagged</source>
        <translation>GNSS markiert</translation>
    </message>
    <message>
        <source>Registration accepted</source>
        <translation>Registrierung angenommen</translation>
    </message>
    <message>
        <source>Registration rejected</source>
        <translation>Registrierung abgelehnt</translation>
    </message>
    <message>
        <source>Measuring: click points on the map; Backspace removes the last one, Esc ends measuring</source>
        <translation>Messen: Punkte auf der Karte anklicken; Rücktaste entfernt den letzten, Esc beendet das Messen</translation>
    </message>
    <message>
        <source>Distance %1</source>
        <translation>Strecke %1</translation>
    </message>
    <message>
        <source>Path %1, enclosed area %2</source>
        <translation>Weg %1, eingeschlossene Fläche %2</translation>
    </message>
    <message>
        <source>Shown without these inputs of the run, which no longer exist: %1</source>
        <translation>Ohne diese Eingaben des Laufs angezeigt, die es nicht mehr gibt: %1</translation>
    </message>
    <message>
        <source>Cannot build the demo</source>
        <translation>Demo kann nicht erstellt werden</translation>
    </message>
    <message>
        <source>Building the demo flight in %1</source>
        <translation>Der Demo-Flug wird in %1 erstellt</translation>
    </message>
    <message>
        <source>Open a flight first: File &gt; Open Flight chooses its video and basemaps.</source>
        <translation>Zuerst einen Flug öffnen: Datei &gt; Flug öffnen wählt Video und Basiskarten.</translation>
    </message>
    <message>
        <source>Replace the Results?</source>
        <translation>Ergebnisse ersetzen?</translation>
    </message>
    <message>
        <source>%1 holds the results of an earlier run. Processing again replaces them.</source>
        <translation>%1 enthält die Ergebnisse eines früheren Laufs. Eine erneute Verarbeitung ersetzt sie.</translation>
    </message>
    <message>
        <source>The project could not be saved (%1); save it with File &gt; Save Project As</source>
        <translation>Das Projekt konnte nicht gespeichert werden (%1); mit Datei &gt; Projekt speichern unter sichern</translation>
    </message>
    <message>
        <source>Save the Project?</source>
        <translation>Projekt speichern?</translation>
    </message>
    <message>
        <source>The flight %1 is not saved as a project. Save it before quitting?</source>
        <translation>Der Flug %1 ist nicht als Projekt gespeichert. Vor dem Beenden speichern?</translation>
    </message>
    <message>
        <source>%1 has changed. Save it before quitting?</source>
        <translation>%1 wurde geändert. Vor dem Beenden speichern?</translation>
    </message>
    <message>
        <source>The flight log never passes over the basemaps: its nearest position is %1 from a basemap&apos;s centre. Is it the log of this flight, and the right map?</source>
        <translation>Das Fluglog führt nie über die Basiskarten: seine nächste Position liegt %1 vom Mittelpunkt einer Basiskarte entfernt. Ist es das Log dieses Flugs und die richtige Karte?</translation>
    </message>
    <message>
        <source>paused</source>
        <translation>angehalten</translation>
    </message>
    <message>
        <source>Export Flight Report</source>
        <translation>Flugbericht exportieren</translation>
    </message>
    <message>
        <source>HTML and PDF (*.html)</source>
        <translation>HTML und PDF (*.html)</translation>
    </message>
    <message>
        <source>&amp;Report (report.json)...</source>
        <translation>&amp;Bericht (report.json)...</translation>
    </message>
    <message>
        <source>&amp;Flight Report (HTML and PDF)...</source>
        <translation>&amp;Flugbericht (HTML und PDF)...</translation>
    </message>
    <message>
        <source>Write a report to send: the map and plots as shown, summary, flagged GNSS, events and settings</source>
        <translation>Einen Bericht zum Versenden schreiben: Karte und Diagramme wie angezeigt, Übersicht, markiertes GNSS, Ereignisse und Einstellungen</translation>
    </message>
    <message>
        <source>Cannot write the flight report</source>
        <translation>Flugbericht kann nicht geschrieben werden</translation>
    </message>
    <message>
        <source>there are no results yet: process the flight first</source>
        <translation>es gibt noch keine Ergebnisse: zuerst den Flug verarbeiten</translation>
    </message>
    <message>
        <source>Skytrace: %1</source>
        <translation>Skytrace: %1</translation>
    </message>
    <message>
        <source>Results shown on a grid; open a basemap to see the imagery under them</source>
        <translation>Ergebnisse auf einem Gitter angezeigt; eine Basiskarte öffnen, um die Bilder darunter zu sehen</translation>
    </message>
    <message>
        <source> (on a grid: no basemap)</source>
        <translation> (auf einem Gitter: keine Basiskarte)</translation>
    </message>
    <message>
        <source>Device: %1
Visual odometry: %2
Satellite stage: %3
Mode: %4</source>
        <translation>Gerät: %1
Visuelle Odometrie: %2
Satellitenstufe: %3
Modus: %4</translation>
    </message>
    <message>
        <source>Registered on the basemap (%1, %2 inliers), set aside: the track passes %3 m away</source>
        <translation>Auf der Basiskarte registriert (%1, %2 Inlier), beiseitegelassen: die Spur verläuft %3 m davon entfernt</translation>
    </message>
    <message>
        <source>Registration set aside by the track</source>
        <translation>Von der Spur beiseitegelassene Registrierung</translation>
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
    <message>
        <source>%1 m²</source>
        <translation>%1 m²</translation>
    </message>
    <message>
        <source>%1 ha</source>
        <translation>%1 ha</translation>
    </message>
    <message>
        <source>%1 km²</source>
        <translation>%1 km²</translation>
    </message>
    <message>
        <source>Total %1</source>
        <translation>Gesamt %1</translation>
    </message>
    <message>
        <source>, area %1</source>
        <translation>, Fläche %1</translation>
    </message>
    <message>
        <source>&amp;Copy Coordinates</source>
        <translation>Koordinaten &amp;kopieren</translation>
    </message>
    <message>
        <source>Copy &quot;%1&quot; (latitude, longitude in degrees, WGS84)</source>
        <translation>&quot;%1&quot; kopieren (Breite, Länge in Grad, WGS84)</translation>
    </message>
    <message>
        <source>&amp;Seek Here</source>
        <translation>Hierhin &amp;springen</translation>
    </message>
    <message>
        <source>C&amp;entre Map Here</source>
        <translation>Karte hier &amp;zentrieren</translation>
    </message>
    <message>
        <source>&amp;Measure From Here</source>
        <translation>Von hier &amp;messen</translation>
    </message>
    <message>
        <source>No basemap: %1 grid, %2</source>
        <translation>Keine Basiskarte: %1-Gitter, %2</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::OpenFlightDialog</name>
    <message>
        <source>Flight Video</source>
        <translation>Flugvideo</translation>
    </message>
    <message>
        <source>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;All files (*)</source>
        <translation>Videos (*.mp4 *.mov *.mkv *.avi *.m4v *.ts);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Image Folder</source>
        <translation>Bildordner</translation>
    </message>
    <message>
        <source>Basemaps</source>
        <translation>Basiskarten</translation>
    </message>
    <message>
        <source>Rasters (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;All files (*)</source>
        <translation>Raster (*.tif *.tiff *.vrt *.mbtiles *.gpkg *.jp2 *.jpg *.png);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Flight Log</source>
        <translation>Flugprotokoll</translation>
    </message>
    <message>
        <source>Flight logs (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;All files (*)</source>
        <translation>Flugprotokolle (*.srt *.SRT *.ulg *.bin *.BIN *.tlog *.gpx *.csv);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Camera File</source>
        <translation>Kameradatei</translation>
    </message>
    <message>
        <source>Camera JSON (*.json);;All files (*)</source>
        <translation>Kamera-JSON (*.json);;Alle Dateien (*)</translation>
    </message>
    <message>
        <source>Results Folder</source>
        <translation>Ergebnisordner</translation>
    </message>
    <message>
        <source>Open Flight</source>
        <translation>Flug öffnen</translation>
    </message>
    <message>
        <source>Video:</source>
        <translation>Video:</translation>
    </message>
    <message>
        <source>Flight video or folder of images</source>
        <translation>Flugvideo oder Bildordner</translation>
    </message>
    <message>
        <source>File...</source>
        <translation>Datei...</translation>
    </message>
    <message>
        <source>Folder...</source>
        <translation>Ordner...</translation>
    </message>
    <message>
        <source>Basemaps:</source>
        <translation>Basiskarten:</translation>
    </message>
    <message>
        <source>Georeferenced rasters, drawn in this order (drop files here)</source>
        <translation>Georeferenzierte Raster, in dieser Reihenfolge gezeichnet (Dateien hierher ziehen)</translation>
    </message>
    <message>
        <source>Add...</source>
        <translation>Hinzufügen...</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>Entfernen</translation>
    </message>
    <message>
        <source>Flight log:</source>
        <translation>Flugprotokoll:</translation>
    </message>
    <message>
        <source>Optional: DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV or a photo folder</source>
        <translation>Optional: DJI SRT, PX4 ULog, ArduPilot .bin, MAVLink .tlog, GPX, CSV oder ein Fotoordner</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <source>Camera:</source>
        <translation>Kamera:</translation>
    </message>
    <message>
        <source>Processing default</source>
        <translation>Standard der Verarbeitung</translation>
    </message>
    <message>
        <source>From a camera file</source>
        <translation>Aus einer Kameradatei</translation>
    </message>
    <message>
        <source>From the horizontal field of view</source>
        <translation>Aus dem horizontalen Bildwinkel</translation>
    </message>
    <message>
        <source>From the flight log&apos;s camera model</source>
        <translation>Aus dem Kameramodell des Flugprotokolls</translation>
    </message>
    <message>
        <source>Horizontal field of view</source>
        <translation>Horizontaler Bildwinkel</translation>
    </message>
    <message>
        <source>Results folder:</source>
        <translation>Ergebnisordner:</translation>
    </message>
    <message>
        <source>Default: &lt;project name&gt;_results beside the project</source>
        <translation>Standard: &lt;Projektname&gt;_results neben dem Projekt</translation>
    </message>
    <message>
        <source>Processing:</source>
        <translation>Verarbeitung:</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::PlotsPanel</name>
    <message>
        <source>Trajectory</source>
        <translation>Flugbahn</translation>
    </message>
    <message>
        <source>Altitude</source>
        <translation>Höhe</translation>
    </message>
    <message>
        <source>Heading</source>
        <translation>Kurs</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Geschwindigkeit</translation>
    </message>
    <message>
        <source>GNSS discrepancy</source>
        <translation>GNSS-Abweichung</translation>
    </message>
    <message>
        <source>Latency</source>
        <translation>Latenz</translation>
    </message>
    <message>
        <source>GPU memory</source>
        <translation>GPU-Speicher</translation>
    </message>
    <message>
        <source>Video time [s]</source>
        <translation>Videozeit [s]</translation>
    </message>
    <message>
        <source>Altitude [m]</source>
        <translation>Höhe [m]</translation>
    </message>
    <message>
        <source>Heading [deg]</source>
        <translation>Kurs [Grad]</translation>
    </message>
    <message>
        <source>Visual</source>
        <translation>Visuell</translation>
    </message>
    <message>
        <source>Raw visual odometry</source>
        <translation>Rohe visuelle Odometrie</translation>
    </message>
    <message>
        <source>GNSS</source>
        <translation>GNSS</translation>
    </message>
    <message>
        <source>Distance</source>
        <translation>Abstand</translation>
    </message>
    <message>
        <source>3 sigma</source>
        <translation>3 Sigma</translation>
    </message>
    <message>
        <source>the flight being processed</source>
        <translation>der Flug in Verarbeitung</translation>
    </message>
    <message>
        <source>Skytrace: %1</source>
        <translation>Skytrace: %1</translation>
    </message>
    <message>
        <source>Time Plots</source>
        <translation>Zeitdiagramme</translation>
    </message>
    <message>
        <source>Speed [m/s]</source>
        <translation>Geschw. [m/s]</translation>
    </message>
    <message>
        <source>To GNSS [m]</source>
        <translation>Abw. [m]</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingController</name>
    <message>
        <source>A flight is already being processed.</source>
        <translation>Es wird bereits ein Flug verarbeitet.</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingOptionsDialog</name>
    <message>
        <source>Processing Options</source>
        <translation>Verarbeitungsoptionen</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::ProcessingOptionsWidget</name>
    <message>
        <source>Visual odometry</source>
        <translation>Visuelle Odometrie</translation>
    </message>
    <message>
        <source>Satellite stage</source>
        <translation>Satellitenstufe</translation>
    </message>
    <message>
        <source>Visual odometry:</source>
        <translation>Visuelle Odometrie:</translation>
    </message>
    <message>
        <source>FEATURES[+MATCHER], e.g. orb, aliked-n16rot, superpoint+lightglue</source>
        <translation>MERKMALE[+MATCHER], z. B. orb, aliked-n16rot, superpoint+lightglue</translation>
    </message>
    <message>
        <source>Satellite stage:</source>
        <translation>Satellitenstufe:</translation>
    </message>
    <message>
        <source>FEATURES, or RETRIEVAL+FINE, e.g. dinov2+litesam, vlad+litesam</source>
        <translation>MERKMALE oder SUCHE+FEIN, z. B. dinov2+litesam, vlad+litesam</translation>
    </message>
    <message>
        <source>auto, cpu or cuda:N</source>
        <translation>auto, cpu oder cuda:N</translation>
    </message>
    <message>
        <source>Mode:</source>
        <translation>Modus:</translation>
    </message>
    <message>
        <source>Automatic (frame-parallel on two or more GPUs, overlapped on one, sequential on the CPU)</source>
        <translation>Automatisch (bildparallel ab zwei GPUs, überlappend auf einer, sequenziell auf der CPU)</translation>
    </message>
    <message>
        <source>Overlapped (engine: decode, VO and satellite threads)</source>
        <translation>Überlappend (Engine: Dekodier-, VO- und Satelliten-Thread)</translation>
    </message>
    <message>
        <source>Sequential (one thread)</source>
        <translation>Sequenziell (ein Thread)</translation>
    </message>
    <message>
        <source>Frame-parallel (engine over every GPU)</source>
        <translation>Bildparallel (Engine auf jeder GPU)</translation>
    </message>
    <message>
        <source>Register every keyframe (offline: VO waits for the satellite stage)</source>
        <translation>Jedes Schlüsselbild registrieren (offline: VO wartet auf die Satellitenstufe)</translation>
    </message>
    <message>
        <source>Off (live use): visual odometry never waits; while the satellite stage is busy, only the newest keyframe is kept and older registration requests are dropped.
On (offline review): visual odometry waits until the satellite stage has room, so every keyframe is registered; processing then runs at the pace of the slower stage.
Overlapped mode only: the sequential mode always registers every keyframe.</source>
        <translation>Aus (Live-Betrieb): die visuelle Odometrie wartet nie; solange die Satellitenstufe beschäftigt ist, wird nur das neueste Schlüsselbild behalten und ältere Registrierungsanfragen werden verworfen.
Ein (Offline-Auswertung): die visuelle Odometrie wartet, bis die Satellitenstufe Platz hat, sodass jedes Schlüsselbild registriert wird; die Verarbeitung läuft dann im Tempo der langsameren Stufe.
Nur im überlappenden Modus: der sequenzielle Modus registriert immer jedes Schlüsselbild.</translation>
    </message>
    <message>
        <source>Model Folder</source>
        <translation>Modellordner</translation>
    </message>
    <message>
        <source>Processing stops with this error: choose the Model folder that holds the file, or another model.</source>
        <translation>Die Verarbeitung bricht mit diesem Fehler ab: den Modellordner wählen, der die Datei enthält, oder ein anderes Modell.</translation>
    </message>
    <message>
        <source>Processing uses ORB instead, or choose the Model folder that holds the file.</source>
        <translation>Die Verarbeitung nutzt stattdessen ORB, oder den Modellordner wählen, der die Datei enthält.</translation>
    </message>
    <message>
        <source>Model folder:</source>
        <translation>Modellordner:</translation>
    </message>
    <message>
        <source>Browse...</source>
        <translation>Durchsuchen...</translation>
    </message>
    <message>
        <source>Set by SKYTRACE_MODEL_DIR, which wins over this setting</source>
        <translation>Durch SKYTRACE_MODEL_DIR gesetzt, das Vorrang vor dieser Einstellung hat</translation>
    </message>
    <message>
        <source>Where weight files are looked for (the folder and its sub-folders), for every project</source>
        <translation>Wo Gewichtsdateien gesucht werden (der Ordner und seine Unterordner), für jedes Projekt</translation>
    </message>
    <message>
        <source>Float16 on the GPU (faster, not exact)</source>
        <translation>Float16 auf der GPU (schneller, nicht exakt)</translation>
    </message>
    <message>
        <source>SuperPoint, LightGlue, DINOv2 and LiteSAM run in float16 on a GPU (ALIKED keeps its faster float32 kernels); keypoints and match scores deviate slightly from float32. No effect on the CPU.</source>
        <translation>SuperPoint, LightGlue, DINOv2 und LiteSAM rechnen auf einer GPU in float16 (ALIKED behält seine schnelleren float32-Kernel); Merkmalspunkte und Zuordnungswerte weichen leicht von float32 ab. Keine Wirkung auf der CPU.</translation>
    </message>
    <message>
        <source>LightGlue: every layer on every point</source>
        <translation>LightGlue: jede Schicht auf jedem Punkt</translation>
    </message>
    <message>
        <source>Off: LightGlue stops early on easy frame pairs and drops unmatchable points, as the original.
On: every layer runs on every point, one fixed-shape pass (a CUDA graph on a GPU): the same time for every frame.</source>
        <translation>Aus: LightGlue hört bei leichten Bildpaaren früher auf und verwirft nicht zuordenbare Punkte, wie das Original.
Ein: jede Schicht läuft auf jedem Punkt, ein Durchlauf fester Form (ein CUDA-Graph auf einer GPU): gleiche Zeit für jedes Bild.</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimeModel</name>
    <message>
        <source>t = %1 s</source>
        <translation>t = %1 s</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimePlot</name>
    <message>
        <source>t = %1 s</source>
        <translation>t = %1 s</translation>
    </message>
    <message>
        <source>%1 UTC</source>
        <translation>%1 UTC</translation>
    </message>
    <message>
        <source>Time [UTC]</source>
        <translation>Zeit [UTC]</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimePlotStack</name>
    <message>
        <source>Reset Zoom</source>
        <translation>Zoom zurücksetzen</translation>
    </message>
    <message>
        <source>Fit every plot to its data and the whole flight</source>
        <translation>Jedes Diagramm an seine Daten und den ganzen Flug anpassen</translation>
    </message>
    <message>
        <source>Show or hide this plot; all plots share one time axis</source>
        <translation>Dieses Diagramm zeigen oder ausblenden; alle Diagramme teilen eine Zeitachse</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::TimelineWidget</name>
    <message>
        <source>Step back one frame (Left)</source>
        <translation>Ein Bild zurück (Links)</translation>
    </message>
    <message>
        <source>Step forward one frame (Right)</source>
        <translation>Ein Bild vor (Rechts)</translation>
    </message>
    <message>
        <source>Pause (Space)</source>
        <translation>Pause (Leertaste)</translation>
    </message>
    <message>
        <source>Play (Space)</source>
        <translation>Abspielen (Leertaste)</translation>
    </message>
    <message>
        <source>Drag to scrub through the flight</source>
        <translation>Ziehen, um durch den Flug zu spulen</translation>
    </message>
    <message>
        <source>Frame</source>
        <translation>Bild</translation>
    </message>
    <message>
        <source>Jump to a time: seconds, m:ss or h:mm:ss</source>
        <translation>Zu einem Zeitpunkt springen: Sekunden, m:ss oder h:mm:ss</translation>
    </message>
    <message>
        <source>Speed</source>
        <translation>Geschwindigkeit</translation>
    </message>
    <message>
        <source>Playback speed</source>
        <translation>Wiedergabegeschwindigkeit</translation>
    </message>
    <message>
        <source>Flight log time of the current frame</source>
        <translation>Flugprotokollzeit des aktuellen Bildes</translation>
    </message>
    <message>
        <source>%1 at %2 s</source>
        <translation>%1 bei %2 s</translation>
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
    <message>
        <source>Raw visual odometry</source>
        <translation>Rohe visuelle Odometrie</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::VideoPanel</name>
    <message>
        <source>No video. Use File &gt; Open Flight... to show one.</source>
        <translation>Kein Video. Mit Datei &gt; Flug öffnen... eines anzeigen.</translation>
    </message>
</context>
<context>
    <name>skytrace::ui::WelcomePage</name>
    <message>
        <source>Project %1</source>
        <translation>Projekt %1</translation>
    </message>
    <message>
        <source>Results %1</source>
        <translation>Ergebnisse %1</translation>
    </message>
    <message>
        <source>Building the demo: %1</source>
        <translation>Demo wird erstellt: %1</translation>
    </message>
    <message>
        <source>Skytrace</source>
        <translation>Skytrace</translation>
    </message>
    <message>
        <source>Where was the camera really? Open a flight video with its flight log and a georeferenced basemap; Skytrace computes the camera&apos;s track from the images, checks the logged GNSS against it and shows both beside the video.</source>
        <translation>Wo war die Kamera wirklich? Öffnen Sie ein Flugvideo mit seinem Fluglog und eine georeferenzierte Basiskarte; Skytrace berechnet die Spur der Kamera aus den Bildern, prüft das aufgezeichnete GNSS daran und zeigt beides neben dem Video.</translation>
    </message>
    <message>
        <source>Open Flight...</source>
        <translation>Flug öffnen...</translation>
    </message>
    <message>
        <source>Choose a video, basemaps, a flight log and a camera for a new project</source>
        <translation>Video, Basiskarten, Fluglog und Kamera für ein neues Projekt wählen</translation>
    </message>
    <message>
        <source>Open Project...</source>
        <translation>Projekt öffnen...</translation>
    </message>
    <message>
        <source>Open Results Folder...</source>
        <translation>Ergebnisordner öffnen...</translation>
    </message>
    <message>
        <source>Show a folder written by skytrace-cli process</source>
        <translation>Einen von skytrace-cli process geschriebenen Ordner anzeigen</translation>
    </message>
    <message>
        <source>Open the Demo</source>
        <translation>Demo öffnen</translation>
    </message>
    <message>
        <source>Build a demo flight over a generated map (a few seconds, no data needed) and process it</source>
        <translation>Einen Demo-Flug über einer erzeugten Karte erstellen (wenige Sekunden, keine Daten nötig) und verarbeiten</translation>
    </message>
    <message>
        <source>Recent</source>
        <translation>Zuletzt geöffnet</translation>
    </message>
    <message>
        <source>Projects and results folders you open are listed here.</source>
        <translation>Geöffnete Projekte und Ergebnisordner erscheinen hier.</translation>
    </message>
</context>
</TS>
