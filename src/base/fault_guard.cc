#include "crawlrank/fault_guard.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <exception>

#include "base/lmdb_assertion.h"

namespace crawlrank {
namespace {

constexpr size_t kMaxPaths = 4;

struct GuardState {
  std::terminate_handler previous_terminate = nullptr;
  char program[64] = {};
  char paths[kMaxPaths][512] = {};
  volatile sig_atomic_t path_count = 0;
};

// A signal handler reaches no object but static storage: this is it.
GuardState& State() {
  static GuardState state;
  return state;
}

void Copy(char* to, size_t room, std::string_view from) {
  const size_t n = std::min(room - 1, from.size());
  memcpy(to, from.data(), n);
  to[n] = '\0';
}

void Write(const char* text) {
  size_t left = strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= static_cast<size_t>(n);
  }
}

// Async-signal-safe: write(2) and _exit(2) only.
void OnFault(int signal_number) {
  GuardState& state = State();
  Write(state.program);
  Write(": crashed while reading ");
  const int count = state.path_count;
  if (count == 0) {
    Write("a PageDB");
  }
  for (int i = 0; i < count; ++i) {
    Write(i == 0 ? "PageDB \"" : ", \"");
    Write(state.paths[i]);
    Write("\"");
  }
  Write(signal_number == SIGBUS ? " (SIGBUS" : " (SIGSEGV");
  Write(
      " in the memory map): the file is probably damaged or was cut short; run "
      "page_db_check on it. If page_db_check finds no damage, this is a bug: please "
      "report it.\n");
  ::_exit(1);
}

// An exception no one caught: LMDB's assertion (base/lmdb_assertion.h) ends the program
// with its one line and exit 1; anything else goes to the handler before this one.
[[noreturn]] void OnTerminate() {
  GuardState& state = State();
  if (std::exception_ptr current = std::current_exception()) {
    try {
      std::rethrow_exception(current);
    } catch (const LmdbAssertion& assertion) {
      Write(state.program);
      Write(": ");
      Write(assertion.what());
      Write(". If page_db_check finds no damage, this is a bug: please report it.\n");
      ::_exit(1);
    } catch (...) {
    }
  }
  if (state.previous_terminate != nullptr) state.previous_terminate();
  std::abort();
}

}  // namespace

void InstallFaultGuard(std::string_view program) {
  Copy(State().program, sizeof State().program, program);
  struct sigaction action = {};
  action.sa_handler = OnFault;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_NODEFER | SA_RESETHAND;  // a fault inside the handler ends the process
  ::sigaction(SIGSEGV, &action, nullptr);
  ::sigaction(SIGBUS, &action, nullptr);
  State().previous_terminate = std::set_terminate(OnTerminate);
}

void WatchPageDb(std::string_view path) {
  GuardState& state = State();
  const int count = state.path_count;
  if (static_cast<size_t>(count) >= kMaxPaths) return;
  Copy(state.paths[count], sizeof state.paths[count], path);
  state.path_count = count + 1;  // published after the path is written
}

}  // namespace crawlrank
