// `mnemo serve [--listen host:port]`: the HTTP daemon. SIGINT/SIGTERM stop
// accepting, let in-flight requests finish, close the engine and exit 0.
#include <pthread.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <iostream>
#include <memory>
#include <mutex>
#include <thread>

#include "base/net/http_client.h"
#include "commands.h"
#include "transport/http/http_server.h"

namespace mnemo::app {
namespace {

// Waits for SIGINT/SIGTERM (blocked in every thread, so only sigtimedwait
// sees them) and stops the server; returns when `done` is set.
void WaitForSignal(transport::HttpServer& server, const std::atomic<bool>& done) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  const timespec tick{0, 100 * 1000 * 1000};
  while (!done.load()) {
    int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig == SIGINT || sig == SIGTERM) {
      std::cerr << "mnemo: " << (sig == SIGINT ? "SIGINT" : "SIGTERM")
                << ": finishing in-flight requests\n";
      server.Stop();
      return;
    }
  }
}

// Runs `work(tick)` on a thread of its own at once and then every `period`
// (tick 0, 1, ...) until destroyed; the destructor waits for a running call.
class Periodic {
 public:
  Periodic(std::chrono::seconds period, std::function<void(int64_t tick)> work)
      : period_(period), work_(std::move(work)), thread_([this] { Run(); }) {}
  ~Periodic() {
    {
      std::lock_guard lock(mu_);
      stop_ = true;
    }
    cv_.notify_one();
    thread_.join();
  }
  Periodic(const Periodic&) = delete;
  Periodic& operator=(const Periodic&) = delete;

 private:
  void Run() {
    std::unique_lock lock(mu_);
    for (int64_t tick = 0; !stop_; ++tick) {
      lock.unlock();
      work_(tick);
      lock.lock();
      cv_.wait_for(lock, period_, [&] { return stop_; });
    }
  }

