// page_db_load: reads a link graph or a page_db_dump output into a PageDB.
//
// Each input line is one of (blank lines and lines starting with '#' are skipped):
//   src dst                 two page indexes: a link. An index the DB does not have yet
//                           becomes a page with the URL http://graph.invalid/INDEX, so any
//                           graph can be ranked.
//   src_url dst_url         two absolute URLs: a link; new URLs become pages.
//   a page line             8 or 14 fields as printed by `page_db_dump info [--all]`: the
//                           page is restored with that index, hash and metadata.
// A dump is page lines followed by index pairs (`page_db_dump info` then `links`), so
// dump -> load -> dump prints the same. Page lines must come first and in index order,
// and URL pairs cannot be mixed with the other kinds.
//
// A bad line is reported with its number (and the load exits 1). Page lines and index
// pairs are read and checked whole first: after a bad one nothing is written (a new DB is
// not even created). URL pairs stream, so that an input of any size loads in bounded
// memory: a thread reads, canonicalises and groups them by source in batches of 16,384
// lines while the batch before is written in one transaction. A bad URL-pair line stops
// the load after the batches before its own are written; a DB the load created is then
// removed again, so that a failed load never leaves a new DB behind, while an existing DB
// keeps those batches (the error names the lines it keeps; loading the corrected input
// again gives the DB a clean load gives). `--batch-lines N`, a hidden option for tests,
// sets the batch size.
//
// The links given for a page replace any it had before the load. A source's lines need
// not be together: all the links the input gives it are stored, whichever batches they
// fall in. New pages are numbered as they are first met, batch by batch; within a batch
// source by source in order of first appearance, each source before its targets and its
// targets in input order. So an input whose sources' lines are together numbers its pages
// in order of first appearance (as the loader did when it read the whole input first),
// and only a source whose lines lie in different batches numbers the targets of its later
// lines later than the whole-input loader did.
#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "crawlrank/fault_guard.h"
#include "load_input.h"
#include "tool_common.h"

namespace crawlrank::tools {
namespace {

constexpr std::string_view kSyntheticUrlPrefix = "http://graph.invalid/";
constexpr size_t kBatchItems = 200'000;

// Writes batches of bounded size.
class BatchWriter {
 public:
  explicit BatchWriter(PageDb& db) : db_(db) {}
  WriteBatch& batch() { return batch_; }
  Status Added(size_t items) {
    items_ += items;
    return items_ >= kBatchItems ? Flush() : Status::Ok();
  }
  Status Flush() {
    if (batch_.size() == 0) return Status::Ok();
    AddReport report;
    CRAWLRANK_RETURN_IF_ERROR(db_.Write(batch_, &report));
    batch_.Clear();
    items_ = 0;
    if (!report.rejected_links.empty()) {
      const auto& first = report.rejected_links.front();
      return AlreadyExistsError(std::to_string(report.rejected_links.size()) +
                                " link(s) not stored, the first \"" + first.url +
                                "\": " + first.reason.message());
    }
    return Status::Ok();
  }

 private:
  PageDb& db_;
  WriteBatch batch_;
  size_t items_ = 0;
};

PageRecord SyntheticPage(uint32_t id) {
  PageRecord page;
  page.id = id;
  page.url = std::string(kSyntheticUrlPrefix) + std::to_string(id);
  page.fingerprint = UrlFingerprint(page.url);
  return page;
}

Status Write(PageDb& db, uint64_t first_id, Input& input) {
  BatchWriter writer(db);
  for (PageRecord& page : input.pages) {
    writer.batch().RestorePage(std::move(page));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(1));
  }
  // Pages for indexes of a bare edge list that the DB does not have yet.
  uint64_t next_id = first_id + input.pages.size();
  for (; !input.id_links.empty() && next_id <= input.max_link_id; ++next_id) {
    writer.batch().RestorePage(SyntheticPage(static_cast<uint32_t>(next_id)));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(1));
  }
  CRAWLRANK_RETURN_IF_ERROR(writer.Flush());  // links may only name stored pages

