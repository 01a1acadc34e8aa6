/** The emulator's small HTTP toolkit, one concern a file; importers use this folder as one module. */
export { readBody } from "./body";
export { mediaType, mediaTypeOf } from "./content-type";
export { HttpError, NOT_FOUND_MESSAGE } from "./errors";
export { parseExactJson, stringifyExactJson } from "./exact-json";
export {
  INVALID_FIELD_STATUS,
  jsonBody,
  jsonObjectBody,
  parseJson,
  validateBody,
  validateQuery,
} from "./json-body";
export { parseQuery, queryParam } from "./query";
export { errorReply, json, noContent, writeReply, type Reply } from "./reply";
export { Router, type Handler, type RequestContext, type RouteMatch } from "./router";
