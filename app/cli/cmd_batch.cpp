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
#include <QStandardPaths>
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
#include <numeric>
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

// Runs a tool (sbatch, scancel) to completion; its stdout into *output. Returns its exit
// code, -2 when it did not start or crashed. Cancelling `control` does not stop it
// (`stop_on_cancel` sends SIGTERM, e.g. to `sbatch --wait`).
int runTool(const QString& program, const QStringList& args, QString* output, const engine::RunControl& control,
            bool stop_on_cancel) {
  QProcess tool;
  tool.setProcessChannelMode(QProcess::ForwardedErrorChannel);
  tool.start(program, args);
  if (!tool.waitForStarted(-1)) return -2;
  bool stopping = false;
  while (!tool.waitForFinished(200)) {
    if (stop_on_cancel && control.isCancelled() && !stopping) {
      tool.terminate();
      stopping = true;
    }
  }
  if (output) *output = QString::fromUtf8(tool.readAllStandardOutput()).trimmed();
  return tool.exitStatus() == QProcess::NormalExit ? tool.exitCode() : -2;
}

QString shellQuoted(const std::string& text) {
  QString quoted = QString::fromStdString(text);
  quoted.replace("'", "'\\''");
  return "'" + quoted + "'";
}

std::string absolutePath(const fs::path& path) { return fs::absolute(path).lexically_normal().string(); }

fs::path statusPath(const fs::path& out, const std::string& id) { return out / "logs" / (id + ".status.json"); }

// The summaries of a batch whose flights ran elsewhere (Slurm tasks): each from its
// status file; a flight without one did not run to its end.
std::vector<FlightSummary> collectSummaries(const std::vector<app::BatchFlight>& flights, const fs::path& out) {
  std::vector<FlightSummary> summaries;
  for (const app::BatchFlight& flight : flights) {
    FlightSummary summary;
    summary.id = flight.id;
    if (!readFlightStatus(statusPath(out, flight.id), &summary)) {
      summary.status = FlightStatus::Failed;
      summary.message = "no status: its task did not finish (see logs/slurm-*.out)";
    }
    if (fs::exists(out / flight.id)) {
      summary.results_dir = (out / flight.id).string();
      readFlightFigures(out / flight.id, &summary);
    }
    summaries.push_back(std::move(summary));
  }
  return summaries;
}

