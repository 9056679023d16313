// Must not compile: a request rate is not a token rate (units.hpp: requests are a dimension of
// their own), so a throughput in requests cannot be added to one in tokens.
#include "simulate/simulate.hpp"
using namespace llmecon;
int main() {
  SimResult r;
  const auto sum = r.requests_per_s + r.output_throughput;
  return static_cast<int>(sum.si());
}
