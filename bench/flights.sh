# Rendered flights over every shared orthophoto, for the navigation benchmarks
# (bench/nav_accuracy.sh, bench/video_only.sh). Sourced, not run, with $root set to the
# repository: sets $cli (SKYTRACE_CLI, else the default build's skytrace-cli) and $ortho
# (the orthophotos under SKYTRACE_SHARED_DIR, else ../shared).
cli="${SKYTRACE_CLI:-$root/build/app/cli/skytrace-cli}"
ortho="${SKYTRACE_SHARED_DIR:-$root/../shared}/data/orthophotos"
# One line per flight: name | orthophoto file | trajectory | height above ground (m) |
# horizontal field of view (deg) | ground speed (m/s). The field of view is chosen so that
# the footprint is ~45 % of the map; "-" keeps render's default.
flights=(
  "manila-lawn|5b90f92da0d7280005fab355_4310.tif|lawnmower|80|50|8"
  "manila-orbit|5b90f92da0d7280005fab355_4310.tif|orbit|120|40|8"
  "oam1-lawn|5b3622402b6a08001185f8d8_10_00004.tif|lawnmower|60|54|6"
  "oam1-orbit|5b3622402b6a08001185f8d8_10_00004.tif|orbit|100|34|6"
  "oam2-lawn|5c15321f63d9810007f8b06f_10_00000.tif|lawnmower|70|54|7"
  "oam2-orbit|5c15321f63d9810007f8b06f_10_00000.tif|orbit|150|27|7"
  "sjer-lawn|2018_SJER_3_252000_4107000_image_477.tif|lawnmower|60|17|2"
  "sjer-orbit|2018_SJER_3_252000_4107000_image_477.tif|orbit|100|10|2"
  "osbs-lawn|OSBS_029.tif|lawnmower|90|11.5|2"
  "osbs-orbit|OSBS_029.tif|orbit|60|17|2"
  "australia-lawn|australia.tif|lawnmower|60|5.7|0.7"
  "australia-orbit|australia.tif|orbit|60|5.7|0.7"
)

# The scale gap (issue 19): a drone low over a map several times coarser than what its
# camera sees, in other colours (a satellite-like basemap against a drone's view). The
# same orthophotos, flown lower or with narrower lenses, so that the camera footprint
# covers 40-60 pixels of the degraded map; the last field is that map's pixel against
# the orthophoto's (render --degrade-gsd-factor, 3-10), rendered with --degrade-colour
# 0.7. Footprint width = 2 x height x tan(fov / 2) / (source pixel x factor); the World
# Mercator orthophotos' pixels are 0.1 m x cos(latitude) on the ground.
scale_gap_flights=(
  "manila-lawn|5b90f92da0d7280005fab355_4310.tif|lawnmower|50|50|8|8"
  "manila-orbit|5b90f92da0d7280005fab355_4310.tif|orbit|60|40|8|10"
  "oam1-lawn|5b3622402b6a08001185f8d8_10_00004.tif|lawnmower|30|56|6|10"
  "oam1-orbit|5b3622402b6a08001185f8d8_10_00004.tif|orbit|50|34|6|10"
  "oam2-lawn|5c15321f63d9810007f8b06f_10_00000.tif|lawnmower|40|50|7|10"
  "oam2-orbit|5c15321f63d9810007f8b06f_10_00000.tif|orbit|80|30|7|10"
  "sjer-lawn|2018_SJER_3_252000_4107000_image_477.tif|lawnmower|60|17|2|4"
  "sjer-orbit|2018_SJER_3_252000_4107000_image_477.tif|orbit|100|10|2|3"
  "osbs-lawn|OSBS_029.tif|lawnmower|90|11.5|2|4"
  "osbs-orbit|OSBS_029.tif|orbit|60|17|2|3"
  "australia-lawn|australia.tif|lawnmower|60|5.7|0.7|7"
  "australia-orbit|australia.tif|orbit|60|5.7|0.7|6"
)

# select_flights: FLIGHTS=default (or unset) keeps $flights; FLIGHTS=scale-gap puts the
# scale-gap set in its place; anything else exits 2.
select_flights() {
  case "${FLIGHTS:-default}" in
    default) ;;
    scale-gap) flights=("${scale_gap_flights[@]}") ;;
    *) echo "FLIGHTS must be default or scale-gap" >&2; exit 2 ;;
  esac
}

# render_flight CLI ORTHO_DIR LINE OUT_DIR [render args...]: renders the flight of one
# table line into OUT_DIR (640x480 at 10 fps, 30 s, the degraded basemap beside it, seed
# 7 unless the extra args say otherwise; a line with a map factor gets that map).
render_flight() {
  local cli="$1" ortho="$2" line="$3" dir="$4"
  shift 4
  local name file traj alt hfov speed factor
  IFS='|' read -r name file traj alt hfov speed factor <<< "$line"
  local args=(render --basemap "$ortho/$file" --out "$dir" --trajectory "$traj" --size 640x480 --fps 10
              --duration-s 30 --degrade --seed 7)
  [[ "$alt" != "-" ]] && args+=(--alt-m "$alt")
  [[ "$hfov" != "-" ]] && args+=(--hfov-deg "$hfov")
  [[ "$speed" != "-" ]] && args+=(--speed-mps "$speed")
  [[ -n "$factor" ]] && args+=(--degrade-gsd-factor "$factor" --degrade-colour 0.7)
  "$cli" "${args[@]}" "$@"
}
