// Must not compile: a request rate is a quantity, not a bare double (simulate.hpp).
#include "simulate/simulate.hpp"
using namespace llmecon;
int main() {
  Arrivals a;
  a.rate = 4.0;
  return static_cast<int>(a.rate.si());
}
