// ProgressLine: the one-line "how far, how fast, how long still" display a long read
// shows on a terminal (perflens report/script/export... on stderr; -q turns it off).
// It only formats and rate-limits; the caller owns the clock and the terminal, so the
// behaviour is testable without either.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace perflens {

// "perflens: 123.4 MB of 456.7 MB (27%), 1.2M samples, 2.5M samples/s, ETA 3 s".
// `bytes_total` 0 (a pipe): no "of", percent or ETA. `elapsed_s` > 0: the rates and ETA
// (bytes/s over the whole run so far). Sizes in MB = 10^6 bytes.
std::string FormatProgress(uint64_t bytes_done, uint64_t bytes_total, uint64_t nr_samples, double elapsed_s);

class ProgressLine {
 public:
  // `write` receives what to put on the terminal: "\r<line>\x1b[K" updates and the final
  // "\r\x1b[K" that erases the line. Nothing is shown before `delay_s` seconds (short
  // runs stay silent) and at most one update per `interval_s`.
  explicit ProgressLine(std::function<void(std::string_view)> write, double delay_s = 1.0,
                        double interval_s = 0.25)
      : write_(std::move(write)), delay_s_(delay_s), interval_s_(interval_s) {}

  // `now_s`: seconds since the work started (the caller's monotonic clock).
  void Update(uint64_t bytes_done, uint64_t bytes_total, uint64_t nr_samples, double now_s);
  // Erases the line if one was shown. Idempotent.
  void Finish();
  bool shown() const { return shown_; }

 private:
  std::function<void(std::string_view)> write_;
  double delay_s_, interval_s_;
  double last_s_ = -1;
  bool shown_ = false;
};

}  // namespace perflens
