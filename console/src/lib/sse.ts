// Reads a Server-Sent Events stream with fetch, so the Authorization header can be sent (EventSource
// cannot, and a token in the URL would leak into logs and history). Reconnects after a drop with
// Last-Event-ID so no event is missed, waiting the server's `retry:` interval.
import { authHeaders } from './api.ts';

export interface SseMessage {
  event: string;
  data: string;
  id: string;
}

export interface StreamHandlers {
  onMessage(message: SseMessage): void;
  onState(state: 'connecting' | 'open' | 'closed' | 'error', detail?: string): void;
}

export function openStream(url: string, handlers: StreamHandlers): () => void {
  const controller = new AbortController();
  let lastEventId = '';
  let retryMs = 3000;
  let stopped = false;

  async function readOnce(): Promise<void> {
    handlers.onState('connecting');
    const headers: Record<string, string> = { accept: 'text/event-stream', ...authHeaders() };
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await fetch(url, { headers, signal: controller.signal, credentials: 'omit' });
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      let detail = `HTTP ${response.status}`;
      try {
        detail = JSON.parse(text).errors?.[0]?.detail ?? detail;
      } catch {
        // not JSON
      }
      // 4xx will not heal by retrying.
      if (response.status >= 400 && response.status < 500) {
        stopped = true;
      }
      throw new Error(detail);
    }
    handlers.onState('open');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    let event = '';
    let data: string[] = [];
    let id: string | null = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let newline: number;
      while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
        if (line === '') {
          if (id !== null) lastEventId = id;
          if (data.length > 0)
            handlers.onMessage({ event: event || 'message', data: data.join('\n'), id: id ?? lastEventId });
          event = '';
          data = [];
          id = null;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const val = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'event') event = val;
        else if (field === 'data') data.push(val);
        else if (field === 'id') id = val;
        else if (field === 'retry' && /^\d+$/.test(val)) retryMs = Number(val);
      }
    }
  }

  (async () => {
    while (!stopped && !controller.signal.aborted) {
      try {
        await readOnce();
        if (!controller.signal.aborted) handlers.onState('error', 'The stream ended; reconnecting');
      } catch (error) {
        if (controller.signal.aborted) break;
        handlers.onState('error', error instanceof Error ? error.message : String(error));
      }
      if (stopped) break;
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
    handlers.onState('closed');
  })();

  return () => {
    stopped = true;
    controller.abort();
  };
}
