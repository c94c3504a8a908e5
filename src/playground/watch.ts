/**
 * "Watch this screen": the editor's query becomes an alert without a webhook (`POST
 * /xql/alerts`), and its events are shown as they come from the account's stream (`GET
 * /xql/alerts/stream`, read with fetch: an EventSource cannot send the API key). The pane
 * starts from the baseline (what matches at the latest closed bar) and keeps the matching set
 * current with each enter and exit. Stopping (or leaving the page) deletes the alert, so a free
 * account's one alert is not left behind.
 */
import { systemSleep } from "../clock.js";
import { messageOf } from "../errors.js";

interface Created {
  id: string;
  name: string;
  createdAt: string;
  matching: string[];
}

interface Delivery {
  alert: { id: string; name: string };
  timeframe: string;
  time: number;
  events: { symbol: string; kind: "enter" | "exit"; columns: Record<string, number | null> }[];
  delivery: string;
}

export interface WatchPage {
  /** The query in the editor. */
  query(): string;
  /** The API key pasted, or "" for none. */
  key(): string;
  /** True when the page runs offline (no service). */
  offline(): boolean;
}

const $ = <T extends HTMLElement>(id: string): T => {
  const el = document.getElementById(id);
  if (!el) throw new Error(`internal: #${id} missing from the page`);
  return el as T;
};

/** The first wait before asking again for a stream that dropped or was refused, and the longest. */
const RETRY_FIRST_MS = 1000;
const RETRY_MOST_MS = 60_000;

/** The service's message in a refusal (`{"error": …}`), else the status text. */
async function refusal(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === "string" && body.error !== "") return body.error;
  } catch {
    // Not the service's JSON (a proxy's page): the status says what there is.
  }
  return response.statusText || "no reason given";
}

const value = (v: number | null): string => (v === null ? "—" : Number.isInteger(v) ? String(v) : v.toPrecision(6));
const when = (ms: number): string => `${new Date(ms).toISOString().replace("T", " ").slice(0, 16)} UTC`;

