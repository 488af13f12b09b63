import {
  MnemoMethods,
  type MethodName,
  type MethodParams,
  type MethodResults,
  type ToolCallResult,
} from "./generated.js";
import {
  HttpTransport,
  StdioTransport,
  type HttpTransportOptions,
  type StdioTransportOptions,
  type Transport,
} from "./transport.js";

/** One LLM tool in OpenAI function-calling form, as memory.tools_schema lists it. */
export interface OpenAiTool {
  type: "function";
  function: {
    name: string;
    description: string;
    parameters: Record<string, unknown>;
  };
}

/**
 * A mnemo client: one typed function per JSON-RPC method (generated from
 * the method table: `store`, `search`, `turnComplete`, ...), `call` for any
 * method by name, and the LLM tools (`tools`, `dispatch`). Errors are
 * MnemoError (MnemoTransportError when no answer came).
 */
export class MnemoClient extends MnemoMethods {
  readonly transport: Transport;

  constructor(transport: Transport) {
    super();
    this.transport = transport;
  }

  /** A client of `mnemo serve` over HTTP (`POST /rpc`). */
  static http(options: HttpTransportOptions | string): MnemoClient {
    return new MnemoClient(
      new HttpTransport(typeof options === "string" ? { url: options } : options),
    );
  }

  /** A client of a spawned `mnemo rpc --stdio` child; close() ends it. */
  static stdio(options: StdioTransportOptions = {}): MnemoClient {
    return new MnemoClient(new StdioTransport(options));
  }

  /** Any method by its JSON-RPC name. */
  call<M extends MethodName>(method: M, params?: MethodParams[M]): Promise<MethodResults[M]>;
  call(method: string, params?: object): Promise<unknown>;
  call(method: string, params?: object): Promise<unknown> {
    return this.transport.request(method, params);
  }

  protected request(method: string, params: object | undefined): Promise<unknown> {
    return this.transport.request(method, params);
  }

  /** The LLM tools (memory.tools_schema), ready for an OpenAI-style `tools` list. */
  async tools(): Promise<OpenAiTool[]> {
    return (await this.toolsSchema()) as unknown as OpenAiTool[];
  }

  /**
   * Runs one tool call of the model (memory.tool_call): `content` is the text
   * to hand back to the model, `is_error` says the tool failed (bad arguments
   * included: the model can retry). `args` may be an object or the JSON
   * text the model produced.
   */
  dispatch(name: string, args: unknown = {}): Promise<ToolCallResult> {
    return this.toolCall({ name, arguments: args });
  }

  close(): Promise<void> {
    return this.transport.close();
  }
}
