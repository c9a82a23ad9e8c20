#include "app/cli/cancel_on_interrupt.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "core/util/error.h"

namespace skytrace::cli {
namespace {

// The write end the handler uses (-1: none installed).
volatile std::sig_atomic_t g_interrupt_fd = -1;

// The last stop signal received (0: none); written by the handler.
volatile std::sig_atomic_t g_stop_signal = 0;

constexpr char kInterrupt = 'i';
constexpr char kQuit = 'q';

extern "C" void onStopSignal(int signal_number) {
  const int saved_errno = errno;
  g_stop_signal = signal_number;
  const int fd = g_interrupt_fd;
  if (fd >= 0) {
    const char byte = kInterrupt;
    [[maybe_unused]] const ssize_t written = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

}  // namespace

int stopSignalExitCode() {
  const int signal_number = g_stop_signal;
  return 128 + (signal_number > 0 ? signal_number : SIGINT);
}

CancelOnInterrupt::CancelOnInterrupt(engine::RunControl* control) : control_(control) {
  // The write end never blocks: a signal handler must not wait.
  if (::pipe2(pipe_, O_CLOEXEC) != 0 || ::fcntl(pipe_[1], F_SETFL, O_NONBLOCK) != 0)
    throw IoError(std::string("cannot set up Ctrl+C / SIGTERM handling: ") + std::strerror(errno));
  thread_ = std::thread([this] {
    char byte = 0;
    while (true) {
      const ssize_t n = ::read(pipe_[0], &byte, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0 || byte == kQuit) return;
      control_->requestCancel();
    }
  });
  g_interrupt_fd = pipe_[1];
  previous_sigint_ = std::signal(SIGINT, onStopSignal);
  previous_sigterm_ = std::signal(SIGTERM, onStopSignal);
}

CancelOnInterrupt::~CancelOnInterrupt() {
  std::signal(SIGINT, previous_sigint_);
  std::signal(SIGTERM, previous_sigterm_);
  g_interrupt_fd = -1;
  const char byte = kQuit;
  while (::write(pipe_[1], &byte, 1) < 0 && errno == EINTR) {
  }
  thread_.join();
  ::close(pipe_[0]);
  ::close(pipe_[1]);
}

}  // namespace skytrace::cli
