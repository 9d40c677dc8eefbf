// The C++ API's measured advantages (issue 17), ember beside libtorch 1.13 (Debian) in the same
// run, one JSON line each (lower is better):
//
//   compile_300_lines               s   benchmarks/cpp_api/program.cpp compiled (-c -O2
//                                       -std=c++20) against <ember/ember.h>, and the same text
//                                       against <torch/torch.h>; median of 3 runs each
//   compile_300_lines_fine_headers  s   the same with ember's finer headers (-DFINE_HEADERS)
//                                       beside the same libtorch figure
//   hello_startup                   ms  exec to exit of a program whose only work is its first
//                                       tensor op (benchmarks/cpp_api/hello.cpp); median of 15
//   lib_size_stripped               MB  libember.so stripped, beside libtorch's libraries a
//                                       program links (libtorch.so, libtorch_cpu.so, libc10.so)
//                                       stripped
//
// Compile times depend on the machine's load more than anything else: compare the ratio.
#include <dlfcn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

double wall() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Seconds `argv` takes from fork to exit (its output discarded); -1 when it fails.
double run(const std::vector<std::string>& argv) {
  const double t0 = wall();
  const pid_t pid = fork();
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (!std::freopen("/dev/null", "w", stdout)) _exit(126);
    execvp(args[0], args.data());
    _exit(127);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  const double t = wall() - t0;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? t : -1;
}

double median_run(const std::vector<std::string>& argv, int n) {
  std::vector<double> times;
  for (int i = 0; i < n; ++i) {
    const double t = run(argv);
    if (t < 0) {
      std::fprintf(stderr, "bench_cpp_api: failed: %s ...\n", argv[0].c_str());
      std::exit(1);
    }
    times.push_back(t);
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      if (i > start) out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::vector<std::string> compile_command(const std::vector<std::string>& flags) {
  std::vector<std::string> cmd = {EMBER_BENCH_CXX, "-std=c++20", "-O2", "-c", "-o", "/dev/null"};
  cmd.insert(cmd.end(), flags.begin(), flags.end());
  cmd.push_back(EMBER_BENCH_SOURCE_DIR "/benchmarks/cpp_api/program.cpp");
  return cmd;
}

void bench_compile(const std::string& filter) {
  if (std::string("compile_300_lines").find(filter) == std::string::npos &&
      std::string("compile_300_lines_fine_headers").find(filter) == std::string::npos)
    return;
  std::vector<std::string> torch_flags = {"-DUSE_TORCH"};
  for (const std::string& dir : split(EMBER_BENCH_TORCH_INCLUDES, '|')) {
    // The compiler's own system directory: naming it again with -isystem reorders the search
    // and breaks libstdc++'s #include_next <stdlib.h>.
    if (dir == "/usr/include") continue;
    torch_flags.push_back("-isystem");
    torch_flags.push_back(dir);
  }
  const std::vector<std::string> ember_flags = {"-I" EMBER_BENCH_SOURCE_DIR "/include"};
  const double torch_s = median_run(compile_command(torch_flags), 3);
  const double ember_s = median_run(compile_command(ember_flags), 3);
  std::vector<std::string> fine = ember_flags;
  fine.push_back("-DFINE_HEADERS");
  const double fine_s = median_run(compile_command(fine), 3);
  bench::report("compile_300_lines", "s", ember_s, torch_s, true);
  bench::report("compile_300_lines_fine_headers", "s", fine_s, torch_s, true);
}

void bench_startup(const std::string& dir, const std::string& filter) {
  if (std::string("hello_startup").find(filter) == std::string::npos) return;
  const double e = median_run({dir + "/hello_ember"}, 15);
  const double t = median_run({dir + "/hello_torch"}, 15);
  bench::report("hello_startup", "ms", e * 1e3, t * 1e3, true);
}

// The file that defines `symbol`'s address.
std::string library_of(const void* symbol) {
  Dl_info info{};
  if (dladdr(symbol, &info) == 0 || info.dli_fname == nullptr) return {};
  return info.dli_fname;
}

// Bytes of `path` stripped of symbols and debug info (strip to a temporary copy).
double stripped_bytes(const std::string& path) {
  const std::string tmp = "/tmp/bench_cpp_api_strip_" + std::to_string(getpid());
  if (run({"strip", "--strip-all", "-o", tmp, path}) < 0) {
    std::fprintf(stderr, "bench_cpp_api: cannot strip %s\n", path.c_str());
    std::exit(1);
  }
  struct stat st {};
  stat(tmp.c_str(), &st);
  std::remove(tmp.c_str());
  return static_cast<double>(st.st_size);
}

void bench_size(const std::string& filter) {
  if (std::string("lib_size_stripped").find(filter) == std::string::npos) return;
  const std::string ember_lib = library_of(reinterpret_cast<const void*>(&ember::detail::set_error_recording));
  const std::string torch_cpu = library_of(reinterpret_cast<const void*>(&at::set_num_threads));
  const std::string c10 = library_of(reinterpret_cast<const void*>(&c10::GetAllocator));
  const std::string torch_dir = torch_cpu.substr(0, torch_cpu.rfind('/'));
  double torch_bytes = stripped_bytes(torch_cpu) + stripped_bytes(c10);
  struct stat st {};
  if (stat((torch_dir + "/libtorch.so").c_str(), &st) == 0) torch_bytes += stripped_bytes(torch_dir + "/libtorch.so");
  bench::report("lib_size_stripped", "MB", stripped_bytes(ember_lib) / 1e6, torch_bytes / 1e6, true);
}

}  // namespace

// Usage: bench_cpp_api [substring]  -- runs the figures whose name contains it (default: all).
int main(int argc, char** argv) {
  const std::string filter = argc > 1 ? argv[1] : "";
  std::string self = argv[0];
  const std::string dir = self.find('/') == std::string::npos ? "." : self.substr(0, self.rfind('/'));
  bench_size(filter);
  bench_startup(dir, filter);
  bench_compile(filter);
  return 0;
}
