#!/usr/bin/env python3
"""Writes the autopilot log fixtures of tests/io/test_telemetry_autopilot.cpp and the
values an independent parser reads from them.

  flight.tlog  MAVLink telemetry log: frames packed by pymavlink (ArduPilot's MAVLink
               implementation) from the ardupilotmega dialect, each behind an 8-byte
               big-endian receive time, with the faults real links produce.
  flight.bin   ArduPilot DataFlash log, packed here from ArduPilot's format description
               (FMT records define every message type).
  autopilot_logs_expected.json
               what pymavlink's own readers (mavutil.mavlink_connection for the .tlog,
               DFReader for the .bin) decode from the two files: message counts per type
               and system, and the first and last GNSS records.

The same flight is in both: 60 s circling 50 m above a home at 47.3977 N, 8.5456 E,
408 m MSL, starting 2024-06-01T10:00:00Z, the autopilot booted 120 s before.

Run once, with pymavlink importable (pip install pymavlink, or a checkout on PYTHONPATH
with its ardupilotmega dialect generated) and PYMAVLINK_VERSION naming it; the outputs
are committed and the test needs no Python. Deterministic: the same files every run.
"""
import json
import math
import os
import struct
import sys

os.environ.setdefault("MAVLINK20", "1")
os.environ.setdefault("MAVLINK_DIALECT", "ardupilotmega")
from pymavlink import DFReader, mavutil  # noqa: E402
from pymavlink.dialects.v20 import ardupilotmega as mavlink  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
START_UNIX = 1717236000.0  # 2024-06-01T10:00:00Z
BOOT_BEFORE_START = 120.0
HOME_LAT, HOME_LON, HOME_ALT = 47.3977, 8.5456, 408.0
DURATION = 60.0
RADIUS, REL_ALT, PERIOD = 80.0, 50.0, 60.0
LINK_LATENCY = 0.15  # ground station receive time after the vehicle's send time
GPS_LEAP = 18.0
GPS_EPOCH_UNIX = 315964800.0


def truth(t):
    """Position, altitude and attitude t seconds into the flight."""
    a = 2 * math.pi * t / PERIOD
    north, east = RADIUS * math.sin(a), RADIUS * (1 - math.cos(a))
    lat = HOME_LAT + north / 6371000.0 * 180 / math.pi
    lon = HOME_LON + east / (6371000.0 * math.cos(math.radians(HOME_LAT))) * 180 / math.pi
    speed = 2 * math.pi * RADIUS / PERIOD
    heading = math.degrees(a) % 360.0  # moving north at t = 0, turning right
    return dict(lat=lat, lon=lon, alt=HOME_ALT + REL_ALT, rel_alt=REL_ALT, speed=speed,
                vn=speed * math.cos(a), ve=speed * math.sin(a), yaw=heading,
                roll=12.0 + 2 * math.sin(a), pitch=-3.0)


