// arrays/: runs shared by several GPUs of one solve, handed out as they finish. Each GPU (a
// consumer) owns a contiguous range, the cost model's share, and takes slices from one end of it;
// one that runs out takes slices from the other end of the range with the most runs left. A split
// by predicted cost can only be as good as the prediction, and per-run costs follow the inputs (an
// uneven sweep in its own order puts its expensive runs at one end): taking over the others' rest
// makes the GPUs finish together whatever the prediction said. The owner starts at the end whose
// runs are expected to cost more, when that is known (costly_back), so that the last slices, whoever
// takes them, are the cheapest runs: a slice of runs takes at least as long as its slowest run,
// however few runs it holds, so the runs left at the end decide how unevenly the GPUs finish.
// Taking from the ends keeps every GPU's runs in few contiguous pieces (its own, and each range it
// took from, grown from that end), which is what a solve's execution records show.
//
// Thread-safe; pure host logic (no runtime), unit-tested on the CPU.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <vector>

namespace batchode::arrays {

/// Runs [first, first + count).
struct RunSlice {
  std::size_t first = 0;
  std::size_t count = 0;
  bool operator==(const RunSlice& o) const noexcept { return first == o.first && count == o.count; }
};

/// `slices` sorted by first run, adjacent ones joined.
std::vector<RunSlice> merge_slices(std::vector<RunSlice> slices);

class SharedRuns {
 public:
  /// One consumer per range; the ranges are disjoint (their order and sizes are free). A slice taken
  /// from another consumer's range is at least `min_take` runs unless that consumer has left: below
  /// it, a slice's launch and transfer latencies cost more than the imbalance it removes.
  /// `costly_back` (empty, or one entry per range): the range's runs are expected to cost more
  /// towards its back, so its owner takes from the back and the others from the front.
  explicit SharedRuns(std::vector<RunSlice> ranges, std::size_t min_take = 4096,
                      const std::vector<bool>& costly_back = {});

  std::size_t consumers() const noexcept { return ranges_.size(); }

  /// The next slice for `consumer`, at most `max_runs` (> 0) and at most an even share of all the
  /// runs left (1 / consumers of them, at least min_take), so slices shrink towards the end: from
  /// its own range (the front, or the back when costly_back); when that is empty, from the other end
  /// of the range with the most runs left, at most half of what is left there (the owner works on
  /// the rest meanwhile; at least min_take). Empty when nothing is left to take, or after cancel():
  /// the consumer is then done, and takes nothing more.
  std::optional<RunSlice> next(std::size_t consumer, std::size_t max_runs);

  /// Whether a slice of up to `max_runs` may be taken ahead of need (a GPU staging its next chunk
  /// while two are in flight): while the runs left would still give every consumer one more such
  /// slice after it, (consumers + 1) x max_runs. Nearer the end a slice is taken only when its GPU
  /// has room for it, or it could sit staged while another GPU runs out of work.
  bool plenty_left(std::size_t max_runs) const;

  /// `consumer` stops taking (its device failed): the slices it took are returned, for the caller to
  /// run elsewhere, and what is left of its range goes to the others, in slices of any size. The
  /// last consumer to stop or leave while runs are left receives those too (no one else would take
  /// them): the returned slices then cover everything nobody else will run.
  std::vector<RunSlice> leave(std::size_t consumer);

  /// Nobody takes anything more: the solve failed and its results are dropped, so the others stop at
  /// their next chunk instead of running what the failed GPU left.
  void cancel();

  /// The runs `consumer` took, merged into contiguous pieces in run order.
  std::vector<RunSlice> pieces(std::size_t consumer) const;

  /// Runs `consumer` took from other consumers' ranges.
  std::size_t taken_over(std::size_t consumer) const;

  /// Slices `consumer` took (its chunks).
  std::size_t slices_taken(std::size_t consumer) const;

 private:
  enum class State { active, done, left };
  struct Range {
    std::size_t next = 0, end = 0;  // the runs [next, end) are still to be taken
    bool back_first = false;        // the owner takes from the back
    State state = State::active;
    std::vector<RunSlice> taken;
    std::size_t taken_over = 0;
    std::size_t slices = 0;
  };

  /// Runs not yet taken, in every range (the caller holds mutex_).
  std::size_t runs_left() const;

  mutable std::mutex mutex_;
  std::vector<Range> ranges_;
  std::size_t min_take_;
  bool cancelled_ = false;
};

}  // namespace batchode::arrays
