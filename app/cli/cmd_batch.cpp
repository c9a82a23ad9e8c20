// `skytrace-cli batch MANIFEST --out DIR`: many flights, each processed like
// `skytrace-cli process` in a child process of its own (a crash or a bad input fails that
// flight only), N at a time.
//   - Results: DIR/<id>/ (process's results folder, plus eval.json when the manifest
//     gives a truth track, plus batch.json: what the results were computed from). Each
//     flight is written into DIR/.<id>.partial and renamed to DIR/<id> once complete, so
//     DIR/<id> is always a whole run; a failed flight leaves the previous DIR/<id> as it
//     was.
//   - Idempotent: a flight whose DIR/<id>/batch.json holds the same fingerprint (the
//     SHA-256 of its input files, the model folder's files, the program file, the version
//     and the process arguments) and whose report.json is complete is skipped.
//   - DIR/logs/<id>.log: the flight's process (and eval) output.
//   - DIR/summary.csv and DIR/summary.html: one row per flight (status, figures from its
//     report.json and eval.json, timings, the error of a failed flight).
// Exit code: 0 when every flight is done or skipped, 1 when any failed, 130 / 143 when
// stopped by Ctrl+C / SIGTERM (the running flights get SIGTERM and keep nothing).
// Threads: the main thread parses and writes the summary; one worker thread per job runs
// flights (hashing, child processes) one after another.
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTextStream>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <thread>

#include "app/cli/batch_summary.h"
#include "app/cli/cancel_on_interrupt.h"
#include "app/cli/cli_command.h"
#include "app/cli/cli_support.h"
#include "core/app/batch_manifest.h"
#include "core/engine/run_control.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/remove_tree.h"
#include "core/util/thread_budget.h"
#include "core/vision/model_paths.h"
#include "core/vision/torch_runtime.h"

namespace skytrace::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// SHA-256 of a file's bytes, hex; of a folder (an image sequence, the model folder): of
// its files' relative paths and hashes, in name order, recursively. Empty for a path that
// does not exist (the flight then fails in process, with process's message).
std::string sha256Of(const QString& path) {
  const QFileInfo info(path);
  if (info.isFile()) {
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    hash.addData(&file);
    return hash.result().toHex().toStdString();
  }
  if (!info.isDir()) return {};
  QCryptographicHash hash(QCryptographicHash::Sha256);
  const QDir dir(path);
  for (const QString& name : dir.entryList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    hash.addData(name.toUtf8());
    hash.addData(QByteArray::fromStdString(sha256Of(dir.filePath(name))));
  }
  return hash.result().toHex().toStdString();
}

// The `process` arguments of a flight, without --out (the batch chooses the folder).
QStringList processArguments(const app::BatchFlight& flight) {
  QStringList args = {"process", "--video", QString::fromStdString(flight.video_path)};
  for (const std::string& basemap : flight.basemap_paths) args << "--basemap" << QString::fromStdString(basemap);
  auto optional = [&](const char* option, const std::string& value) {
    if (!value.empty()) args << option << QString::fromStdString(value);
  };
  optional("--telemetry", flight.telemetry_path);
  optional("--camera", flight.camera_path);
  if (flight.time_offset_s) args << "--time-offset" << QString::number(*flight.time_offset_s, 'g', 17);
  optional("--model", flight.feature_model);
  optional("--vo-model", flight.vo_model);
  optional("--sat-model", flight.satellite_model);
  return args;
}

// What a flight's results are computed from; equal fingerprints, equal results.
nlohmann::json fingerprintRecord(const app::BatchFlight& flight, const QStringList& arguments,
                                 const nlohmann::json& software) {
  nlohmann::json inputs = nlohmann::json::object();
  std::vector<std::string> paths = flight.basemap_paths;
  paths.push_back(flight.video_path);
  for (const std::string& p : {flight.telemetry_path, flight.camera_path, flight.truth_path})
    if (!p.empty()) paths.push_back(p);
  for (const std::string& p : paths) inputs[p] = sha256Of(QString::fromStdString(p));
  nlohmann::json args = nlohmann::json::array();
  for (const QString& a : arguments) args.push_back(a.toStdString());
  nlohmann::json record = {{"id", flight.id}, {"software", software}, {"arguments", args}, {"inputs", inputs}};
  record["fingerprint"] = QCryptographicHash::hash(QByteArray::fromStdString(record.dump()),
                                                   QCryptographicHash::Sha256).toHex().toStdString();
  return record;
}

nlohmann::json readJson(const fs::path& path) {
  std::ifstream file(path);
  if (!file) return {};
  try {
    return nlohmann::json::parse(file);
  } catch (const nlohmann::json::exception&) {
    return {};
  }
}

