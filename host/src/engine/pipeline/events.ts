// A typed event bus for host events (tool.*, permission.required). Listeners run
// synchronously in registration order; a throwing listener is reported to `onListenerError`
// and never disturbs the call that emitted the event or the other listeners.
import type { EventBus, HostEventMap, HostEventType } from "../../contracts/events.ts";

export type { EventBus };

type Listener<T extends HostEventType> = (event: HostEventMap[T]) => void;

export function createEventBus(onListenerError: (type: HostEventType, error: unknown) => void): EventBus {
  const listeners = new Map<HostEventType, Set<(event: never) => void>>();
  return {
    on(type, listener) {
      let set = listeners.get(type);
      if (set === undefined) {
        set = new Set();
        listeners.set(type, set);
      }
      // Wrap so the same function registered twice is two registrations, each removable.
      const entry = (event: never) => listener(event);
      set.add(entry);
      return () => {
        set.delete(entry);
      };
    },
    emit(type, event) {
      const set = listeners.get(type);
      if (set === undefined) return;
      for (const listener of [...set]) {
        try {
          (listener as Listener<typeof type>)(event);
        } catch (error) {
          onListenerError(type, error);
        }
      }
    },
    listenerCount(type) {
      return listeners.get(type)?.size ?? 0;
    },
  };
}
