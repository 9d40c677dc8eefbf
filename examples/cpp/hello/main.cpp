// The smallest ember program: make tensors, add them, print the result.
#include <ember/ember.h>

#include <iostream>

int main() {
  ember::Tensor a = ember::ones({2, 3});
  ember::Tensor b = a + a;
  std::cout << b << "\n";
  std::cout << "sum = " << b.sum().item<double>() << "\n";
  return 0;
}
