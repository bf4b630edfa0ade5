#include "page_db/schedule_table.h"

#include "base/coding.h"

namespace crawlrank {

namespace {

void PutTime(std::string& out, int64_t ms) {
  coding::PutVarint64(out, coding::ZigZag(ms));
}

bool GetTime(std::string_view& in, int64_t* ms) {
  uint64_t v;
  if (!coding::GetVarint64(in, &v)) return false;
  *ms = coding::UnZigZag(v);
  return true;
}

bool GetBytes(std::string_view& in, std::string* out) {
  uint64_t n;
  if (!coding::GetVarint64(in, &n) || n > in.size()) return false;
  out->assign(in.substr(0, n));
  in.remove_prefix(n);
  return true;
}

}  // namespace

void EncodeScheduleEntry(const ScheduleEntry& entry, std::string* out) {
  out->push_back(static_cast<char>(entry.state));
  coding::PutVarint32(*out, entry.failures);
  switch (entry.state) {
    case EntryState::kQueued: break;
    case EntryState::kLeased:
      coding::PutVarint64(*out, entry.lease);
      PutTime(*out, entry.time_ms);
      break;
    case EntryState::kRetrying: PutTime(*out, entry.time_ms); break;
    case EntryState::kFailed:
      coding::PutVarint32(*out, entry.http_status);
      coding::PutVarint64(*out, entry.reason.size());
      out->append(entry.reason);
      break;
  }
}

Status DecodeScheduleEntry(uint32_t id, std::string_view in, ScheduleEntry* entry) {
  const auto damaged = [&] {
    return DataLossError("schedule entry of page " + std::to_string(id) + " is damaged");
  };
  if (in.empty() || static_cast<uint8_t>(in[0]) > 3) return damaged();
  entry->state = static_cast<EntryState>(in[0]);
  in.remove_prefix(1);
  if (!coding::GetVarint32(in, &entry->failures)) return damaged();
  bool ok = true;
  switch (entry->state) {
    case EntryState::kQueued: break;
    case EntryState::kLeased:
      ok = coding::GetVarint64(in, &entry->lease) && GetTime(in, &entry->time_ms);
      break;
    case EntryState::kRetrying: ok = GetTime(in, &entry->time_ms); break;
    case EntryState::kFailed: {
      uint32_t status = 0;
      ok = coding::GetVarint32(in, &status) && status <= 0xFFFF && GetBytes(in, &entry->reason);
      entry->http_status = static_cast<uint16_t>(status);
      break;
    }
  }
  if (!ok || !in.empty()) return damaged();
  return Status::Ok();
}

void EncodeHostEntry(const HostEntry& entry, std::string* out) {
  out->push_back(1);
  PutTime(*out, entry.hold_until_ms);
  coding::PutVarint32(*out, entry.holds_in_a_row);
  PutTime(*out, entry.crawl_delay_ms);
  coding::PutVarint64(*out, entry.robots.size());
  out->append(entry.robots);
  coding::PutVarint64(*out, entry.group.size());
  out->append(entry.group);
}

Status DecodeHostEntry(std::string_view host, std::string_view in, HostEntry* entry) {
  const bool ok = !in.empty() && in[0] == 1 && (in.remove_prefix(1), true) &&
                  GetTime(in, &entry->hold_until_ms) &&
                  coding::GetVarint32(in, &entry->holds_in_a_row) &&
                  GetTime(in, &entry->crawl_delay_ms) && GetBytes(in, &entry->robots) &&
                  GetBytes(in, &entry->group) && in.empty();
  if (!ok) return DataLossError("hosts entry of \"" + std::string(host) + "\" is damaged");
  return Status::Ok();
}

}  // namespace crawlrank