bool upToDate(const fs::path& results, const std::string& fingerprint) {
  const nlohmann::json batch = readJson(results / "batch.json");
  const nlohmann::json report = readJson(results / "report.json");
  return batch.is_object() && batch.value("fingerprint", std::string()) == fingerprint &&
         report.is_object() && report.value("completed", false);
}

// The last line of a log that says what went wrong ("skytrace-cli: error: ..."), else
// its last non-empty line.
std::string failureMessage(const QString& log_path) {
  QFile file(log_path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  const QStringList lines = QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (it->contains("error:")) return it->trimmed().toStdString();
  return lines.isEmpty() ? std::string() : lines.back().trimmed().toStdString();
}

// Runs the program with `args`, appending its output to `log_path`; stops it with
// SIGTERM when `control` is cancelled. Returns its exit code (-2: crashed or did not start).
int runChild(const QStringList& args, const QString& log_path, const engine::RunControl& control) {
  QProcess child;
  child.setProcessChannelMode(QProcess::MergedChannels);
  child.setStandardOutputFile(log_path, QIODevice::Append);
  child.start(QCoreApplication::applicationFilePath(), args);
  if (!child.waitForStarted(-1)) return -2;
  bool stopping = false;
  while (!child.waitForFinished(200)) {
    if (control.isCancelled() && !stopping) {
      child.terminate();
      stopping = true;
    }
  }
  return child.exitStatus() == QProcess::NormalExit ? child.exitCode() : -2;
}

struct BatchSettings {
  fs::path out;
  int jobs = 1;
  bool force = false;
  int threads_per_job = 1;
  std::vector<std::string> devices;  // per job, round robin; empty: process's default
  nlohmann::json software;
};

FlightSummary runFlight(const app::BatchFlight& flight, int job, const BatchSettings& settings,
                        const engine::RunControl& control) {
  FlightSummary summary;
  summary.id = flight.id;
  const auto started = Clock::now();
  const QStringList arguments = processArguments(flight);
  const nlohmann::json record = fingerprintRecord(flight, arguments, settings.software);
  const fs::path results = settings.out / flight.id;
  summary.results_dir = results.string();
  if (!settings.force && upToDate(results, record["fingerprint"])) {
    summary.status = FlightStatus::Skipped;
    readFlightFigures(results, &summary);
    return summary;
  }
  const fs::path partial = settings.out / ("." + flight.id + ".partial");
  removeTree(partial);
  const QString log_path = QString::fromStdString((settings.out / "logs" / (flight.id + ".log")).string());
  QFile::remove(log_path);

  QStringList args = arguments;
  args << "--out" << QString::fromStdString(partial.string()) << "--threads"
       << QString::number(settings.threads_per_job);
  if (!settings.devices.empty())
    args << "--device" << QString::fromStdString(settings.devices[std::size_t(job) % settings.devices.size()]);
  summary.exit_code = runChild(args, log_path, control);
  if (summary.exit_code == 0 && !flight.truth_path.empty()) {
    summary.exit_code = runChild({"eval", "--truth", QString::fromStdString(flight.truth_path), "--track",
                                  QString::fromStdString((partial / "track.csv").string()), "--out",
                                  QString::fromStdString((partial / "eval.json").string())},
                                 log_path, control);
  }
  summary.wall_s = std::chrono::duration<double>(Clock::now() - started).count();
  if (summary.exit_code != 0) {
    removeTree(partial);
    summary.status = control.isCancelled() ? FlightStatus::Cancelled : FlightStatus::Failed;
    if (!fs::exists(results)) summary.results_dir.clear();  // else: the previous results, kept
    summary.message = failureMessage(log_path);
    if (summary.message.empty()) summary.message = "exit code " + std::to_string(summary.exit_code);
    return summary;
  }
  writeFileAtomically(partial / "batch.json", record.dump(2) + "\n");
  // Replace the previous results as a whole: old -> .old, partial -> <id>, drop .old.
  const fs::path old = settings.out / ("." + flight.id + ".old");
  removeTree(old);
  if (fs::exists(results)) fs::rename(results, old);
  fs::rename(partial, results);
  removeTree(old);
  summary.status = FlightStatus::Done;
  readFlightFigures(results, &summary);
  return summary;
}

std::vector<std::string> defaultDevices() {
  std::vector<std::string> devices;
  for (int i = 0; i < vision::cudaDeviceCount(); ++i) devices.push_back("cuda:" + std::to_string(i));
  return devices;
}

int runBatch(const QStringList& args) {
  QCommandLineParser parser;
  parser.addPositionalArgument("manifest", "CSV or JSONL manifest, one flight per row or line.");
  parser.addOptions({
      {"out", "Results folder of the batch (default out/batch).", "DIR", "out/batch"},
      {"jobs", "Flights processed at once (default 1); the CPU threads are shared among them.", "N", "1"},
      {"devices",
       "Devices of the jobs, round robin: e.g. cuda:0,cuda:1 or cpu (default: one GPU per job over "
       "every GPU; without GPUs process's default).",
       "LIST"},
      {"force", "Process every flight, also those whose results are up to date."},
  });
  addThreadsOption(parser);
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Process many flights from a manifest (CSV or JSONL: id, video, "
                                     "basemaps, telemetry, camera, time_offset_s, model, vo_model, "
                                     "sat_model, truth), N at a time; skip flights whose results are "
                                     "up to date; write summary.csv and summary.html."),
                      args, &exit_code)) {
    return exit_code;
  }
  if (parser.positionalArguments().size() != 1) {
    printError("batch needs exactly one manifest (see --help)");
    return kExitUsage;
  }
  return runGuarded([&] {
    // From here on Ctrl+C / SIGTERM stop the batch in order (the summary is written).
    engine::RunControl control;
    const CancelOnInterrupt interrupt(&control);
    applyThreadsOption(parser);
    const std::string manifest = parser.positionalArguments().first().toStdString();
    const std::vector<app::BatchFlight> flights = app::readBatchManifest(manifest);
    BatchSettings settings;
    settings.out = parser.value("out").toStdString();
    settings.jobs = int(numberOption(parser, "jobs", 1));
    if (settings.jobs < 1 || settings.jobs > 256) throw InvalidArgument("--jobs must be in 1..256");
    settings.force = parser.isSet("force");
    settings.threads_per_job = std::max(1, threadBudget().threads / settings.jobs);
    if (parser.isSet("devices")) {
      for (const QString& d : parser.value("devices").split(',', Qt::SkipEmptyParts))
        settings.devices.push_back(d.trimmed().toStdString());
    } else {
      settings.devices = defaultDevices();
    }
    const std::string models = vision::modelDirectory();
    settings.software = {{"skytrace_version", SKYTRACE_VERSION},
                         {"program_sha256", sha256Of(QCoreApplication::applicationFilePath())},
                         {"model_dir", models},
                         {"model_dir_sha256", models.empty() ? "" : sha256Of(QString::fromStdString(models))}};
    fs::create_directories(settings.out / "logs");

    QTextStream err(stderr);
    err << "batch: " << flights.size() << " flights from " << QString::fromStdString(manifest) << ", "
        << settings.jobs << " at a time, " << settings.threads_per_job << " CPU threads each\n";
    err.flush();
    std::vector<FlightSummary> summaries(flights.size());
    std::atomic<std::size_t> next{0};
    std::mutex print_mutex;
    int finished = 0;
    auto worker = [&](int job) {
      for (std::size_t i = next++; i < flights.size(); i = next++) {
        if (control.isCancelled()) {
          summaries[i].id = flights[i].id;
          summaries[i].status = FlightStatus::Cancelled;
          continue;
        }
        try {
          summaries[i] = runFlight(flights[i], job, settings, control);
        } catch (const std::exception& e) {
          summaries[i].id = flights[i].id;
          summaries[i].status = FlightStatus::Failed;
          summaries[i].message = e.what();
        }
        const std::lock_guard<std::mutex> lock(print_mutex);
        QTextStream line(stderr);
        line << "[" << ++finished << "/" << flights.size() << "] " << QString::fromStdString(flights[i].id) << ": "
             << QString::fromStdString(describeFlight(summaries[i])) << "\n";
      }
    };
    std::vector<std::thread> workers;
    for (int job = 0; job < std::min<int>(settings.jobs, int(flights.size())); ++job) workers.emplace_back(worker, job);
    for (std::thread& t : workers) t.join();

    writeBatchSummary(settings.out, manifest, summaries);
    int done = 0, skipped = 0, failed = 0, cancelled = 0;
    for (const FlightSummary& s : summaries) {
      done += s.status == FlightStatus::Done;
      skipped += s.status == FlightStatus::Skipped;
      failed += s.status == FlightStatus::Failed;
      cancelled += s.status == FlightStatus::Cancelled;
    }
    QTextStream out(stdout);
    out << "batch: " << done << " done, " << skipped << " skipped (up to date), " << failed << " failed"
        << (cancelled ? QString(", %1 cancelled").arg(cancelled) : QString()) << "\n"
        << "summary: " << QString::fromStdString((settings.out / "summary.csv").string()) << ", "
        << QString::fromStdString((settings.out / "summary.html").string()) << "\n";
    if (control.isCancelled()) return stopSignalExitCode();
    return failed > 0 ? int(kExitFailure) : int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("batch"),
     QStringLiteral("Process many flights from a manifest, N at a time; summary CSV + HTML"), runBatch}};

}  // namespace
}  // namespace skytrace::cli
