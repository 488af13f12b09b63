#include "index/hnsw_index.h"

// hnswlib's SSE paths prefetch each neighbour's vector before scoring it:
// the walk is bound by memory latency (at 1M elements the first touch of
// each element, inside the distance function, was half of the graph build's
// time). They also read one link past the end of a full link list to find
// the next address to prefetch: a 4-byte heap over-read that never faults
// (it lands in the element's own record on level 0 and in malloc's chunk
// padding above; ReadPayload pads its lists) but that ASan reports, so
// sanitizer builds compile them out. Their distance functions go unused
// (DotSpace and Int8Space below).
#if defined(__SANITIZE_ADDRESS__)
#define NO_MANUAL_VECTORIZATION
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NO_MANUAL_VECTORIZATION
#endif
#endif
#include <hnswlib/hnswlib.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <exception>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "index/filtered_walk.h"
#include "index/vector_math.h"

namespace mnemo::index {

using Hnsw = hnswlib::HierarchicalNSW<float>;
using hnswlib::tableint;

namespace {

// hnswlib's InnerProductSpace (distance = 1 - dot) with our Dot kernel:
// hnswlib picks its SIMD code at compile time (SSE without -mavx), Dot picks
// AVX2/AVX-512 at load time. Ranking
// is the same; the saved graph does not depend on the space.
class DotSpace final : public hnswlib::SpaceInterface<float> {
 public:
  explicit DotSpace(size_t dims) : dims_(dims) {}
  size_t get_data_size() override { return dims_ * sizeof(float); }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  // hnswlib reads the dimension through this pointer as a size_t.
  void* get_dist_func_param() override { return &dims_; }

 private:
  static float Distance(const void* a, const void* b, const void* dims) {
    return 1.0f - Dot(static_cast<const float*>(a), static_cast<const float*>(b),
                      *static_cast<const size_t*>(dims));
  }
  size_t dims_;
};

// VectorEncoding::kInt8: an element is a float scale then dims int8 codes
// (QuantizeInt8), a quarter of the float bytes; distance = 1 - the dot
// product of the two dequantised vectors. Queries are quantised the same
// way for the walk (hnswlib passes a query and an element to one function);
// results are rescored against the float query (Score).
class Int8Space final : public hnswlib::SpaceInterface<float> {
 public:
  explicit Int8Space(size_t dims) : dims_(dims) {}
  size_t get_data_size() override { return sizeof(float) + dims_; }
  hnswlib::DISTFUNC<float> get_dist_func() override { return &Distance; }
  void* get_dist_func_param() override { return &dims_; }

