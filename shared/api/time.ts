// metav1.Time on the wire: RFC 3339 in UTC with second precision ("2026-11-24T15:06:16Z").

/** `date` as metav1.Time serializes it. */
export function formatTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

let lastSecond = NaN;
let lastTimestamp = '';

/** The current time as metav1.Time. Every write asks for it; at second precision it changes once a second. */
export function nowTimestamp(): string {
  const second = Math.floor(Date.now() / 1000);
  if (second !== lastSecond) {
    lastSecond = second;
    lastTimestamp = formatTime(new Date(second * 1000));
  }
  return lastTimestamp;
}
