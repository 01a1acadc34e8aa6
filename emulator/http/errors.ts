/** The error a route handler throws to answer with the service's `{code, message}` body. */

/** An error a handler throws to answer with `{code, message}` (and optional `detail`). */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly detail?: unknown,
  ) {
    super(message);
    this.name = "HttpError";
  }
}

/** The service's 404 body text for any missing id. */
export const NOT_FOUND_MESSAGE = "Not found";
