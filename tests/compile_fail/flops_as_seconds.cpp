// Must not compile: FLOPs / bytes-per-second is not a time.
#include "units/units.hpp"
using namespace llmecon;
int main() {
  Seconds t = units::flops(1e12) / units::gb_per_s(1);
  return static_cast<int>(t.si());
}