 private:
  static float Distance(const void* a, const void* b, const void* dims) {
    float sa = 0;
    float sb = 0;
    std::memcpy(&sa, a, sizeof(float));
    std::memcpy(&sb, b, sizeof(float));
    const auto* qa = static_cast<const int8_t*>(a) + sizeof(float);
    const auto* qb = static_cast<const int8_t*>(b) + sizeof(float);
    return 1.0f - sa * sb * static_cast<float>(DotInt8(qa, qb, *static_cast<const size_t*>(dims)));
  }
  size_t dims_;
};

}  // namespace

struct HnswIndex::Graph {
  Graph(size_t dims, VectorEncoding encoding)
      : dims(dims), encoding(encoding), float_space(dims), int8_space(dims) {}
  // hnswlib frees its level-0 block itself: not one that is mapped.
  ~Graph() {
    if (level0.data() != nullptr && hnsw != nullptr) hnsw->data_level0_memory_ = nullptr;
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  hnswlib::SpaceInterface<float>& space() {
    return encoding == VectorEncoding::kInt8
               ? static_cast<hnswlib::SpaceInterface<float>&>(int8_space)
               : float_space;
  }
  size_t data_size() const {
    return encoding == VectorEncoding::kInt8 ? sizeof(float) + dims : dims * sizeof(float);
  }
  const size_t dims;
  const VectorEncoding encoding;
  DotSpace float_space;  // the spaces must outlive hnsw (it points into them)
  Int8Space int8_space;
  // The level-0 block of a loaded file, mapped (ReadPayload) rather than
  // copied: hnsw's data_level0_memory_ points into it until an insert needs
  // room (Reserve moves it into memory of hnswlib's own).
  MappedBlock level0;
  std::unique_ptr<Hnsw> hnsw;
};

namespace {

constexpr size_t kMaxM = 1024;
constexpr int kMaxLevel = 64;  // P(level > 64) at M = 2 is 2^-64

size_t LiveCount(const Hnsw& h) { return h.cur_element_count - h.num_deleted_; }

const float* VectorAt(const Hnsw& h, tableint internal) {
  return reinterpret_cast<const float*>(h.getDataByInternalId(internal));
}

float ScaleAt(const Hnsw& h, tableint internal) {
  float scale = 0;
  std::memcpy(&scale, h.getDataByInternalId(internal), sizeof(float));
  return scale;
}

const int8_t* CodesAt(const Hnsw& h, tableint internal) {
  return reinterpret_cast<const int8_t*>(h.getDataByInternalId(internal)) + sizeof(float);
}

// The bytes hnswlib stores for `v` (what addPoint and searchKnn take): `v`
// itself, or its quantised form written to `buf`.
const void* Encode(const HnswIndex::Graph& g, const float* v, std::vector<char>& buf) {
  if (g.encoding == VectorEncoding::kFloat32) return v;
  buf.resize(g.data_size());
  const float scale =
      QuantizeInt8(v, g.dims, reinterpret_cast<int8_t*>(buf.data() + sizeof(float)));
  std::memcpy(buf.data(), &scale, sizeof(float));
  return buf.data();
}

// The float query `q` against element `internal`: exact for kFloat32; for
// kInt8 the dot product with the dequantised element.
float Score(const HnswIndex::Graph& g, const float* q, tableint internal) {
  const Hnsw& h = *g.hnsw;
  if (g.encoding == VectorEncoding::kFloat32) return Dot(q, VectorAt(h, internal), g.dims);
  return ScaleAt(h, internal) * DotFloatInt8(q, CodesAt(h, internal), g.dims);
}

// Element `internal` as floats: the stored vector, or its dequantised form in `buf`.
std::span<const float> Decode(const HnswIndex::Graph& g, tableint internal,
                              std::vector<float>& buf) {
  const Hnsw& h = *g.hnsw;
  if (g.encoding == VectorEncoding::kFloat32) return {VectorAt(h, internal), g.dims};
  buf.resize(g.dims);
  const float scale = ScaleAt(h, internal);
  const int8_t* codes = CodesAt(h, internal);
  for (size_t i = 0; i < g.dims; ++i) buf[i] = scale * static_cast<float>(codes[i]);
  return buf;
}

Status ValidateParams(size_t dims, const HnswParams& p) {
  if (dims == 0) return InvalidArgument("an index needs at least 1 dimension");
  if (p.m < 2 || p.m > kMaxM) {
    return InvalidArgument("index.m is " + std::to_string(p.m) + ": use 2 to 1024", "index.m");
  }
  if (p.ef_construction == 0) {
    return InvalidArgument("index.ef_construction must be at least 1", "index.ef_construction");
  }
  if (p.ef_search == 0)
    return InvalidArgument("index.ef_search must be at least 1", "index.ef_search");
  return Status::Ok();
}

// hnswlib reports failures (out of memory, a full graph) by throwing.
template <typename Fn>
Status Guard(const char* what, Fn&& fn) {
  try {
    fn();
    return Status::Ok();
  } catch (const std::exception& e) {
    return Internal(std::string("hnsw ") + what + " failed: " + e.what());
  }
}

// Makes room for `extra` more elements, doubling so that n inserts cost
// O(n) in copies. A mapped level-0 block has no room past its elements and
// cannot be reallocated: it is copied into a block of hnswlib's own first
// (at 1M elements ~0.5 GB, once, on the first new vector after a load).
Status Reserve(HnswIndex::Graph& g, size_t extra) {
  if (extra == 0) return Status::Ok();
  Hnsw& h = *g.hnsw;
  const size_t need = h.cur_element_count + extra;
  const size_t grown = need <= h.max_elements_
                           ? h.max_elements_
                           : std::max({need, 2 * h.max_elements_, size_t{1024}});
  if (g.level0.data() != nullptr) {
    auto* own = static_cast<char*>(std::malloc(grown * h.size_data_per_element_));
    if (own == nullptr) return Internal("out of memory growing the vector index");
    std::memcpy(own, h.data_level0_memory_, h.cur_element_count * h.size_data_per_element_);
    h.data_level0_memory_ = own;
    g.level0 = MappedBlock();
  }
  if (grown == h.max_elements_) return Status::Ok();
  return Guard("resize", [&] { h.resizeIndex(grown); });
}

std::unique_ptr<Hnsw> NewGraph(HnswIndex::Graph& g, const HnswParams& p, size_t capacity) {
  auto h = std::make_unique<Hnsw>(&g.space(), std::max<size_t>(capacity, 16), p.m,
                                  p.ef_construction, p.seed);
  h->setEf(p.ef_search);  // once, before any search (see the header)
  return h;
}

}  // namespace

HnswIndex::HnswIndex(size_t dims, const HnswParams& params, std::unique_ptr<Graph> graph)
    : dims_(dims), params_(params), graph_(std::move(graph)) {}

HnswIndex::~HnswIndex() = default;

Result<std::unique_ptr<HnswIndex>> HnswIndex::Make(size_t dims, const HnswParams& params,
                                                   size_t capacity) {
  MNEMO_RETURN_IF_ERROR(ValidateParams(dims, params));
  auto graph = std::make_unique<Graph>(dims, params.encoding);
  Status st = Guard("allocation", [&] { graph->hnsw = NewGraph(*graph, params, capacity); });
  MNEMO_RETURN_IF_ERROR(st);
  return std::unique_ptr<HnswIndex>(new HnswIndex(dims, params, std::move(graph)));
}

size_t HnswIndex::size() const {
  std::shared_lock lock(mu_);
  return LiveCount(*graph_->hnsw);
}

bool HnswIndex::maps_file() const {
  std::shared_lock lock(mu_);
  return graph_->level0.data() != nullptr;
}

size_t HnswIndex::deleted_count() const {
  std::shared_lock lock(mu_);
  return graph_->hnsw->num_deleted_;
}

bool HnswIndex::Contains(uint64_t id) const {
  std::shared_lock lock(mu_);
  const Hnsw& h = *graph_->hnsw;
  auto it = h.label_lookup_.find(id);
  return it != h.label_lookup_.end() && !h.isMarkedDeleted(it->second);
}

Status HnswIndex::Upsert(uint64_t id, std::span<const float> v) {
  MNEMO_RETURN_IF_ERROR(CheckVector(v, dims_, "vector"));
  std::unique_lock lock(mu_);
  Hnsw& h = *graph_->hnsw;
  MNEMO_RETURN_IF_ERROR(Reserve(*graph_, h.label_lookup_.contains(id) ? 0 : 1));
  std::vector<char> buf;
  const void* data = Encode(*graph_, v.data(), buf);
  // 0.6.2's addPoint updates an existing label in place (and revives it when
  // it was marked deleted).
  return Guard("insert", [&] { h.addPoint(data, id); });
}

Status HnswIndex::UpsertBatch(std::span<const uint64_t> ids, std::span<const float> vectors) {
  if (vectors.size() != ids.size() * dims_) {
    return InvalidArgument("a batch of " + std::to_string(ids.size()) + " ids needs " +
                           std::to_string(ids.size() * dims_) + " floats, got " +
                           std::to_string(vectors.size()));
  }
  for (size_t i = 0; i < ids.size(); ++i) {
    MNEMO_RETURN_IF_ERROR(CheckVector(vectors.subspan(i * dims_, dims_), dims_, "vector"));
  }
  std::unique_lock lock(mu_);
  Hnsw& h = *graph_->hnsw;
  // The last occurrence of an id wins; present ids are updated serially
  // (updatePoint draws from a shared generator), new ones may go in parallel.
  std::unordered_map<uint64_t, size_t> last;
  last.reserve(ids.size());
  for (size_t i = 0; i < ids.size(); ++i) last[ids[i]] = i;
  std::vector<size_t> fresh;
  std::vector<char> buf;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (last[ids[i]] != i) continue;
    if (h.label_lookup_.contains(ids[i])) {
      const void* data = Encode(*graph_, &vectors[i * dims_], buf);
      MNEMO_RETURN_IF_ERROR(Guard("update", [&] { h.addPoint(data, ids[i]); }));
    } else {
      fresh.push_back(i);
    }
  }
  MNEMO_RETURN_IF_ERROR(Reserve(*graph_, fresh.size()));
  const size_t threads = std::clamp<size_t>(params_.build_threads, 1, 64);
  std::atomic<size_t> next{0};
  std::mutex error_mu;
  Status error;
  auto work = [&] {
    std::vector<char> local;
    for (size_t j = next++; j < fresh.size(); j = next++) {
      const size_t i = fresh[j];
      const void* data = Encode(*graph_, &vectors[i * dims_], local);
      Status st = Guard("insert", [&] { h.addPoint(data, ids[i]); });
      if (!st.ok()) {
        std::lock_guard guard(error_mu);
        if (error.ok()) error = st;
        next = fresh.size();
      }
    }
  };
  // Parallel only where it pays: small batches keep the serial, seeded order.
  if (threads == 1 || fresh.size() < 4096) {
    work();
  } else {
    std::vector<std::jthread> pool;
    for (size_t t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  return error;
}

Status HnswIndex::Remove(uint64_t id) {
  std::unique_lock lock(mu_);
  Hnsw& h = *graph_->hnsw;
  auto it = h.label_lookup_.find(id);
  if (it == h.label_lookup_.end() || h.isMarkedDeleted(it->second)) return Status::Ok();
  return Guard("remove", [&] { h.markDeletedInternal(it->second); });
}

void HnswIndex::ForEach(const std::function<void(uint64_t, std::span<const float>)>& fn) const {
  std::shared_lock lock(mu_);
  const Hnsw& h = *graph_->hnsw;
  std::vector<float> buf;
  for (tableint i = 0; i < h.cur_element_count; ++i) {
    if (h.isMarkedDeleted(i)) continue;
    fn(h.getExternalLabel(i), Decode(*graph_, i, buf));
  }
}

namespace {

// Exact scan of every live element not in `skip`.
std::vector<Neighbor> ScoreAll(const HnswIndex::Graph& g, const float* q,
                               const std::unordered_set<uint64_t>* skip) {
  const Hnsw& h = *g.hnsw;
  std::vector<Neighbor> scored;
  scored.reserve(LiveCount(h));
  for (tableint i = 0; i < h.cur_element_count; ++i) {
    if (h.isMarkedDeleted(i)) continue;
    const uint64_t id = h.getExternalLabel(i);
    if (skip != nullptr && skip->contains(id)) continue;
    scored.push_back({id, Score(g, q, i)});
  }
  return scored;
}

// The live members of `subset`, once each, with their exact scores.
std::vector<Neighbor> ScoreSubset(const HnswIndex::Graph& g, const float* q,
                                  const std::vector<uint64_t>& subset) {
  const Hnsw& h = *g.hnsw;
  std::vector<Neighbor> scored;
  std::unordered_set<uint64_t> seen;
  for (uint64_t id : subset) {
    auto it = h.label_lookup_.find(id);
    if (it == h.label_lookup_.end() || h.isMarkedDeleted(it->second)) continue;
    if (!seen.insert(id).second) continue;
    scored.push_back({id, Score(g, q, it->second)});
  }
  return scored;
}

// hnswlib's searchKnn, answering with internal ids, best last: Score needs
// them, and searchKnn's labels had to be looked up again in label_lookup_ (a
// hash lookup, often a cache miss, per result: 7 % of a serving node's CPU
// with the over-fetch's 160 results). It also skips searchKnn's metric
// counters, atomics that every search thread wrote.
std::vector<tableint> NearestIds(const Hnsw& h, const void* query, size_t n) {
  if (h.cur_element_count == 0) return {};
  tableint at = h.enterpoint_node_;
  float at_dist = h.fstdistfunc_(query, h.getDataByInternalId(at), h.dist_func_param_);
  for (int level = h.maxlevel_; level > 0; --level) {
    for (bool moved = true; moved;) {
      moved = false;
      unsigned int* links = h.get_linklist(at, level);
      const auto* next = reinterpret_cast<const tableint*>(links + 1);
      for (size_t i = 0, size = h.getListCount(links); i < size; ++i) {
        const float d = h.fstdistfunc_(query, h.getDataByInternalId(next[i]), h.dist_func_param_);
        if (d < at_dist) at_dist = d, at = next[i], moved = true;
      }
    }
  }
  const size_t ef = std::max(h.ef_, n);
  auto top = h.num_deleted_ > 0 ? h.searchBaseLayerST<true>(at, query, ef)
                                : h.searchBaseLayerST<false>(at, query, ef);
  while (top.size() > n) top.pop();
  std::vector<tableint> out;
  out.reserve(top.size());
  for (; !top.empty(); top.pop()) out.push_back(top.top().second);
  return out;
}

// The graph's `n` nearest live elements, rescored with Score (so both index
// kinds give a float pair the same score), in NeighborBefore order.
Result<std::vector<Neighbor>> GraphKnn(const HnswIndex::Graph& g, const float* q, size_t n) {
  const Hnsw& h = *g.hnsw;
  std::vector<char> buf;
  const void* query = Encode(g, q, buf);
  std::vector<tableint> found;
  MNEMO_RETURN_IF_ERROR(Guard("search", [&] { found = NearestIds(h, query, n); }));
  std::vector<Neighbor> out;
  out.reserve(found.size());
  for (tableint i : found) out.push_back({h.getExternalLabel(i), Score(g, q, i)});
  return TopKAccepted(out, out.size(), {});
}

}  // namespace

Result<std::vector<Neighbor>> HnswIndex::SearchExact(std::span<const float> q, size_t k,
                                                     const SearchFilter& filter) const {
  MNEMO_RETURN_IF_ERROR(CheckVector(q, dims_, "query"));
  std::shared_lock lock(mu_);
  std::vector<Neighbor> scored = filter.subset ? ScoreSubset(*graph_, q.data(), *filter.subset)
                                               : ScoreAll(*graph_, q.data(), nullptr);
  return TopKAccepted(scored, k, filter.accept);
}

Result<std::vector<Neighbor>> HnswIndex::Search(std::span<const float> q, size_t k,
                                                const SearchFilter& filter) const {
  MNEMO_RETURN_IF_ERROR(CheckVector(q, dims_, "query"));
  std::shared_lock lock(mu_);
  const Hnsw& h = *graph_->hnsw;
  const size_t live = LiveCount(h);
  if (k == 0 || live == 0) return std::vector<Neighbor>{};

  AcceptFn accept = filter.accept;
  std::unordered_set<uint64_t> members;
  if (filter.subset) {
    std::vector<Neighbor> scored = ScoreSubset(*graph_, q.data(), *filter.subset);
    if (SubsetIsCheap(scored.size(), live, k, params_)) return TopKAccepted(scored, k, accept);
    members.reserve(scored.size());
    for (const Neighbor& n : scored) members.insert(n.id);
    accept = [&members, &filter](std::span<const uint64_t> ids, std::vector<char>* ok) {
      for (size_t i = 0; i < ids.size(); ++i) (*ok)[i] = members.contains(ids[i]);
      if (filter.accept) {
        std::vector<uint64_t> in;
        std::vector<size_t> at;
        for (size_t i = 0; i < ids.size(); ++i) {
          if ((*ok)[i]) in.push_back(ids[i]), at.push_back(i);
        }
        std::vector<char> passed(in.size(), 0);
        if (!in.empty()) filter.accept(in, &passed);
        for (size_t j = 0; j < in.size(); ++j) (*ok)[at[j]] = passed[j];
      }
    };
  }

  if (!accept) {
    MNEMO_ASSIGN_OR_RETURN(std::vector<Neighbor> found, GraphKnn(*graph_, q.data(), k));
    if (found.size() >= std::min(k, live)) return found;
    // Part of the graph is unreachable from the entry point (it happens after
    // many updates and deletions): fall back to the exact answer.
    std::vector<Neighbor> scored = ScoreAll(*graph_, q.data(), nullptr);
    return TopKAccepted(scored, k, {});
  }

  return WalkUntilAccepted(
      {.k = k, .first_want = std::max(4 * k, params_.ef_search), .live = live}, accept,
      [&](size_t want) { return GraphKnn(*graph_, q.data(), want); },
      [&](const std::unordered_set<uint64_t>& checked) {
        return ScoreAll(*graph_, q.data(), &checked);
      });
}

Status HnswIndex::Compact() {
  std::unique_lock lock(mu_);
  const Hnsw& old = *graph_->hnsw;
  auto graph = std::make_unique<Graph>(dims_, graph_->encoding);
  Status st = Guard("compaction", [&] {
    graph->hnsw = NewGraph(*graph, params_, LiveCount(old));
    for (tableint i = 0; i < old.cur_element_count; ++i) {
      // The stored bytes as they are: the same encoding on both sides.
      if (!old.isMarkedDeleted(i)) {
        graph->hnsw->addPoint(old.getDataByInternalId(i), old.getExternalLabel(i));
      }
    }
  });
  MNEMO_RETURN_IF_ERROR(st);
  graph_ = std::move(graph);
  return Status::Ok();
}

Status HnswIndex::WritePayload(PayloadWriter& out, uint64_t* live_count) const {
  std::shared_lock lock(mu_);
  const Hnsw& h = *graph_->hnsw;
  *live_count = LiveCount(h);
  out.WritePod(static_cast<uint32_t>(graph_->encoding));
  // Field for field what hnswlib::HierarchicalNSW::saveIndex writes.
  out.WritePod(h.offsetLevel0_);
  out.WritePod(h.max_elements_);
  out.WritePod(h.cur_element_count);
  out.WritePod(h.size_data_per_element_);
  out.WritePod(h.label_offset_);
  out.WritePod(h.offsetData_);
  out.WritePod(h.maxlevel_);
  out.WritePod(h.enterpoint_node_);
  out.WritePod(h.maxM_);
  out.WritePod(h.maxM0_);
  out.WritePod(h.M_);
  out.WritePod(h.mult_);
  out.WritePod(h.ef_construction_);
  // Zeros up to the next multiple of kLevel0Alignment in the file, so that
  // a reader can map the level-0 block (ReadPayload).
  const uint64_t after_pad_field = out.position() + sizeof(uint32_t);
  const auto pad = static_cast<uint32_t>((kLevel0Alignment - after_pad_field % kLevel0Alignment) %
                                         kLevel0Alignment);
  out.WritePod(pad);
  const std::vector<char> zeros(pad, 0);
  out.Write(zeros.data(), zeros.size());
  out.Write(h.data_level0_memory_, h.cur_element_count * h.size_data_per_element_);
  for (size_t i = 0; i < h.cur_element_count; ++i) {
    const unsigned int size =
        h.element_levels_[i] > 0 ? h.size_links_per_element_ * h.element_levels_[i] : 0;
    out.WritePod(size);
    if (size) out.Write(h.linkLists_[i], size);
  }
  return Status::Ok();
}

namespace {

struct SavedFields {
  size_t offset_level0, max_elements, count, size_per_element, label_offset, offset_data;
  int max_level;
  tableint entry_point;
  size_t max_m, max_m0, m;
  double mult;
  size_t ef_construction;
};

Status ReadFields(PayloadReader& in, SavedFields* f) {
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->offset_level0));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->max_elements));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->count));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->size_per_element));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->label_offset));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->offset_data));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->max_level));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->entry_point));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->max_m));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->max_m0));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->m));
  MNEMO_RETURN_IF_ERROR(in.ReadPod(&f->mult));
  return in.ReadPod(&f->ef_construction);
}

