// Must not compile: bytes and seconds do not add.
#include "units/units.hpp"
using namespace llmecon;
int main() {
  auto x = units::gb(1) + units::seconds(1);
  return static_cast<int>(x.si());
}