def gps_week(unix_s):
    gps = unix_s - GPS_EPOCH_UNIX + GPS_LEAP
    week = int(gps // 604800)
    return week, int(round((gps - week * 604800) * 1000))


# --- MAVLink telemetry log -------------------------------------------------------------
class Sink:
    def write(self, _):
        pass


def make_tlog(path):
    vehicle = mavlink.MAVLink(Sink(), srcSystem=1, srcComponent=1)
    other = mavlink.MAVLink(Sink(), srcSystem=2, srcComponent=1)
    gcs = mavlink.MAVLink(Sink(), srcSystem=255, srcComponent=190)
    records = []  # (receive time, bytes)

    def put(t, link, msg, mavlink1=False):
        records.append((START_UNIX + t + LINK_LATENCY, msg.pack(link, force_mavlink1=mavlink1)))

    steps = int(DURATION * 10)
    for k in range(steps + 1):
        t = k / 10.0
        boot_ms = int(round((t + BOOT_BEFORE_START) * 1000))
        p = truth(t)
        v1 = t < 5.0  # the first 5 s on MAVLink 1, as a link negotiates v2 later
        if k % 10 == 0:
            put(t, vehicle, vehicle.heartbeat_encode(1, 3, 0, 0, 4, 3), v1)
            put(t, vehicle, vehicle.system_time_encode(int((START_UNIX + t) * 1e6), boot_ms), v1)
            put(t, gcs, gcs.heartbeat_encode(6, 8, 0, 0, 0, 3), v1)
            o = truth(t + 30)
            put(t, other, other.gps_raw_int_encode(int((START_UNIX + t) * 1e6), 3, int(o["lat"] * 1e7),
                                                   int(o["lon"] * 1e7), int(o["alt"] * 1000), 90, 120,
                                                   700, 0, 12), v1)
        if k % 2 == 0:  # GNSS at 5 Hz: no fix for the first second
            fix = 3 if t >= 1.0 else 1
            lat = int(round(p["lat"] * 1e7)) if fix == 3 else 0
            lon = int(round(p["lon"] * 1e7)) if fix == 3 else 0
            put(t, vehicle, vehicle.gps_raw_int_encode(
                int((START_UNIX + t) * 1e6), fix, lat, lon, int(round(p["alt"] * 1000)), 80, 110,
                int(round(p["speed"] * 100)), int(round(p["yaw"] * 100)) % 36000, 14,
                int(round((p["alt"] + 47.0) * 1000))), v1)
        if k % 2 == 1:  # the autopilot's estimate at 5 Hz, between the GNSS records
            put(t, vehicle, vehicle.global_position_int_encode(
                boot_ms, int(round(p["lat"] * 1e7)), int(round(p["lon"] * 1e7)), int(round(p["alt"] * 1000)),
                int(round(p["rel_alt"] * 1000)), int(round(p["vn"] * 100)), int(round(p["ve"] * 100)), -20,
                int(round(p["yaw"] * 100)) % 36000), v1)
        put(t, vehicle, vehicle.attitude_encode(boot_ms, math.radians(p["roll"]), math.radians(p["pitch"]),
                                                math.radians(((p["yaw"] + 180) % 360) - 180), 0, 0, 0.2), v1)
        if k % 4 == 0:  # a message the reader does not decode
            put(t, vehicle, vehicle.vfr_hud_encode(0, p["speed"], int(p["yaw"]), 40, p["alt"], 0.2), v1)
        if k % 20 == 10 and t > 5:  # a photo every 2 s
            put(t, vehicle, vehicle.camera_feedback_encode(
                int((START_UNIX + t) * 1e6), 0, 0, k // 20, int(round(p["lat"] * 1e7)),
                int(round(p["lon"] * 1e7)), p["alt"], p["rel_alt"], p["roll"], p["pitch"], p["yaw"], 24.0, 0))
        if k == 300:  # from here on the vehicle signs its frames
            vehicle.signing.secret_key = bytes(range(32))
            vehicle.signing.link_id = 1
            vehicle.signing.timestamp = int((START_UNIX + t - 1420070400) * 1e5)
            vehicle.signing.sign_outgoing = True

    data = bytearray()
    for i, (stamp, frame) in enumerate(records):
        record = bytearray(struct.pack(">Q", int(round(stamp * 1e6))) + frame)
        if i == 400:  # a frame damaged on the link: one payload bit flipped, CRC unchanged
            record[8 + 10 + 5] ^= 0x10
        data += record
        if i == 700:  # bytes of a broken frame between two records
            data += bytes((i * 37 + 11) % 251 for i in range(41))
    data += struct.pack(">Q", int(round((START_UNIX + DURATION + 0.3) * 1e6))) + records[-1][1][:9]
    with open(path, "wb") as f:
        f.write(bytes(data))


def read_tlog(path):
    """What pymavlink reads from the .tlog: counts per (system, message) and GNSS records."""
    conn = mavutil.mavlink_connection(path, dialect="ardupilotmega", robust_parsing=True)
    counts, gps, bad = {}, [], 0
    while True:
        m = conn.recv_match()
        if m is None:
            break
        kind = m.get_type()
        if kind == "BAD_DATA":
            bad += 1
            continue
        key = "%d:%s" % (m.get_srcSystem(), kind)
        counts[key] = counts.get(key, 0) + 1
        if kind == "GPS_RAW_INT" and m.get_srcSystem() == 1 and m.fix_type >= 3:
            gps.append(dict(t=m._timestamp, lat=m.lat * 1e-7, lon=m.lon * 1e-7, alt=m.alt * 1e-3,
                            vel=m.vel * 0.01))
    return dict(counts=counts, bad_data_messages=bad, gps_with_fix=len(gps), first_gps=gps[0],
                last_gps=gps[-1])


# --- ArduPilot DataFlash log ------------------------------------------------------------
TYPES = {"b": "b", "B": "B", "h": "h", "H": "H", "i": "i", "I": "I", "f": "f", "d": "d", "n": "4s",
         "N": "16s", "Z": "64s", "c": "h", "C": "H", "e": "i", "E": "I", "L": "i", "M": "B", "q": "q",
         "Q": "Q"}


class DataflashWriter:
    def __init__(self):
        self.data = bytearray()
        self.formats = {}
        self.define(128, "FMT", "BBnNZ", "Type,Length,Name,Format,Columns")

    def define(self, msg_type, name, fmt, columns):
        layout = "<" + "".join(TYPES[c] for c in fmt)
        length = 3 + struct.calcsize(layout)
        self.formats[name] = (msg_type, layout)
        self.data += b"\xa3\x95\x80" + struct.pack("<BB4s16s64s", msg_type, length, name.encode(),
                                                   fmt.encode(), columns.encode())

    def write(self, name, *values):
        msg_type, layout = self.formats[name]
        self.data += b"\xa3\x95" + bytes([msg_type]) + struct.pack(layout, *values)


def make_bin(path):
    w = DataflashWriter()
    # Layouts as ArduPilot 4.x logs them (GPS with an instance column, scaled types).
    w.define(129, "PARM", "QNf", "TimeUS,Name,Value")
    w.define(130, "GPS", "QBBIHBcLLeffffB", "TimeUS,I,Status,GMS,GWk,NSats,HDop,Lat,Lng,Alt,Spd,GCrs,VZ,Yaw,U")
    w.define(131, "ATT", "QccccCCCCB", "TimeUS,DesRoll,Roll,DesPitch,Pitch,DesYaw,Yaw,ErrRP,ErrYaw,AEKF")
    w.define(132, "POS", "QLLfff", "TimeUS,Lat,Lng,Alt,RelHomeAlt,RelOriginAlt")
    w.define(133, "CAM", "QBHQHLLeeeccC", "TimeUS,I,Img,GPSTime,GPSWeek,Lat,Lng,Alt,RelAlt,GPSAlt,R,P,Y")
    w.define(134, "MSG", "QZ", "TimeUS,Message")
    w.define(135, "IMU", "QBffffff", "TimeUS,I,GyrX,GyrY,GyrZ,AccX,AccY,AccZ")
    w.write("MSG", int(1e6), b"ArduCopter V4.5.7 (2a3dc4b7)")
    for i in range(12):
        w.write("PARM", int(1e6) + i, b"PARAM_%d" % i, float(i))
    steps = int(DURATION * 10)
    for k in range(steps + 1):
        t = k / 10.0
        us = int(round((t + BOOT_BEFORE_START) * 1e6))
        p = truth(t)
        if k % 2 == 0:
            w.write("IMU", us, 0, 0.0, 0.0, 0.2, 0.0, 0.0, -9.81)
        yaw_c = int(round(p["yaw"] * 100)) % 36000  # attitude and position estimate at 10 Hz
        w.write("ATT", us + 10, 0, int(round(p["roll"] * 100)), 0, int(round(p["pitch"] * 100)), 0, yaw_c,
                0, 0, 1)
        w.write("POS", us + 20, int(round(p["lat"] * 1e7)), int(round(p["lon"] * 1e7)), p["alt"],
               p["rel_alt"], p["rel_alt"] + 0.5)
        if k % 2 == 0:  # 5 Hz GNSS, no fix for the first second; a second receiver at 1 Hz
            fix = 3 if t >= 1.0 else 1
            week, tow = gps_week(START_UNIX + t)
            lat = int(round(p["lat"] * 1e7)) if fix == 3 else 0
            lon = int(round(p["lon"] * 1e7)) if fix == 3 else 0
            for instance in ((0, 1) if k % 10 == 0 else (0,)):
                w.write("GPS", us + 30, instance, fix, tow, week, 14, 80, lat + instance * 900, lon,
                        int(round(p["alt"] * 100)), p["speed"], p["yaw"], 0.2, 0.0, 1)
        if k % 20 == 10 and t > 5:  # a photo every 2 s
            week, tow = gps_week(START_UNIX + t)
            w.write("CAM", us + 40, 0, k // 20, tow, week, int(round(p["lat"] * 1e7)), int(round(p["lon"] * 1e7)),
                    int(round(p["alt"] * 100)), int(round(p["rel_alt"] * 100)), int(round(p["alt"] * 100)),
                    int(round(p["roll"] * 100)), int(round(p["pitch"] * 100)), int(round(p["yaw"] * 100)))
        if k == 300:  # a card write that lost bytes: garbage before the next sync
            w.data += bytes((i * 53 + 7) % 163 for i in range(29))
    w.data += b"\xa3\x95" + bytes([130]) + b"\x01\x02\x03"  # the log cut inside a GPS record
    with open(path, "wb") as f:
        f.write(bytes(w.data))


def read_bin(path):
    """What pymavlink's DFReader reads from the .bin: counts per message and GNSS records."""
    log = DFReader.DFReader_binary(path, zero_time_base=False)
    log.verbose = False
    counts, gps, cams = {}, [], []
    while True:
        m = log.recv_msg()
        if m is None:
            break
        kind = m.get_type()
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "GPS" and m.I == 0 and m.Status >= 3:
            gps.append(dict(time_us=m.TimeUS, lat=m.Lat, lon=m.Lng, alt=m.Alt, spd=m.Spd, gwk=m.GWk, gms=m.GMS,
                            unix=DFReader.DFReaderClock()._gpsTimeToTime(m.GWk, m.GMS)))
        if kind == "CAM":
            cams.append(dict(time_us=m.TimeUS, img=m.Img, lat=m.Lat, lon=m.Lng))
    return dict(counts=counts, gps_instance0_with_fix=len(gps), first_gps=gps[0], last_gps=gps[-1],
                cam=len(cams), first_cam=cams[0])


def main():
    tlog, binlog = os.path.join(HERE, "flight.tlog"), os.path.join(HERE, "flight.bin")
    make_tlog(tlog)
    make_bin(binlog)
    expected = {"pymavlink": os.environ.get("PYMAVLINK_VERSION", "unknown"),
                "flight.tlog": read_tlog(tlog), "flight.bin": read_bin(binlog)}
    with open(os.path.join(HERE, "autopilot_logs_expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")
    json.dump(expected, sys.stdout, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
