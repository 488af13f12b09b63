// mnemo::Documents (mnemo/documents.h): the enabled check, then the
// documents service, which validates the request.
#include "core/services.h"
#include "mnemo/documents.h"

namespace mnemo {

Result<DocumentPutResult> Documents::Put(const Principal& who, const DocumentPutRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.documents.Put(who, req);
}
Result<Document> Documents::Get(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.documents.Get(who, id);
}
Result<std::vector<DocumentSearchHit>> Documents::Search(const Principal& who,
                                                         const DocumentSearchRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.documents.Search(who, req);
}
Result<DocumentList> Documents::List(const Principal& who, const DocumentListRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.documents.List(who, req);
}
Result<bool> Documents::Delete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.documents.Delete(who, id);
}

}  // namespace mnemo
