// Micro-benchmarks of the text pipeline on ~200-byte entries, the size the
// import target (>= 20 000 entries/s including SQLite work) is stated for.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "text/pipeline/query.h"
#include "text/pipeline/tokenizer.h"
#include "text/secrets.h"
#include "text/snippet.h"

namespace {

const char* const kEnglish[] = {
    "The deployment to the staging cluster failed again because the health check on port "
    "8080 timed out; Sarah suggested raising the timeout and re-running deploy.py tomorrow.",
    "Remember that the quarterly report is due on Friday. Alex prefers short bullet points, "
    "no more than five per slide, and he wants the revenue numbers rounded to thousands.",
    "We decided to migrate the user database from MySQL to PostgreSQL next sprint, keeping "
    "the old replica online for two weeks in case the rollback plan is needed by support.",
};

const char* const kMixed[] = {
    "服务器上的 deploy.py 脚本在凌晨三点失败了，原因是磁盘空间不足。Sarah said she will "
    "clean up /var/log and rerun it.",
    "永远不要给 Sarah 发邮件讨论预算问题，请直接打电话。The budget review is on Monday at "
    "10am in room 4.",
    "我们决定把数据库从 MySQL 迁移到 PostgreSQL，迁移计划写在 docs/migration.md 里面，下周开始。",
};

const char* const kChinese[] = {
    "狙击手在阵地上成功阻击了敌人的进攻，指挥部随后下令全线反击，战斗一直持续到第二天清晨才结束。",
    "永远不要在周末给客户发送邮件，除非事情非常紧急，并且已经得到了项目经理的书面同意。",
};

template <size_t N>
void RunTokenize(benchmark::State& state, const char* const (&texts)[N]) {
  std::vector<std::string> entries(std::begin(texts), std::end(texts));
  size_t bytes = 0;
  int64_t tokens = 0;
  for (auto _ : state) {
    for (const std::string& e : entries) {
      mnemo::text::Tokenize(
          e, [&tokens](const mnemo::text::TokenView& t) { tokens += t.text.size(); });
      bytes += e.size();
    }
  }
  benchmark::DoNotOptimize(tokens);
  state.SetBytesProcessed(static_cast<int64_t>(bytes));
  state.SetItemsProcessed(state.iterations() * static_cast<int64_t>(N));
}

void BM_TokenizeEnglish(benchmark::State& state) { RunTokenize(state, kEnglish); }
void BM_TokenizeMixed(benchmark::State& state) { RunTokenize(state, kMixed); }
void BM_TokenizeChinese(benchmark::State& state) { RunTokenize(state, kChinese); }

void BM_QueryTerms(benchmark::State& state) {
  const std::string q = "what did I say about the deploy.py failure on 服务器上的 disk";
  for (auto _ : state) benchmark::DoNotOptimize(mnemo::text::QueryTerms(q));
  state.SetItemsProcessed(state.iterations());
}

void BM_FindSecretCleanText(benchmark::State& state) {
  std::string text;
  for (const char* e : kEnglish) text += e;
  for (const char* e : kMixed) text += e;
  for (auto _ : state) benchmark::DoNotOptimize(mnemo::text::FindSecret(text));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

void BM_MakeSnippet(benchmark::State& state) {
  std::string text;
  for (int i = 0; i < 5; ++i) {
    for (const char* e : kEnglish) text += e;
  }
  const auto terms = mnemo::text::QueryTerms("rollback replica support");
  for (auto _ : state) benchmark::DoNotOptimize(mnemo::text::MakeSnippet(text, terms));
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(text.size()));
}

BENCHMARK(BM_TokenizeEnglish);
BENCHMARK(BM_TokenizeMixed);
BENCHMARK(BM_TokenizeChinese);
BENCHMARK(BM_QueryTerms);
BENCHMARK(BM_FindSecretCleanText);
BENCHMARK(BM_MakeSnippet);

}  // namespace
