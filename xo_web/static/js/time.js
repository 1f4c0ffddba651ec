// Spans of time as every command says them (xo_core/text.py's duration): "42 s", "59 min 55 s", "2 h 5 min",
// "3 d 4 h". One formatter for the whole page, so a countdown, a challenge period and an offer's life read as
// the commands print them; tests/xo_web/test_durations.py runs both on the same numbers.

/** "42 s", "59 min 55 s", "2 h 5 min", "3 d 4 h": rounded up to the second, seconds alone below two minutes. */
export function duration(seconds) {
  const total = Math.max(Math.ceil(seconds), 0);
  const days = Math.floor(total / 86_400);
  const hours = Math.floor((total % 86_400) / 3_600);
  const minutes = Math.floor((total % 3_600) / 60);
  const rest = total % 60;
  if (days) return `${days} d ${hours} h`;
  if (hours) return `${hours} h ${minutes} min`;
  if (total >= 120) return `${minutes} min ${rest} s`;
  return `${total} s`;
}