  std::sort(input.id_links.begin(), input.id_links.end());
  for (size_t i = 0; i < input.id_links.size();) {
    const uint32_t source = input.id_links[i].first;
    std::vector<uint32_t> targets;
    for (; i < input.id_links.size() && input.id_links[i].first == source; ++i) {
      targets.push_back(input.id_links[i].second);
    }
    const size_t n = targets.size();
    writer.batch().RestoreLinks(source, std::move(targets));
    CRAWLRANK_RETURN_IF_ERROR(writer.Added(n));
  }
  return writer.Flush();
}

// Writes batches of URL pairs, each in one transaction, so that every page ends with the
// links the whole input gives it. A page the DB had before the load gets its first group
// with AddLinks (replacing its old links) and any later one with MergeLinks; a page the
// load created had no links before it, so all its groups merge.
class UrlBatchWriter {
 public:
  UrlBatchWriter(PageDb& db, uint64_t first_id) : db_(db), replaced_(first_id, false) {}

  // Writes `batch` in one transaction, moving its URLs into `write` (empty). Links the DB
  // could not store (a fingerprint shared with another URL) are listed in `report`.
  Status Write(UrlBatch& batch, WriteBatch& write, AddReport& report) {
    std::vector<bool> replace(batch.groups.size(), false);
    if (!replaced_.empty()) CRAWLRANK_RETURN_IF_ERROR(FindOldSources(batch, replace));
    for (size_t i = 0; i < batch.groups.size(); ++i) {
      UrlGroup& group = batch.groups[i];
      if (replace[i]) {
        write.AddLinks(std::move(group.source), std::move(group.targets));
      } else {
        write.MergeLinks(std::move(group.source), std::move(group.targets));
      }
    }
    return db_.Write(write, &report);
  }

 private:
  // Marks the groups whose source is a page the DB had before the load and that no
  // earlier batch has given links (the snapshot is closed again before the write: the
  // map can only grow with none open).
  Status FindOldSources(const UrlBatch& batch, std::vector<bool>& replace) {
    CRAWLRANK_ASSIGN_OR_RETURN(const Snapshot snapshot, db_.NewSnapshot());
    for (size_t i = 0; i < batch.groups.size(); ++i) {
      const std::string& source = batch.groups[i].source;
      auto page = snapshot.Find(UrlFingerprint(source));
      if (!page.ok()) {
        if (page.status().code() == StatusCode::kNotFound) continue;
        return page.status();
      }
      if (page->url != source || page->id >= replaced_.size() || replaced_[page->id]) continue;
      replaced_[page->id] = true;
      replace[i] = true;
    }
    return Status::Ok();
  }

  PageDb& db_;
  std::vector<bool> replaced_;  // by id, the pages the DB had before the load
};

// Carries batches of URL pairs from the reading thread to the writing one, and the spent
// WriteBatches back, so that the reading thread frees the strings it allocated: with
// glibc's malloc, freeing them in the other thread made the two threads contend for one
// arena and took more time than the write. One batch waits while the next is read and
// the one before is written: a load holds a few batches whatever its input's size.
class BatchQueue {
 public:
  // Reading side: waits for room. Aborted once the writing side has stopped.
  Status Push(UrlBatch& batch) {
    std::vector<WriteBatch> spent;
    std::unique_lock lock(mutex_);
    spent.swap(spent_);
    changed_.wait(lock, [&] { return !waiting_.has_value() || stopped_; });
    if (stopped_) return AbortedError("the write stopped");
    waiting_ = std::move(batch);
    changed_.notify_all();
    lock.unlock();
    return Status::Ok();  // `spent` is freed here, in this thread
  }
  // Reading side: no more batches come.
  void Close() {
    std::lock_guard lock(mutex_);
    closed_ = true;
    changed_.notify_all();
  }
  // Writing side: the next batch; nullopt once the queue is closed and empty.
  std::optional<UrlBatch> Pop() {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return waiting_.has_value() || closed_; });
    std::optional<UrlBatch> batch = std::move(waiting_);
    waiting_.reset();
    changed_.notify_all();
    return batch;
  }
  // Writing side: hands a written batch back to be freed by the reading side.
  void Recycle(WriteBatch spent) {
    std::lock_guard lock(mutex_);
    spent_.push_back(std::move(spent));
  }
  // Writing side: takes no more batches.
  void Stop() {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    changed_.notify_all();
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<UrlBatch> waiting_;
  std::vector<WriteBatch> spent_;
  bool closed_ = false;
  bool stopped_ = false;
};

