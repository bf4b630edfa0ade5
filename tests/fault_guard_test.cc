// The fault guard: a read through LMDB's map of a file cut short beneath it ends in exit 1
// and a message naming the DB, not in SIGBUS.
#include "crawlrank/fault_guard.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "child_process.h"
#include "crawlrank/page_db.h"
#include "testutil.h"

namespace crawlrank {
namespace {

using testing::Child;
using testing::TempDir;

// Child body: opens `path`, cuts data.mdb to its two meta pages beneath the open map, then
// reads every record through the map, which faults. Exits 0 if nothing faulted.
void ReadCutFile(const std::string& path, const std::string& log, bool guard) {
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (out < 0 || ::dup2(out, STDERR_FILENO) < 0) ::_exit(4);
  if (guard) {
    InstallFaultGuard("fault_guard_test");
    WatchPageDb(path);
  }
  PageDbOptions options;
  options.read_only = true;
  auto db = PageDb::Open(path, options);
  if (!db.ok()) ::_exit(5);
  auto snapshot = (*db)->NewSnapshot();
  if (!snapshot.ok()) ::_exit(6);
  if (::truncate((path + "/data.mdb").c_str(), 8192) != 0) ::_exit(7);
  uint64_t sum = 0;
  (void)snapshot->ForEachPage([&](const PageRecord& record) {
    sum += record.url.size();
    return Status::Ok();
  });
  ::_exit(sum == 0 ? 8 : 0);
}

TEST(FaultGuardTest, AFaultInTheMapExitsWithStatus1AndNamesTheDb) {
  TempDir dir;
  for (bool guard : {false, true}) {
    SCOPED_TRACE(guard ? "with the guard" : "without the guard (control)");
    const std::string path = dir.Sub(guard ? "guarded" : "control");
    testing::BuildDb(path, 3000);  // a pages table of many LMDB pages
    const std::string log = dir.Sub(guard ? "guarded.log" : "control.log");
    Child child([&](int) { ReadCutFile(path, log, guard); });
    const int status = child.Wait();
    const std::string message = testing::ReadFile(log);
    if (!guard) {
      // The control shows the read does fault: a signal, or a sanitizer's report of it.
      EXPECT_FALSE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << message;
      continue;
    }
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status) << "\n" << message;
    EXPECT_EQ(WEXITSTATUS(status), 1) << message;
    EXPECT_NE(message.find("fault_guard_test: crashed while reading PageDB \"" + path + "\""),
              std::string::npos)
        << message;
    EXPECT_NE(message.find("SIGBUS"), std::string::npos) << message;
    EXPECT_NE(message.find("run page_db_check"), std::string::npos) << message;
  }
}

}  // namespace
}  // namespace crawlrank
