// Must not compile: comparing a size with a rate.
#include "units/units.hpp"
using namespace llmecon;
int main() { return units::gb(1) < units::gb_per_s(1) ? 1 : 0; }
