#include "lsm_hints.h"

#include "zone_file_system.h"

namespace zkv {

void LsmHintRegistry::CompactionBegun(const std::string& db, int64_t job, int level,
                                      const std::vector<std::string>& inputs, bool manual) {
  std::vector<std::string> normalized;
  normalized.reserve(inputs.size());
  for (const auto& p : inputs) normalized.push_back(Normalize(p));
  std::lock_guard<std::mutex> g(mu_);
  jobs_[{db, job}] = Job{level, std::move(normalized), manual};
}

void LsmHintRegistry::JobEnded(const std::string& db, int64_t job) {
  std::lock_guard<std::mutex> g(mu_);
  jobs_.erase({db, job});
}

void LsmHintRegistry::FileStarted(const std::string& db, int64_t job, const std::string& path,
                                  rocksdb::TableFileCreationReason reason) {
  LsmFileHint h;
  h.job_id = job;
  std::lock_guard<std::mutex> g(mu_);
  if (reason == rocksdb::TableFileCreationReason::kFlush || reason == rocksdb::TableFileCreationReason::kRecovery) {
    h.level = 0;  // a flush (also the one replaying a WAL at open) writes L0
    h.recovery = reason == rocksdb::TableFileCreationReason::kRecovery;
  } else if (reason == rocksdb::TableFileCreationReason::kCompaction) {
    h.compaction = true;
    auto j = jobs_.find({db, job});
    if (j != jobs_.end()) {
      h.level = j->second.level;
      h.inputs = j->second.inputs;
      h.manual = j->second.manual;
      for (const auto& in : h.inputs) {  // the output's range lies within its inputs' union
        auto f = files_.find(in);
        if (f == files_.end() || !f->second.has_range) continue;
        if (!h.has_range || f->second.smallest < h.smallest) h.smallest = f->second.smallest;
        if (!h.has_range || f->second.largest > h.largest) h.largest = f->second.largest;
        h.has_range = true;
      }
    }
  }
  files_[Normalize(path)] = std::move(h);
}

void LsmHintRegistry::Refresh(rocksdb::DB* db) {
  std::vector<rocksdb::LiveFileMetaData> live;
  db->GetLiveFilesMetaData(&live);
  std::lock_guard<std::mutex> g(mu_);
  for (const auto& m : live) {
    LsmFileHint& h = files_[Normalize(m.db_path + "/" + m.name)];
    h.level = m.level;
    h.job_id = -1;  // written: the range below is the file's own (the view's sign of it)
    h.smallest = m.smallestkey;
    h.largest = m.largestkey;
    h.has_range = true;
  }
}

void LsmHintRegistry::FileDeleted(const std::string& path) {
  std::lock_guard<std::mutex> g(mu_);
  files_.erase(Normalize(path));
}

bool LsmHintRegistry::Lookup(const std::string& path, LsmFileHint* out) const {
  std::lock_guard<std::mutex> g(mu_);
  auto f = files_.find(path);
  if (f == files_.end()) return false;
  *out = f->second;
  return true;
}

size_t LsmHintRegistry::Size() const {
  std::lock_guard<std::mutex> g(mu_);
  return files_.size();
}

void LsmHintListener::Bind(std::shared_ptr<LsmHintRegistry> registry) {
  std::lock_guard<std::mutex> g(mu_);
  registry_ = std::move(registry);
}

std::shared_ptr<LsmHintRegistry> LsmHintListener::Registry() {
  std::lock_guard<std::mutex> g(mu_);
  return registry_;
}

void LsmHintListener::OnFlushCompleted(rocksdb::DB* db, const rocksdb::FlushJobInfo& info) {
  uint64_t seen = flushed_seqno_.load(std::memory_order_relaxed);
  while (info.largest_seqno > seen &&
         !flushed_seqno_.compare_exchange_weak(seen, info.largest_seqno, std::memory_order_release)) {}
  if (auto r = Registry()) r->Refresh(db);
}

void LsmHintListener::OnCompactionBegin(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) {
  if (auto r = Registry())
    r->CompactionBegun(db->GetName(), info.job_id, info.output_level, info.input_files,
                       info.compaction_reason == rocksdb::CompactionReason::kManualCompaction);
}

void LsmHintListener::OnCompactionCompleted(rocksdb::DB* db, const rocksdb::CompactionJobInfo& info) {
  if (auto r = Registry()) {
    r->JobEnded(db->GetName(), info.job_id);
    r->Refresh(db);
  }
}

void LsmHintListener::OnTableFileCreationStarted(const rocksdb::TableFileCreationBriefInfo& info) {
  if (auto r = Registry()) r->FileStarted(info.db_name, info.job_id, info.file_path, info.reason);
}

void LsmHintListener::OnTableFileDeleted(const rocksdb::TableFileDeletionInfo& info) {
  if (auto r = Registry()) r->FileDeleted(info.file_path);
}

void LsmHintListener::OnStallConditionsChanged(const rocksdb::WriteStallInfo& info) {
  no_space_rule_.StallChanged(info);
}

void LsmHintListener::OnBackgroundError(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error) {
  no_space_rule_.Rate(reason, bg_error);
}

bool LayoutMatchesRocksJava() {
  // JniCallback is a vtable pointer, a JavaVM* and a jobject; EventListenerJniCallback's
  // EventListener base follows it.
  alignas(LsmHintListener) unsigned char probe[sizeof(LsmHintListener)];
  auto* l = reinterpret_cast<LsmHintListener*>(probe);
  auto* base = static_cast<rocksdb::EventListener*>(l);
  return reinterpret_cast<unsigned char*>(base) - probe == static_cast<std::ptrdiff_t>(3 * sizeof(void*)) &&
         reinterpret_cast<unsigned char*>(&l->java_object) - probe == static_cast<std::ptrdiff_t>(2 * sizeof(void*));
}

}  // namespace zkv
