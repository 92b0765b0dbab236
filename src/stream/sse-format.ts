// Server-Sent Events wire format (WHATWG HTML, "server-sent events"): fields as `name: value` lines,
// a blank line ends a message, lines starting with `:` are comments.

export interface SseMessage {
  event?: string;
  data?: string;
  /** An empty string clears the client's last event id. */
  id?: string;
  retry?: number;
}

export function formatSseMessage(message: SseMessage): string {
  let out = '';
  if (message.event !== undefined) out += `event: ${singleLine(message.event)}\n`;
  // A value with line breaks is sent as several data lines; the client joins them with "\n".
  if (message.data !== undefined) for (const line of message.data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  if (message.id !== undefined) out += message.id === '' ? 'id\n' : `id: ${singleLine(message.id)}\n`;
  if (message.retry !== undefined) out += `retry: ${Math.max(0, Math.floor(message.retry))}\n`;
  return `${out}\n`;
}

export function formatSseComment(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

/** The first thing a client reads: its reconnection delay and a comment saying the stream is open. */
export function formatSsePreamble(retryMs: number): string {
  return `retry: ${Math.max(0, Math.floor(retryMs))}\n: connected\n\n`;
}

function singleLine(value: string): string {
  return value.replace(/[\r\n]/g, ' ');
}
