// mnemo::Knowledge (mnemo/knowledge.h): the enabled check, then the
// Archivist service (the profile) or the graph service, which validate the
// request.
#include "core/services.h"
#include "mnemo/knowledge.h"

namespace mnemo {

Result<std::vector<ProfileFacet>> Knowledge::Profile(const Principal& who,
                                                     const ProfileRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.Profile(who, req);
}
Result<ProfileFacet> Knowledge::ProfilePut(const Principal& who, std::string_view facet_type,
                                           std::string_view key, std::string_view value) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.ProfilePut(who, facet_type, key, value);
}
Result<std::string> Knowledge::ProfileRender(const Principal& who) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.ProfileRender(who);
}
Result<GraphUpsertResult> Knowledge::GraphUpsert(const Principal& who,
                                                 const GraphUpsertRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.graph.Upsert(who, req);
}
Result<std::vector<Triple>> Knowledge::GraphQuery(const Principal& who,
                                                  const GraphQueryRequest& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.graph.Query(who, req);
}
Result<ProfileFacet> Knowledge::ProfileCorrect(const Principal& who, const FacetAddress& at,
                                               std::string_view value) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.ProfileCorrect(who, at, value);
}
Status Knowledge::ProfileDelete(const Principal& who, const FacetAddress& at) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.archivist.ProfileDelete(who, at);
}
Result<GraphUpsertResult> Knowledge::GraphCorrect(const Principal& who,
                                                  const GraphCorrection& req) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.graph.Correct(who, req);
}
Status Knowledge::GraphDelete(const Principal& who, std::string_view id) {
  MNEMO_RETURN_IF_ERROR(services_.CheckEnabled());
  return services_.graph.Delete(who, id);
}

}  // namespace mnemo