// Writes the job scripts into DIR/slurm, submits the array job (one task per flight) and a
// job that collects the summary once every task ended, and waits for that one.
// Returns the array job's id; throws Error when sbatch fails.
std::string submitToSlurm(const std::string& manifest, std::size_t flights, const fs::path& out,
                          const QCommandLineParser& parser, const engine::RunControl& control) {
  const QString sbatch = QStandardPaths::findExecutable("sbatch");
  if (sbatch.isEmpty())
    throw Error("--slurm needs Slurm's sbatch on the PATH (Debian package slurm-client)");
  fs::create_directories(out / "slurm");
  const std::string program = absolutePath(QCoreApplication::applicationFilePath().toStdString());
  const std::string out_dir = absolutePath(out);
  const std::string manifest_path = absolutePath(manifest);
  const int cpus = parser.isSet("threads") ? parser.value("threads").toInt() : 1;
  QString array = "#!/bin/sh\n# Written by skytrace-cli batch --slurm: one task per flight of the manifest.\n";
  array += "#SBATCH --job-name=skytrace-batch\n";
  array += QString("#SBATCH --array=0-%1\n").arg(flights - 1);
  array += QString("#SBATCH --cpus-per-task=%1\n").arg(std::max(1, cpus));
  array += "#SBATCH --output=" + QString::fromStdString(out_dir) + "/logs/slurm-%A_%a.out\n";
  if (parser.isSet("slurm-gpus")) array += "#SBATCH --gres=gpu:1\n";
  array += "exec " + shellQuoted(program) + " batch " + shellQuoted(manifest_path) + " --out " +
           shellQuoted(out_dir) + " --task \"$SLURM_ARRAY_TASK_ID\"" + (parser.isSet("force") ? " --force" : "") +
           "\n";
  const QString collect = "#!/bin/sh\n# Written by skytrace-cli batch --slurm: the summary, once every task ended.\n"
                          "#SBATCH --job-name=skytrace-batch-summary\n#SBATCH --output=" +
                          QString::fromStdString(out_dir) + "/logs/slurm-%j-summary.out\nexec " +
                          shellQuoted(program) + " batch " + shellQuoted(manifest_path) + " --out " +
                          shellQuoted(out_dir) + " --collect\n";
  writeFileAtomically(out / "slurm" / "array.sh", array.toStdString());
  writeFileAtomically(out / "slurm" / "collect.sh", collect.toStdString());

  const QStringList extra = QProcess::splitCommand(parser.value("slurm-args"));
  QString job_id;
  const int submitted = runTool(sbatch, QStringList{"--parsable"} + extra +
                                            QStringList{QString::fromStdString(out_dir + "/slurm/array.sh")},
                                &job_id, control, false);
  job_id = job_id.section(';', 0, 0);  // "<id>[;<cluster>]"
  if (submitted != 0 || job_id.isEmpty())
    throw Error("sbatch refused the array job (exit code " + std::to_string(submitted) + ")");
  QTextStream(stderr) << "batch: submitted Slurm array job " << job_id << " (" << flights
                      << " tasks); waiting for it to end\n";
  QString collect_id;
  // Its exit code is the collecting batch's (1 when a flight failed): the summary says more.
  runTool(sbatch,
          QStringList{"--parsable", "--wait", "--dependency=afterany:" + job_id} + extra +
              QStringList{QString::fromStdString(out_dir + "/slurm/collect.sh")},
          &collect_id, control, true);
  if (control.isCancelled()) {
    const QString scancel = QStandardPaths::findExecutable("scancel");
    if (!scancel.isEmpty()) runTool(scancel, {job_id, collect_id.section(';', 0, 0)}, nullptr, control, false);
  }
  return job_id.toStdString();
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
      {"slurm",
       "Run the flights as a Slurm array job (one task per flight, --threads CPUs each, default 1), "
       "wait for it and write the summary; needs sbatch (SLURM_CONF names the cluster)."},
      {"slurm-gpus", "With --slurm: one GPU per task (--gres=gpu:1)."},
      {"slurm-args", "With --slurm: more sbatch options, e.g. \"--partition=gpu --time=2:00:00\".", "ARGS"},
      {"task", "Process only the flight at this 0-based position of the manifest (what each Slurm task runs).",
       "K"},
      {"collect", "Only write the summary, from the flights' status files (what the Slurm summary job runs)."},
  });
  addThreadsOption(parser);
  int exit_code = kExitOk;
  if (!parseArguments(parser,
                      QStringLiteral("Process many flights from a manifest (CSV or JSONL: id, video, "
                                     "basemaps, telemetry, camera, time_offset_s, model, vo_model, "
                                     "sat_model, truth), N at a time or as a Slurm array job; skip flights "
                                     "whose results are up to date; write summary.csv and summary.html."),
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
    fs::create_directories(settings.out / "logs");
    const int modes = int(parser.isSet("slurm")) + int(parser.isSet("task")) + int(parser.isSet("collect"));
    if (modes > 1) throw InvalidArgument("--slurm, --task and --collect exclude each other");

    std::vector<FlightSummary> summaries;
    if (parser.isSet("slurm")) {
      if (flights.empty()) throw InvalidArgument("the manifest names no flight");
      submitToSlurm(manifest, flights.size(), settings.out, parser, control);
      summaries = collectSummaries(flights, settings.out);
    } else if (parser.isSet("collect")) {
      summaries = collectSummaries(flights, settings.out);
    } else {
      std::vector<std::size_t> chosen(flights.size());
      std::iota(chosen.begin(), chosen.end(), std::size_t(0));
      if (parser.isSet("task")) {
        const double k = numberOption(parser, "task", -1);
        if (!(k >= 0 && k < double(flights.size()) && k == std::floor(k)))
          throw InvalidArgument("--task must be 0.." + std::to_string(flights.size() - 1) + " (a manifest position)");
        chosen = {std::size_t(k)};
        settings.jobs = 1;
      }
      settings.threads_per_job = std::max(1, threadBudget().threads / settings.jobs);
      if (parser.isSet("devices")) {
        for (const QString& d : parser.value("devices").split(',', Qt::SkipEmptyParts))
          settings.devices.push_back(d.trimmed().toStdString());
      } else if (!parser.isSet("task")) {
        settings.devices = defaultDevices();  // a Slurm task uses the GPU Slurm gave it
      }
      const std::string models = vision::modelDirectory();
      settings.software = {{"skytrace_version", SKYTRACE_VERSION},
                           {"program_sha256", sha256Of(QCoreApplication::applicationFilePath())},
                           {"model_dir", models},
                           {"model_dir_sha256", models.empty() ? "" : sha256Of(QString::fromStdString(models))}};
      QTextStream err(stderr);
      err << "batch: " << chosen.size() << " of " << flights.size() << " flights from "
          << QString::fromStdString(manifest) << ", " << settings.jobs << " at a time, "
          << settings.threads_per_job << " CPU threads each\n";
      err.flush();
      summaries.resize(chosen.size());
      std::atomic<std::size_t> next{0};
      std::mutex print_mutex;
      int finished = 0;
      auto worker = [&](int job) {
        for (std::size_t n = next++; n < chosen.size(); n = next++) {
          const app::BatchFlight& flight = flights[chosen[n]];
          FlightSummary& summary = summaries[n];
          if (control.isCancelled()) {
            summary.id = flight.id;
            summary.status = FlightStatus::Cancelled;
          } else {
            try {
              summary = runFlight(flight, job, settings, control);
            } catch (const std::exception& e) {
              summary.id = flight.id;
              summary.status = FlightStatus::Failed;
              summary.message = e.what();
            }
          }
          writeFlightStatus(statusPath(settings.out, flight.id), summary);
          const std::lock_guard<std::mutex> lock(print_mutex);
          QTextStream line(stderr);
          line << "[" << ++finished << "/" << chosen.size() << "] " << QString::fromStdString(flight.id) << ": "
               << QString::fromStdString(describeFlight(summary)) << "\n";
        }
      };
      std::vector<std::thread> workers;
      for (int job = 0; job < std::min<int>(settings.jobs, int(chosen.size())); ++job) workers.emplace_back(worker, job);
      for (std::thread& t : workers) t.join();
    }

    int done = 0, skipped = 0, failed = 0, cancelled = 0;
    for (const FlightSummary& s : summaries) {
      done += s.status == FlightStatus::Done;
      skipped += s.status == FlightStatus::Skipped;
      failed += s.status == FlightStatus::Failed;
      cancelled += s.status == FlightStatus::Cancelled;
    }
    QTextStream out(stdout);
    out << "batch: " << done << " done, " << skipped << " skipped (up to date), " << failed << " failed"
        << (cancelled ? QString(", %1 cancelled").arg(cancelled) : QString()) << "\n";
    if (!parser.isSet("task")) {  // a task's summary is the collecting job's work
      writeBatchSummary(settings.out, manifest, summaries);
      out << "summary: " << QString::fromStdString((settings.out / "summary.csv").string()) << ", "
          << QString::fromStdString((settings.out / "summary.html").string()) << "\n";
    }
    if (control.isCancelled()) return stopSignalExitCode();
    return failed > 0 || cancelled > 0 ? int(kExitFailure) : int(kExitOk);
  });
}

const CliCommandRegistration kRegistration{
    {QStringLiteral("batch"),
     QStringLiteral("Process many flights from a manifest, N at a time or on Slurm (summary CSV + HTML)"), runBatch}};

}  // namespace
}  // namespace skytrace::cli
