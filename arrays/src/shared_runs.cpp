// arrays/: the runs several GPUs of one solve share (shared_runs.hpp).
#include "batchode/arrays/shared_runs.hpp"

#include <algorithm>
#include <stdexcept>

namespace batchode::arrays {

SharedRuns::SharedRuns(std::vector<RunSlice> ranges, std::size_t min_take, const std::vector<bool>& costly_back)
    : min_take_(std::max<std::size_t>(1, min_take)) {
  if (!costly_back.empty() && costly_back.size() != ranges.size()) {
    throw std::invalid_argument("SharedRuns: costly_back must be empty or have one entry per range");
  }
  ranges_.reserve(ranges.size());
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    Range range;
    range.next = ranges[i].first;
    range.end = ranges[i].first + ranges[i].count;
    range.back_first = !costly_back.empty() && costly_back[i];
    ranges_.push_back(std::move(range));
  }
}

namespace {

// `count` runs off one end of [next, end): the back (end moves down) or the front (next moves up).
RunSlice take(std::size_t& next, std::size_t& end, std::size_t count, bool from_back) {
  if (from_back) {
    end -= count;
    return {end, count};
  }
  next += count;
  return {next - count, count};
}

}  // namespace

std::optional<RunSlice> SharedRuns::next(std::size_t consumer, std::size_t max_runs) {
  if (max_runs == 0) throw std::invalid_argument("SharedRuns::next: max_runs is 0");
  const std::lock_guard<std::mutex> lock(mutex_);
  Range& own = ranges_.at(consumer);
  if (own.state != State::active || cancelled_) return std::nullopt;
  // Guided sizes: a slice is at most an even share of all the runs left, so slices shrink as the
  // runs run out and the last ones, whoever takes them, are short.
  const std::size_t all_left = runs_left();
  const std::size_t guided = std::max(min_take_, (all_left + ranges_.size() - 1) / ranges_.size());
  if (own.next < own.end) {
    const RunSlice s = take(own.next, own.end, std::min({max_runs, own.end - own.next, guided}), own.back_first);
    own.taken.push_back(s);
    ++own.slices;
    return s;
  }
  // Another's: first a range whose consumer left (nobody else works on it), else the range with the
  // most runs left, from the end its owner takes last.
  Range* from = nullptr;
  for (Range& r : ranges_) {
    const std::size_t left = r.end - r.next;
    if (left == 0) continue;
    if (r.state == State::left) {
      from = &r;
      break;
    }
    if (left >= min_take_ && (from == nullptr || left > from->end - from->next)) from = &r;
  }
  if (from == nullptr) {
    own.state = State::done;
    return std::nullopt;
  }
  const std::size_t left = from->end - from->next;
  const std::size_t want = from->state == State::left ? left : std::max(min_take_, std::min((left + 1) / 2, guided));
  const RunSlice s = take(from->next, from->end, std::min({max_runs, want, left}), !from->back_first);
  own.taken.push_back(s);
  own.taken_over += s.count;
  ++own.slices;
  return s;
}

bool SharedRuns::plenty_left(std::size_t max_runs) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return !cancelled_ && runs_left() / (ranges_.size() + 1) >= max_runs;
}

std::size_t SharedRuns::runs_left() const {
  std::size_t left = 0;
  for (const Range& r : ranges_) left += r.end - r.next;
  return left;
}

std::vector<RunSlice> SharedRuns::leave(std::size_t consumer) {
  const std::lock_guard<std::mutex> lock(mutex_);
  Range& own = ranges_.at(consumer);
  own.state = State::left;
  std::vector<RunSlice> out = std::move(own.taken);
  own.taken.clear();
  const bool last = std::none_of(ranges_.begin(), ranges_.end(), [](const Range& r) { return r.state == State::active; });
  if (last) {
    for (Range& r : ranges_) {
      if (r.next < r.end) out.push_back({r.next, r.end - r.next});
      r.next = r.end;
    }
  }
  return out;
}

void SharedRuns::cancel() {
  const std::lock_guard<std::mutex> lock(mutex_);
  cancelled_ = true;
}

std::vector<RunSlice> merge_slices(std::vector<RunSlice> slices) {
  std::sort(slices.begin(), slices.end(), [](const RunSlice& a, const RunSlice& b) { return a.first < b.first; });
  std::vector<RunSlice> merged;
  for (const RunSlice& s : slices) {
    if (!merged.empty() && merged.back().first + merged.back().count == s.first) {
      merged.back().count += s.count;
    } else {
      merged.push_back(s);
    }
  }
  return merged;
}

std::vector<RunSlice> SharedRuns::pieces(std::size_t consumer) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return merge_slices(ranges_.at(consumer).taken);
}

std::size_t SharedRuns::taken_over(std::size_t consumer) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return ranges_.at(consumer).taken_over;
}

std::size_t SharedRuns::slices_taken(std::size_t consumer) const {
  const std::lock_guard<std::mutex> lock(mutex_);
  return ranges_.at(consumer).slices;
}

}  // namespace batchode::arrays