  const std::chrono::seconds period_;
  const std::function<void(int64_t)> work_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

// Every minute, the segments idle for learning.session_idle_close_secs are
// closed and finalised (spec 40); every tenth minute it asks whether hygiene
// (spec 10) is due (the last run, by any process on the workspace, is 12
// hours old).
void Maintain(Engine& engine, int64_t tick) {
  constexpr int kHygieneEveryTicks = 10;
  if (auto r = engine.archivist().CloseIdleSegments(); !r.ok()) {
    engine.logger().Log(LogLevel::kWarn, "closing idle segments: " + r.status().message());
  }
  if (tick % kHygieneEveryTicks == 0) {
    if (auto r = engine.admin().RunHygieneIfDue(); !r.ok()) {
      engine.logger().Log(LogLevel::kWarn, "hygiene: " + r.status().message());
    }
  }
}

// Every index.save_interval_secs (0: never), the vector index files that
// fell behind are rewritten, so that a restart after a crash replays a
// short tail of the change log instead of rebuilding the index (issue 17).
// A failure (read-only folder, full disk) is a warning: the next open
// replays or rebuilds.
std::unique_ptr<Periodic> IndexSaver(Engine& engine) {
  const int64_t secs = engine.config().index.save_interval_secs;
  if (secs <= 0) return nullptr;
  return std::make_unique<Periodic>(std::chrono::seconds(secs), [&engine](int64_t tick) {
    if (tick == 0) return;  // the open has just written what it rebuilt
    if (Status s = engine.admin().SaveVectorIndexes(); !s.ok()) {
      engine.logger().Log(LogLevel::kWarn, s.message());
    }
  });
}

// http://host:port/ (https:// with TLS; IPv6 hosts in brackets).
std::string PageUrl(const std::string& host, int port, bool tls = false) {
  const bool v6 = host.find(':') != std::string::npos;
  return (tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" +
         std::to_string(port) + "/";
}

// Whether a mnemo daemon answers at `host:port`: its /rpc answers a
// JSON-RPC call (a result, or an error such as a missing token). With `tls`
// over https, trusting the system's CAs only: a daemon whose certificate
// comes from a private CA is not recognised (and one is started here).
bool DaemonAnswers(const std::string& host, int port, bool tls) {
  internal::HttpRequest probe{
      .url = PageUrl(host, port, tls) + "rpc",
      .body = R"({"jsonrpc":"2.0","id":1,"method":"memory.stats","params":{}})",
      .timeout_ms = 1000};
  Result<internal::HttpResponse> r = internal::NewHttpClient()->Post(probe);
  return r.ok() && (r->status == 200 || r->status == 401) &&
         r->body.find("\"jsonrpc\"") != std::string::npos;
}

// `inspect`: the inspector's URL on stdout, of the daemon at the configured
// address when one answers there; otherwise of a daemon served here on a
// free loopback port.
int Serve(const GlobalOptions& g, const std::string& listen, bool inspect = false) {
  LimitMallocArenas();
  // Block the signals before any thread starts so that every thread
  // inherits the mask and the waiter is the only one to receive them.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);

  Result<Session> session = OpenSession(g);
  if (!session.ok()) return Fail(session.status());
  Result<transport::HttpServerOptions> options =
      transport::HttpServerOptionsFromConfig(session->engine->config(), listen);
  if (!options.ok()) return Fail(options.status());
  if (inspect) {
    const bool tls = options->tls != nullptr;
    if (DaemonAnswers(options->listen.host, options->listen.port, tls)) {
      std::cout << "inspector: " << PageUrl(options->listen.host, options->listen.port, tls)
                << std::endl;
      return kExitOk;
    }
    options = transport::HttpServerOptionsFromConfig(session->engine->config(), "127.0.0.1:0");
    if (!options.ok()) return Fail(options.status());
  }
  const std::string host = options->listen.host;
  const bool tls = options->tls != nullptr;
  if (!tls && !transport::IsLoopback(host)) {
    session->engine->logger().Log(
        LogLevel::kWarn, "server.allow_plaintext = true: serving " + host +
                             " without TLS; bearer tokens and memories cross the network in "
                             "clear text (set server.tls_cert and server.tls_key to encrypt)");
  }
  int status = kExitOk;
  {
    transport::HttpServer server(*session->engine, *options);
    Result<int> port = server.Bind();
    // An address that cannot be had (taken: "127.0.0.1:8765 is already in
    // use") is exit 2, told at once.
    if (!port.ok()) {
      Fail(port.status());
      return kExitInternal;
    }
    const bool v6 = host.find(':') != std::string::npos;
    // One write: readers of the line see it whole.
    std::cerr << "listening on " + (v6 ? "[" + host + "]" : host) + ":" + std::to_string(*port) +
                     (tls ? " (https)" : "") + "\n"
              << std::flush;
    if (inspect) {
      std::cout << "inspector: " << PageUrl(host, *port, tls) << " (Ctrl-C stops it)" << std::endl;
    }
    std::atomic<bool> done{false};
    std::thread waiter([&] { WaitForSignal(server, done); });
    Periodic maintenance(std::chrono::minutes(1),
                         [&engine = *session->engine](int64_t tick) { Maintain(engine, tick); });
    std::unique_ptr<Periodic> saver = IndexSaver(*session->engine);
    Status served = server.Serve();
    done = true;
    waiter.join();
    if (!served.ok()) status = Fail(served);
  }
  session->engine.reset();  // closes storage cleanly
  std::cerr << "mnemo: stopped\n";
  return status;
}

}  // namespace

void AddServeCommand(CLI::App& app, GlobalOptions& g, Action& action) {
  CLI::App* serve = app.add_subcommand("serve", "Serve JSON-RPC over HTTP (POST /rpc)");
  auto listen = std::make_shared<std::string>();
  serve->add_option("--listen", *listen,
                    "host:port (default [server] listen, 127.0.0.1:8765; port 0 picks one)");
  serve->callback([&g, &action, listen] { action = [&g, listen] { return Serve(g, *listen); }; });
  CLI::App* inspect = app.add_subcommand(
      "inspect",
      "Print the memory inspector's URL: of the daemon at [server] listen when one runs, "
      "else of one started here on a free loopback port");
  inspect->callback([&g, &action] { action = [&g] { return Serve(g, "", /*inspect=*/true); }; });
}

}  // namespace mnemo::app