/** Wires the Watch button and the pane of its events. */
export function installWatch(page: WatchPage): void {
  const button = $<HTMLButtonElement>("watch");
  const pane = $("watch-pane");
  const status = $("watch-status");
  const table = $<HTMLTableElement>("watch-events");
  let current:
    | {
        id: string;
        key: string;
        stream: AbortController;
        matching: Set<string>;
        /** While the alert's state is being read: the events that arrived meanwhile, to apply on top of it. */
        pending?: Delivery["events"];
      }
    | undefined;

  const say = (text: string, kind: "ok" | "error" | "" = ""): void => {
    pane.hidden = false;
    status.textContent = text;
    status.className = kind;
  };
  const describe = (name: string, matching: Set<string>): string => {
    const list = [...matching].sort();
    const shown = list.length <= 8 ? list.join(" ") : `${list.slice(0, 8).join(" ")} +${list.length - 8}`;
    return `Watching “${name}”: ${list.length} matching${list.length > 0 ? ` (${shown})` : ""}. Events appear as bars close.`;
  };

  async function start(): Promise<void> {
    const key = page.key();
    if (page.offline() || key === "") {
      say("Watching needs the service: paste an API key and untick Offline", "error");
      return;
    }
    button.disabled = true;
    try {
      const response = await fetch("/xql/alerts", {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: JSON.stringify({ query: page.query() }),
      });
      const body = (await response.json()) as Created & { error?: string | { message?: string } };
      if (response.status !== 201) {
        const error = typeof body.error === "string" ? body.error : (body.error?.message ?? `HTTP ${response.status}`);
        say(response.status === 403 ? `${error}: stop another watch, or delete an alert (GET /xql/alerts)` : `Cannot watch: ${error}`, "error");
        return;
      }
      const stream = new AbortController();
      current = { id: body.id, key, stream, matching: new Set(body.matching) };
      pane.dataset.alert = body.id;
      table.replaceChildren();
      table.createTHead().insertRow().append(...["bar", "event", "symbol", "values"].map((h) => Object.assign(document.createElement("th"), { textContent: h })));
      table.createTBody();
      say(describe(body.name, current.matching), "ok");
      pane.scrollIntoView({ block: "nearest" });
      button.textContent = "Stop watching";
      void follow(current, body.name);
    } catch (error) {
      say(`Cannot watch: ${messageOf(error)}`, "error");
    } finally {
      button.disabled = false;
    }
  }

  /**
   * Reads the stream until stopped, reconnecting from the last event seen when it drops. A
   * refusal says why and waits longer each time (1 s, doubling to a minute; a stream that opens
   * starts over from 1 s): a free account's third open stream (decisions §14) is refused until
   * another closes, and asking every second would only repeat the refusal. A key the service no
   * longer accepts (401, 403) stops the watch: retrying cannot help.
   */
  async function follow(watch: NonNullable<typeof current>, name: string): Promise<void> {
    let last: string | undefined;
    let wait = RETRY_FIRST_MS;
    while (!watch.stream.signal.aborted) {
      try {
        const headers: Record<string, string> = { Authorization: `Bearer ${watch.key}`, Accept: "text/event-stream" };
        if (last !== undefined) headers["Last-Event-ID"] = last;
        const response = await fetch("/xql/alerts/stream", { headers, signal: watch.stream.signal });
        if (!response.ok || !response.body) {
          const reason = await refusal(response);
          pane.dataset.streaming = "false";
          if (response.status === 401 || response.status === 403) {
            // The watch ends here: its alert cannot be deleted with a key the service refuses.
            if (current === watch) end();
            say(`Stopped watching: the service refused the key (${response.status} ${reason}); the alert stays until deleted with a valid key (DELETE /xql/alerts/${watch.id}).`, "error");
            return;
          }
          say(`The stream was refused (${response.status} ${reason}); trying again in ${Math.round(wait / 1000)} s…`, "error");
          // A stopped watch does not wait out its retry: the wait ends when its stream's signal aborts.
          await systemSleep(wait, watch.stream.signal);
          wait = Math.min(2 * wait, RETRY_MOST_MS);
          continue;
        }
        wait = RETRY_FIRST_MS;
        pane.dataset.streaming = "true";
        // The stream sends what is committed from now on; a bar that closed between the alert's
        // baseline (or the last connection) and now was delivered to nobody here. The alert's
        // state, read now that the stream is open, covers it; anything later comes on the stream.
        void catchUp(watch, name);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value: chunk, done } = await reader.read();
          if (done) break;
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const id = /^id: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (id !== undefined) last = id;
            if (data !== undefined) show(watch, name, JSON.parse(data) as Delivery);
          }
        }
      } catch (error) {
        if (watch.stream.signal.aborted) return;
        say(`Stream interrupted (${messageOf(error)}); reconnecting…`, "error");
      }
      pane.dataset.streaming = "false";
      await systemSleep(RETRY_FIRST_MS, watch.stream.signal);
    }
  }

  /** Sets the matching symbols to the alert's state as the service holds it, then re-applies events that raced the read. */
  async function catchUp(watch: NonNullable<typeof current>, name: string): Promise<void> {
    watch.pending = [];
    try {
      const response = await fetch(`/xql/alerts/${encodeURIComponent(watch.id)}`, { headers: { Authorization: `Bearer ${watch.key}` }, signal: watch.stream.signal });
      if (!response.ok) return;
      const state = (await response.json()) as { matching: string[] };
      watch.matching = new Set(state.matching);
      // Enter and exit are set operations applied in order: replaying those that came during the read is safe.
      for (const event of watch.pending) apply(watch, event);
      if (current === watch) say(describe(name, watch.matching), "ok");
    } catch {
      // Stopped, or the service went away: the stream's own retry says so.
    } finally {
      watch.pending = undefined;
    }
  }

  function apply(watch: NonNullable<typeof current>, event: Delivery["events"][number]): void {
    if (event.kind === "enter") watch.matching.add(event.symbol);
    else watch.matching.delete(event.symbol);
  }

  function show(watch: NonNullable<typeof current>, name: string, delivery: Delivery): void {
    // The stream carries every alert of the account: only this watch's events belong here.
    if (delivery.alert.id !== watch.id) return;
    const body = table.tBodies[0]!;
    for (const event of delivery.events) {
      apply(watch, event);
      watch.pending?.push(event);
      const row = body.insertRow(0);
      row.className = event.kind;
      row.insertCell().textContent = when(delivery.time);
      row.insertCell().textContent = event.kind;
      row.insertCell().textContent = event.symbol;
      row.insertCell().textContent = Object.entries(event.columns)
        .map(([k, v]) => `${k} ${value(v)}`)
        .join(", ");
    }
    say(describe(name, watch.matching), "ok");
  }

  function stop(leaving = false): void {
    const watch = current;
    if (!watch) return;
    end();
    // keepalive lets the delete go out while the page unloads.
    void fetch(`/xql/alerts/${encodeURIComponent(watch.id)}`, { method: "DELETE", headers: { Authorization: `Bearer ${watch.key}` }, keepalive: leaving }).catch(() => undefined);
    if (!leaving) say("Stopped watching; the alert is deleted.");
  }

  /** The pane and the button back to no watch. */
  function end(): void {
    current?.stream.abort();
    current = undefined;
    button.textContent = "Watch this screen";
    delete pane.dataset.alert;
    pane.dataset.streaming = "false";
  }

  button.addEventListener("click", () => (current ? stop() : void start()));
  window.addEventListener("pagehide", () => stop(true));
}
