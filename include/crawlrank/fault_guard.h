// crawlrank/fault_guard.h: turns a fault inside a damaged PageDB into a clear exit.
//
// LMDB reads its file through a memory map and trusts what it reads. PageDb::Open checks
// the pages on a sample of paths through every table before LMDB reads any, and
// PageDb::Check(kFull) reads every page without LMDB first (page_db.h says what each
// detects). A damaged page off those paths can still make liblmdb read outside the file:
// the process gets SIGSEGV or SIGBUS inside liblmdb, where no error can be returned.
//
// A library cannot catch that for the program it lives in: signal handlers belong to the
// whole process, and resuming after a fault inside liblmdb is not safe. A program can opt
// in to this guard: on SIGSEGV or SIGBUS it writes one line to standard error naming the
// PageDBs the program opened and page_db_check, and exits with status 1 instead of
// dumping core. LMDB's own assertions on a damaged page (which would abort()) end such a
// program the same way, with LMDB's text in the line. Every crawlrank tool installs it. A
// fault that is a bug of the program (or of crawlrank) is reported the same way: the line
// says so when page_db_check finds nothing.
//
// Thread safety: call InstallFaultGuard once, early, before other threads start;
// WatchPageDb from any one thread at a time. The guard keeps its state in static storage,
// the one place crawlrank does: a signal handler can reach nothing else.
#ifndef CRAWLRANK_FAULT_GUARD_H_
#define CRAWLRANK_FAULT_GUARD_H_

#include <string_view>

namespace crawlrank {

// Installs the SIGSEGV and SIGBUS handlers and a terminate handler (for LMDB's assertions;
// any other uncaught exception goes on to the one before); `program` starts the message
// (at most 63 bytes are kept).
void InstallFaultGuard(std::string_view program);

// Names the PageDB at `path` in the guard's message (the first 4 paths, up to 511 bytes
// each, are kept).
void WatchPageDb(std::string_view path);

}  // namespace crawlrank

#endif  // CRAWLRANK_FAULT_GUARD_H_
