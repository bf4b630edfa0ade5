// A crawlrank_serve child process for the frontier benchmarks: started on 127.0.0.1 (a
// free port) over a PageDB, its address read from its "listening on" line, its memory
// read from /proc, and SIGTERMed (then waited for) on destruction.
#ifndef CRAWLRANK_BENCHMARKS_SERVE_PROCESS_H_
#define CRAWLRANK_BENCHMARKS_SERVE_PROCESS_H_

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "bench_util.h"

extern char** environ;

namespace crawlrank::bench {

// User and system CPU seconds process `pid` has spent so far (/proc/PID/stat).
inline double ProcCpuSeconds(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t end = text.rfind(')');  // the command may hold spaces
  if (end == std::string::npos) return 0;
  std::istringstream fields(text.substr(end + 2));
  std::string field;
  double ticks = 0;
  for (int i = 3; fields >> field; ++i) {  // field 3 is the state; 14 utime, 15 stime
    if (i == 14 || i == 15) ticks += std::stod(field);
    if (i == 15) break;
  }
  return ticks / static_cast<double>(sysconf(_SC_CLK_TCK));
}

// A /proc/PID/status field in KiB ("VmRSS", "RssAnon", "VmHWM"); 0 when absent.
inline long ProcKib(pid_t pid, const std::string& field) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with(field + ":")) return std::stol(line.substr(field.size() + 1));
  }
  return 0;
}

// Starts args[0] with `args`, its stdin and stdout on `stdin_fd` and `stdout_fd` (-1: this
// process's own). The pipes of the benchmarks are close-on-exec, so the child keeps only
// these two ends. Die()s when it cannot start.
inline pid_t Spawn(std::vector<std::string> args, int stdin_fd, int stdout_fd) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (stdin_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdin_fd, STDIN_FILENO);
  if (stdout_fd >= 0) posix_spawn_file_actions_adddup2(&actions, stdout_fd, STDOUT_FILENO);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) Die(IoError("cannot start " + args[0]));
  return pid;
}

class ServerProcess {
 public:
  // `server db --listen LISTEN --delay 0 extra...`
  ServerProcess(const std::string& server, const std::string& db,
                std::vector<std::string> extra = {}, const std::string& listen = "127.0.0.1:0") {
    int out[2];
    if (pipe2(out, O_CLOEXEC) != 0) Die(IoError("pipe"));
    std::vector<std::string> args{server, db, "--listen", listen, "--delay", "0"};
    args.insert(args.end(), extra.begin(), extra.end());
    pid_ = Spawn(std::move(args), -1, out[1]);
    close(out[1]);
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    close(out[0]);
    if (!line.starts_with("listening on ")) Die(IoError(server + " did not start: " + line));
    address_ = line.substr(13);
  }
  ~ServerProcess() {
    kill(pid_, SIGTERM);
    int status;
    waitpid(pid_, &status, 0);
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  const std::string& address() const { return address_; }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = 0;
  std::string address_;
};

}  // namespace crawlrank::bench

#endif  // CRAWLRANK_BENCHMARKS_SERVE_PROCESS_H_