// Reads an input on a second thread, which canonicalises and groups its URL pairs, while
// this one writes them batch by batch. Page lines and index pairs are left in input().
class Loader {
 public:
  // `open_db` gives the DB to write to; it is called before the first write.
  Loader(std::string name, uint64_t first_id, UrlProfile profile, size_t batch_lines,
         std::function<Result<PageDb*>()> open_db)
      : reader_(
            std::move(name), first_id, profile,
            [this](UrlBatch& batch) { return queue_.Push(batch); }, batch_lines),
        first_id_(first_id),
        open_db_(std::move(open_db)) {}

  Status Run(std::istream& in) {
    Status read_status;
    std::thread reading([&] {
      read_status = reader_.ReadAll(in);
      queue_.Close();
    });
    Status status;
    while (std::optional<UrlBatch> batch = queue_.Pop()) {
      status = WriteBatchOf(*batch);
      if (!status.ok()) {
        queue_.Stop();
        break;
      }
    }
    reading.join();
    return status.ok() ? read_status : status;
  }

  Input& input() { return reader_.input(); }
  // Whether URL pairs were read, and the last line of those written.
  bool read_url_pairs() const { return url_writer_ != nullptr; }
  uint64_t last_line_written() const { return last_line_written_; }

 private:
  Status WriteBatchOf(UrlBatch& batch) {
    if (url_writer_ == nullptr) {
      CRAWLRANK_ASSIGN_OR_RETURN(PageDb * db, open_db_());
      url_writer_ = std::make_unique<UrlBatchWriter>(*db, first_id_);
    }
    WriteBatch write;
    AddReport report;
    Status status = url_writer_->Write(batch, write, report);
    queue_.Recycle(std::move(write));
    CRAWLRANK_RETURN_IF_ERROR(status);
    last_line_written_ = batch.last_line;
    if (!report.rejected_links.empty()) {
      const auto& first = report.rejected_links.front();
      return AlreadyExistsError(
          "lines " + std::to_string(batch.first_line) + "-" + std::to_string(batch.last_line) +
          ": " + std::to_string(report.rejected_links.size()) +
          " link(s) not stored, the first \"" + first.url + "\": " + first.reason.message());
    }
    return Status::Ok();
  }

  BatchQueue queue_;
  InputReader reader_;
  uint64_t first_id_;
  std::function<Result<PageDb*>()> open_db_;
  std::unique_ptr<UrlBatchWriter> url_writer_;
  uint64_t last_line_written_ = 0;
};

// Removes the DB a failed load created: the directory when the load made it, else the
// files a PageDB's open creates in it.
void RemoveNewDb(const std::string& path, bool made_directory) {
  std::error_code ignored;
  if (made_directory) {
    std::filesystem::remove_all(path, ignored);
    return;
  }
  for (const char* file : {"data.mdb", "lock.mdb", "writer.lock", "creating"}) {
    std::filesystem::remove(std::filesystem::path(path) / file, ignored);
  }
}

