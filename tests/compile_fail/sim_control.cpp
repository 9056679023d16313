// Must compile: a simulated latency read as a time, a request rate as requests per second (and
// over a time, a count of requests), and in SI units when asked.
#include "simulate/simulate.hpp"
using namespace llmecon;
int main() {
  SimResult r;
  Seconds p99 = r.ttft.p99;
  Joules e = r.energy;
  const Requests served = r.requests_per_s * units::seconds(60);
  return static_cast<int>(p99.si() + e.si() + served.si());
}
