// The messages between the two halves of the same-shape floor (floor-gateway-proc.ts and
// floor-storage-proc.ts): a few '\n'-terminated text fields and then, where there is one, the
// object's bytes, which neither side re-encodes on the way.

export const FLOOR_SUBJECT = 'bench.floor.kv';

/** The first `n` '\n'-terminated fields of `data` as text, and the offset where the rest begins. */
export function headFields(data: Uint8Array, n: number): { fields: string[]; rest: number } {
  const fields: string[] = [];
  let start = 0;
  while (fields.length < n) {
    const nl = data.indexOf(10, start);
    if (nl < 0) break;
    fields.push(Buffer.from(data.buffer, data.byteOffset + start, nl - start).toString('latin1'));
    start = nl + 1;
  }
  return { fields, rest: start };
}
