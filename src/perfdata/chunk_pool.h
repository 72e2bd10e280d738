// ChunkPool: bytes the reader owns (records decompressed from COMPRESSED/COMPRESSED2,
// pipe input), in chunks whose records may wait in the ordering queue. A chunk is
// freed once sealed (nothing more is framed from it) and every queued record of it has
// been delivered, so what is alive is what the queue pins, not what was read.
// RecordView::chunk holds a chunk's id (0: the view points into the file's bytes).
// Not thread-safe: one per ReadRecords call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>

namespace perflens {

class ChunkPool {
 public:
  // Takes `bytes` (`capacity` bytes) as a new chunk and returns its id; ids start at 1
  // and grow. Hold/Release count queued records of a chunk; Seal says nothing more is
  // framed from it. A chunk is freed when sealed with no hold.
  uint32_t Add(std::unique_ptr<uint8_t[]> bytes, size_t capacity) {
    chunks_.push_back({std::move(bytes), capacity, 0, false});
    live_bytes_ += capacity;
    return static_cast<uint32_t>(base_ + chunks_.size() - 1);
  }
  uint8_t* data(uint32_t id) { return At(id).bytes.get(); }
  void Hold(uint32_t id) { ++At(id).refs; }
  void Release(uint32_t id) {
    Chunk& c = At(id);
    if (--c.refs == 0 && c.sealed) Free(c);
  }
  void Seal(uint32_t id) {
    Chunk& c = At(id);
    c.sealed = true;
    if (c.refs == 0) Free(c);
  }
  uint64_t live_bytes() const { return live_bytes_; }

 private:
  struct Chunk {
    std::unique_ptr<uint8_t[]> bytes;
    size_t capacity;
    uint64_t refs;
    bool sealed;
  };
  Chunk& At(uint32_t id) { return chunks_[id - base_]; }
  void Free(Chunk& c) {
    live_bytes_ -= c.capacity;
    c.bytes.reset();
    c.capacity = 0;
    while (!chunks_.empty() && chunks_.front().sealed && chunks_.front().refs == 0) {
      chunks_.pop_front();
      ++base_;
    }
  }
  std::deque<Chunk> chunks_;
  uint64_t base_ = 1;
  uint64_t live_bytes_ = 0;
};

}  // namespace perflens
