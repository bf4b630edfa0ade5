#include "tool_common.h"

#include <iostream>

#include "crawlrank/version.h"

namespace crawlrank::tools {

int Run(CLI::App& app, int argc, char** argv, const std::function<int()>& body) {
  app.set_version_flag("--version", app.get_name() + " (crawlrank) " CRAWLRANK_VERSION_STRING);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return kExitOk;
  } catch (const CLI::CallForVersion& e) {
    std::cout << e.what() << "\n";
    return kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << app.get_name() << ": " << e.what() << "\n"
              << "Run with --help for more information.\n";
    return kExitUsage;
  }
  return body();
}

int Fail(const CLI::App& app, const Status& status) {
  std::cerr << app.get_name() << ": " << status.message() << "\n";
  return kExitFailure;
}

int UsageError(const CLI::App& app, std::string_view message) {
  std::cerr << app.get_name() << ": " << message << "\n"
            << "Run with --help for more information.\n";
  return kExitUsage;
}

}  // namespace crawlrank::tools