// Every link of every element points at an element that exists on that
// level, and the entry point sits on the top level: what searchKnn and
// addPoint assume without checking.
Status CheckGraph(const HnswIndex::Graph& g) {
  const Hnsw& h = *g.hnsw;
  const size_t n = h.cur_element_count;
  int top = -1;
  for (tableint i = 0; i < n; ++i) {
    top = std::max(top, h.element_levels_[i]);
    for (int level = 0; level <= h.element_levels_[i]; ++level) {
      hnswlib::linklistsizeint* ll = h.get_linklist_at_level(i, level);
      const size_t links = h.getListCount(ll);
      if (links > (level == 0 ? h.maxM0_ : h.maxM_)) {
        return Corrupt("element " + std::to_string(i) + " has too many links");
      }
      const auto* to = reinterpret_cast<const tableint*>(ll + 1);
      for (size_t j = 0; j < links; ++j) {
        if (to[j] >= n || h.element_levels_[to[j]] < level) {
          return Corrupt("element " + std::to_string(i) + " links to a missing element");
        }
      }
    }
    const bool finite = g.encoding == VectorEncoding::kFloat32
                            ? AllFinite(VectorAt(h, i), g.dims)
                            : std::isfinite(ScaleAt(h, i)) && ScaleAt(h, i) >= 0;
    if (!finite) {
      return Corrupt("a stored vector has a non-finite component");
    }
  }
  if (top != h.maxlevel_) return Corrupt("the graph's top level is wrong");
  if (n > 0 && (h.enterpoint_node_ >= n || h.element_levels_[h.enterpoint_node_] != top)) {
    return Corrupt("the graph's entry point is wrong");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<HnswIndex>> HnswIndex::ReadPayload(PayloadReader& in, size_t dims,
                                                          uint64_t expected_count,
                                                          const HnswParams& params,
                                                          uint32_t format_version) {
  VectorEncoding encoding = VectorEncoding::kFloat32;
  if (format_version >= 3) {
    uint32_t saved = 0;
    MNEMO_RETURN_IF_ERROR(in.ReadPod(&saved));
    if (saved != static_cast<uint32_t>(VectorEncoding::kFloat32) &&
        saved != static_cast<uint32_t>(VectorEncoding::kInt8)) {
      return Corrupt("unknown vector encoding " + std::to_string(saved));
    }
    encoding = static_cast<VectorEncoding>(saved);
  }
  SavedFields f{};
  MNEMO_RETURN_IF_ERROR(ReadFields(in, &f));
  if (format_version >= 4) {
    uint32_t pad = 0;
    MNEMO_RETURN_IF_ERROR(in.ReadPod(&pad));
    if (pad >= kLevel0Alignment || (in.position() + pad) % kLevel0Alignment != 0) {
      return Corrupt("the graph's padding is wrong");
    }
    std::vector<char> zeros(pad);
    MNEMO_RETURN_IF_ERROR(in.Read(zeros.data(), zeros.size()));
  }
  if (f.m < 2 || f.m > kMaxM || f.max_m != f.m || f.max_m0 != 2 * f.m) {
    return Corrupt("the graph's M fields are invalid");
  }
  if (f.ef_construction < f.m || f.ef_construction > (size_t{1} << 20)) {
    return Corrupt("the graph's ef_construction is invalid");
  }
  if (f.max_level < -1 || f.max_level > kMaxLevel) return Corrupt("the graph's level is invalid");
  HnswParams p = params;
  p.m = f.m;
  p.ef_construction = f.ef_construction;
  p.encoding = encoding;
  MNEMO_RETURN_IF_ERROR(ValidateParams(dims, p));
  auto graph = std::make_unique<Graph>(dims, encoding);

  // What a graph of this M and dimension must look like; the saved layout
  // fields must agree before any size taken from the file is trusted.
  const size_t links0 = f.max_m0 * sizeof(tableint) + sizeof(hnswlib::linklistsizeint);
  const size_t per_element = links0 + graph->data_size() + sizeof(hnswlib::labeltype);
  if (f.offset_level0 != 0 || f.size_per_element != per_element || f.offset_data != links0 ||
      f.label_offset != links0 + graph->data_size()) {
    return Corrupt("the graph's layout does not match " + std::to_string(dims) + " dimensions");
  }
  if (f.count > in.remaining() / per_element || f.count >= (size_t{1} << 32) - 1) {
    return Corrupt("truncated: fewer graph elements than counted");
  }
  if (f.count < expected_count)
    return Corrupt("the graph holds fewer vectors than the header says");

  MNEMO_RETURN_IF_ERROR(Guard("allocation", [&] { graph->hnsw = NewGraph(*graph, p, f.count); }));
  Hnsw& h = *graph->hnsw;
  if (!(std::abs(h.mult_ - f.mult) <= 1e-9 * h.mult_))
    return Corrupt("the graph's mult is invalid");
  h.mult_ = f.mult;
  // Mapped where the file allows it: no copy, no fresh pages to zero, and
  // the pages come from the page cache as they are (at 1M elements the
  // copy was most of the open). Read otherwise (format 2 and 3 files).
  MNEMO_ASSIGN_OR_RETURN(MappedBlock level0, in.Map(f.count * per_element));
  if (level0.data() != nullptr) {
    std::free(h.data_level0_memory_);
    h.data_level0_memory_ = level0.data();
    graph->level0 = std::move(level0);
  } else {
    MNEMO_RETURN_IF_ERROR(in.Read(h.data_level0_memory_, f.count * per_element));
  }
  h.label_lookup_.reserve(f.count);
  // cur_element_count grows with each element read so that the destructor
  // frees exactly the link lists allocated so far if reading fails.
  for (size_t i = 0; i < f.count; ++i) {
    unsigned int size = 0;
    MNEMO_RETURN_IF_ERROR(in.ReadPod(&size));
    if (size % h.size_links_per_element_ != 0 ||
        size / h.size_links_per_element_ > static_cast<size_t>(std::max(f.max_level, 0)) ||
        size > in.remaining()) {
      return Corrupt("element " + std::to_string(i) + " has an invalid link list size");
    }
    h.cur_element_count = i + 1;
    if (size == 0) {
      h.linkLists_[i] = nullptr;
      continue;
    }
    // Padded by one link for the prefetch's read past a full list (above).
    h.linkLists_[i] = static_cast<char*>(std::malloc(size + sizeof(tableint)));
    if (h.linkLists_[i] == nullptr) return Internal("out of memory loading the index");
    h.element_levels_[i] = static_cast<int>(size / h.size_links_per_element_);
    MNEMO_RETURN_IF_ERROR(in.Read(h.linkLists_[i], size));
  }
  if (in.remaining() != 0) return Corrupt("the payload is longer than its contents");
  h.cur_element_count = f.count;
  h.maxlevel_ = f.max_level;
  h.enterpoint_node_ = f.entry_point;
  // The label map (0.08 s at 1M elements) is built beside the graph check
  // (0.1 s): both only read the loaded block.
  Status labels;
  // An exception must not leave the helper thread (it would end the process).
  auto map_labels = [&]() noexcept {
    Status duplicate;
    Status st = Guard("label map", [&] {
      h.num_deleted_ = 0;
      for (tableint i = 0; i < f.count; ++i) {
        if (!h.label_lookup_.emplace(h.getExternalLabel(i), i).second) {
          duplicate = Corrupt("id " + std::to_string(h.getExternalLabel(i)) + " is stored twice");
          return;
        }
        if (h.isMarkedDeleted(i)) ++h.num_deleted_;
      }
    });
    labels = st.ok() ? duplicate : st;
  };
  std::thread helper;
  try {
    helper = std::thread(map_labels);
  } catch (const std::system_error&) {
    map_labels();  // no thread to be had: one after the other
  }
  const Status checked = CheckGraph(*graph);
  if (helper.joinable()) helper.join();
  MNEMO_RETURN_IF_ERROR(checked);
  MNEMO_RETURN_IF_ERROR(labels);
  if (LiveCount(h) != expected_count) {
    return Corrupt("the graph holds " + std::to_string(LiveCount(h)) +
                   " live vectors, the header says " + std::to_string(expected_count));
  }
  return std::unique_ptr<HnswIndex>(new HnswIndex(dims, p, std::move(graph)));
}

}  // namespace mnemo::index
