/** JSON-RPC error codes mnemo answers with (docs/methods.md). */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  Internal: -32000,
  NotFound: -32001,
  Denied: -32002,
  Disabled: -32003,
  Conflict: -32004,
  Unavailable: -32005,
} as const;

/**
 * An error answer from mnemo: `code` is the JSON-RPC error code (see
 * ErrorCode), `field` the parameter at fault for -32602 (from `data.field`),
 * `data` the error's whole `data` object.
 */
export class MnemoError extends Error {
  readonly code: number;
  readonly field: string | undefined;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "MnemoError";
    this.code = code;
    this.data =
      data !== null && typeof data === "object" ? (data as Record<string, unknown>) : undefined;
    const field = this.data?.["field"];
    this.field = typeof field === "string" ? field : undefined;
  }
}

/**
 * The request did not get an answer: the connection failed or was cut, the
 * timeout passed, or the stdio child exited. `code` is -32005 (unavailable);
 * `cause` holds the underlying error. A write that failed this way may or
 * may not have been applied.
 */
export class MnemoTransportError extends MnemoError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.Unavailable, message, undefined, options);
    this.name = "MnemoTransportError";
  }
}
