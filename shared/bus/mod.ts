export { BUS_VERSION, ServiceName, SubjectGroup, Subjects, ERROR_CODE_HEADER, endpointName } from './subjects.js';
export { busRequest, decodeJson, encodeJson, replyError, DEFAULT_BUS_TIMEOUT_MS } from './client.js';
export { startJsonService, jsonEndpoint } from './service.js';
export type { JsonEndpoint, JsonHandler, JsonServiceOptions, ServiceLogger } from './service.js';
export type {
  ObjectRef, StorageCreateRequest, StorageUpdateRequest, StorageDeleteRequest, StorageGetRequest, StorageWriteReply,
  StorageDeleteReply, StorageGetReply, AuthnRequest, AuthnReply, AuthzAttributes, AuthzReply, AdmissionRequest, AdmissionReply, AdmissionInterest,
} from './messages.js';
export { Decision, AdmissionOperation, AdmissionPhase } from './messages.js';
