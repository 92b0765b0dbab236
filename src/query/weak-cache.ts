// Values worked out once per key object (a resource, a grant's filter) and kept as long as the key lives.

/** The value kept under `key`, made by `make` the first time. */
export function cached<K extends object, V>(map: WeakMap<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = make();
    map.set(key, value);
  }
  return value;
}
