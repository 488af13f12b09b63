#include "process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <regex>

#include <gtest/gtest.h>

#include "base/time.h"

extern char** environ;

namespace mnemo::e2e {
namespace {

struct Child {
  pid_t pid = -1;
  int in = -1, out = -1, err = -1;
};

Child Spawn(const std::vector<std::string>& args, const std::map<std::string, std::string>& env) {
  int in[2], out[2], err[2];
  // Close-on-exec: a later child must not hold an earlier one's stdin open
  // (a LineChild would never see EOF); dup2 clears it on 0, 1 and 2.
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0) {
    return {};
  }
  pid_t pid = fork();
  if (pid == 0) {
    dup2(in[0], 0);
    dup2(out[1], 1);
    dup2(err[1], 2);
    for (int fd : {in[0], in[1], out[0], out[1], err[0], err[1]}) close(fd);
    // A clean MNEMO_* environment: only what the test passes.
    for (char** e = environ; *e != nullptr;) {
      if (std::strncmp(*e, "MNEMO_", 6) == 0) {
        std::string name(*e, std::strchr(*e, '=') - *e);
        unsetenv(name.c_str());
      } else {
        ++e;
      }
    }
    // The hash embedder unless the test asks for another: a word-vector file
    // installed on the machine must not change what the tests see.
    setenv("MNEMO_EMBEDDING_PROVIDER", "hash", 1);
    for (const auto& [k, v] : env) setenv(k.c_str(), v.c_str(), 1);
    std::vector<char*> argv;
    argv.push_back(const_cast<char*>(kBinary));
    for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    execv(kBinary, argv.data());
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  close(err[1]);
  return {pid, in[1], out[0], err[0]};
}

// The sanitizer build runs every child under ASan, UBSan and LeakSanitizer
// (scripts/test.sh): a report on its stderr fails the test that ran it, even
// one that does not look at the exit code. This is the leak check of the
// end-to-end suite.
void ExpectNoSanitizerReport(const std::string& err, const std::string& what) {
  for (const char* marker : {"LeakSanitizer", "AddressSanitizer", "runtime error:"}) {
    if (err.find(marker) != std::string::npos) {
      ADD_FAILURE() << what << " printed a sanitizer report:\n" << err;
      return;
    }
  }
}

int WaitExit(pid_t pid) {
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return -1;
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// RunMnemo, killing the child with SIGKILL at `kill_at` when given.
RunResult Run(const std::vector<std::string>& args, const std::string& input,
              const std::map<std::string, std::string>& env,
              std::optional<std::chrono::steady_clock::time_point> kill_at) {
  signal(SIGPIPE, SIG_IGN);
  Child c = Spawn(args, env);
  RunResult r;
  if (c.pid <= 0) return r;
  size_t written = 0;
  if (input.empty()) {
    close(c.in);
    c.in = -1;
  }
  fcntl(c.in, F_SETFL, O_NONBLOCK);
  bool out_open = true, err_open = true;
  char buf[65536];
  while (out_open || err_open) {
    std::vector<pollfd> fds;
    if (out_open) fds.push_back({c.out, POLLIN, 0});
    if (err_open) fds.push_back({c.err, POLLIN, 0});
    if (c.in >= 0) fds.push_back({c.in, POLLOUT, 0});
    int timeout_ms = 30000;
    if (kill_at) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          *kill_at - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        kill(c.pid, SIGKILL);
        kill_at.reset();
        continue;
      }
      timeout_ms = static_cast<int>(std::min<int64_t>(left.count() + 1, timeout_ms));
    }
    // No deadline of its own: a slow child (a sanitizer build rebuilding a
    // large index) is waited for; ctest's timeout bounds a hung one.
    const int ready = poll(fds.data(), fds.size(), timeout_ms);
    if (ready == 0 || (ready < 0 && errno == EINTR)) continue;
    if (ready < 0) break;
    for (const pollfd& p : fds) {
      if (p.revents == 0) continue;
      if (p.fd == c.in) {
        ssize_t n = write(c.in, input.data() + written, input.size() - written);
        if (n > 0) written += static_cast<size_t>(n);
        if (n < 0 || written == input.size()) {
          close(c.in);
          c.in = -1;
        }
        continue;
      }
      ssize_t n = read(p.fd, buf, sizeof buf);
      if (n <= 0) {
        (p.fd == c.out ? out_open : err_open) = false;
        continue;
      }
      (p.fd == c.out ? r.out : r.err).append(buf, static_cast<size_t>(n));
    }
  }
  if (c.in >= 0) close(c.in);
  close(c.out);
  close(c.err);
  r.exit_code = WaitExit(c.pid);
  ExpectNoSanitizerReport(r.err, "mnemo " + (args.empty() ? std::string() : args.back()));
  return r;
}

}  // namespace

