/**
 * GenAI conversation functions (apl/scalar-functions/genai-functions) over an array of messages, each with a
 * `role` and its content: a `content` string (OpenAI's chat shape) or OpenTelemetry's `parts`, a list of
 * `{type: "text", content}` (and `tool_call` / `tool_call_response`) parts. The pricing functions need the
 * service's price table and are refused (see ./index.ts).
 */
import { asArray, asInteger, asString, fn, type FunctionTable, isBag, isNull } from "./common";
import { aplToString } from "./text";

/** A message's role ("" when it has none). */
function roleOf(m: unknown): string {
  return isBag(m) && typeof m.role === "string" ? m.role : "";
}

/** A message's text: its `content` string, or its text parts joined by spaces. */
function contentOf(m: unknown): string {
  if (!isBag(m)) return "";
  if (typeof m.content === "string") return m.content;
  const parts = Array.isArray(m.parts) ? m.parts : Array.isArray(m.content) ? m.content : null;
  if (parts === null) return isNull(m.content) ? "" : aplToString(m.content);
  return parts
    .filter((p) => isBag(p) && (p.type === undefined || p.type === "text"))
    .map((p) => {
      const b = p as Record<string, unknown>;
      return typeof b.content === "string" ? b.content : typeof b.text === "string" ? b.text : "";
    })
    .join(" ");
}

/** The tool calls of a message: OpenAI's `tool_calls` list, or OpenTelemetry's `tool_call` parts. */
function toolCallsOf(m: unknown): unknown[] {
  if (!isBag(m)) return [];
  const calls: unknown[] = [];
  if (Array.isArray(m.tool_calls)) calls.push(...m.tool_calls);
  if (isBag(m.function_call)) calls.push(m.function_call);
  if (Array.isArray(m.parts)) calls.push(...m.parts.filter((p) => isBag(p) && p.type === "tool_call"));
  return calls;
}

/** The function results of a message: a `tool`/`function` message, or `tool_call_response` parts. */
function resultsOf(m: unknown): unknown[] {
  if (!isBag(m)) return [];
  const results: unknown[] = [];
  if (roleOf(m) === "tool" || roleOf(m) === "function") {
    results.push({
      ...(typeof m.tool_call_id === "string" ? { tool_call_id: m.tool_call_id } : {}),
      content: contentOf(m),
    });
  }
  if (Array.isArray(m.parts))
    results.push(...m.parts.filter((p) => isBag(p) && p.type === "tool_call_response"));
  return results;
}

/** A messages function: null when the argument is not an array. */
function onMessages(f: (messages: unknown[], rest: unknown[]) => unknown, minArgs = 1, maxArgs = 1) {
  return fn(minArgs, maxArgs, ([v, ...rest]) => {
    const messages = asArray(v);
    return messages === null ? null : f(messages, rest);
  });
}

/** The last message's content with `role`, or "". */
function lastContent(messages: unknown[], role: string): string {
  for (let i = messages.length - 1; i >= 0; i--)
    if (roleOf(messages[i]) === role) return contentOf(messages[i]);
  return "";
}

/** The GenAI family (without the pricing functions). */
export const GENAI_FUNCTIONS: FunctionTable = {
  // Every message counts, an empty one too: the page's example output ends in the separator ("... blue. /"),
  // which is what a last message without text (a tool call) gives.
  genai_concat_contents: onMessages(
    (messages, [separator]) =>
      messages.map(contentOf).join(separator === undefined ? " " : (asString(separator) ?? " ")),
    1,
    2,
  ),
  // A turn is a user message answered by an assistant message (the page: "a user-assistant exchange pair").
  genai_conversation_turns: onMessages((messages) => {
    let turns = 0;
    let awaiting = false;
    for (const m of messages) {
      const role = roleOf(m);
      if (role === "user") awaiting = true;
      else if (role === "assistant" && awaiting) {
        turns++;
        awaiting = false;
      }
    }
    return turns;
  }),
  // A rough count, about four characters a token (the common rule of thumb for English text with GPT-style
  // tokenizers); the page does not say how the service estimates.
  genai_estimate_tokens: fn(1, 1, ([v]) => {
    const text = asString(v);
    return text === null ? null : Math.ceil(text.length / 4);
  }),
  genai_extract_assistant_response: onMessages((messages) => lastContent(messages, "assistant")),
  genai_extract_user_prompt: onMessages((messages) => lastContent(messages, "user")),
  genai_extract_system_prompt: onMessages((messages) => {
    const system = messages.find((m) => roleOf(m) === "system");
    return system === undefined ? "" : contentOf(system);
  }),
  genai_extract_tool_calls: onMessages((messages) => {
    const calls = messages.flatMap(toolCallsOf);
    return calls.length === 0 ? null : calls;
  }),
  genai_extract_function_results: onMessages((messages) => {
    const results = messages.flatMap(resultsOf);
    return results.length === 0 ? null : results;
  }),
  genai_has_tool_calls: onMessages((messages) => messages.some((m) => toolCallsOf(m).length > 0)),
  genai_get_content_by_index: onMessages(
    (messages, [index]) => {
      const i = asInteger(index);
      return i === null || i < 0 || i >= messages.length ? "" : contentOf(messages[i]);
    },
    2,
    2,
  ),
  genai_get_content_by_role: onMessages(
    (messages, [role]) => {
      const r = asString(role);
      const m = messages.find((x) => roleOf(x) === r);
      return m === undefined ? "" : contentOf(m);
    },
    2,
    2,
  ),
  genai_get_role: onMessages(
    (messages, [index]) => {
      const i = asInteger(index);
      return i === null || i < 0 || i >= messages.length ? "" : roleOf(messages[i]);
    },
    2,
    2,
  ),
  genai_message_roles: onMessages((messages) => messages.map(roleOf)),
  // The page: true when the response was cut short, "typically when finish_reason is 'length'".
  genai_is_truncated: fn(2, 2, ([, finishReason]) => {
    const reasons = Array.isArray(finishReason) ? finishReason : [finishReason];
    return reasons.some((r) => typeof r === "string" && (r === "length" || r === "max_tokens"));
  }),
};
