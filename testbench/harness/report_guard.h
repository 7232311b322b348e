// A SystemC report handler for tests (STYLE "Tests"): every SystemC warning,
// error or fatal is recorded and turns into a test failure at the end of the
// run unless the test took it with take_reports(). Also fixes the time
// resolution at 1 ps before anything builds an sc_time (SPEC §1).
#pragma once

#include <string>
#include <vector>

namespace npuvp::test {

struct Report {
    std::string severity;  // "warning", "error", "fatal"
    std::string msg_type;
    std::string message;
};

// Reports recorded so far, removing them from the list.
std::vector<Report> take_reports();

}  // namespace npuvp::test
