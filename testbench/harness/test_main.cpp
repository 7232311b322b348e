// The one Boost.Test main of every suite.
#define BOOST_TEST_MODULE npuvp
#include <boost/test/unit_test.hpp>
#include <systemc>

// libsystemc.so refers to sc_main (extern "C", from sc_elab_and_sim), so every
// executable must define it. A test starts the kernel with sc_start() under
// Boost's main; this one is never called.
int sc_main(int, char*[]) { return 0; }
