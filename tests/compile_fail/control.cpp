// Must compile: the same operations as the rejected snippets, with matching units.
#include "units/units.hpp"
using namespace llmecon;
int main() {
  Bytes b = units::gb(1) + units::mb(5);
  Seconds t = units::flops(1e12) / units::tflop_per_s(1.0);
  bool lt = units::ms(1) < units::seconds(1);
  Seconds t2 = b / units::gb_per_s(1);
  return static_cast<int>(t.si() + t2.si()) + (lt ? 0 : 1);
}