int Main(int argc, char** argv) {
  CommandLine app(
      "Loads a link graph (`src dst` page indexes or `src_url dst_url` per line) or a "
      "page_db_dump output (info lines, then links) into a PageDB, creating it if needed. "
      "Reads standard input when FILE is not given. A bad line is reported with its number. "
      "Page lines and index pairs are checked whole before anything is written. URL pairs "
      "stream, in batches of 16,384 lines, in bounded memory: a load that fails leaves no "
      "new DB, but an existing DB keeps the batches written before the bad line's (loading "
      "the corrected input again gives what a clean load gives). The links given for a page "
      "replace any it had; a page's lines need not be together.",
      "page_db_load");
  std::string db_path, file, profile_name = "rfc3986";
  app.Add("db", db_path, "PageDB directory (created when missing)")->Required();
  app.Add("file", file, "input file (default: standard input)");
  bool no_check = false;
  app.Flag("--no-check", no_check,
           "skip the full check of an existing DB before loading into it (a writer's open "
           "still runs the quick check)");
  app.Add("--profile", profile_name,
          "URL profile of a new DB: rfc3986 or w3lib (an existing DB keeps its own)")
      ->ShowDefault();
  size_t batch_lines = InputReader::kDefaultBatchLines;  // for tests: small batches
  app.Add("--batch-lines", batch_lines)->Positive()->Hidden();
  return Run(app, argc, argv, [&] {
    auto profile = ParseUrlProfile(profile_name);
    if (!profile.ok()) return UsageError(app, profile.status().message());
    std::ifstream in_file;
    if (!file.empty()) {
      in_file.open(file, std::ios::binary);
      if (!in_file) {
        return Fail(app, IoError("open \"" + file + "\": " + std::strerror(errno)));
      }
    }
    PageDbOptions options;
    options.url_profile = *profile;
    options.durability = Durability::kNone;  // a load can be redone; synced once at the end
    // An existing DB is held (and locked) while the input is read; a new one is created
    // only when the first batch of URL pairs is ready, or the whole input of other lines
    // has been read, without error.
    options.create_if_missing = false;
    WatchPageDb(db_path);
    auto opened = PageDb::Open(db_path, options);
    const bool exists = opened.ok();
    if (!exists && opened.status().code() != StatusCode::kNotFound) {
      return Fail(app, opened.status());
    }
    std::unique_ptr<PageDb> db = exists ? *std::move(opened) : nullptr;
    uint64_t first_id = 0;
    if (exists && !no_check) {
      // Writing a whole input into a damaged DB would bury the damage: check it first.
      if (Status check = db->Check(); !check.ok()) {
        return Fail(app,
                    Status(check.code(),
                           check.message() + "; nothing loaded (--no-check skips this check)"));
      }
    }
    if (exists) {
      auto info = db->Info();
      if (!info.ok()) return Fail(app, info.status());
      first_id = info->counters.pages;
    }
    bool created = false, made_directory = false;
    const auto open_db = [&]() -> Result<PageDb*> {
      if (db == nullptr) {
        std::error_code error;
        made_directory =
            std::filesystem::status(db_path, error).type() == std::filesystem::file_type::not_found;
        options.create_if_missing = true;
        options.error_if_exists = true;  // another process created it meanwhile: start over
        CRAWLRANK_ASSIGN_OR_RETURN(db, PageDb::Open(db_path, options));
        created = true;
      }
      return db.get();
    };
    Loader loader(file.empty() ? std::string("<stdin>") : file, first_id,
                  exists ? db->url_profile() : *profile, batch_lines, open_db);
    Status status = loader.Run(file.empty() ? std::cin : in_file);
    if (status.ok()) status = CheckDenseIds(loader.input(), first_id);
    if (status.ok() && !loader.read_url_pairs()) {  // page lines and index pairs, read whole
      auto opened_db = open_db();
      status = opened_db.ok() ? Write(**opened_db, first_id, loader.input()) : opened_db.status();
    }
    if (status.ok()) status = db->Sync();
    if (!status.ok()) {
      if (created) {
        db.reset();
        RemoveNewDb(db_path, made_directory);
      } else if (loader.last_line_written() > 0) {
        status = Status(status.code(),
                        status.message() + "; " + db_path + " keeps the URL pairs of lines 1-" +
                            std::to_string(loader.last_line_written()) + ", loaded before");
      }
      return Fail(app, status);
    }
    auto info = db->Info();
    if (!info.ok()) return Fail(app, info.status());
    std::cout << "page_db_load: read " << loader.input().lines << " lines; " << db_path
              << " now holds " << info->counters.pages << " pages and " << info->counters.edges
              << " links\n";
    return kExitOk;
  });
}

}  // namespace
}  // namespace crawlrank::tools

int main(int argc, char** argv) {
  return crawlrank::tools::Main(argc, argv);
}
