// Sessions toward remote MCP servers kept for the next call: opening one costs the handshake
// (initialize, then notifications/initialized) on top of the listing and the call, so an idle
// session is kept per key (the server and the auth identity it was opened with) and the next
// operation under that key takes it.
// Invariants: a session serves one operation at a time (it is taken out of the pool while in use,
// and a second concurrent operation opens its own); a session is put back only when its
// operation succeeded and nothing failed, aborted or was refused in it; an idle session is closed
// after `idleMs` and at most `maxIdle` wait per key; a reused session the server no longer knows
// (HTTP 404 on its session id) is closed and the operation runs once more on a new session, never
// more; a session of a server uninstalled while in use is closed when its operation ends;
// `idleMs` 0 turns reuse off (a new session per operation, closed after it); close()
// closes every idle session and later operations open none to keep.
import type { OperationLimits, Session } from "./session.ts";

export interface SessionPoolOptions {
  /** How long an idle session is kept (ms); 0: none is kept. */
  idleMs: number;
  /** Idle sessions kept per key at most (default 4). */
  maxIdle?: number;
}

export interface SessionPool {
  /** Runs `work` on an idle session of `key`, or on one `open` makes; see the invariants above. */
  run<T>(
    key: string,
    open: (limits: OperationLimits) => Promise<Session>,
    limits: OperationLimits,
    work: (session: Session) => Promise<T>,
  ): Promise<T>;
  /** Sessions opened and operations that reused one, since the pool was made. */
  stats(): { opened: number; reused: number; idle: number };
  /** Closes the idle sessions whose key `keep` refuses (a server uninstalled or changed). */
  retain(keep: (key: string) => boolean): Promise<void>;
  close(): Promise<void>;
}

interface Idle {
  session: Session;
  timer: NodeJS.Timeout;
}

export function createSessionPool(options: SessionPoolOptions): SessionPool {
  const maxIdle = options.maxIdle ?? 4;
  const idle = new Map<string, Idle[]>();
  let opened = 0;
  let reused = 0;
  let closed = false;
  /** The last retain's rule: a session of a server uninstalled while it was in use is closed on release. */
  let kept: (key: string) => boolean = () => true;

  const dispose = (session: Session) => session.close().catch((closing: unknown) => void closing);

  function take(key: string): Session | undefined {
    const list = idle.get(key);
    while (list !== undefined && list.length > 0) {
      const entry = list.pop() as Idle;
      clearTimeout(entry.timer);
      if (list.length === 0) idle.delete(key);
      if (entry.session.reusable()) return entry.session;
      void dispose(entry.session);
    }
    return undefined;
  }

  function release(key: string, session: Session): void {
    if (closed || options.idleMs <= 0 || !session.reusable() || !kept(key)) {
      void dispose(session);
      return;
    }
    session.idle();
    const list = idle.get(key) ?? [];
    const entry: Idle = {
      session,
      timer: setTimeout(() => {
        const at = list.indexOf(entry);
        if (at >= 0) list.splice(at, 1);
        if (list.length === 0 && idle.get(key) === list) idle.delete(key);
        void dispose(session);
      }, options.idleMs),
    };
    entry.timer.unref();
    list.push(entry);
    idle.set(key, list);
    while (list.length > maxIdle) {
      const oldest = list.shift() as Idle;
      clearTimeout(oldest.timer);
      void dispose(oldest.session);
    }
  }

  async function attempt<T>(
    key: string,
    session: Session,
    work: (session: Session) => Promise<T>,
  ): Promise<T> {
    try {
      const out = await work(session);
      release(key, session);
      return out;
    } catch (error) {
      await dispose(session);
      throw error;
    }
  }

  return {
    async run(key, open, limits, work) {
      const kept = take(key);
      if (kept === undefined) {
        opened++;
        return attempt(key, await open(limits), work);
      }
      reused++;
      kept.use(limits);
      try {
        return await attempt(key, kept, work);
      } catch (error) {
        if (!kept.expired() || limits.signal.aborted) throw error;
        // The server forgot the session (a restart, its own idle timeout): once on a new one.
        opened++;
        return attempt(key, await open(limits), work);
      }
    },
    stats: () => ({
      opened,
      reused,
      idle: [...idle.values()].reduce((n, list) => n + list.length, 0),
    }),
    async retain(keep) {
      kept = keep;
      const closing: Array<Promise<void>> = [];
      for (const [key, list] of idle) {
        if (keep(key)) continue;
        idle.delete(key);
        for (const entry of list) {
          clearTimeout(entry.timer);
          closing.push(dispose(entry.session));
        }
      }
      await Promise.all(closing);
    },
    async close() {
      closed = true;
      await this.retain(() => false);
    },
  };
}
