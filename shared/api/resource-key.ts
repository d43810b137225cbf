// The key the watch cache and the type registry share for one resource: `<group>/<resource>`.

export function resourceKey(group: string, resource: string): string {
  return `${group}/${resource}`;
}
