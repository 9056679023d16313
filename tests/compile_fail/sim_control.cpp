// Must compile: a simulated latency read as a time, and in seconds when asked.
#include "simulate/simulate.hpp"
using namespace llmecon;
int main() {
  SimResult r;
  Seconds p99 = r.ttft.p99;
  Joules e = r.energy;
  return static_cast<int>(p99.si() + e.si());
}
