/**
 * A small typed event emitter. Node's EventEmitter would throw on an
 * unhandled 'error' event, and its listeners are untyped.
 */
export class TypedEmitter<Events extends object> {
  private readonly listeners = new Map<keyof Events, Set<(payload: never) => void>>();

  /** Adds a listener; returns a function that removes it. */
  on<K extends keyof Events>(event: K, listener: (payload: Events[K]) => void): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener as (payload: never) => void);
    return () => set.delete(listener as (payload: never) => void);
  }

  /** Resolves with the next payload of `event`. */
  next<K extends keyof Events>(event: K): Promise<Events[K]> {
    return new Promise((resolve) => {
      const off = this.on(event, (payload) => {
        off();
        resolve(payload);
      });
    });
  }

  protected emit<K extends keyof Events>(event: K, payload: Events[K]): void {
    for (const listener of [...(this.listeners.get(event) ?? [])]) (listener as (p: Events[K]) => void)(payload);
  }
}
