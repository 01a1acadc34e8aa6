/** The emulator's small HTTP toolkit, one concern a file; importers use this folder as one module. */
export { readBody } from "./body";
export { mediaType, mediaTypeOf } from "./content-type";
export { HttpError, NOT_FOUND_MESSAGE } from "./errors";
export { jsonBody, jsonObjectBody, parseJson, validateOr400 } from "./json-body";
export { parseQuery, queryParam } from "./query";
export { sendError, sendJson, sendNoContent } from "./responses";
export { Router, type Handler, type RequestContext, type RouteMatch } from "./router";
