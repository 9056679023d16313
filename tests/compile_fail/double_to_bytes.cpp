// Must not compile: a bare double is not a quantity (no implicit construction).
#include "units/units.hpp"
using namespace llmecon;
void take(Bytes) {}
int main() {
  take(80.0);
  return 0;
}
