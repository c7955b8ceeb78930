/**
 * An empty array whose elements are objects from the start. An array made
 * `[]` holds small integers until its first push changes its kind; code that
 * V8 optimized for arrays that had changed already (the ones of earlier
 * streams) is deoptimized by the next one at its first push: once per stream
 * for the framers' fragment lists.
 */
export function objectArray<T extends object>(): T[] {
  const list: object[] = [PROTO];
  list.pop();
  return list as T[];
}

const PROTO: object = Object.freeze({});