RunResult RunMnemo(const std::vector<std::string>& args, const std::string& input,
                   const std::map<std::string, std::string>& env) {
  return Run(args, input, env, std::nullopt);
}

RunResult RunMnemoKilledAfter(const std::vector<std::string>& args,
                              std::chrono::microseconds kill_after) {
  return Run(args, {}, {}, std::chrono::steady_clock::now() + kill_after);
}

Daemon::Daemon(const std::string& workspace, const std::map<std::string, std::string>& env,
               std::vector<std::string> extra_args) {
  std::vector<std::string> args = {"--workspace", workspace, "serve", "--listen", "127.0.0.1:0"};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  Child c = Spawn(args, env);
  if (c.pid <= 0) return;
  pid_ = c.pid;
  close(c.in);
  close(c.out);
  err_fd_ = c.err;
  reader_ = std::thread([this] {
    char buf[4096];
    for (;;) {
      ssize_t n = read(err_fd_, buf, sizeof buf);
      if (n <= 0) break;
      std::lock_guard lock(mu_);
      err_.append(buf, static_cast<size_t>(n));
    }
  });
  static const std::regex kListening(R"(listening on 127\.0\.0\.1:(\d+))");
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < give_up) {
    {
      std::lock_guard lock(mu_);
      std::smatch m;
      if (std::regex_search(err_, m, kListening)) {
        port_ = std::stoi(m[1]);
        return;
      }
    }
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      pid_ = -1;
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void Daemon::Signal(int sig) {
  if (pid_ > 0) kill(pid_, sig);
}

int Daemon::Stop(int sig) {
  if (pid_ > 0) {
    kill(pid_, sig);
    exit_code_ = WaitExit(pid_);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
  ExpectNoSanitizerReport(Stderr(), "mnemo serve");
  return exit_code_;
}

Daemon::~Daemon() {
  if (pid_ > 0) Stop(SIGKILL);
  if (reader_.joinable()) reader_.join();
  if (err_fd_ >= 0) close(err_fd_);
}

std::string Daemon::Stderr() {
  std::lock_guard lock(mu_);
  return err_;
}

LineChild::LineChild(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env) {
  signal(SIGPIPE, SIG_IGN);
  Child c = Spawn(args, env);
  if (c.pid <= 0) return;
  pid_ = c.pid;
  in_ = c.in;
  out_ = c.out;
  err_fd_ = c.err;
  reader_ = std::thread([this] {
    char buf[4096];
    for (;;) {
      ssize_t n = read(err_fd_, buf, sizeof buf);
      if (n <= 0) break;
      std::lock_guard lock(mu_);
      err_.append(buf, static_cast<size_t>(n));
    }
  });
}

void LineChild::Send(const std::string& line) {
  const std::string data = line + "\n";
  size_t written = 0;
  while (in_ >= 0 && written < data.size()) {
    ssize_t n = write(in_, data.data() + written, data.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    written += static_cast<size_t>(n);
  }
}

std::optional<std::string> LineChild::Ask(const std::string& line) {
  Send(line);
  char buf[65536];
  for (;;) {
    if (size_t nl = pending_.find('\n'); nl != std::string::npos) {
      std::string answer = pending_.substr(0, nl);
      pending_.erase(0, nl + 1);
      return answer;
    }
    pollfd p{out_, POLLIN, 0};
    const int ready = poll(&p, 1, 60000);
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return std::nullopt;
    ssize_t n = read(out_, buf, sizeof buf);
    if (n <= 0) return std::nullopt;
    pending_.append(buf, static_cast<size_t>(n));
  }
}

int LineChild::Close() {
  if (in_ >= 0) {
    close(in_);
    in_ = -1;
  }
  if (pid_ > 0) {
    exit_code_ = WaitExit(pid_);
    pid_ = -1;
  }
  if (reader_.joinable()) reader_.join();
  if (out_ >= 0) {
    close(out_);
    out_ = -1;
  }
  if (err_fd_ >= 0) {
    close(err_fd_);
    err_fd_ = -1;
    ExpectNoSanitizerReport(Stderr(), "mnemo line child");
  }
  return exit_code_;
}

LineChild::~LineChild() { Close(); }

std::string LineChild::Stderr() {
  std::lock_guard lock(mu_);
  return err_;
}

std::string MinutesAgo(int64_t minutes_ago) {
  const auto now = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  return internal::FormatRfc3339(now - minutes_ago * 60'000);
}

}  // namespace mnemo::e2e
