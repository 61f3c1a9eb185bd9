#include "zone_view_buffer.h"

#include <cstring>
#include <string>
#include <unordered_map>

#include "sst_first_key.h"

namespace zkv {

namespace {

// The ZKV_VIEW_BYTES section while it is being filled.
struct Bytes {
  std::string data;
  zkv_bnd_bytes Add(const std::string& s) {
    zkv_bnd_bytes b{static_cast<uint32_t>(data.size()), static_cast<int32_t>(s.size())};
    data += s;
    return b;
  }
  zkv_bnd_bytes AddIf(bool present, const std::string& s) { return present ? Add(s) : zkv_bnd_bytes{0, -1}; }
};

constexpr uint32_t Align8(size_t v) { return static_cast<uint32_t>((v + 7) / 8 * 8); }

}  // namespace

// A compaction output's range is known only as its inputs' union until the file is written; its
// own smallest key is its first entry's, readable from the first write-out's bytes when the first
// data block is uncompressed. Taken only inside the union (bytes that parse by chance fail that).
// A range tombstone (DeleteRange) may start an SST before its first data key: the hint then
// starts later than the file, by that tombstone's span; ranges deleted ahead are rare in SSTs.
// Measured in docs/placement.md ("How good the hints are").
void ZoneViewBuffer::NarrowToFirstKey(const zfs_alloc_request& req, LsmFileHint* hint) {
  size_t off = 0, len = 0;
  if (!hint->compaction || !hint->has_range || req.head_len == 0 ||
      zkv_sst_first_user_key(req.head, req.head_len, &off, &len) != 0)
    return;
  std::string first(reinterpret_cast<const char*>(req.head) + off, len);
  if (first >= hint->smallest && first <= hint->largest) hint->smallest = std::move(first);
}

int ZoneViewBuffer::Build(const zfs_view& view, const FileHints* registry, const zfs_alloc_request* req) {
  const zfs_zone_info* zones = view.zones;
  const uint32_t n = view.n_zones;
  const zfs_zone_file* placements = view.files;
  const size_t n_placements = view.n_files;
  Bytes bytes;
  std::vector<zkv_bnd_file> files;
  std::unordered_map<uint64_t, size_t> file_index;
  std::unordered_map<std::string, uint64_t> id_by_name;
  LsmFileHint hint;
  for (size_t i = 0; i < n_placements; i++) {
    const zfs_zone_file& p = placements[i];
    if (file_index.count(p.file_id)) continue;
    file_index[p.file_id] = files.size();
    const std::string name = p.name;
    if (!name.empty()) id_by_name[name] = p.file_id;
    bool known = registry && !name.empty() && registry->Lookup(name, &hint);
    files.push_back(zkv_bnd_file{p.file_id, p.lifetime, known ? hint.level : -1, known ? hint.job_id : -1,
                                 bytes.Add(name), bytes.AddIf(known && hint.has_range, hint.smallest),
                                 bytes.AddIf(known && hint.has_range, hint.largest)});
  }
  std::vector<uint64_t> inputs;
  zkv_bnd_request request{};
  if (req) {
    bool known = registry && registry->Lookup(req->file_name, &hint);
    if (known) NarrowToFirstKey(*req, &hint);
    request = zkv_bnd_request{req->file_id,
                              req->lifetime,
                              static_cast<uint32_t>(req->for_wal_reserve ? ZKV_PURPOSE_WAL_RESERVE
                                                    : req->for_gc        ? ZKV_PURPOSE_GC_MIGRATION
                                                                         : ZKV_PURPOSE_FILE_WRITE),
                              known ? hint.level : -1,
                              view.active_limit,
                              known ? hint.job_id : -1,
                              bytes.Add(req->file_name),
                              bytes.AddIf(known && hint.has_range, hint.smallest),
                              bytes.AddIf(known && hint.has_range, hint.largest),
                              req->expected_size};
    if (known)
      for (const auto& in : hint.inputs) {
        auto id = id_by_name.find(in);
        if (id != id_by_name.end()) inputs.push_back(id->second);
      }
  }
  // Header, section table, then the sections in enum order, each 8-byte aligned.
  zkv_bnd_section sec[ZKV_VIEW_SECTIONS] = {};
  const uint32_t sizes[ZKV_VIEW_SECTIONS] = {sizeof(zkv_bnd_zone),
                                             sizeof(zkv_bnd_file),
                                             sizeof(zkv_bnd_zone_file),
                                             sizeof(uint64_t),
                                             sizeof(zkv_bnd_request),
                                             sizeof(zkv_bnd_decision),
                                             1,
                                             sizeof(zkv_bnd_reserves)};
  const size_t counts[ZKV_VIEW_SECTIONS] = {
      n, files.size(), n_placements, inputs.size(), req ? 1u : 0u, req ? 1u : 0u, bytes.data.size(), 1};
  size_t at = Align8(sizeof(zkv_bnd_header) + sizeof sec);
  for (int s = 0; s < ZKV_VIEW_SECTIONS; s++) {
    sec[s] = zkv_bnd_section{static_cast<uint32_t>(at), sizes[s], static_cast<uint32_t>(counts[s]), 0};
    at = Align8(at + sizes[s] * counts[s]);
  }
  if (at > UINT32_MAX / 2) return -E2BIG;
  words_.assign(at / 8, 0);
  length_ = at;
  auto* base = reinterpret_cast<uint8_t*>(words_.data());
  zkv_bnd_header h{ZKV_BOUNDARY_MAGIC, ZKV_BND_ZONE_VIEW, ZKV_VIEW_VERSION, static_cast<uint32_t>(at),
                   ZKV_VIEW_SECTIONS};
  std::memcpy(base, &h, sizeof h);
  std::memcpy(base + sizeof h, sec, sizeof sec);
  auto* z = reinterpret_cast<zkv_bnd_zone*>(base + sec[ZKV_VIEW_ZONES].offset);
  for (uint32_t i = 0; i < n; i++) zkv_boundary_zone(&zones[i], &z[i]);
  if (!files.empty()) std::memcpy(base + sec[ZKV_VIEW_FILES].offset, files.data(), files.size() * sizeof(zkv_bnd_file));
  auto* zf = reinterpret_cast<zkv_bnd_zone_file*>(base + sec[ZKV_VIEW_ZONE_FILES].offset);
  for (size_t i = 0; i < n_placements; i++)
    zf[i] = zkv_bnd_zone_file{placements[i].file_id, placements[i].live, placements[i].zone, 0};
  if (!inputs.empty()) std::memcpy(base + sec[ZKV_VIEW_INPUTS].offset, inputs.data(), inputs.size() * sizeof(uint64_t));
  if (req) {
    std::memcpy(base + sec[ZKV_VIEW_REQUEST].offset, &request, sizeof request);
    zkv_bnd_decision none{};
    none.tag = -1;
    none.lifetime = -1;
    std::memcpy(base + sec[ZKV_VIEW_DECISION].offset, &none, sizeof none);
    decision_offset_ = sec[ZKV_VIEW_DECISION].offset;
  }
  if (!bytes.data.empty()) std::memcpy(base + sec[ZKV_VIEW_BYTES].offset, bytes.data.data(), bytes.data.size());
  const zkv_bnd_reserves reserves{view.empty_kept, view.op_zones};
  std::memcpy(base + sec[ZKV_VIEW_RESERVES].offset, &reserves, sizeof reserves);
  return 0;
}

const zkv_bnd_decision* ZoneViewBuffer::decision() const {
  return reinterpret_cast<const zkv_bnd_decision*>(reinterpret_cast<const uint8_t*>(words_.data()) + decision_offset_);
}

}  // namespace zkv
