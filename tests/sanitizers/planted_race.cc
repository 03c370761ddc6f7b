// A deliberate data race, built only in the TSan preset: its test passes only
// when ThreadSanitizer reports it, proving the suppressions for the prebuilt
// libraries do not hide races in our own code.
#include <thread>

namespace {
int counter = 0;  // unsynchronised on purpose
void Bump() {
  for (int i = 0; i < 100000; ++i) counter = counter + 1;
}
}  // namespace

int main() {
  std::thread a(Bump), b(Bump);
  a.join();
  b.join();
  return counter > 0 ? 0 : 1;
}
