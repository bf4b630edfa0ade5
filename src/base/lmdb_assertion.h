// The exception that carries an assertion of liblmdb out of it: the one exception in
// crawlrank, private to it (no installed header names it).
//
// liblmdb checks its pages with assert(): a damaged page off the paths PageDb::Open samples
// (a zeroed one: "Assertion 'IS_LEAF(mp)' failed in mdb_cursor_next()") makes it call the
// environment's assert callback and then abort(). page_db/lmdb_env.cc sets that callback to
// throw this instead, which unwinds out of liblmdb (its frames carry unwind tables; a read
// transaction holds no lock, and the RAII owners of the transaction and cursors end them):
//   - a tool that installed the fault guard (fault_guard.h) exits 1 with one line naming the
//     PageDB and page_db_check, through the guard's terminate handler;
//   - a server (the dashboard's HTTP handlers, crawlrank serve's gRPC handlers) catches it
//     around the request that met the damage, answers that request with an error, and keeps
//     serving.
#ifndef CRAWLRANK_SRC_BASE_LMDB_ASSERTION_H_
#define CRAWLRANK_SRC_BASE_LMDB_ASSERTION_H_

#include <stdexcept>

namespace crawlrank {

class LmdbAssertion : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace crawlrank

#endif  // CRAWLRANK_SRC_BASE_LMDB_ASSERTION_H_
