/**
 * URL and path functions (apl/scalar-functions/string-functions: parse_url, parse_urlquery, format_url,
 * url_encode, url_decode, parse_path). parse_url answers the components the page lists: scheme, host, port, path,
 * username, password, query (a bag of parameters) and fragment.
 */
import { asBag, asString, fn, type FunctionTable, isNull, unary } from "./common";
import { aplToString } from "./text";

/** A UTF-16 surrogate without its partner, which has no UTF-8 encoding: encoded as U+FFFD, as Go does. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** `+` and %-escapes decoded; a malformed escape left as written rather than failing the row. */
function decodeComponent(s: string): string {
  const text = s.replace(/\+/g, " ");
  try {
    return decodeURIComponent(text);
  } catch {
    return text.replace(/%([0-9a-fA-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
  }
}

/** A query string (with or without the leading `?`) as a bag; a repeated name keeps its last value. */
export function parseQuery(query: string): Record<string, string> {
  const bag: Record<string, string> = {};
  const q = query.startsWith("?") ? query.slice(1) : query;
  for (const part of q.split("&")) {
    if (part === "") continue;
    const at = part.indexOf("=");
    const name = decodeComponent(at < 0 ? part : part.slice(0, at));
    bag[name] = at < 0 ? "" : decodeComponent(part.slice(at + 1));
  }
  return bag;
}

const URL_SHAPE =
  /^([A-Za-z][A-Za-z0-9+.-]*):\/\/(?:([^:@/?#]*)(?::([^@/?#]*))?@)?(\[[^\]]*\]|[^:/?#]*)(?::(\d*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/;

function parseUrl(text: string): Record<string, unknown> | null {
  const m = URL_SHAPE.exec(text.trim());
  if (!m) return null;
  const [, scheme, username = "", password = "", host, port = "", path = "", query, fragment = ""] = m;
  return {
    scheme,
    host,
    port,
    path,
    username: decodeComponent(username),
    password: decodeComponent(password),
    query: query === undefined ? {} : parseQuery(query),
    fragment,
  };
}

function formatUrl(parts: Record<string, unknown>): string {
  const text = (k: string) => (isNull(parts[k]) ? "" : aplToString(parts[k]));
  const scheme = text("scheme");
  const host = text("host");
  let out = "";
  if (scheme !== "") out += `${scheme}://`;
  const user = text("user") || text("username");
  const password = text("password");
  if (user !== "")
    out += `${encodeURIComponent(user)}${password !== "" ? `:${encodeURIComponent(password)}` : ""}@`;
  out += host;
  const port = text("port");
  if (port !== "") out += `:${port}`;
  const path = text("path");
  if (path !== "") out += path.startsWith("/") || out === "" ? path : `/${path}`;
  const query = parts.query;
  if (!isNull(query)) {
    const bag = asBag(query);
    const q = bag
      ? Object.entries(bag)
          .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(aplToString(v))}`)
          .join("&")
      : aplToString(query).replace(/^\?/, "");
    if (q !== "") out += `?${q}`;
  }
  const fragment = text("fragment");
  if (fragment !== "") out += `#${fragment}`;
  return out;
}

/**
 * parse_path's fields (apl/scalar-functions/string-functions/parse-path): the page's example splits
 * "/api/v1/messages/users" into DirectoryPath "/api/v1/messages", DirectoryName "messages", Filename "users".
 * Windows paths (`C:\dir\file.txt`, `\\server\share\...`) and NTFS alternate data streams (`file.txt:stream`)
 * are read too.
 */
function parsePath(source: string): Record<string, string> {
  let rest = source;
  let scheme = "";
  const schemeMatch = /^([A-Za-z][A-Za-z0-9+.-]*):\/\//.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1];
    rest = rest.slice(schemeMatch[0].length);
  }
  let rootPath = "";
  const drive = /^([A-Za-z]:)[\\/]/.exec(rest);
  const unc = /^(\\\\[^\\]+\\[^\\]+)/.exec(rest);
  if (drive) rootPath = drive[1];
  else if (unc) rootPath = unc[1];
  else if (scheme !== "") rootPath = rest.split("/")[0];
  const separator = rest.includes("\\") && !rest.includes("/") ? "\\" : "/";
  const cut = rest.lastIndexOf(separator);
  const directoryPath = cut < 0 ? "" : rest.slice(0, cut);
  let filename = cut < 0 ? rest : rest.slice(cut + 1);
  let stream = "";
  const colon = filename.indexOf(":");
  if (colon >= 0) {
    stream = filename.slice(colon + 1);
    filename = filename.slice(0, colon);
  }
  const dirParts = directoryPath.split(separator).filter((p) => p !== "");
  const dot = filename.lastIndexOf(".");
  return {
    Scheme: scheme,
    RootPath: rootPath,
    DirectoryPath: directoryPath,
    DirectoryName: dirParts.length > 0 ? dirParts[dirParts.length - 1] : "",
    Filename: filename,
    Extension: dot > 0 ? filename.slice(dot + 1) : "",
    // The page's Returns list says AlternateDataStreamName; its example output, the service's own, says this.
    AlternateDataStream: stream,
  };
}

/** The URL family. */
export const URL_FUNCTIONS: FunctionTable = {
  parse_url: unary((v) => parseUrl(asString(v)!)),
  parse_urlquery: unary((v) => parseQuery(asString(v)!)),
  format_url: fn(1, 1, ([v]) => {
    const parts = asBag(v);
    return parts === null ? null : formatUrl(parts);
  }),
  // The page's example: "hello world & special chars" becomes "hello%20world%20%26%20special%20chars".
  url_encode: unary((v) => encodeURIComponent(asString(v)!.replace(LONE_SURROGATE, "\uFFFD"))),
  url_decode: unary((v) => decodeComponent(asString(v)!)),
  parse_path: unary((v) => parsePath(asString(v)!)),
};
