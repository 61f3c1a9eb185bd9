// LSM hints: what RocksDB knows about each SST file (the level it is written to, the flush or
// compaction job writing it, that compaction's input files, its user-key range), gathered by a
// native rocksdb::EventListener and read by the placement call-out when the file needs a zone.
// Native on purpose: a Java listener would cost an upcall per event, and RocksJava's upcalls from
// RocksDB's threads hang the JVM's exit (docs/zone-fs.md, "LSM hints").
#ifndef ZKV_LSM_HINTS_H
#define ZKV_LSM_HINTS_H

#include <jni.h>

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "file_hints.h"
#include "rocksdb/db.h"
#include "rocksdb/listener.h"
#include "stalled_no_space.h"

namespace zkv {

// Every SST of every database on one device, by path (paths include the database directory, so one
// registry serves all databases of a device; job ids are per database).
class LsmHintRegistry : public FileHints {
 public:
  // A compaction begins: its outputs go to `level`, read from `inputs`.
  void CompactionBegun(const std::string& db, int64_t job, int level, const std::vector<std::string>& inputs,
                       bool manual);
  void JobEnded(const std::string& db, int64_t job);
  // RocksDB is about to create `path` for `job`; reason: rocksdb::TableFileCreationReason.
  void FileStarted(const std::string& db, int64_t job, const std::string& path,
                   rocksdb::TableFileCreationReason reason);
  // RocksDB's live files of `db` now: the exact level and key range of each (at open and after
  // every flush and compaction, so trivial moves are seen too).
  void Refresh(rocksdb::DB* db);
  void FileDeleted(const std::string& path);
  // False when nothing is known about `path`.
  bool Lookup(const std::string& path, LsmFileHint* out) const override;
  size_t Size() const;

 private:
  struct Job {
    int level;
    std::vector<std::string> inputs;
    bool manual;
  };
  mutable std::mutex mu_;
  std::unordered_map<std::string, LsmFileHint> files_;
  std::map<std::pair<std::string, int64_t>, Job> jobs_;
};

// RocksJava takes a listener handle as a std::shared_ptr<rocksdb::EventListener>* (setListeners)
// and reads the Java object back (Options.listeners()) by casting the EventListener* to its
// EventListenerJniCallback, a class deriving from JniCallback (vtable, JavaVM*, jobject) and then
// rocksdb::EventListener. This first base reproduces JniCallback's layout, so that cast finds the
// Java object where it expects it.
// lsm_hints.cc checks the offset at run time; LsmHintsTest runs it on every supported RocksJava.
class JniCallbackLayout {
 public:
  virtual ~JniCallbackLayout() = default;
  JavaVM* jvm = nullptr;
  jobject java_object = nullptr;  // global reference to the Java listener, released on dispose
};

class LsmHintListener : public JniCallbackLayout, public rocksdb::EventListener {
 public:
  const char* Name() const override { return "ZkvLsmHintListener"; }
  void Bind(std::shared_ptr<LsmHintRegistry> registry);
  void OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) override;
  void OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) override;
  void OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) override;
  void OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) override;
  // Not hints: the full-device rule (stalled_no_space.h) rides on the one listener zkv installs.
  void OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) override;
  void OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error) override;
  // The largest sequence number a completed flush persisted (0 before the first): every write up
  // to it is in an SST (one column family; flushes complete in memtable order). WALTZ's log
  // releases a zone once its records are all at or below it.
  uint64_t FlushedSequence() const { return flushed_seqno_.load(std::memory_order_acquire); }

 private:
  std::atomic<uint64_t> flushed_seqno_{0};
  StalledNoSpaceRule no_space_rule_;
  std::shared_ptr<LsmHintRegistry> Registry();
  std::mutex mu_;
  std::shared_ptr<LsmHintRegistry> registry_;
};

// The handle RocksJava holds for the Java listener.
using LsmHintListenerHandle = std::shared_ptr<rocksdb::EventListener>;

inline LsmHintListener* FromHandle(jlong handle) {
  return static_cast<LsmHintListener*>(reinterpret_cast<LsmHintListenerHandle*>(handle)->get());
}

// Whether RocksJava's cast finds our EventListener: the offset of the EventListener base in
// LsmHintListener must be the one it has in RocksJava's EventListenerJniCallback.
bool LayoutMatchesRocksJava();

}  // namespace zkv

#endif
