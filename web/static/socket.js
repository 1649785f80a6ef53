// A page's WebSocket (the table's /ws, a room's /ws/room; docs/WEB.md): it says hello when it
// opens, pings every 25 s, and after a close reconnects with a growing delay, unless the close
// code says reconnecting cannot help. The page gets every frame, and is told when the socket
// connects, waits to reconnect, or is closed for good (with the server's reason).

// Close codes after which reconnecting cannot help: a bad token or no hello, a bad origin, no
// game or a closed room, a frame too big, a room closed for being idle.
export const FATAL_CODES = new Set([4001, 4003, 4004, 4009, 4010]);
const PING_EVERY_MS = 25000;

export class PageSocket {
  /**
   * ``path``: the socket's path (``/ws``, ``/ws/room``); ``hello()``: the hello frame to send
   * (``null``: do not connect); ``onFrame(frame)``; ``onState(state, detail)`` with ``state``
   * ``"connecting"`` (the first connection), ``"reconnecting"`` (closed, waiting to connect
   * again) or ``"closed"`` (for good: ``detail`` is ``{code, reason}``, the reason of the
   * server's last error frame, if any).
   */
  constructor(path, { hello, onFrame, onState = () => {} }) {
    this.path = path;
    this.hello = hello;
    this.onFrame = onFrame;
    this.onState = onState;
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
      } else if (frame.t === "error") {
        this.lastError = frame.reason || null;
      }
      this.onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      clearInterval(this.pingTimer);
      if (FATAL_CODES.has(event.code)) {
        this.onState("closed", { code: event.code, reason: this.lastError });
        return;
      }
      this.attempt += 1;
      this.onState("reconnecting");
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
