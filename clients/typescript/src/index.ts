export { MnemoClient, type OpenAiTool } from "./client.js";
export { ErrorCode, MnemoError, MnemoTransportError } from "./errors.js";
export {
  HttpTransport,
  StdioTransport,
  type HttpTransportOptions,
  type StdioTransportOptions,
  type Transport,
} from "./transport.js";
export * from "./generated.js";
