#include "stalled_no_space.h"

namespace zkv {

void StalledNoSpaceRule::StallChanged(const rocksdb::WriteStallInfo& info) {
  std::lock_guard<std::mutex> g(mu_);
  if (info.condition.cur == rocksdb::WriteStallCondition::kNormal)
    stalled_.erase(info.cf_name);
  else
    stalled_.insert(info.cf_name);
}

void StalledNoSpaceRule::Rate(rocksdb::BackgroundErrorReason reason, rocksdb::Status* bg_error) {
  if (reason != rocksdb::BackgroundErrorReason::kCompaction || !bg_error->IsNoSpace() ||
      bg_error->severity() >= rocksdb::Status::Severity::kHardError)
    return;
  std::lock_guard<std::mutex> g(mu_);
  if (!stalled_.empty()) *bg_error = rocksdb::Status(*bg_error, rocksdb::Status::Severity::kHardError);
}

}  // namespace zkv
