// The dashboard's HTML: each view rendered on the server from the JSON its /api/ endpoint
// returns (so that a page shows its figures without JavaScript), every value escaped
// (html.h). The pages load /static/dashboard.js (sortable tables, live figures, charts)
// and /static/chart.js; no inline script, so the Content-Security-Policy the server sends
// can forbid any.
#ifndef CRAWLRANK_SRC_DASHBOARD_DASHBOARD_PAGES_H_
#define CRAWLRANK_SRC_DASHBOARD_DASHBOARD_PAGES_H_

#include <string>
#include <string_view>

#include "dashboard/dashboard_data.h"

namespace crawlrank::dashboard {

std::string OverviewPage(const Json& summary, bool charts);
std::string HostsPage(const Json& hosts, const HostsQuery& query);
std::string FailuresPage(const Json& failures, std::string_view kind, std::string_view host);
std::string TopPage(const Json& top, bool charts);
std::string PagePage(const Json& page);
std::string RecentPage(const Json& recent);
// `search` null: the form alone.
std::string SearchPage(const Json& search, std::string_view query);
std::string BrokenPage(const Json& broken);
std::string HostPage(const Json& host);
// A view that could not be read: the status's message, escaped.
std::string ErrorPage(std::string_view title, std::string_view message);

// /static/dashboard.js and /static/dashboard.css.
std::string_view DashboardScript();
std::string_view DashboardStyle();

}  // namespace crawlrank::dashboard

#endif  // CRAWLRANK_SRC_DASHBOARD_DASHBOARD_PAGES_H_
