// Runs the real mnemo binary as a child process for end-to-end tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mnemo::e2e {

// MNEMO_BINARY is the path of the built `mnemo` (a compile definition).
inline const char* kBinary = MNEMO_BINARY;

struct RunResult {
  int exit_code = -1;  // 128 + signal when killed
  std::string out;
  std::string err;
};

// Runs `mnemo args...` with `input` on stdin and extra environment
// variables; waits for it to exit.
RunResult RunMnemo(const std::vector<std::string>& args, const std::string& input = {},
                   const std::map<std::string, std::string>& env = {});

// Runs `mnemo args...` and sends it SIGKILL once `kill_after` has passed if it
// is still running (exit_code 137 then); for crash tests.
RunResult RunMnemoKilledAfter(const std::vector<std::string>& args,
                              std::chrono::microseconds kill_after);

// A `mnemo serve --listen 127.0.0.1:0` in a workspace; the port comes from
// its "listening on" line. Stderr is collected by a thread.
class Daemon {
 public:
  Daemon(const std::string& workspace, const std::map<std::string, std::string>& env = {},
         std::vector<std::string> extra_args = {});
  ~Daemon();

  bool started() const { return port_ > 0; }
  int port() const { return port_; }
  // Sends `sig` and waits for the exit code (128 + signal when killed).
  int Stop(int sig);
  // Sends `sig` without waiting.
  void Signal(int sig);
  std::string Stderr();

 private:
  pid_t pid_ = -1;
  int port_ = 0;
  int err_fd_ = -1;
  std::thread reader_;
  std::mutex mu_;
  std::string err_;
  int exit_code_ = -1;
};

// A `mnemo args...` that answers lines on stdin with lines on stdout
// (`rpc --stdio`, `mcp`): started once, asked many times. Stderr is
// collected by a thread.
class LineChild {
 public:
  explicit LineChild(const std::vector<std::string>& args,
                     const std::map<std::string, std::string>& env = {});
  ~LineChild();
  LineChild(const LineChild&) = delete;
  LineChild& operator=(const LineChild&) = delete;

  // Writes `line` and a newline.
  void Send(const std::string& line);
  // Send, then the next line of stdout; nullopt when stdout closed or
  // nothing came for 60 s.
  std::optional<std::string> Ask(const std::string& line);
  // Closes stdin and waits for the exit code.
  int Close();
  std::string Stderr();

 private:
  pid_t pid_ = -1;
  int in_ = -1;
  int out_ = -1;
  int err_fd_ = -1;
  std::string pending_;  // stdout read past the last line returned
  std::thread reader_;
  std::mutex mu_;
  std::string err_;
  int exit_code_ = -1;
};

// A turn time `minutes_ago` behind the real clock (RFC 3339). Tests whose
// turns must stay in one segment use these: a segment whose last turn is
// older than learning.session_idle_close_secs may be closed by the daemon's
// minute sweep between two calls, which is not what they test.
std::string MinutesAgo(int64_t minutes_ago);

}  // namespace mnemo::e2e
