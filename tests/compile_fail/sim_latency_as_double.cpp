// Must not compile: a simulated latency is a time, not a bare double (simulate.hpp).
#include "simulate/simulate.hpp"
using namespace llmecon;
int main() {
  SimResult r;
  double p99 = r.ttft.p99;
  return static_cast<int>(p99);
}
