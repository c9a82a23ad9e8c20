#include "core/engine/run_control.h"

#include <utility>

#include "core/util/error.h"

namespace skytrace::engine {

RunControl::Listener& RunControl::Listener::operator=(Listener&& other) noexcept {
  if (this != &other) {
    reset();
    control_ = std::exchange(other.control_, nullptr);
    id_ = std::exchange(other.id_, 0);
  }
  return *this;
}

void RunControl::Listener::reset() {
  if (!control_) return;
  {
    // Taken while the control calls its listeners: once erased here, no call is running.
    std::lock_guard<std::mutex> lock(control_->listeners_mutex_);
    control_->listeners_.erase(id_);
  }
  control_ = nullptr;
  id_ = 0;
}

RunControl::Listener RunControl::listen(std::function<void()> wake) const {
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  const std::uint64_t id = next_listener_id_++;
  listeners_.emplace(id, std::move(wake));
  return Listener(this, id);
}

void RunControl::notifyChange() const {
  {
    // The state changed before this lock: a checkpoint() that has not seen it yet is
    // either before its predicate (and will see it) or waiting (and is woken below).
    std::lock_guard<std::mutex> lock(mutex_);
  }
  changed_.notify_all();
  std::lock_guard<std::mutex> lock(listeners_mutex_);
  for (const auto& [id, wake] : listeners_) wake();
}

void RunControl::requestCancel() {
  cancelled_.store(true, std::memory_order_release);
  notifyChange();
}

void RunControl::setPaused(bool paused) {
  paused_.store(paused, std::memory_order_release);
  notifyChange();
}

void RunControl::reset() {
  cancelled_.store(false, std::memory_order_release);
  paused_.store(false, std::memory_order_release);
  notifyChange();
}

void RunControl::setParent(const RunControl* parent) {
  parent_listener_.reset();
  parent_.store(parent, std::memory_order_release);
  if (parent) parent_listener_ = parent->listen([this] { notifyChange(); });
  notifyChange();  // the parent may already be paused or cancelled
}

void RunControl::checkpoint() const {
  std::unique_lock<std::mutex> lock(mutex_);
  changed_.wait(lock, [&] { return !isPaused() || isCancelled(); });
  if (isCancelled()) throw Cancelled();
}

}  // namespace skytrace::engine
