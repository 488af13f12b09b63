// mnemo::Memory (mnemo/memory.h): the enabled check, then the entry, search
// and recall services, which validate the request.
#include "core/services.h"
#include "mnemo/memory.h"

namespace mnemo {

Result<StoreResult> Memory::Store(const Principal& who, const StoreRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.Store(who, req);
}
Result<Entry> Memory::Get(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.Get(who, req);
}
Result<bool> Memory::Forget(const Principal& who, const ForgetRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.Forget(who, req);
}
Result<SearchResponse> Memory::Search(const Principal& who, const SearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.search.Search(who, req);
}
Result<RecallResponse> Memory::Recall(const Principal& who, const RecallRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.recall.Recall(who, req);
}
Result<Entry> Memory::MarkUseful(const Principal& who, const GetRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.MarkUseful(who, req);
}
Result<ListPage> Memory::List(const Principal& who, const ListRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.List(who, req);
}
Result<Stats> Memory::GetStats(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.memory.GetStats(who);
}

}  // namespace mnemo
