// A page's WebSocket (the table's /ws, a room's /ws/room; docs/WEB.md): it says hello when it
// opens, pings every 25 s, and after a close reconnects with a growing delay, unless the close
// code says reconnecting cannot help. The page gets every frame, and is told when the socket
// connects, is open, waits to reconnect, or is closed for good (with the server's reason).

// Our refusals (4000-4999) cannot heal by reconnecting (a bad or expired token, no game or a
// closed room, a frame too big, a room closed for being idle, and any refusal this page does
// not know yet), except these: too many frames (a new socket starts afresh) and too many
// sockets from this address (others close). A socket refused before it opens (an HTTP 403
// or 429 to the upgrade) closes with 1006, as a lost network does: the page tries again.
const RETRY_REFUSALS = new Set([4008, 4029]);
// WebSocket's own codes that say the page's frames are wrong (a protocol error, unsupported
// or invalid data, a policy violation, a frame too big): sending them again cannot help.
const BROKEN = new Set([1002, 1003, 1007, 1008, 1009]);

/** Whether a close with ``code`` ends the socket for good (no reconnect). */
export function isFinal(code) {
  if (code >= 4000 && code <= 4999) return !RETRY_REFUSALS.has(code);
  return BROKEN.has(code);
}
const PING_EVERY_MS = 25000;

export class PageSocket {
  /**
   * ``path``: the socket's path (``/ws``, ``/ws/room``); ``hello()``: the hello frame to send
   * (``null``: do not connect); ``onFrame(frame)``; ``onState(state, detail)`` with ``state``
   * ``"connecting"`` (the first connection), ``"open"`` (welcomed), ``"reconnecting"`` (closed,
   * waiting to connect again) or ``"closed"`` (for good); ``detail`` of the last two is
   * ``{code, reason}``, the close code and the reason of the server's last error frame (or
   * null). The state is also the root element's ``data-socket`` (for scripts and tests).
   */
  constructor(path, { hello, onFrame, onState = () => {} }) {
    this.path = path;
    this.hello = hello;
    this.onFrame = onFrame;
    this.onState = (state, detail) => {
      document.documentElement.dataset.socket = state;
      onState(state, detail);
    };
    this.ws = null;
    this.attempt = 0;
    this.lastError = null;
    this.pingTimer = null;
    this.retryTimer = null;
  }

  /** Connects (again, at once). */
  start() {
    clearTimeout(this.retryTimer);
    const hello = this.hello();
    if (!hello) return;
    if (this.attempt === 0) this.onState("connecting");
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${scheme}//${location.host}${this.path}`);
    this.ws = ws;
    ws.addEventListener("open", () => ws.send(JSON.stringify(hello)));
    ws.addEventListener("message", (event) => {
      if (this.ws !== ws) return;
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame.t === "welcome") {
        this.attempt = 0;
        this.lastError = null;
        clearInterval(this.pingTimer);
        this.pingTimer = setInterval(() => this.send({ t: "ping" }), PING_EVERY_MS);
        this.onState("open");
      } else if (frame.t === "error") {
        this.lastError = frame.reason || null;
      }
      this.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      const detail = { code: event.code, reason: this.lastError };
      this.lastError = null;
      if (isFinal(event.code)) {
        this.onState("closed", detail);
        return;
      }
      this.attempt += 1;
      this.onState("reconnecting", detail);
      const delay = Math.min(10000, 400 * 2 ** Math.min(this.attempt - 1, 5));
      this.retryTimer = setTimeout(() => this.start(), delay * (0.8 + Math.random() * 0.4));
    });
  }

  /** Sends ``frame`` if the socket is open; whether it was sent. */
  send(frame) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(frame));
    return true;
  }

  /** Closes this socket and opens another at once (a new hello: a new token). */
  restart() {
    this.stop();
    this.attempt = 0;
    this.start();
  }

  /** Closes the socket for good (until ``start``). */
  stop() {
    clearTimeout(this.retryTimer);
    clearInterval(this.pingTimer);
    const ws = this.ws;
    this.ws = null;
    if (ws) ws.close();
  }
}
